#!/usr/bin/env bash
# CI steps beyond `bazel test //...` (run by tools/test.sh after it). Each
# step prints exactly one line "STEP <name> PASSED" or "STEP <name> FAILED";
# its own output goes to a log printed only when it fails. Exits 1 once a
# step failed.
#
#   asan_ubsan       format, collector and reliability tests, and
#                    itt-dump's verbs on the benchmark and sample traces,
#                    damaged files, its command line, the end-to-end and
#                    golden outputs (bench_traces_test, damage_test,
#                    cli_test, e2e_test, golden_test), under AddressSanitizer +
#                    UndefinedBehaviorSanitizer (the test programs and the
#                    collector are built with them too)
#   tsan             every test tagged "concurrency" under ThreadSanitizer
#   format_fuzz      the trace reader's libFuzzer target on its committed
#                    corpus for a fixed budget (tests/format/fuzz/run_fuzz.sh)
#   itt_dump_fuzz    itt-dump's fuzz target likewise (tests/tools/fuzz/)
#   itt_dump_corpus  both fuzz corpora through every itt-dump verb, with
#                    itt-dump built under ASan + UBSan
#   clang_format     every tracked C/C++ file follows the repository's
#                    .clang-format (clang-format-14; generated *.inc excluded)
#
# Sanitizer builds use their own Bazel output bases (under
# ~/.cache/bazel/ittc-<name>): they neither evict the default build's cache
# nor each other's (ASan and TSan both build in k8-dbg), and they keep their
# caches between runs. Their servers are shut down at the end.
#
#   tools/ci_extra.sh [step...]      (default: every step)
#   ITTC_FUZZ_SECONDS=N              fuzzing budget per target (default 30)
#   ITTC_TEST_RUNS=N                 run each sanitizer test N times (default
#                                    1; docs/RELIABILITY.md's stress check
#                                    uses 3 with both cores busy)
#   ITTC_BAZEL_BASES=DIR             where the sanitizer output bases live
#                                    (default ~/.cache/bazel): a second
#                                    checkout running at the same time gives
#                                    its own, so neither restarts the other's
#                                    Bazel server
set -uo pipefail
cd "$(dirname "$0")/.."

fuzz_seconds="${ITTC_FUZZ_SECONDS:-30}"
test_runs=(--runs_per_test="${ITTC_TEST_RUNS:-1}")
# Repeated runs are for flakiness: never answer them from the cache.
if [[ ${ITTC_TEST_RUNS:-1} != 1 ]]; then test_runs+=(--nocache_test_results); fi
logs="$(mktemp -d "${TMPDIR:-/tmp}/ittc_ci_extra.XXXXXX")"
cache_root="${ITTC_BAZEL_BASES:-${HOME:-/root}/.cache/bazel}"
used_bases=()

# Bazel on a sanitizer's own output base; no convenience symlinks, so the
# workspace's bazel-bin keeps pointing at the default build.
sanitizer_bazel() {
  local name="$1"
  shift
  local base="$cache_root/ittc-$name"
  used_bases+=("$base")
  bazel --output_base="$base" "$1" --symlink_prefix=/ "${@:2}"
}

# run_step NAME COMMAND...: runs the command with output to a log, prints
# the STEP line, and the log's tail if it failed.
run_step() {
  local name="$1"
  shift
  local log="$logs/$name.log"
  local start=$SECONDS
  if "$@" >"$log" 2>&1; then
    echo "STEP $name PASSED"
  else
    echo "--- $name: last 60 lines of $log" >&2
    tail -n 60 "$log" >&2
    echo "STEP $name FAILED"
    any_failed=1
  fi
  echo "    ($name took $((SECONDS - start)) s)" >&2
}

# real_clients_test's program is built by clang in a genrule that cannot take
# Bazel's sanitizer flags; reliability's static_parts_test covers the same
# runtimes with a GCC-built program under the sanitizers. mpi_test's program
# is built by mpicc in a genrule likewise (an uninstrumented program cannot
# load the instrumented collector). fork_test, fork_tree_test and fork_state_test need a
# fork-safe allocator, which GCC 12's ASan is not (tests/reliability/BUILD).
# Of itt-dump's tests, leaks_test's program leaks on purpose (it aborts
# under ASan) and multi_process_test ran past 900 s there: both left out.
step_asan_ubsan() {
  # (Their timeouts: .bazelrc's test:asan.)
  sanitizer_bazel asan test --config=asan --config=ubsan --build_tests_only "${test_runs[@]}" -- \
    //tests/format/... //tests/collector/... //tests/reliability/... //tests/tools:bench_traces_test \
    //tests/tools:cli_test //tests/tools:damage_test //tests/tools:e2e_test //tests/tools:golden_test \
    -//tests/collector:real_clients_test -//tests/collector:mpi_test \
    -//tests/reliability:fork_test -//tests/reliability:fork_flushers_test \
    -//tests/reliability:fork_tree_test -//tests/reliability:fork_state_test
}

