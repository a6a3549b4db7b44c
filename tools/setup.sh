#!/usr/bin/env bash
# Installs what is missing, from Debian's packages only (and npm for DuckDB,
# with --tests). Safe to run any number of times.
#
#   tools/setup.sh           what building and running the collector,
#                            itt-dump and the demo need (tools/quickstart.sh)
#   tools/setup.sh --tests   that, and what the tests, benchmarks and CI
#                            steps need besides (tools/test.sh): test
#                            frameworks, real ITT clients, Open MPI, LTTng,
#                            protoc, clang, and DuckDB's Node.js client in
#                            third_party/duckdb/node_modules
set -euo pipefail
cd "$(dirname "$0")/.."

tests=0
if [[ "${1:-}" == "--tests" ]]; then tests=1; fi

packages=(
  bazel-bootstrap   # Bazel 4.2.3, WORKSPACE mode
  g++
  pkg-config
  libabsl-dev
  libzstd-dev
  zlib1g-dev        # itt-dump perfetto: compressed packet blocks
  libelf-dev        # itt-dump: function names from ELF symbol tables
  thrift-compiler   # itt-dump parquet: the metadata structs (tools/itt_dump/parquet)
  libthrift-dev     # itt-dump parquet: Thrift's compact protocol
  libboost-dev      # Thrift's headers include Boost's
)
test_packages=(
  libgtest-dev
  libgmock-dev
  libbenchmark-dev
  libtbb-dev        # real-client tests: oneTBB embeds an ITT static part
  libomp-dev        # real-client tests: LLVM OpenMP embeds an ITT static part
  clang             # OpenMP test programs and libFuzzer targets
  libclang-rt-14-dev
  libdnnl-dev       # perf-map test: oneDNN's JIT kernels report through the JIT API
  protobuf-compiler # tests: protoc --decode checks the Perfetto export
  clang-format-14   # tools/ci_extra.sh clang_format: the tree follows .clang-format
  git               # tools/ci_extra.sh clang_format lists the tracked files
  openmpi-bin       # MPI tests: mpirun
  libopenmpi-dev    # MPI tests: mpicc
  liblttng-ust-dev  # benchmarks: the LTTng-UST peer (tools/run_benchmarks.sh)
  lttng-tools
)
if ((tests)); then
  packages+=("${test_packages[@]}")
  # itt-dump parquet's tests query with DuckDB from Node.js.
  if ! command -v node > /dev/null; then packages+=(nodejs); fi
  if ! command -v npm > /dev/null; then packages+=(npm); fi
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "setup: all packages present"
else
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if ((tests)); then
  # DuckDB for the parquet tests (tests/tools/parquet), at the version
  # third_party/duckdb/package.json pins. Without the registry the tests
  # say so and are skipped; nothing else depends on it.
  if [[ ! -d third_party/duckdb/node_modules/@duckdb/node-api ]]; then
    echo "setup: installing @duckdb/node-api into third_party/duckdb"
    (cd third_party/duckdb && npm install --no-audit --no-fund --loglevel=error) ||
      echo "setup: npm could not install @duckdb/node-api; the DuckDB tests will be skipped"
  fi
fi
