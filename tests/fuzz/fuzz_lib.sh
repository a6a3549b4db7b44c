# Shared by the libFuzzer targets' run_fuzz.sh scripts (sourced, POSIX sh).
# Builds a fuzz target with Debian's clang (libFuzzer, ASan, UBSan),
# compiling its sources on every CPU, and runs it for a budget on a copy of
# a committed seed corpus.

fuzz_cxx="${CXX_FUZZ:-clang++-14}"
fuzz_flags="-std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined
  -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
fuzz_libs="-lzstd -labsl_status -labsl_statusor -labsl_cord -labsl_cord_internal
  -labsl_str_format_internal -labsl_strings -labsl_strings_internal -labsl_int128
  -labsl_raw_logging_internal -labsl_throw_delegate
  -labsl_raw_hash_set -labsl_hash -labsl_city -labsl_low_level_hash -lz -lelf -pthread"

# build_fuzzer ROOT OUT SOURCE...: compiles each source to an object in
# OUT's directory, as many at once as there are CPUs, then links OUT.
build_fuzzer() {
  root="$1"
  out="$2"
  shift 2
  objs="$(dirname "$out")/objs"
  mkdir -p "$objs"
  # One object per source, named after its path so equal base names differ.
  for src in "$@"; do
    printf '%s\n' "$src"
  done | xargs -P "$(nproc)" -I{} sh -c '
    src="$1"; objs="$2"; root="$3"; shift 3
    obj="$objs/$(printf "%s" "${src#$root/}" | tr / _).o"
    exec "$@" -I"$root" -c "$src" -o "$obj"' sh {} "$objs" "$root" "$fuzz_cxx" $fuzz_flags
  # shellcheck disable=SC2086  # flag lists are meant to split
  "$fuzz_cxx" $fuzz_flags "$objs"/*.o -o "$out" $fuzz_libs
}

# run_fuzzer BINARY CORPUS BUDGET [LIBFUZZER_FLAG...]: runs the target for
# BUDGET seconds on a copy of CORPUS's files in BINARY's directory. Returns
# non-zero if it found a crash, a leak, UB or a timeout; the inputs and the
# binary are then kept and their place printed, else removed.
run_fuzzer() {
  bin="$1"
  corpus="$2"
  budget="$3"
  shift 3
  work="$(dirname "$bin")"
  mkdir "$work/corpus"
  cp "$corpus"/* "$work/corpus/"
  if (cd "$work" && "./$(basename "$bin")" -max_total_time="$budget" -max_len=65536 \
        -print_final_stats=1 "$@" corpus); then
    echo "run_fuzz: no crash in ${budget}s ($(ls "$work/corpus" | wc -l) corpus inputs)"
    rm -rf "$work"
  else
    status=$?
    echo "run_fuzz: FAILED (status $status); inputs and binary kept in $work" >&2
    return 1
  fi
}
