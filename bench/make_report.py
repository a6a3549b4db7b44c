#!/usr/bin/env python3
"""Writes docs/BENCHMARKS.md from the JSON files tools/run_benchmarks.sh left.

Input directory (--dir):
  meta.json                    machine, commit, load averages (the script's)
  calls_<state>.json           call_overhead_bench --state=<state>
  calls_recorded.json          its recorded-share report (recording state)
  calls_sustained{1,2}.json, calls_sustained{1,2}_recorded.json
                               the sustained state (20 M calls per group), twice
  calls_naive_recorded.json    the naive collector's kept share and log size
  lttng_peer.json              the LTTng-UST peer (run_benchmarks.sh)
  pause.json, pause_tbb.json   pause_resume_bench (without / with --with_tbb)
  threads.json, threads_recorded.json
  flusher.json
  format_bench.json, itt_dump_bench.json   optional

Every figure printed comes from these files; nothing is typed in by hand.
Figures are medians over the repetitions when there are several.
A missing or broken file leaves its section saying so instead of failing.
"""

import argparse
import json
import os
import sys

STATE_TITLES = {
    "compiled_out": "compiled out",
    "no_collector": "no collector",
    "recording": "recording",
    "paused": "paused",
    "filtered": "domain filtered",
}
GROUPS = [
    ("TaskBeginEnd", "task begin + end"),
    ("TaskBeginFn", "task begin_fn + end"),
    ("TaskBeginEndEx", "task begin_ex + end_ex"),
    ("TaskOverlapped", "task begin/end overlapped"),
    ("Frame", "frame begin + end"),
    ("Marker", "marker"),
    ("CounterInc", "counter inc"),
    ("CounterSetValue", "counter set_value"),
    ("Metadata", "metadata add (u64)"),
    ("FormattedMetadata", "formatted metadata (\"%d of %s\")"),
    ("Sync", "sync prepare + acquired + releasing"),
    ("Event", "event start + end"),
    ("Heap", "heap allocate begin + end"),
    ("Relation", "relation add"),
    ("JitMethodLoad", "JIT NotifyEvent (method load)"),
]
UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
RUN = "bazel run -c opt //bench:"


def load(dirname, name):
    path = os.path.join(dirname, name)
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print("make_report: %s: %s" % (path, e), file=sys.stderr)
        return None


class Results:
    """The benchmarks of one Google Benchmark JSON file, by run name."""

    def __init__(self, data):
        self.entries = data.get("benchmarks", []) if data else []

    def _matching(self, prefix):
        return [e for e in self.entries
                if e.get("run_name", e.get("name", "")) == prefix
                or e.get("run_name", e.get("name", "")).startswith(prefix + "/")]

    def get(self, prefix):
        """The median aggregate of the runs named prefix[/...], else the
        single run; None if absent or errored."""
        found = [e for e in self._matching(prefix) if not e.get("error_occurred")]
        medians = [e for e in found if e.get("run_type") == "aggregate"
                   and e.get("aggregate_name") == "median"]
        if medians:
            return medians[0]
        runs = [e for e in found if e.get("run_type", "iteration") == "iteration"]
        return runs[0] if runs else None

    def runs(self, prefix):
        """Every repetition (not aggregates) of the runs named prefix[/...]."""
        return [e for e in self._matching(prefix)
                if e.get("run_type", "iteration") == "iteration"
                and not e.get("error_occurred")]

    def names(self):
        seen = []
        for e in self.entries:
            if e.get("run_type", "iteration") != "iteration":
                continue
            n = e.get("run_name", e.get("name"))
            if n not in seen:
                seen.append(n)
        return seen


def ns(entry, field):
    return entry[field] * UNIT_NS.get(entry.get("time_unit", "ns"), 1.0)


def per_call_ns(entry):
    """CPU time of the benchmark thread per API call. Manual-time benchmarks
    time themselves with the thread CPU clock (real_time holds it)."""
    if entry is None:
        return None
    calls = entry.get("calls", 1) or 1
    manual = "manual_time" in entry.get("name", "")
    return ns(entry, "real_time" if manual else "cpu_time") / calls


def per_call_wall_ns(entry):
    if entry is None:
        return None
    calls = entry.get("calls", 1) or 1
    return ns(entry, "real_time") / calls


def fmt_ns(v):
    if v is None:
        return "n/a"
    if v < 10:
        return "%.2f ns" % v
    if v < 1000:
        return "%.1f ns" % v
    return "%.0f ns" % v


def fmt_ratio(v, ref):
    if v is None or not ref:
        return "n/a"
    r = v / ref
    return "%.2fx" % r if r < 10 else "%.0fx" % r


def verdict(ok):
    return "**met**" if ok else "**not met**"


def table(out, header, rows):
    out.append("| " + " | ".join(header) + " |")
    out.append("|" + "|".join(["---"] * len(header)) + "|")
    for r in rows:
        out.append("| " + " | ".join(str(c) for c in r) + " |")
    out.append("")


def section_header(out, meta):
    out.append("# Benchmarks")
    out.append("")
    out.append("Generated by `tools/run_benchmarks.sh` on %s (commit `%s`); "
               "every figure below comes from that run. Do not edit by hand: "
               "re-run the script." % (meta.get("date", "?"), meta.get("commit", "?")))
    out.append("")
    out.append("Machine: %s, %s cores, %s. Load average before the run: %s; after: %s. "
               "The VM is shared with other engineers' builds, so absolute times drift "
               "between runs: each figure is also given as a ratio to a reference "
               "measured in the same process (one RDTSC unless said otherwise)."
               % (meta.get("cpu", "?"), meta.get("cores", "?"), meta.get("kernel", "?"),
                  meta.get("load_before", "?"), meta.get("load_after", "?")))
    out.append("")
    out.append("Per-call figures are the CPU time of the benchmark thread (Google "
               "Benchmark's cpu_time, or the thread CPU clock for the burst benchmark), "
               "median of %s repetitions: wall time on this VM also counts the time other "
               "jobs held the core. Wall times are given where they matter." %
               meta.get("repetitions", "?"))
    out.append("")