# tests/reliability/tsan.supp explains each suppression.
step_tsan() {
  local supp="$PWD/tests/reliability/tsan.supp"
  local options="halt_on_error=1:second_deadlock_stack=1:suppressions=$supp"
  # The suppressions file is no Bazel input: its hash in the environment
  # makes an edit to it invalidate cached results.
  sanitizer_bazel tsan test --config=tsan --build_tests_only --test_tag_filters=concurrency "${test_runs[@]}" \
    --test_env=TSAN_OPTIONS="$options" --test_env=ITTC_TSAN_SUPP="$(sha1sum <"$supp")" \
    -- //tests/... -//tests/collector:real_clients_test
}

step_format_fuzz() {
  sh tests/format/fuzz/run_fuzz.sh "$fuzz_seconds"
}

step_itt_dump_fuzz() {
  sh tests/tools/fuzz/run_fuzz.sh "$fuzz_seconds"
}

# Every corpus input through every verb of an ASan+UBSan itt-dump: the exit
# statuses for a readable, truncated, corrupt, foreign or unreadable input
# (0-4, docs/ITT_DUMP.md) are fine; a sanitizer report, a signal or another
# status is not.
step_itt_dump_corpus() {
  sanitizer_bazel asan build --config=asan --config=ubsan //tools:itt-dump || return 1
  local dump
  dump="$(sanitizer_bazel asan info --config=asan --config=ubsan bazel-bin)/tools/itt-dump"
  local failures=0 runs=0 input verb status
  for input in tests/format/fuzz/corpus/* tests/tools/fuzz/corpus/*; do
    [[ -f "$input" ]] || continue
    for verb in info text stats chrome perfetto parquet leaks perf-map vtune-csv verify; do
      runs=$((runs + 1))
      local out=()
      [[ $verb == vtune-csv || $verb == perf-map || $verb == parquet ]] && out=(-o "$logs/$verb")
      [[ $verb == perfetto ]] && out=(-o "$logs/out.pftrace")
      ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1 \
        timeout 60 "$dump" "$verb" "$input" "${out[@]}" >/dev/null 2>"$logs/corpus.err"
      status=$?
      if ((status > 4)) || grep -qE 'AddressSanitizer|LeakSanitizer|runtime error' "$logs/corpus.err"; then
        echo "itt-dump $verb $input: status $status"
        head -n 20 "$logs/corpus.err"
        failures=$((failures + 1))
      fi
    done
  done
  echo "$runs runs, $failures failed"
  ((runs > 0 && failures == 0))
}

# Tracked files only (git ls-files): build outputs and scratch files are not
# the tree's.
step_clang_format() {
  local files
  mapfile -t files < <(git ls-files -- '*.c' '*.cc' '*.h')
  ((${#files[@]} > 0)) || return 1
  echo "${#files[@]} files"
  clang-format-14 --dry-run --Werror "${files[@]}"
}

any_failed=0  # exit status: 1 once a step failed
steps=("$@")
if ((${#steps[@]} == 0)); then
  steps=(clang_format asan_ubsan tsan format_fuzz itt_dump_fuzz itt_dump_corpus)
fi
total_start=$SECONDS
for step in "${steps[@]}"; do
  if ! declare -F "step_$step" >/dev/null; then
    echo "STEP $step FAILED"
    echo "    (no such step: $step)" >&2
    any_failed=1
    continue
  fi
  run_step "$step" "step_$step"
done
for base in $(printf '%s\n' "${used_bases[@]}" | sort -u); do
  bazel --output_base="$base" shutdown >/dev/null 2>&1
done
echo "    (ci_extra took $((SECONDS - total_start)) s)" >&2
rm -rf "$logs"
exit "$any_failed"
