#!/usr/bin/env bash
# Installs ittcollector under PREFIX:
#   lib/libittcollector.so  lib/libittnotify.a  lib/libjitprofiling.a
#   include/ittnotify.h  include/jitprofiling.h (and what they include)
#   bin/itt-dump  lib/pkgconfig/ittcollector.pc
# so that a project without Bazel can build with
#   cc app.c $(pkg-config --cflags --libs ittcollector)
# and run with INTEL_LIBITTNOTIFY64=PREFIX/lib/libittcollector.so.
set -euo pipefail
if [[ $# -ne 1 ]]; then
  echo "usage: tools/install.sh PREFIX" >&2
  exit 2
fi
cd "$(dirname "$0")/.."
mkdir -p "$1"
prefix=$(cd "$1" && pwd)

# label|output file under bazel-bin|destination under PREFIX
artifacts=(
  "//collector:libittcollector.so|collector/libittcollector.so|lib/libittcollector.so"
  "//stub:ittnotify|stub/libittnotify.a stub/libittnotify.pic.a|lib/libittnotify.a"
  "//stub:jitprofiling|stub/libjitprofiling.a stub/libjitprofiling.pic.a|lib/libjitprofiling.a"
  "//tools:itt-dump|tools/itt-dump|bin/itt-dump"
)

existing=()
for a in "${artifacts[@]}"; do
  label=${a%%|*}
  if bazel query "$label" >/dev/null 2>&1; then
    existing+=("$label")
  else
    echo "install: skipping $label (target does not exist yet)"
  fi
done
if ((${#existing[@]} > 0)); then
  bazel build "${existing[@]}"
fi
bin=$(bazel info bazel-bin)

mkdir -p "$prefix/lib/pkgconfig" "$prefix/include" "$prefix/bin"
for a in "${artifacts[@]}"; do
  IFS='|' read -r label outs dest <<<"$a"
  for out in $outs; do
    if [[ -f "$bin/$out" ]]; then
      install -m 0755 "$bin/$out" "$prefix/$dest"
      echo "install: $prefix/$dest"
      break
    fi
  done
done

# The public headers and the API table they include.
headers=$(cd stub/include && ls *.h *.inc 2>/dev/null || true)
if [[ -n "$headers" ]]; then
  (cd stub/include && install -m 0644 $headers "$prefix/include/")
  echo "install: $prefix/include/ ($(echo $headers))"
fi

cat >"$prefix/lib/pkgconfig/ittcollector.pc" <<PC
prefix=$prefix
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: ittcollector
Description: ITT/JIT instrumentation API (static part) and the ittcollector trace collector
Version: 0.1.0
Cflags: -I\${includedir}
Libs: -L\${libdir} -l:libittnotify.a -l:libjitprofiling.a -ldl -lpthread
PC
echo "install: $prefix/lib/pkgconfig/ittcollector.pc"
