#!/bin/sh
# Builds the trace reader fuzz target with Debian's clang (libFuzzer, ASan,
# UBSan) and runs it for a fixed budget on a copy of the committed seed
# corpus. Exits non-zero if the fuzzer finds a crash, a leak or UB.
#
#   tests/format/fuzz/run_fuzz.sh [SECONDS]     (default 20)
#
# New inputs the run discovers stay in the temporary directory; a crash
# input is left there and its path printed.
set -eu

budget="${1:-20}"
root="$(cd "$(dirname "$0")/../../.." && pwd)"
. "$root/tests/fuzz/fuzz_lib.sh"
work="$(mktemp -d "${TMPDIR:-/tmp}/ittc_fuzz.XXXXXX")"

build_fuzzer "$root" "$work/trace_reader_fuzzer" \
  "$root"/format/*.cc "$root"/tests/format/fuzz/trace_reader_fuzzer.cc
run_fuzzer "$work/trace_reader_fuzzer" "$root/tests/format/fuzz/corpus" "$budget"
