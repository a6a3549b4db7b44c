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
cxx="${CXX_FUZZ:-clang++-14}"
work="$(mktemp -d "${TMPDIR:-/tmp}/itt_dump_fuzz.XXXXXX")"

"$cxx" -std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined \
  -fno-sanitize-recover=undefined -fno-omit-frame-pointer \
  -I"$root" \
  "$root"/format/*.cc \
  "$root"/tools/itt_dump/*.cc \
  "$root"/tools/itt_dump/model/*.cc \
  "$root"/tools/itt_dump/perfetto/*.cc \
  "$root"/tests/tools/dump_runner.cc \
  "$root"/tests/tools/fuzz/itt_dump_fuzzer.cc \
  -o "$work/itt_dump_fuzzer" \
  -lzstd -labsl_status -labsl_statusor -labsl_str_format_internal \
  -labsl_strings -labsl_strings_internal -labsl_int128 \
  -labsl_raw_logging_internal -labsl_throw_delegate \
  -labsl_raw_hash_set -labsl_hash -labsl_city -labsl_low_level_hash -lz -lelf -pthread

mkdir "$work/corpus"
cp "$root"/tests/tools/fuzz/corpus/* "$work/corpus/"

cd "$work"
if ./itt_dump_fuzzer -max_total_time="$budget" -max_len=65536 -timeout=10 \
     -rss_limit_mb=2048 -print_final_stats=1 corpus; then
  echo "run_fuzz: no crash in ${budget}s ($(ls corpus | wc -l) corpus inputs)"
  rm -rf "$work"
else
  status=$?
  echo "run_fuzz: FAILED (status $status); inputs and binary kept in $work" >&2
  exit 1
fi
