#!/usr/bin/env bash
# README command 1: installs what is missing for the collector, itt-dump and
# the demo (tools/setup.sh without --tests: none of the test-only packages),
# builds those three, runs the instrumented demo (several threads: tasks,
# frames, a counter, markers) under the collector, and prints where the
# trace is and itt-dump's summary of it.
set -euo pipefail
cd "$(dirname "$0")/.."

bash tools/setup.sh
bazel build //collector:libittcollector.so //tools:itt-dump //tools/demo:itt_demo
bin=$(bazel info bazel-bin)

collector="$bin/collector/libittcollector.so"
demo="$bin/tools/demo/itt_demo"
dump="$bin/tools/itt-dump"

if [[ ! -x "$demo" ]]; then
  echo "quickstart: the demo program is not built yet; nothing more to run"
  exit 0
fi

out_dir=${QUICKSTART_OUT:-$PWD/quickstart-out}
mkdir -p "$out_dir"
trace="$out_dir/itt_demo-%p.itt"

if [[ -f "$collector" ]]; then
  echo "quickstart: running the demo under $collector"
  INTEL_LIBITTNOTIFY64="$collector" ITTC_OUTPUT="$trace" "$demo"
else
  echo "quickstart: collector not built yet; running the demo without it"
  "$demo"
  exit 0
fi

latest=$(ls -t "$out_dir"/itt_demo-*.itt 2>/dev/null | head -n 1 || true)
if [[ -z "$latest" ]]; then
  echo "quickstart: no trace was written" >&2
  exit 1
fi
echo
echo "trace: $latest"
if [[ -x "$dump" ]]; then
  echo
  "$dump" info "$latest"
  echo
  "$dump" stats "$latest"
else
  echo "quickstart: itt-dump not built yet"
fi
