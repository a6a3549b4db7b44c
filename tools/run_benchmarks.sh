#!/usr/bin/env bash
# Builds the benchmarks with -c opt, runs them all, and writes
# docs/BENCHMARKS.md from their JSON output (bench/make_report.py).
#
#   tools/run_benchmarks.sh                 full run (many minutes; longer on a loaded machine)
#   REPETITIONS=1 MIN_TIME=0.05 tools/run_benchmarks.sh    quick look
#   OUT=/some/file.md tools/run_benchmarks.sh              write elsewhere
#   ITTC_INTEL_STATIC=/path/libittnotify_intel.so tools/run_benchmarks.sh
#                      also measure name lookups through Intel's static part
#                      (how to build it: docs/BENCHMARKS.md, "Names looked up")
#
# Each benchmark binary keeps running if another fails; the report says
# which sections have no data. Raw JSON is kept in $KEEP_DIR when set.
set -uo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)
REPETITIONS=${REPETITIONS:-3}
MIN_TIME=${MIN_TIME:-0.2}
OUT=${OUT:-$ROOT/docs/BENCHMARKS.md}

log() { echo "run_benchmarks: $*" >&2; }

TARGETS=(//bench:call_overhead_bench //bench:pause_resume_bench //bench:threads_bench
         //bench:flusher_bench //bench:flight_dump_bench)
HAVE_FORMAT_BENCH=0
HAVE_DUMP_BENCH=0
if [[ -f tests/format/format_bench.cc ]] && grep -q '"format_bench"' tests/format/BUILD; then
  TARGETS+=(//tests/format:format_bench)
  HAVE_FORMAT_BENCH=1
fi
if [[ -f bench/itt_dump_bench.cc ]] && grep -q '"itt_dump_bench"' bench/BUILD; then
  TARGETS+=(//bench:itt_dump_bench)
  HAVE_DUMP_BENCH=1
fi

log "building ${TARGETS[*]}"
if ! bazel build -c opt "${TARGETS[@]}"; then
  # Build what can be built: a broken optional target must not stop the rest.
  log "build failed; retrying the bench/ targets one by one"
  OK_TARGETS=()
  for t in "${TARGETS[@]}"; do
    if bazel build -c opt "$t"; then OK_TARGETS+=("$t"); else log "skipping $t"; fi
  done
  TARGETS=("${OK_TARGETS[@]}")
  [[ " ${TARGETS[*]} " == *" //tests/format:format_bench "* ]] || HAVE_FORMAT_BENCH=0
  [[ " ${TARGETS[*]} " == *" //bench:itt_dump_bench "* ]] || HAVE_DUMP_BENCH=0
fi
BIN=$(bazel info -c opt bazel-bin 2>/dev/null)
if [[ -z "$BIN" || ! -d "$BIN" ]]; then
  log "cannot find bazel-bin"
  exit 1
fi

WORK=${KEEP_DIR:-$(mktemp -d)}
mkdir -p "$WORK"
log "raw results in $WORK"

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
START=$(date +%s)
GB_FLAGS=(--benchmark_repetitions="$REPETITIONS" --benchmark_min_time="$MIN_TIME"
          --benchmark_out_format=json)

# run NAME BINARY ARGS...: runs one benchmark binary, JSON to $WORK/NAME.json.
run() {
  local name=$1 bin=$2
  shift 2
  if [[ ! -x "$bin" ]]; then
    log "$name: $bin missing, skipped"
    return
  fi
  log "$name"
  if ! "$bin" "$@" --benchmark_out="$WORK/$name.json" >"$WORK/$name.txt" 2>&1; then
    log "$name failed (see $WORK/$name.txt)"
  fi
}

# The LTTng-UST peer: bench/lttng_peer built with the system compiler, run
# in a session of a session daemon started here and stopped afterwards.
# Writes $WORK/lttng_peer.json, or a reason in $WORK/lttng_peer.json's
# "error" when LTTng cannot run here.
run_lttng_peer() {
  local dir="$WORK/lttng" reason="" pid="" session="ittc-peer-$$"
  mkdir -p "$dir/home"
  log "lttng_peer"
  if ! command -v lttng >/dev/null || ! command -v lttng-sessiond >/dev/null; then
    reason="lttng-tools is not installed (tools/setup.sh installs it)"
  elif ! cc -O2 -I bench/lttng_peer -o "$dir/lttng_peer" bench/lttng_peer/lttng_peer.c \
      -llttng-ust -ldl >"$dir/build.txt" 2>&1; then
    reason="building against liblttng-ust failed: $(tail -1 "$dir/build.txt")"
  else
    export LTTNG_HOME="$dir/home"
    lttng-sessiond --no-kernel >"$dir/sessiond.txt" 2>&1 &
    pid=$!
    for _ in $(seq 50); do lttng list >/dev/null 2>&1 && break; sleep 0.1; done
    if lttng create "$session" --output="$dir/trace" >"$dir/lttng.txt" 2>&1 &&
       lttng enable-event -u 'ittc_bench:*' >>"$dir/lttng.txt" 2>&1 &&
       lttng start >>"$dir/lttng.txt" 2>&1; then
      "$dir/lttng_peer" 20000000 >"$dir/peer.txt" 2>&1 || reason="lttng_peer failed"
      lttng stop >"$dir/stop.txt" 2>&1
      lttng list "$session" >"$dir/list.txt" 2>&1
      lttng destroy "$session" >>"$dir/lttng.txt" 2>&1
    else
      reason="cannot set up an LTTng session: $(tail -1 "$dir/lttng.txt")"
    fi
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    unset LTTNG_HOME
  fi
  python3 - "$dir" "$reason" >"$WORK/lttng_peer.json" <<'PY'
import json, os, re, sys
d, reason = sys.argv[1], sys.argv[2]
out = {"error": reason} if reason else {}
if not reason:
    m = re.search(r"RESULT events=(\d+) cpu_ns=(\d+) rdtsc_ns_per_call=([\d.]+)",
                  open(os.path.join(d, "peer.txt")).read())
    text = open(os.path.join(d, "stop.txt")).read() + open(os.path.join(d, "list.txt")).read()
    lost = [int(x) for x in re.findall(r"(\d+) events? (?:were|was) discarded", text)]
    lost += [int(x) for x in re.findall(r"[Dd]iscarded events: (\d+)", text)]
    size = sum(os.path.getsize(os.path.join(r, f))
               for r, _, fs in os.walk(os.path.join(d, "trace")) for f in fs)
    if m:
        out = {"events": int(m.group(1)), "cpu_ns": int(m.group(2)),
               "rdtsc_ns": float(m.group(3)), "discarded": max(lost) if lost else 0,
               "trace_bytes": size}
    else:
        out = {"error": "lttng_peer printed no RESULT line"}
json.dump(out, sys.stdout)
PY
}

for state in compiled_out no_collector recording paused filtered naive flight; do
  extra=()
  [[ $state == recording ]] && extra=(--recorded_out="$WORK/calls_recorded.json")
  # Name lookups through Intel's static part too, given one (bench/name_lookups.h).
  [[ $state == recording && -n ${ITTC_INTEL_STATIC:-} ]] &&
    extra+=(--intel_static="$ITTC_INTEL_STATIC")
  [[ $state == naive ]] && extra=(--recorded_out="$WORK/calls_naive_recorded.json")
  run "calls_$state" "$BIN/bench/call_overhead_bench" --state="$state" "${extra[@]}" \
    "${GB_FLAGS[@]}"
done
# Issue 13's load, twice: every group for 20 M calls in one tight loop.
for i in 1 2; do
  run "calls_sustained$i" "$BIN/bench/call_overhead_bench" --state=sustained \
    --recorded_out="$WORK/calls_sustained${i}_recorded.json" "${GB_FLAGS[@]}"
done
run_lttng_peer
run pause "$BIN/bench/pause_resume_bench" "${GB_FLAGS[@]}"
run pause_tbb "$BIN/bench/pause_resume_bench" --with_tbb "${GB_FLAGS[@]}"
run threads "$BIN/bench/threads_bench" --recorded_out="$WORK/threads_recorded.json" \
  "${GB_FLAGS[@]}"
# One run per level: each is a 1 s child process.
run flusher "$BIN/bench/flusher_bench" --benchmark_out_format=json
run flight_dump "$BIN/bench/flight_dump_bench" --benchmark_out_format=json
if [[ $HAVE_FORMAT_BENCH == 1 ]]; then
  run format_bench "$BIN/tests/format/format_bench" --benchmark_min_time=0.1 \
    --benchmark_out_format=json
fi
if [[ $HAVE_DUMP_BENCH == 1 ]]; then
  run itt_dump_bench "$BIN/bench/itt_dump_bench" --benchmark_min_time=0.1 \
    --benchmark_out_format=json
fi

LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
ELAPSED=$(( $(date +%s) - START ))
TBB_DOMAINS=$(sed -n 's/^domains in the trace: //p' "$WORK/pause_tbb.txt" 2>/dev/null)
PLAIN_DOMAINS=$(sed -n 's/^domains in the trace: //p' "$WORK/pause.txt" 2>/dev/null)
EXTRA_DOMAINS="?"
if [[ -n "$TBB_DOMAINS" && -n "$PLAIN_DOMAINS" ]]; then
  EXTRA_DOMAINS=$(( TBB_DOMAINS - PLAIN_DOMAINS ))
fi

python3 - "$WORK/meta.json" <<EOF
import json, platform, subprocess, sys
cpu = "?"
try:
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
except OSError:
    pass
try:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "?"
except OSError:
    commit = "?"
json.dump({
    "date": subprocess.run(["date", "-u", "+%Y-%m-%d %H:%M UTC"], capture_output=True,
                           text=True).stdout.strip(),
    "commit": commit,
    "cpu": cpu,
    "cores": "$(nproc)",
    "kernel": "Linux " + platform.release(),
    "load_before": "$LOAD_BEFORE",
    "load_after": "$LOAD_AFTER",
    "repetitions": "$REPETITIONS",
    "elapsed_s": "$ELAPSED",
    "tbb_domains": "$EXTRA_DOMAINS",
}, open(sys.argv[1], "w"), indent=1)
EOF

mkdir -p "$(dirname "$OUT")"
if python3 bench/make_report.py --dir "$WORK" --out "$OUT"; then
  log "wrote $OUT in ${ELAPSED}s"
else
  log "report failed"
  exit 1
fi
[[ -n "${KEEP_DIR:-}" ]] || rm -rf "$WORK"
