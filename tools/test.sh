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
# step prints "STEP <name> PASSED|FAILED".
extra_passed=0
extra_failed=0
if [[ -f tools/ci_extra.sh ]]; then
  bash tools/ci_extra.sh 2>&1 | tee -a "$log"
  extra_passed=$(grep -c '^STEP .* PASSED$' "$log" || true)
  extra_failed=$(grep -c '^STEP .* FAILED$' "$log" || true)
  if [[ $extra_failed -ne 0 ]]; then status=1; fi
fi

# Count test cases from the JUnit XML Bazel keeps per target (a sharded
# target keeps one per shard, shard_K_of_N/test.xml). A target that failed
# without a failing case in its XML (crash, timeout) counts as one.
testlogs=$(bazel info bazel-testlogs 2>/dev/null)
passed=0
failed=0
while read -r target result; do
  dir="$testlogs/${target#//}"
  dir="${dir/://}"
  xmls=("$dir/test.xml")
  [[ -f "${xmls[0]}" ]] || xmls=("$dir"/shard_*_of_*/test.xml)
  cases=0
  fails=0
  for xml in "${xmls[@]}"; do
    [[ -f "$xml" ]] || continue
    cases=$((cases + $(grep -o '<testcase ' "$xml" | wc -l)))
    fails=$((fails + $(grep -c '<failure' "$xml" || true)))
  done
  if [[ "$result" == PASSED ]]; then
    if ((cases == 0)); then cases=1; fi
    passed=$((passed + cases - fails))
  elif [[ "$result" == FAILED ]]; then
    if ((fails == 0)); then fails=1; fi
    passed=$((passed + (cases > fails ? cases - fails : 0)))
    failed=$((failed + fails))
  else
    # Did not run (build failure, timeout, no status): any XML is stale.
    failed=$((failed + 1))
  fi
done < <(grep -E '^//[^ ]+ +(\(cached\) )?(PASSED|FAILED|TIMEOUT|FLAKY|NO STATUS|FAILED TO BUILD)' "$log" |
           sed -E 's/\(cached\) //; s/ +in [0-9.]+s$//' |
           awk '{print $1, $2}')

passed=$((passed + extra_passed))
failed=$((failed + extra_failed))
if [[ $bazel_rc -ne 0 && $failed -eq 0 ]]; then failed=1; fi
rm -f "$log"
echo "${passed} passed, ${failed} failed"
exit $status
