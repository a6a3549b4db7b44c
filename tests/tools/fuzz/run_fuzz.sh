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

# The parquet verb's metadata structs come from Debian's thrift-compiler,
# as in tools/itt_dump/parquet/BUILD.
gen="$work/gen/tools/itt_dump/parquet"
mkdir -p "$gen"
thrift --gen cpp:no_skeleton -out "$gen" "$root/tools/itt_dump/parquet/parquet_subset.thrift"
fuzz_flags="$fuzz_flags -I$work/gen"
fuzz_libs="$fuzz_libs -lthrift"

build_fuzzer "$root" "$work/itt_dump_fuzzer" \
  "$root"/format/*.cc \
  "$root"/tools/itt_dump/*.cc \
  "$root"/tools/itt_dump/model/*.cc \
  "$root"/tools/itt_dump/perfetto/*.cc \
  "$root"/tools/itt_dump/parquet/*.cc \
  "$gen"/parquet_subset_types.cpp \
  "$root"/tests/tools/dump_runner.cc \
  "$root"/tests/tools/fuzz/itt_dump_fuzzer.cc
run_fuzzer "$work/itt_dump_fuzzer" "$root/tests/tools/fuzz/corpus" "$budget" \
  -timeout=10 -rss_limit_mb=2048
