#!/bin/bash
# Fails when stub/tools/gen_itt_api.py would write files that differ from
# the committed ones (edit its table, then run it from the repository root).
set -euo pipefail
out="${TEST_TMPDIR:-$(mktemp -d)}/generated"
python3 stub/tools/gen_itt_api.py --out-dir "$out"
status=0
for f in stub/include/ittnotify_api.inc stub/src/itt_api_list.inc; do
  if ! diff -u "$f" "$out/$f"; then
    echo "$f differs from what stub/tools/gen_itt_api.py writes" >&2
    status=1
  fi
done
exit $status
