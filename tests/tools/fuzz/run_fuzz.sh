#!/bin/sh
# Builds the itt-dump fuzz target (every verb on the input as a trace) with
# Debian's clang (libFuzzer, ASan, UBSan) and runs it for a fixed budget on
# a copy of the committed seed corpus. Exits non-zero if the fuzzer finds a
# crash, a leak, UB or a timeout.
#
#   tests/tools/fuzz/run_fuzz.sh [SECONDS]     (default 20)
#
# A crash input is left in the temporary directory and its path printed.
set -eu

budget="${1:-20}"
root="$(cd "$(dirname "$0")/../../.." && pwd)"
. "$root/tests/fuzz/fuzz_lib.sh"
work="$(mktemp -d "${TMPDIR:-/tmp}/itt_dump_fuzz.XXXXXX")"

build_fuzzer "$root" "$work/itt_dump_fuzzer" \
  "$root"/format/*.cc \
  "$root"/tools/itt_dump/*.cc \
  "$root"/tools/itt_dump/model/*.cc \
  "$root"/tools/itt_dump/perfetto/*.cc \
  "$root"/tests/tools/dump_runner.cc \
  "$root"/tests/tools/fuzz/itt_dump_fuzzer.cc
run_fuzzer "$work/itt_dump_fuzzer" "$root/tests/tools/fuzz/corpus" "$budget" \
  -timeout=10 -rss_limit_mb=2048
