#!/usr/bin/env bash
# Installs what building and testing ittcollector needs, from Debian's
# packages only, and only what is missing. Safe to run any number of times.
set -euo pipefail

packages=(
  bazel-bootstrap   # Bazel 4.2.3, WORKSPACE mode
  g++
  pkg-config
  libabsl-dev
  libzstd-dev
  libgtest-dev
  libgmock-dev
  libbenchmark-dev
  libtbb-dev        # real-client tests: oneTBB embeds an ITT static part
  libomp-dev        # real-client tests: LLVM OpenMP embeds an ITT static part
  clang             # OpenMP test programs and libFuzzer targets
  libclang-rt-14-dev
  zlib1g-dev        # itt-dump perfetto: compressed packet blocks
  libelf-dev        # itt-dump: function names from ELF symbol tables
  libdnnl-dev       # perf-map test: oneDNN's JIT kernels report through the JIT API
  protobuf-compiler # tests: protoc --decode checks the Perfetto export
  clang-format-14   # tools/ci_extra.sh clang_format: the tree follows .clang-format
  git               # tools/ci_extra.sh clang_format lists the tracked files
  openmpi-bin       # MPI test: mpirun
  libopenmpi-dev    # MPI test: mpicc
  liblttng-ust-dev  # benchmarks: the LTTng-UST peer (tools/run_benchmarks.sh)
  lttng-tools
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "setup: all packages present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
