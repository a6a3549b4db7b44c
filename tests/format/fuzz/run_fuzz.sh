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
cxx="${CXX_FUZZ:-clang++-14}"
work="$(mktemp -d "${TMPDIR:-/tmp}/ittc_fuzz.XXXXXX")"

"$cxx" -std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined \
  -fno-sanitize-recover=undefined -fno-omit-frame-pointer \
  -I"$root" \
  "$root"/format/*.cc \
  "$root"/tests/format/fuzz/trace_reader_fuzzer.cc \
  -o "$work/trace_reader_fuzzer" \
  -lzstd -labsl_status -labsl_statusor -labsl_str_format_internal \
  -labsl_strings -labsl_strings_internal -labsl_int128 \
  -labsl_raw_logging_internal -labsl_throw_delegate

mkdir "$work/corpus"
cp "$root"/tests/format/fuzz/corpus/* "$work/corpus/"

cd "$work"
if ./trace_reader_fuzzer -max_total_time="$budget" -max_len=65536 \
     -print_final_stats=1 corpus; then
  echo "run_fuzz: no crash in ${budget}s ($(ls corpus | wc -l) corpus inputs)"
  rm -rf "$work"
else
  status=$?
  echo "run_fuzz: FAILED (status $status); inputs and binary kept in $work" >&2
  exit 1
fi
