#!/usr/bin/env bash
# README command 2: installs what is missing (tools/setup.sh --tests: the
# test-only packages and DuckDB too), runs the whole test suite, and ends
# with one line "N passed, N failed" counting test cases.
set -uo pipefail
cd "$(dirname "$0")/.."

bash tools/setup.sh --tests || { echo "0 passed, 1 failed"; exit 1; }

status=0
log=$(mktemp)
bazel test //... 2>&1 | tee "$log"
bazel_rc=${PIPESTATUS[0]}
# Exit code 4 means "no test targets"; anything else non-zero is a failure.
if [[ $bazel_rc -ne 0 ]]; then status=1; fi

# Extra CI steps (sanitizer runs, fuzzing) live in tools/ci_extra.sh; each
# step prints "STEP <name> PASSED|FAILED", and the script fails if one
# did. Its output goes to a log of its own: a failed step's log tail holds
# result lines of its own Bazel runs, which are not this run's.
extra_passed=0
extra_failed=0
if [[ -f tools/ci_extra.sh ]]; then
  extra_log=$(mktemp)
  bash tools/ci_extra.sh 2>&1 | tee "$extra_log"
  extra_rc=${PIPESTATUS[0]}
  extra_passed=$(grep -c '^STEP .* PASSED$' "$extra_log" || true)
  extra_failed=$(grep -c '^STEP .* FAILED$' "$extra_log" || true)
  # It failed without saying which step (it died early): one failure.
  if [[ $extra_rc -ne 0 && $extra_failed -eq 0 ]]; then extra_failed=1; fi
  if [[ $extra_failed -ne 0 ]]; then status=1; fi
  rm -f "$extra_log"
fi

# Count test cases from the JUnit XML Bazel keeps per target (a sharded
# target keeps one per shard, shard_K_of_N/test.xml): a case with a
# <failure> or <error> failed (once, however many assertions failed), one
# with <skipped> is counted apart, the others passed. A target that failed
# without a failing case in its XML (crash, timeout) counts as one.
# Prints "cases failed skipped" for the XML files given.
count_cases() {
  python3 - "$@" <<'PY'
import sys
import xml.etree.ElementTree as ET
cases = failed = skipped = 0
for path in sys.argv[1:]:
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        continue
    for case in root.iter("testcase"):
        cases += 1
        if case.find("failure") is not None or case.find("error") is not None:
            failed += 1
        elif case.find("skipped") is not None:
            skipped += 1
print(cases, failed, skipped)
PY
}
testlogs=$(bazel info bazel-testlogs 2>/dev/null)
passed=0
failed=0
skipped=0
while read -r target result; do
  dir="$testlogs/${target#//}"
  dir="${dir/://}"
  xmls=("$dir/test.xml")
  [[ -f "${xmls[0]}" ]] || xmls=("$dir"/shard_*_of_*/test.xml)
  read -r cases fails skips < <(count_cases "${xmls[@]}")
  if [[ "$result" == PASSED ]]; then
    if ((cases == 0)); then cases=1; fi
    passed=$((passed + cases - fails - skips))
    skipped=$((skipped + skips))
  elif [[ "$result" == FAILED ]]; then
    if ((fails == 0)); then fails=1; fi
    passed=$((passed + (cases > fails + skips ? cases - fails - skips : 0)))
    failed=$((failed + fails))
    skipped=$((skipped + skips))
  else
    # Did not run (FAILED TO BUILD, TIMEOUT, NO STATUS): any XML is stale.
    failed=$((failed + 1))
  fi
done < <(grep -E '^//[^ ]+ +(\(cached\) )?(PASSED|FAILED|TIMEOUT|FLAKY|NO STATUS|FAILED TO BUILD)' "$log" |
           sed -E 's/\(cached\) //; s/ +in [0-9.]+s$//' |
           awk '{target = $1; $1 = ""; sub(/^ +/, ""); print target, $0}')

passed=$((passed + extra_passed))
failed=$((failed + extra_failed))
if [[ $bazel_rc -ne 0 && $failed -eq 0 ]]; then failed=1; fi
rm -f "$log"
# (Skipped cases: those whose tools are missing, as DuckDB's without the
# npm registry; a line of their own, before the last.)
if ((skipped > 0)); then echo "${skipped} test cases skipped (a tool they need is missing)"; fi
echo "${passed} passed, ${failed} failed"
exit $status