def sustained_runs(calls, recorded, group):
    """[(the group's result, RDTSC's result, kept share or None)] per
    sustained run that has the group."""
    out = []
    for i in (1, 2):
        res = calls.get("sustained%d" % i)
        if not res:
            continue
        name = "BM_%s/sustained" % group
        out.append((res.get(name), res.get("BM_Floor_Rdtsc/sustained"),
                    recorded.get("sustained%d" % i, {}).get(name)))
    return out


def sustained_row(calls, recorded, group):
    """[(cost per call, RDTSC in that process, kept share or None)] per
    sustained run that has the group."""
    return [(per_call_ns(entry), per_call_ns(rdtsc), kept)
            for entry, rdtsc, kept in sustained_runs(calls, recorded, group)]


def sustained_flusher_ns(calls, recorded, group):
    """The flusher's CPU per event it kept, in each sustained run that has
    the group (None where the run did not measure it)."""
    out = []
    for entry, _, kept in sustained_runs(calls, recorded, group):
        cpu = entry.get("flusher_cpu_ns") if entry else None
        out.append(cpu / kept[1] if cpu is not None and kept and kept[1] else None)
    return out


def share(pair):
    made, kept = pair if pair else (0, 0)
    return 100.0 * kept / made if made else None


def section_targets(out, calls, recorded, threads, flusher):
    """Issue 13's targets, each against what this run measured."""
    out.append("## Targets (issue 13)")
    out.append("")
    rows = []
    runs = {g: sustained_row(calls, recorded, g) for g, _ in GROUPS}
    shares = [(title, share(r[2])) for g, title in GROUPS for r in runs[g] if r[2]]
    if shares:
        worst = min(shares, key=lambda x: x[1])
        low = sorted({t for t, v in shares if v < 99.9})
        rows.append(["every group keeps >= 99.9% of 20 M calls in a tight loop (default "
                     "settings), each run",
                     "worst: %s, %.1f%%; below target: %s" %
                     (worst[0], worst[1], ", ".join(low) if low else "none"),
                     verdict(not low), "`%scall_overhead_bench -- --state=sustained`" % RUN])
    costs = []
    for g, title in GROUPS:
        for cost, rdtsc, _ in runs[g]:
            if cost is not None and rdtsc:
                costs.append((g, title, cost / rdtsc))
    if costs:
        task = [r for g, _, r in costs if g == "TaskBeginEnd"]
        others = [(t, r) for g, t, r in costs if g not in ("TaskBeginEnd", "FormattedMetadata")]
        worst = max(others, key=lambda x: x[1])
        rows.append(["in that loop: task begin + end <= 1.3x one RDTSC per call",
                     ", ".join("%.2fx" % r for r in task), verdict(max(task) <= 1.3), ""])
        rows.append(["every other group <= 2x (formatted metadata excepted)",
                     "worst: %s, %.2fx" % worst, verdict(worst[1] <= 2.0), ""])
    lossless = lossless_rates(threads).get(4096)
    if lossless:
        every, best, reps = lossless
        rows.append([">= 80 M events/s lossless, one producer, task begin + end, each of "
                     "3 runs",
                     "highest step up to which no run dropped (%d runs per step): %s "
                     "(the fastest run with no drop: %s)" % (reps, rate_text(every),
                                                            rate_text(best)),
                     verdict(every is not None and every >= 80 and reps >= 3),
                     "`%sthreads_bench -- --benchmark_filter=RateStep`" % RUN])
    block = threads.runs("BM_TwoProducers/overflow:block")
    if block:
        drops = [r.get("dropped", 0) for r in block]
        rows.append(["two producers on the two cores, block mode: lossless, each run",
                     "dropped: %s (%s)" % (", ".join("%d" % d for d in drops),
                                           ", ".join("%.1f M/s" % r.get("achieved_mps", 0)
                                                     for r in block)),
                     verdict(all(d == 0 for d in drops)),
                     "`%sthreads_bench -- --benchmark_filter=TwoProducers`" % RUN])
    sat = flusher.get("BM_FlusherSaturated/zstd:0")
    if sat:
        f = sat.get("flusher_ns_per_event")
        rows.append(["flusher CPU <= 8 ns per event, task begin + end",
                     "%s (block mode, producer unpaced; of it zstd %s, write %s in the same "
                     "run; stages below)" % (fmt_ns(f), fmt_ns(sat.get("compress_ns_per_event")),
                                             fmt_ns(sat.get("write_ns_per_event"))),
                     verdict(f is not None and f <= 8.0), "`%sflusher_bench`" % RUN])
    paced = flusher.get("BM_FlusherLevel/zstd:0")
    if paced:
        b = paced.get("bytes_per_event", 0)
        rows.append(["bytes per event on disk <= 0.352 (0.32 + 10%)",
                     "%.3f (task begin + end paced at 10 M/s, default level)" % b,
                     verdict(b <= 0.352), ""])
    paused = calls.get("paused")
    jit = per_call_ns(paused.get("BM_JitMethodLoad/paused")) if paused else None
    if jit is not None:
        flags = per_call_ns(paused.get("BM_Floor_FlagsCheck/paused"))
        rows.append(["paused `iJIT_NotifyEvent` <= 2 ns",
                     "%s (%s the flags check)" % (fmt_ns(jit), fmt_ratio(jit, flags)),
                     verdict(jit <= 2.0), "`%scall_overhead_bench -- --state=paused`" % RUN])
    table(out, ["target", "measured", "verdict", "reproduce"], rows)
    steps = threads.runs("BM_RateStep")
    if steps:
        def median(key):
            v = sorted(r.get(key, 0) for r in steps)
            return v[len(v) // 2]
        out.append("Machine load during this run: in the rate steps the producer thread "
                   "was runnable but waiting for a CPU for a median %.0f ms of each 1 s "
                   "run, the flusher %.0f ms (schedstat; Threads below). A drop-mode "
                   "verdict is about the collector only when both waits are near zero." %
                   (median("producer_wait_ms"), median("flusher_wait_ms")))
        nices = sorted(set(int(r.get("flusher_nice", 0)) for r in steps))
        out.append("")
        out.append("The flusher thread's nice value in the rate steps (`ITTC_FLUSHER_NICE` at "
                   "its default; the application's threads at 0): %s." %
                   ", ".join("%d" % n for n in nices))
        out.append("")


def share_text(share):
    if share is None:
        return "n/a"
    made, recorded = share
    return "%.1f%%" % (100.0 * recorded / made) if made else "n/a"


def rate_text(rate):
    return "no step" if rate is None else ("%.3g M/s" % rate)


def lossless_rates(threads):
    """ring_kb -> (the lossless rate: the slowest run of the highest step
    that, like every step below it, dropped nothing in any run; the highest
    achieved rate of any run with zero drops; runs per step). A step that
    dropped in one run bounds the lossless rate even if a faster step did
    not drop: the rate is one no run up to it lost an event at."""
    out = {}
    steps = {}
    for e in threads.entries:
        name = e.get("run_name", e.get("name", ""))
        if not name.startswith("BM_RateStep/") or e.get("error_occurred"):
            continue
        if e.get("run_type", "iteration") != "iteration":
            continue
        ring = int(name.split("ring_kb:")[1].split("/")[0])
        target = e.get("target_mps", 0.0)
        key = (ring, target)
        steps.setdefault(key, []).append(e)
    # Slowest target first; unpaced (target 0) is the fastest.
    def order(key):
        ring, target = key
        return (ring, target if target > 0 else float("inf"))
    broken = set()  # rings where a step dropped
    for (ring, target) in sorted(steps, key=order):
        runs = steps[(ring, target)]
        # The achieved rate, not the target: a producer preempted on this
        # shared VM does not catch up in bursts, it falls short.
        candidates = [(r.get("achieved_mps", 0.0), r.get("dropped", 1) == 0) for r in runs]
        every, best, reps = out.get(ring, (None, None, 0))
        reps = max(reps, len(runs))
        if not all(ok for _, ok in candidates):
            broken.add(ring)
        elif ring not in broken:
            # The steps come slowest first: the last one reached so far is
            # the highest with no drop, and its slowest run is the rate.
            every = min(r for r, _ in candidates)
        good = [r for r, ok in candidates if ok]
        if good:
            best = max(good) if best is None else max(best, max(good))
        out[ring] = (every, best, reps)
    return out


def section_calls(out, calls, recorded):
    out.append("## Per-call cost and kept share of every API group")
    out.append("")
    out.append("CPU time per API call (a pair such as begin+end counts as two calls), and "
               "in parentheses the ratio to one RDTSC measured in the same process. "
               "*Short runs* = Google Benchmark's loops (a few million calls each, median of "
               "the repetitions); *sustained* = one tight loop of 20 M calls per group with "
               "default settings, after a pause that lets the flusher drain the previous "
               "group, two runs (separate processes). Kept = events of the group in the "
               "trace / calls made; the rest are dropped and counted. Flusher CPU = the "
               "flusher thread's run time (schedstat) from the loop's start until it has "
               "drained the group, per event kept: where it exceeds the cost per call, the "
               "flusher on its own core cannot keep up with that loop, and a ring that "
               "fills drops the difference.")
    out.append("")
    rec = calls.get("recording")
    rdtsc = per_call_ns(rec.get("BM_Floor_Rdtsc/recording")) if rec else None
    rows = []
    for g, title in GROUPS:
        v = per_call_ns(rec.get("BM_%s/recording" % g)) if rec else None
        sus = sustained_row(calls, recorded, g)
        rows.append([title, "%s (%s)" % (fmt_ns(v), fmt_ratio(v, rdtsc)),
                     share_text(recorded.get("recording", {}).get("BM_%s/recording" % g)),
                     ", ".join("%s (%s)" % (fmt_ns(c), fmt_ratio(c, r)) for c, r, _ in sus)
                     or "n/a",
                     ", ".join(share_text(k) for _, _, k in sus) or "n/a",
                     ", ".join(fmt_ns(f) for f in sustained_flusher_ns(calls, recorded, g))
                     or "n/a"])
    if rec:
        v = per_call_ns(rec.get("BM_TaskBeginEndBurst/recording"))
        rows.append(["task begin + end, bursts of 8192 pairs that fit the ring (burst cost)",
                     "%s (%s)" % (fmt_ns(v), fmt_ratio(v, rdtsc)),
                     share_text(recorded.get("recording", {}).get(
                         "BM_TaskBeginEndBurst/recording")), "", "", ""])
    table(out, ["API group", "short runs", "kept", "sustained, each run", "kept, each run",
                "flusher CPU per kept event, each run"], rows)

    out.append("### Other states")
    out.append("")
    out.append("*compiled out* = built with `INTEL_NO_ITTNOTIFY_API` (the empty loop); "
               "*no collector* = our static part, `INTEL_LIBITTNOTIFY64` unset; *paused* = "
               "after `__itt_pause()`; *domain filtered* = recording with `ITTC_DOMAINS` "
               "excluding the benchmark's domain, which its counters and heap function "
               "belong to too (calls without a domain still record).")
    out.append("")
    states = ["compiled_out", "no_collector", "paused", "filtered"]
    floors = {s: per_call_ns(calls[s].get("BM_Floor_Rdtsc/" + s)) if calls.get(s) else None
              for s in states}
    rows = []
    for g, title in GROUPS:
        row = [title]
        for st in states:
            res = calls.get(st)
            v = per_call_ns(res.get("BM_%s/%s" % (g, st))) if res else None
            row.append(fmt_ns(v) if st == "compiled_out" or v is None else
                       "%s (%s)" % (fmt_ns(v), fmt_ratio(v, floors[st])))
        rows.append(row)
    for f, title in [("Rdtsc", "floor: one RDTSC"),
                     ("IndirectCall", "floor: empty function through a pointer"),
                     ("FlagsCheck", "floor: bare `if (d->flags)` on a disabled domain"),
                     ("CallRdtscStore", "floor: indirect call + RDTSC + 16-byte store")]:
        row = [title]
        for st in states:
            res = calls.get(st)
            v = per_call_ns(res.get("BM_Floor_%s/%s" % (f, st))) if res else None
            row.append("%s (%s)" % (fmt_ns(v), fmt_ratio(v, floors[st])))
        rows.append(row)
    table(out, ["API group"] + [STATE_TITLES[st] for st in states], rows)
    out.append("Reproduce a column: `%scall_overhead_bench -- --state=STATE` "
               "(STATE = compiled_out, no_collector, recording, sustained, paused, filtered, "
               "naive); without `--state` it runs every state in turn. A row: add "
               "`--benchmark_filter='^BM_GROUP/'`." % RUN)
    out.append("")


def section_flight(out, calls, dump):
    out.append("## Flight recorder")
    out.append("")
    out.append("`ITTC_FLIGHT_MB` (README.md, \"Flight recorder\"): the same calls recording "
               "into the flight recorder's memory (64 MiB, one dump at the end) instead of a "
               "file, beside the recording state of this run. CPU time per API call, and in "
               "parentheses the ratio to one RDTSC measured in the same process.")
    out.append("")
    rec, fl = calls.get("recording"), calls.get("flight")
    rdtsc = {"recording": per_call_ns(rec.get("BM_Floor_Rdtsc/recording")) if rec else None,
             "flight": per_call_ns(fl.get("BM_Floor_Rdtsc/flight")) if fl else None}
    rows = []
    for g, title in GROUPS:
        row = [title]
        for st, res in (("recording", rec), ("flight", fl)):
            v = per_call_ns(res.get("BM_%s/%s" % (g, st))) if res else None
            row.append("%s (%s)" % (fmt_ns(v), fmt_ratio(v, rdtsc[st])))
        rows.append(row)
    table(out, ["API group", "recording", "flight recorder"], rows)
    out.append("A dump of a full 256 MiB store (`bench/flight_dump_bench`), against write(2) of "
               "as many bytes from memory in the same run; wall time, median of the "
               "repetitions (the first 256 MiB written into this VM's page cache take seconds "
               "for any writer, the next ones far less):")
    out.append("")
    rows = []
    for name, title in (("BM_WriteFloor", "write(2) of 256 MiB, 1 MiB at a time"),
                        ("BM_FlightDump", "dump (written, not synced)"),
                        ("BM_FlightDumpSync", "dump, then fdatasync")):
        e = dump.get(name)
        rows.append([title, "%.0f ms" % (ns(e, "real_time") / 1e6) if e else "n/a"])
    table(out, ["", "wall time"], rows)
    out.append("Reproduce: `%scall_overhead_bench -- --state=flight`, `%sflight_dump_bench`."
               % (RUN, RUN))
    out.append("")


def section_peers(out, calls, recorded, threads, lttng):
    out.append("## Peers: the same loop through other tracers")
    out.append("")
    out.append("Task begin + end in one tight loop, one thread, default settings of each "
               "tracer, measured in this run. CPU per event of the emitting thread; RDTSC "
               "timed in the same process. LTTng-UST: `bench/lttng_peer` (a tracepoint "
               "pair of the same shape, 20 M events) in a session of a session daemon the "
               "script starts and stops; kept = 1 - its discarded-event count. Naive = "
               "`bench/naive_collector.c`, one global mutex and one `fprintf` per event, "
               "the design of Intel's reference collector.")
    out.append("")
    rows = []
    step = [r for r in threads.runs("BM_RateStep/ring_kb:4096/rate_mps:0")]
    bpe = sorted(r.get("bytes_per_event", 0) for r in step)
    for i, (cost, rdtsc, kept) in enumerate(sustained_row(calls, recorded, "TaskBeginEnd")):
        rows.append(["ittcollector (run %d)" % (i + 1), fmt_ns(cost), fmt_ratio(cost, rdtsc),
                     share_text(kept),
                     "%.3f" % bpe[len(bpe) // 2] if bpe else "n/a"])
    if lttng.get("events"):
        ev = lttng["events"]
        kept = ev - lttng.get("discarded", 0)
        cost = lttng["cpu_ns"] / ev
        rows.append(["LTTng-UST", fmt_ns(cost), fmt_ratio(cost, lttng.get("rdtsc_ns")),
                     "%.1f%%" % (100.0 * kept / ev),
                     "%.2f" % (lttng.get("trace_bytes", 0) / kept) if kept else "n/a"])
    else:
        rows.append(["LTTng-UST", "not measured: %s" % lttng.get("error", "no data"), "", "",
                     ""])
    naive = calls.get("naive")
    if naive:
        n = per_call_ns(naive.get("BM_TaskBeginEnd/naive"))
        nk = recorded.get("naive", {}).get("BM_TaskBeginEnd/naive")
        nbytes = recorded.get("naive_file_bytes")
        rows.append(["naive (mutex + fprintf)", fmt_ns(n),
                     fmt_ratio(n, per_call_ns(naive.get("BM_Floor_Rdtsc/naive"))),
                     share_text(nk),
                     "%.1f" % (nbytes / nk[1]) if nbytes and nk and nk[1] else "n/a"])
    table(out, ["collector", "CPU per event", "x RDTSC", "kept", "bytes per event"], rows)
    out.append("ittcollector's bytes per event are those of the unpaced rate step (same "
               "loop, 1 s, median of its runs). Reproduce: `%scall_overhead_bench -- "
               "--state=sustained --benchmark_filter=TaskBeginEnd`, `--state=naive`; "
               "LTTng: `tools/run_benchmarks.sh` (function run_lttng_peer)." % RUN)
    out.append("")


def section_names(out, calls):
    """Issue 46: a name created before, looked up again, against a task begin."""
    res = calls.get("recording")
    out.append("## Names looked up before each task (issue 46)")
    out.append("")
    if not res:
        out.append("No data (call_overhead_bench --state=recording).")
        out.append("")
        return
    out.append("`__itt_string_handle_create` / `__itt_domain_create` of a name created before "
               "(the names taken in turn), and emit_itt's range (create + task begin + end), "
               "with 300 and 3000 distinct names; in parentheses the ratio to one task begin "
               "(`__itt_task_begin` alone) measured in the same process through the same "
               "static part. Target: a lookup <= 1.5x a task begin. Intel's static part is "
               "measured when the script is given one (`ITTC_INTEL_STATIC`).")
    out.append("")
    rows = []
    for part, title in (("stub", "ours"), ("intel", "Intel's")):
        begin = per_call_ns(res.get("BM_TaskBegin/%s/recording" % part))
        if begin is None:
            continue
        pair = res.get("BM_TaskBeginEnd/%s/recording" % part)
        row = ["%s: task begin %s, begin + end %s" % (title, fmt_ns(begin),
                                                    fmt_ns(2 * per_call_ns(pair) if pair else None))]
        for count in (300, 3000):
            for what in ("StringHandleCreate", "DomainCreate"):
                v = per_call_ns(res.get("BM_%s/%d/%s/recording" % (what, count, part)))
                row.append("%s (%s)" % (fmt_ns(v), fmt_ratio(v, begin)))
            task = res.get("BM_NamedTask/%d/%s/recording" % (count, part))
            row.append(fmt_ns(2 * per_call_ns(task) if task else None))
        rows.append(row)
    table(out, ["static part", "string, 300", "domain, 300", "create + begin + end, 300",
                "string, 3000", "domain, 3000", "create + begin + end, 3000"], rows)
    out.append("Reproduce: `%scall_overhead_bench -- --state=recording "
               "--benchmark_filter='/(stub|intel)/' [--intel_static=PATH]`, PATH a shared "
               "library built from Intel's ittapi static part: `cc -O2 -shared -fPIC "
               "-Wl,-Bsymbolic -Iinclude -Isrc/ittnotify src/ittnotify/ittnotify_static.c "
               "-o libittnotify_intel.so -ldl -lpthread` in an ittapi checkout." % RUN)
    out.append("")


def section_pause(out, pause, pause_tbb, meta):
    out.append("## Pause and resume")
    out.append("")
    if not pause.entries:
        out.append("No data.")
        out.append("")
        return
    rows = []
    for n in (1, 10, 100, 1000):
        e = pause.get("BM_PauseResume/domains:%d" % n)
        t = pause_tbb.get("BM_PauseResume/tbb/domains:%d" % n) if pause_tbb else None
        rows.append(["%d" % n,
                     fmt_ns(ns(e, "cpu_time")) if e else "n/a",
                     fmt_ns(ns(e, "real_time")) if e else "n/a",
                     fmt_ns(ns(t, "cpu_time")) if t else "n/a"])
    table(out, ["our domains", "pause+resume, CPU", "wall",
                "CPU with libtbb's static part too (+%s domains)" %
                meta.get("tbb_domains", "?")], rows)
    steady = pause.get("BM_SteadyPair")
    first = pause.get("BM_FirstPairAfterResume")
    if steady and first:
        out.append("Task begin + end right after `__itt_resume()` against the same pair in "
                   "steady state, each timed with RDTSC around the pair (the TSC advances in "
                   "coarse steps on this VM, so the percentiles are coarse; the mean also "
                   "counts preemptions):")
        out.append("")
        table(out, ["pair", "median", "90th percentile", "mean (wall)"], [
            ["steady state", fmt_ns(steady.get("p50_ns")), fmt_ns(steady.get("p90_ns")),
             fmt_ns(ns(steady, "real_time"))],
            ["first after resume", fmt_ns(first.get("p50_ns")), fmt_ns(first.get("p90_ns")),
             fmt_ns(ns(first, "real_time"))],
        ])
    out.append("Reproduce: `%spause_resume_bench` (add `-- --with_tbb` for the libtbb "
               "column)." % RUN)
    out.append("")


def core_share(threads):
    """[(kind, percent)]: per thread, the speed two threads of BM_CoreShare
    reached at once against one thread alone."""
    out = []
    for kind in ("chain", "wide"):
        one = threads.get("BM_CoreShare/%s/real_time/threads:1" % kind)
        two = threads.get("BM_CoreShare/%s/real_time/threads:2" % kind)
        if one and two and one.get("items_per_second"):
            out.append((kind, 100.0 * two.get("items_per_second", 0) / 2 /
                        one["items_per_second"]))
    return out


def section_threads(out, threads, threads_recorded):
    out.append("## Threads")
    out.append("")
    if not threads.entries:
        out.append("No data.")
        out.append("")
        return
    out.append("Task begin + end in a tight loop on n threads at once (this VM has 2 "
               "cores). Rate = events of all threads per second of wall time.")
    out.append("")
    share = core_share(threads)
    if share:
        out.append("What the second core gave during this run (`BM_CoreShare`: plain "
                   "arithmetic on one thread, then on two at once; per thread, the share of "
                   "one thread's speed): %s. Below 100%% the host gave this VM less than two "
                   "cores at the time, and every figure that needs both (the flusher beside "
                   "a producer, two producers, the reader's workers) is lower for it." %
                   "; ".join("%s %.0f%%" % (kind, pct) for kind, pct in share))
        out.append("")
    rows = []
    for n in (1, 2, 8):
        e = threads.get("BM_ProducerThreads%d/recording" % n)
        if e is None:
            continue
        rate = e.get("items_per_second")
        rows.append(["%d" % n,
                     "%.1f M/s" % (rate / 1e6) if rate else "n/a",
                     fmt_ns(n * 1e9 / rate) if rate else "n/a",
                     share_text(threads_recorded.get("BM_ProducerThreads%d/recording" % n))])
    table(out, ["threads", "events/s, all threads", "wall ns per event per thread",
                "recorded share"], rows)

    out.append("### Drops against rate, lossless sustained rate")
    out.append("")
    out.append("One producer paced at a target rate for 1 s in a fresh process "
               "(`bench/paced_run.cc`), default ring (4 MiB) and 16 MiB; rate 'max' = "
               "unpaced. A preempted producer does not catch up in a burst, so the "
               "achieved rate can fall short of the target. Per run: achieved rate, "
               "drops, and how long the flusher and the producer were runnable but "
               "waiting for a CPU (schedstat) during the second: the load other jobs put "
               "on this 2-core VM.")
    out.append("")
    steps = {}
    order = []
    for e in threads.runs("BM_RateStep"):
        name = e.get("run_name", e.get("name"))
        if name not in steps:
            steps[name] = []
            order.append(name)
        steps[name].append(e)
    rows = []
    for name in order:
        runs = steps[name]
        ring = name.split("ring_kb:")[1].split("/")[0]
        target = runs[0].get("target_mps", 0)
        achieved = sorted(r.get("achieved_mps", 0) for r in runs)
        drops = ", ".join("%.2f%%" % r.get("drop_pct", 0) for r in runs)
        flusher = sorted(r.get("flusher_ns_per_event", 0) for r in runs)
        waits = ", ".join("%.0f / %.0f" % (r.get("flusher_wait_ms", 0),
                                           r.get("producer_wait_ms", 0)) for r in runs)
        rows.append([ring, "max" if target == 0 else "%g M/s" % target,
                     ", ".join("%.1f" % r.get("achieved_mps", 0) for r in runs), drops,
                     fmt_ns(flusher[len(flusher) // 2]), waits])
    table(out, ["ring KiB", "target", "achieved M/s, each run", "dropped, each run",
                "flusher CPU / event (median)",
                "ms waiting for a CPU: flusher / producer, each run"], rows)
    all_runs = threads.runs("BM_RateStep")
    exact = [r for r in all_runs
             if r.get("recorded", 0) + r.get("dropped", 0) - r.get("emitted", 0) in (0, 1)]
    out.append("Accounting: recorded + dropped = emitted (+1, the `__itt_detach` event) in "
               "%d of %d runs." % (len(exact), len(all_runs)))
    out.append("")
    lossless = lossless_rates(threads)
    for ring in sorted(lossless):
        every, best, reps = lossless[ring]
        out.append("- %d KiB ring: lossless rate (the slowest run of the highest step up to "
                   "which no run dropped): %s; the fastest run with no drop: %s (%d runs per "
                   "step)." % (ring, rate_text(every), rate_text(best), reps))
    out.append("")
    out.append("Reproduce: `%sthreads_bench` (`-- --benchmark_filter=RateStep` for the "
               "rate steps only)." % RUN)
    out.append("")
    two = threads.runs("BM_TwoProducers")
    if two:
        out.append("### Two producers")
        out.append("")
        out.append("Two threads emit task begin + end as fast as they can for 1 s in a fresh "
                   "process, each with its own default ring: with the flusher, three busy "
                   "threads on this 2-core VM. Producer CPU is per event of either thread. "
                   "The drop-mode runs are made twice: with the flusher's default priority "
                   "(`ITTC_FLUSHER_NICE`), and with `ITTC_FLUSHER_NICE=0`, the producers' "
                   "own, as it was before that setting existed.")
        out.append("")
        rows = []
        for e in two:
            name = e.get("run_name", e.get("name"))
            mode = name.split("overflow:")[1].split("/")[0]
            rows.append([mode, "%d" % e.get("flusher_nice", 0),
                         "%.1f M/s" % e.get("achieved_mps", 0),
                         "%.2f%%" % (100.0 - e.get("drop_pct", 0)),
                         fmt_ns(e.get("producer_ns_per_event")),
                         fmt_ns(e.get("flusher_ns_per_event")),
                         "%.0f / %.0f" % (e.get("flusher_wait_ms", 0),
                                          e.get("producer_wait_ms", 0))])
        table(out, ["overflow", "flusher nice", "emitted, both threads", "kept",
                    "producer CPU / event",
                    "flusher CPU / event", "ms waiting for a CPU: flusher / producers"], rows)
        out.append("Reproduce: `%sthreads_bench -- --benchmark_filter=TwoProducers`." % RUN)
        out.append("")
    section_producers(out, threads)


def median(values):
    values = sorted(v for v in values if v is not None)
    if not values:
        return None
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


def section_producers(out, threads):
    """BM_Producers: n unpaced producers, default settings (issue 46)."""
    runs = threads.runs("BM_Producers")
    if not runs:
        return
    out.append("### Producers and flushers (issue 46)")
    out.append("")
    out.append("n threads emit task begin + end as fast as they can for 1 s in a fresh "
               "process, default settings but the overflow mode: drop mode (the default) "
               "for 1 to 16 producers, block mode for 1, 2 and 4. The collector picks the "
               "number of flushers (`ITTC_FLUSHERS=auto`: one per active thread while the "
               "cores hold a producer and a flusher each, so one on this 2-core VM). Kept = "
               "events in the trace / events emitted. Producer CPU per event of any "
               "thread; each flusher's CPU (its thread's clock, without the last round at "
               "detach) per event kept; bytes on disk per event kept. Median of the "
               "repetitions where there are several; 'waiting' is the time the producers "
               "were runnable but waiting for a CPU, summed over them, in ms per second.")
    out.append("")
    by_name = {}
    order = []
    for e in runs:
        name = e.get("run_name", e.get("name"))
        if name not in by_name:
            by_name[name] = []
            order.append(name)
        by_name[name].append(e)
    rows = []
    for name in order:
        group = by_name[name]
        n = name.split("producers:")[1].split("/")[0]
        mode = name.split("overflow:")[1].split("/")[0]
        flushers = int(median(e.get("flushers", 0) for e in group) or 0)
        each = []
        for i in range(flushers):
            each.append(fmt_ns(median(e.get("flusher%d_ns_per_event" % i) for e in group)))
        rows.append([n, mode, "%.1f M/s" % (median(e.get("emitted_mps", 0) for e in group)),
                     "%.2f%%" % median(e.get("kept_pct", 0) for e in group),
                     fmt_ns(median(e.get("producer_ns_per_event") for e in group)),
                     "%d" % flushers, ", ".join(each),
                     "%.3f" % median(e.get("bytes_per_event", 0) for e in group),
                     "%.0f" % median(e.get("producer_wait_ms", 0) for e in group)])
    table(out, ["producers", "overflow", "emitted, all threads", "kept", "producer CPU / event",
                "flushers", "CPU / event kept, each flusher", "bytes / event",
                "waiting, ms"], rows)
    block = {r[0]: float(r[7]) for r in rows if r[1] == "block"}
    if "1" in block and block["1"] > 0:
        worst = max(block.values()) / block["1"]
        out.append("Block mode, bytes per event with n producers against one producer's: "
                   "at most %.2fx (issue 46: within 1.5x)." % worst)
        out.append("")
    out.append("Reproduce: `%sthreads_bench -- --benchmark_filter=BM_Producers`." % RUN)
    out.append("")


def section_drain(out, flusher):
    """BM_Drain: K flushers against one on rings filled beforehand."""
    runs = flusher.runs("BM_Drain")
    if not runs:
        return
    out.append("### Several flushers draining (issue 46)")
    out.append("")
    name = runs[0].get("run_name", runs[0].get("name"))
    producers = name.split("producers:")[1].split("/")[0]
    k = name.split("flushers:")[1].split("/")[0]
    out.append("%s producers fill a 64 MiB ring each with 2 M task begin + end pairs while "
               "the flushers are held (`ittc_test_hold_flusher`); then the flushers are "
               "released and the run times how long they take to empty every ring (each "
               "producer waits for its own ring's backlog to reach zero). Each repetition "
               "is a pair of fresh processes, one flusher then %s (`ITTC_FLUSHERS`), so "
               "that the two are compared in the same minute of this shared VM." %
               (producers, k))
    out.append("")
    rows = []
    for i, e in enumerate(runs):
        rows.append(["%d" % (i + 1), "%.1f M/s" % e.get("one_flusher_mps", 0),
                     "%.1f M/s" % e.get("drain_mps", 0), "%.2fx" % e.get("over_one", 0),
                     fmt_ns(e.get("flusher_ns_per_event")),
                     "%.0f%%" % e.get("busiest_flusher_pct", 0)])
    table(out, ["pair", "1 flusher", "%s flushers" % k, "ratio",
                "CPU / event, all %s" % k, "busiest flusher's CPU / wall"], rows)
    ratio = median(e.get("over_one") for e in runs)
    target = 0.8 * float(k)
    out.append("Median ratio: **%.2fx** (issue 46: >= %.1fx, 0.8 K); %s." %
               (ratio, target, verdict(ratio >= target)))
    out.append("")
    out.append("Reproduce: `%sflusher_bench -- --benchmark_filter=BM_Drain`." % RUN)
    out.append("")


def section_flusher(out, flusher):
    out.append("## Flusher")
    out.append("")
    if not flusher.entries:
        out.append("No data.")
        out.append("")
        return
    out.append("One producer, task begin + end over four names for 1 s; the flusher's "
               "CPU time is the process's minus the producer's; of it zstd (compressing "
               "and framing events chunks) and write are the collector's own count of the "
               "time in those calls in the same run (`ittc_test_flusher_stage_ticks`), the "
               "rest is reading the rings, encoding and the rounds. Saturated = "
               "`ITTC_OVERFLOW=block` and no pacing: the producer runs as fast as it can "
               "and waits only where its ring is full, so the recorded rate is the slower "
               "of the two: where the flusher's CPU per event times the rate is well under "
               "one second per second, the producer set it (the flusher's own ceiling is "
               "`BM_Drain`'s, below).")
    out.append("")
    rows = []
    for name in flusher.names():
        e = flusher.get(name)
        if e is None or not name.startswith("BM_Flusher"):
            continue
        level = int(e.get("zstd_level", 0))
        label = "default (1)" if level == 0 else "%d" % level
        mode = "saturated" if "Saturated" in name else "paced %s M/s" % (
            name.split("rate_mps:")[1].split("/")[0])
        rows.append([mode, label, "%.1f M/s" % e.get("recorded_mps", 0),
                     fmt_ns(e.get("flusher_ns_per_event")),
                     fmt_ns(e.get("compress_ns_per_event")),
                     fmt_ns(e.get("write_ns_per_event")),
                     "%.3f" % e.get("bytes_per_event", 0),
                     "%.2f" % e.get("raw_bytes_per_event", 0),
                     "%.0f" % e.get("events_per_chunk", 0),
                     "%d" % e.get("dropped", 0)])
    table(out, ["run", "zstd level", "recorded rate", "flusher CPU / event",
                "of it zstd", "of it write", "bytes / event on disk", "bytes / event before zstd", "events per chunk",
                "dropped"], rows)
    rdtsc = flusher.get("BM_Floor_Rdtsc")
    rdtsc_ns = 1e9 / rdtsc["items_per_second"] if rdtsc and rdtsc.get("items_per_second") else None
    stages = [("Decode", "two steps, first: ring record -> Event"),
              ("Encode", "two steps, second: Event -> payload"),
              ("RingToPayload", "ring record -> payload (the flusher's path)"),
              ("Compress", "zstd at the default level, framing, CRC"),
              ("Write", "write(2) of the compressed chunk")]
    rows = []
    for name, title in stages:
        e = flusher.get("BM_Stage_" + name)
        v = 1e9 / e["items_per_second"] if e and e.get("items_per_second") else None
        rows.append([title, fmt_ns(v), fmt_ratio(v, rdtsc_ns)])
    out.append("Flusher stages per event, in one process on ring records of task begin + "
               "end as the hot path writes them (100k events, warm caches; the end-to-end "
               "figure above also pays for reading rings another core wrote, and its "
               "zstd compresses real RDTSC steps, whose jitter costs more than these "
               "synthetic ones):")
    out.append("")
    table(out, ["stage", "CPU per event", "x RDTSC"], rows)
    rows = []
    for name in flusher.names():
        e = flusher.get(name)
        if e is None or not name.startswith("BM_HeavyStages/"):
            continue
        encode = e.get("encode_ns_per_event")
        compress = e.get("compress_ns_per_event")
        rows.append([name.split("/")[1], fmt_ns(encode), fmt_ns(compress),
                     fmt_ratio((encode or 0) + (compress or 0), rdtsc_ns),
                     "%.2f" % e.get("raw_bytes_per_event", 0),
                     "%.3f" % e.get("bytes_per_event", 0)])
    if rows:
        out.append("The same two stages on ring records of the call groups the flusher drains "
                   "slowest, as the hot path writes them (`BM_HeavyStages`; 100k events):")
        out.append("")
        table(out, ["group", "ring record -> payload", "zstd", "both, x RDTSC",
                    "bytes / event before zstd", "after"], rows)
    out.append("Reproduce: `%sflusher_bench` (`-- --benchmark_filter=Stage` for the "
               "stages)." % RUN)
    out.append("")
    section_drain(out, flusher)


def section_generic(out, title, results, command):
    out.append("## %s" % title)
    out.append("")
    if not results.entries:
        out.append("Not run (target absent or failed).")
        out.append("")
        return
    rows = []
    for name in results.names():
        e = results.get(name)
        if e is None:
            continue
        extras = []
        for k, v in sorted(e.items()):
            if k in ("items_per_second", "bytes_per_second"):
                continue
            if isinstance(v, float) and k not in (
                    "real_time", "cpu_time", "iterations", "repetitions",
                    "repetition_index", "threads", "family_index",
                    "per_family_instance_index"):
                extras.append("%s=%.3g" % (k, v))
        ips = e.get("items_per_second")
        bps = e.get("bytes_per_second")
        rows.append([name + (" (%s)" % e["label"] if e.get("label") else ""),
                     fmt_ns(ns(e, "cpu_time")),
                     "%.1f M/s" % (ips / 1e6) if ips else "",
                     "%.0f MB/s" % (bps / 1e6) if bps else "",
                     " ".join(extras)])
    # Google Benchmark's cpu_time is the calling thread's: a benchmark that
    # runs work on other threads or processes (itt-dump's workers, a child
    # process) reports its CPU in its counters instead (total_ns).
    table(out, ["benchmark", "CPU time of its thread", "items/s", "bytes/s", "counters"], rows)
    out.append("Reproduce: `%s`." % command)
    out.append("")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    meta = load(args.dir, "meta.json") or {}
    calls = {}
    for s in list(STATE_TITLES) + ["naive", "flight"]:
        data = load(args.dir, "calls_%s.json" % s)
        if data is not None:
            calls[s] = Results(data)
    for i in (1, 2):
        data = load(args.dir, "calls_sustained%d.json" % i)
        if data is not None:
            calls["sustained%d" % i] = Results(data)
    # Kept shares by source: recording, sustained1, sustained2, naive, threads.
    recorded = {}
    for src, name in (("recording", "calls_recorded.json"), ("threads", "threads_recorded.json"),
                      ("sustained1", "calls_sustained1_recorded.json"),
                      ("sustained2", "calls_sustained2_recorded.json"),
                      ("naive", "calls_naive_recorded.json")):
        data = load(args.dir, name) or {}
        recorded[src] = {g["name"]: (g["calls_made"], g["recorded"])
                         for g in data.get("groups", [])}
        if src == "naive":
            recorded["naive_file_bytes"] = data.get("file_bytes")
    lttng = load(args.dir, "lttng_peer.json") or {"error": "no data"}
    pause = Results(load(args.dir, "pause.json"))
    pause_tbb = Results(load(args.dir, "pause_tbb.json"))
    threads = Results(load(args.dir, "threads.json"))
    flusher = Results(load(args.dir, "flusher.json"))

    out = []
    section_header(out, meta)
    section_targets(out, calls, recorded, threads, flusher)
    section_calls(out, calls, recorded)
    section_peers(out, calls, recorded, threads, lttng)
    section_names(out, calls)
    section_threads(out, threads, recorded.get("threads", {}))
    section_flusher(out, flusher)
    section_flight(out, calls, Results(load(args.dir, "flight_dump.json")))
    section_pause(out, pause, pause_tbb, meta)
    section_generic(out, "Trace format codec (tests/format/format_bench)",
                    Results(load(args.dir, "format_bench.json")),
                    "bazel run -c opt //tests/format:format_bench")
    section_generic(out, "itt-dump decode rates (bench/itt_dump_bench)",
                    Results(load(args.dir, "itt_dump_bench.json")),
                    RUN + "itt_dump_bench")
    notes = meta.get("notes")
    if notes:
        out.append("## Notes")
        out.append("")
        out.append(notes)
        out.append("")
    with open(args.out, "w") as f:
        f.write("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
