#include "tools/itt_dump/cli.h"

#include <dirent.h>
#include <malloc.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <optional>
#include <string_view>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "tools/itt_dump/chrome.h"
#include "tools/itt_dump/diff.h"
#include "tools/itt_dump/info.h"
#include "tools/itt_dump/leaks.h"
#include "tools/itt_dump/model/symbols.h"
#include "tools/itt_dump/parquet/export.h"
#include "tools/itt_dump/perf_map.h"
#include "tools/itt_dump/perfetto/export.h"
#include "tools/itt_dump/stats.h"
#include "tools/itt_dump/text.h"
#include "tools/itt_dump/verify.h"
#include "tools/itt_dump/vtune_csv.h"

namespace ittc {
namespace itt_dump {
namespace {

constexpr char kMainHelp[] =
    "usage: itt-dump [VERB] [OPTIONS] FILE...\n"
    "       itt-dump diff [OPTIONS] BASE NEW\n"
    "\n"
    "Reads ittcollector traces (.itt). Each FILE is a trace or a directory of\n"
    "them (its .itt files); several traces are read as one run on one time\n"
    "axis: the processes of an MPI job, a fork tree.\n"
    "\n"
    "verbs:\n"
    "  text       one line per event in time order (the default verb)\n"
    "  info       header, threads, event counts, losses, damage, clean end\n"
    "  stats      task/frame/counter/sync/heap/JIT statistics\n"
    "  diff       what got slower from one trace to another (BASE NEW)\n"
    "  chrome     Chrome Trace Event JSON (chrome://tracing, Perfetto)\n"
    "  perfetto   Perfetto's native protobuf trace (big traces)\n"
    "  parquet    Parquet tables for SQL engines (DuckDB, Spark, Trino)\n"
    "  leaks      heap blocks never freed, where they were allocated\n"
    "  perf-map   JIT method loads as a perf map (perf-PID.map)\n"
    "  vtune-csv  CSV files VTune imports as external data\n"
    "  verify     check every chunk and event; exit status says what was "
    "found\n"
    "\n"
    "'itt-dump VERB --help' describes a verb. Exit status: 0 success;\n"
    "1 truncated, 2 corrupt, 3 not a trace, 4 unreadable (verify, or a\n"
    "file whose header cannot be read); 5 diff --fail-above exceeded;\n"
    "64 bad usage; 73 output error.\n";

constexpr char kFilterHelp[] =
    "filters:\n"
    "  --thread=ID|NAME  OS thread id, or a glob on the thread name\n"
    "  --domain=GLOB     glob on the domain name\n"
    "  --name=GLOB       glob on the task/marker/counter/... name\n"
    "  --from=NS         keep items at or after NS ns since the start\n"
    "  --to=NS           keep items at or before NS ns since the start\n"
    "  (globs: '*' any run, '?' one character)\n"
    "  --lookahead-mb=N  memory bound of the time-order merge (default 256)\n"
    "  --serial          merge and print on one thread: less CPU, more time\n"
    "                    (stats, diff, text, chrome, perfetto, vtune-csv and\n"
    "                    parquet otherwise use two cores or more)\n"
    "  --no-progress     never show the progress line\n";

constexpr char kTextHelp[] =
    "usage: itt-dump [text] [OPTIONS] FILE...\n"
    "\n"
    "One line per event, in time order across threads:\n"
    "  TIME THREAD KIND DOMAIN NAME [FIELD=VALUE ...]\n"
    "TIME is nanoseconds since the start of the trace; THREAD is tid/name;\n"
    "with several traces THREAD starts with its process: r3:tid/name for\n"
    "rank 3, p1234:tid/name for pid 1234.\n"
    "DOMAIN and NAME are '-' when the event has none.\n"
    "\n"
    "options:\n"
    "  --wall            TIME as UTC wall-clock time\n";

constexpr char kInfoHelp[] =
    "usage: itt-dump info FILE...\n"
    "\n"
    "Header facts (process, host, command line, start time, timebase,\n"
    "duration), threads with names and event counts, the total events,\n"
    "losses, damaged regions, and whether the trace ended cleanly.\n"
    "Several traces: each file, then the totals and how their clocks were\n"
    "lined up (one host's shared TSC, or wall clock across hosts).\n";

constexpr char kStatsHelp[] =
    "usage: itt-dump stats [OPTIONS] FILE...\n"
    "\n"
    "Statistics: losses (first, when any), tasks per (domain, name, kind)\n"
    "with count, total, self, min, mean, p50, p90, p99, max; frames per\n"
    "domain; counters; sync objects; heap functions; JIT methods.\n"
    "Durations: microseconds in tables, nanoseconds in CSV and JSON.\n"
    "\n"
    "options:\n"
    "  --format=table|csv|json  output format (default table)\n"
    "  --per-thread             also the task statistics per thread\n"
    "  --per-process            also the task statistics per process (file)\n"
    "Several traces: every section sums over the processes.\n";

constexpr char kDiffHelp[] =
    "usage: itt-dump diff [OPTIONS] BASE NEW\n"
    "\n"
    "Compares two traces: tasks per (domain, name, kind) with count, total,\n"
    "p50 and p99 in each and the change of p50 in percent, the largest\n"
    "growth first, then tasks only in NEW (new) and only in BASE (gone);\n"
    "frames per domain (count, rate, p50); sync objects per (type, name)\n"
    "(acquisitions, total, mean and max wait). The filters apply to both.\n"
    "\n"
    "options:\n"
    "  --format=table|csv|json  output format (default table)\n"
    "  --min-count=N            leave out rows with fewer than N in both\n"
    "  --fail-above=PCT         exit 5 if some task's p50 grew by more than\n"
    "                           PCT percent (or from 0)\n";

constexpr char kChromeHelp[] =
    "usage: itt-dump chrome FILE... [-o OUT.json]\n"
    "\n"
    "Chrome Trace Event JSON for chrome://tracing and ui.perfetto.dev:\n"
    "tasks as complete events, overlapped tasks as async pairs, frames on\n"
    "a frame track, markers as instant events, counters, thread names,\n"
    "relations as flows, metadata as task args. Without -o (or with\n"
    "-o -) the JSON goes to stdout.\n";

constexpr char kPerfettoHelp[] =
    "usage: itt-dump perfetto FILE... -o OUT.pftrace [--compress=zstd|deflate|none]\n"
    "\n"
    "Perfetto's native protobuf trace format, for ui.perfetto.dev (Open\n"
    "trace file) and trace_processor: process and thread tracks, tasks as\n"
    "slices with metadata as annotations, overlapped tasks, regions and\n"
    "frames on lane tracks, markers as instants, counter tracks, relations\n"
    "as flows, JIT method loads as instants. Streamed in one pass. Packets\n"
    "are compressed in blocks: zstd (the default) needs Perfetto v58\n"
    "(2026-08) or later; deflate is read by every release; none writes\n"
    "plain packets (protoc --decode can read them). -o - writes to stdout.\n";

constexpr char kParquetHelp[] =
    "usage: itt-dump parquet [FILTERS] FILE... -o DIR\n"
    "\n"
    "Writes the trace as a dataset of Apache Parquet tables, one directory\n"
    "each under DIR (created if missing): slice, instant, counter, flow,\n"
    "heap, args, thread and process, named after Perfetto's trace processor\n"
    "tables. Several traces (or one with an MPI rank) are partitioned by\n"
    "process: DIR/slice/rank=3/part-0.parquet. DuckDB reads it as\n"
    "  SELECT * FROM read_parquet('DIR/slice/**/*.parquet', hive_partitioning=true)\n"
    "Each file is written under a temporary name and renamed once whole.\n";

constexpr char kLeaksHelp[] =
    "usage: itt-dump leaks [OPTIONS] FILE...\n"
    "\n"
    "Heap blocks (__itt_heap_* hooks) allocated and never freed by the end\n"
    "of the trace: address, size, heap function, domain, thread, time, and\n"
    "the innermost task open on the thread when it was allocated; then the\n"
    "leaked count and bytes, the peak of live bytes and its time, frees of\n"
    "unknown addresses. Filters select leaks by thread, heap function\n"
    "(--name, --domain) and allocation time.\n"
    "\n"
    "options:\n"
    "  --format=table|csv|json  output format (default table)\n"
    "  --group                  one row per (heap function, task), largest first\n";

constexpr char kPerfMapHelp[] =
    "usage: itt-dump perf-map FILE... -o DIR\n"
    "\n"
    "Writes DIR/perf-PID.map (DIR created if missing): one line per JIT\n"
    "method load, 'START SIZE NAME' in hex without 0x, in load order, the\n"
    "file perf reads to name JIT code (copy it to /tmp for perf report).\n";

constexpr char kVtuneHelp[] =
    "usage: itt-dump vtune-csv FILE... -o DIR [--prefix=NAME]\n"
    "\n"
    "Writes VTune external-data CSV files into DIR (created if missing):\n"
    "  NAME-intervals-hostname-HOST.csv  tasks (with tid) and frames\n"
    "  NAME-counters-hostname-HOST.csv   counter samples (if any)\n"
    "NAME defaults to the trace file name without .itt; several hosts get\n"
    "a set of files each, and a later boot of a host already named (or of\n"
    "a host whose name reads the same) NAME-boot2, NAME-boot3... The counter\n"
    "rows wait for the end of the pass: past 4 MiB in an unnamed temporary file\n"
    "in TMPDIR (else /tmp).\n";

constexpr char kVerifyHelp[] =
    "usage: itt-dump verify FILE...\n"
    "\n"
    "Checks every chunk and every event; prints each problem with its\n"
    "byte offset and reason, then a summary line. Exit status:\n"
    "  0  clean and complete\n"
    "  1  truncated, or no end record (the writer did not close it)\n"
    "  2  corrupt\n"
    "  3  not a trace (wrong magic, or empty)\n"
    "  4  cannot be read (I/O error, unsupported format version)\n";

struct Args {
  std::string verb = "text";
  std::vector<std::string> files;  // diff: BASE and NEW
  std::string output;
  bool has_output = false;
  std::string prefix;
  FilterSpec filter;
  ReportFormat format = ReportFormat::kTable;
  bool per_thread = false;
  bool per_process = false;
  bool group = false;
  uint64_t min_count = 0;            // diff
  std::optional<double> fail_above;  // diff
  bool wall = false;
  bool help = false;
  bool no_progress = false;
  bool serial = false;
  PerfettoCompression compression = PerfettoOptions().compression;
  size_t lookahead = MergeOptions().max_buffered_bytes;
};

bool IsVerb(std::string_view s) {
  return s == "text" || s == "info" || s == "stats" || s == "chrome" || s == "perfetto" ||
         s == "parquet" || s == "vtune-csv" || s == "verify" || s == "leaks" || s == "perf-map" ||
         s == "diff" || s == "help";
}

const char* HelpFor(const std::string& verb) {
  if (verb == "text") return kTextHelp;
  if (verb == "info") return kInfoHelp;
  if (verb == "stats") return kStatsHelp;
  if (verb == "diff") return kDiffHelp;
  if (verb == "chrome") return kChromeHelp;
  if (verb == "perfetto") return kPerfettoHelp;
  if (verb == "parquet") return kParquetHelp;
  if (verb == "leaks") return kLeaksHelp;
  if (verb == "perf-map") return kPerfMapHelp;
  if (verb == "vtune-csv") return kVtuneHelp;
  if (verb == "verify") return kVerifyHelp;
  return kMainHelp;
}

bool TakesFilters(const std::string& verb) {
  return verb == "text" || verb == "stats" || verb == "chrome" || verb == "perfetto" ||
         verb == "parquet" || verb == "vtune-csv" || verb == "leaks" || verb == "diff";
}

// Parses args; on error returns the message.
std::optional<std::string> Parse(const std::vector<std::string>& in, Args* a) {
  size_t i = 0;
  bool explicit_verb = false;
  if (!in.empty() && IsVerb(in[0])) {
    a->verb = in[0];
    explicit_verb = true;
    i = 1;
  }
  if (a->verb == "help") {
    a->help = true;
    a->verb = i < in.size() && IsVerb(in[i]) ? in[i] : "";
    return std::nullopt;
  }
  bool only_files = false;
  for (; i < in.size(); ++i) {
    const std::string& s = in[i];
    auto value = [&](std::string_view flag) -> std::optional<std::string> {
      // --flag=VALUE
      if (s.size() > flag.size() && s.compare(0, flag.size(), flag) == 0 && s[flag.size()] == '=') {
        return s.substr(flag.size() + 1);
      }
      return std::nullopt;
    };
    if (only_files || s.empty() || s[0] != '-' || s == "-") {
      a->files.push_back(s);
      continue;
    }
    if (s == "--") {
      only_files = true;
      continue;
    }
    if (s == "-h" || s == "--help") {
      a->help = true;
      continue;
    }
    if (s == "-o" || s == "--output") {
      if (i + 1 >= in.size()) return s + " needs a value";
      a->output = in[++i];
      a->has_output = true;
      continue;
    }
    if (auto v = value("--output")) {
      a->output = *v;
      a->has_output = true;
      continue;
    }
    if (s == "--no-progress") {
      a->no_progress = true;
      continue;
    }
    if (s == "--serial") {
      a->serial = true;
      continue;
    }
    if (auto v = value("--lookahead-mb")) {
      uint64_t mb;
      if (!absl::SimpleAtoi(*v, &mb) || mb == 0 || mb > (1u << 20)) {
        return "--lookahead-mb needs a number of MiB (1..1048576)";
      }
      a->lookahead = static_cast<size_t>(mb) << 20;
      continue;
    }
    if (a->verb == "text" && s == "--wall") {
      a->wall = true;
      continue;
    }
    if (a->verb == "stats" && s == "--per-thread") {
      a->per_thread = true;
      continue;
    }
    if (a->verb == "stats" && s == "--per-process") {
      a->per_process = true;
      continue;
    }
    if (a->verb == "leaks" && s == "--group") {
      a->group = true;
      continue;
    }
    if (a->verb == "diff") {
      if (auto v = value("--min-count")) {
        if (!absl::SimpleAtoi(*v, &a->min_count)) return "--min-count needs a count";
        continue;
      }
      if (auto v = value("--fail-above")) {
        double pct;
        if (!absl::SimpleAtod(*v, &pct) || !std::isfinite(pct)) {
          return "--fail-above needs a percentage";
        }
        a->fail_above = pct;
        continue;
      }
    }
    if (a->verb == "stats" || a->verb == "leaks" || a->verb == "diff") {
      if (auto v = value("--format")) {
        if (*v == "table") {
          a->format = ReportFormat::kTable;
        } else if (*v == "csv") {
          a->format = ReportFormat::kCsv;
        } else if (*v == "json") {
          a->format = ReportFormat::kJson;
        } else {
          return "--format must be table, csv or json";
        }
        continue;
      }
    }
    if (a->verb == "perfetto") {
      if (auto v = value("--compress")) {
        if (*v == "zstd") {
          a->compression = PerfettoCompression::kZstd;
        } else if (*v == "deflate") {
          a->compression = PerfettoCompression::kDeflate;
        } else if (*v == "none") {
          a->compression = PerfettoCompression::kNone;
        } else {
          return "--compress must be zstd, deflate or none";
        }
        continue;
      }
    }
    if (a->verb == "vtune-csv") {
      if (auto v = value("--prefix")) {
        if (v->empty() || v->find('/') != std::string::npos) {
          return "--prefix must be a non-empty file name part";
        }
        a->prefix = *v;
        continue;
      }
    }
    if (TakesFilters(a->verb)) {
      if (auto v = value("--thread")) {
        a->filter.thread = *v;
        continue;
      }
      if (auto v = value("--domain")) {
        a->filter.domain = *v;
        continue;
      }
      if (auto v = value("--name")) {
        a->filter.name = *v;
        continue;
      }
      bool from = false;
      std::optional<std::string> v = value("--from");
      if (v) {
        from = true;
      } else {
        v = value("--to");
      }
      if (v) {
        int64_t ns;
        if (!absl::SimpleAtoi(*v, &ns)) {
          return absl::StrCat(from ? "--from" : "--to", " needs nanoseconds since the start");
        }
        (from ? a->filter.from_ns : a->filter.to_ns) = ns;
        continue;
      }
    }
    return absl::StrCat("unknown option for ", a->verb, ": ", s);
  }
  if (a->help) {
    // Without a verb, --help describes the program, not the default verb.
    if (!explicit_verb) a->verb = "";
    return std::nullopt;
  }
  if (a->files.empty()) return "no FILE given";
  if (a->verb == "diff" && a->files.size() != 2) {
    return "diff needs BASE and NEW (each a trace or a directory)";
  }
  if (a->verb == "vtune-csv" && !a->has_output) {
    return "vtune-csv needs -o DIR";
  }
  if (a->verb == "perf-map" && !a->has_output) return "perf-map needs -o DIR";
  if (a->verb == "parquet" && (!a->has_output || a->output == "-")) return "parquet needs -o DIR";
  if (a->verb == "perfetto" && !a->has_output) {
    return "perfetto needs -o OUT (-o - for stdout)";
  }
  if (a->verb == "chrome" && !a->has_output) a->output = "-";  // stdout
  if (a->has_output && a->verb != "chrome" && a->verb != "perfetto" && a->verb != "vtune-csv" &&
      a->verb != "perf-map" && a->verb != "parquet") {
    return absl::StrCat(a->verb, " writes to stdout; -o is not an option");
  }
  return std::nullopt;
}

class DirFactory : public OutputFactory {
 public:
  DirFactory(const Env& env, std::string dir) : env_(env), dir_(std::move(dir)) {}
  absl::StatusOr<std::unique_ptr<Output>> Create(const std::string& name) override {
    return env_.create_file(dir_.empty() ? name : absl::StrCat(dir_, "/", name));
  }

 private:
  const Env& env_;
  std::string dir_;
};

// diff: indexes BASE and NEW, then RunDiff makes each one's pass.
// The traces FILE arguments name: each a trace or a directory of them.
struct Inputs {
  std::vector<TraceSource> sources;
  std::string name;  // of the set: the one file's, a directory's, or "N traces"
  uint64_t bytes = 0;
  // Why the arguments that name no trace (a directory without one, or
  // that cannot be listed) do not: each is left out, as a file that cannot
  // be read is, and the others are read.
  std::vector<absl::Status> failures;
};

Inputs ExpandInputs(const std::vector<std::string>& args, const Env& env) {
  Inputs in;
  for (const std::string& f : args) {
    absl::StatusOr<std::vector<std::string>> paths =
        env.expand ? env.expand(f) : absl::StatusOr<std::vector<std::string>>({f});
    if (!paths.ok()) {
      in.failures.push_back(paths.status());
      continue;
    }
    for (const std::string& p : *paths) in.sources.push_back(env.source(p));
  }
  // A directory names the set; several arguments are counted.
  in.name =
      in.sources.size() == 1 ? in.sources[0].name() : absl::StrCat(in.sources.size(), " traces");
  if (args.size() == 1 && in.sources.size() > 1) {
    in.name = args[0];
    while (in.name.size() > 1 && in.name.back() == '/') in.name.pop_back();
  }
  for (const TraceSource& src : in.sources) in.bytes += src.Size();
  return in;
}

// Writes "itt-dump: MESSAGE" for each argument of `in` that names no
// trace; returns the exit status they make (0 if none).
int ReportFailures(const Inputs& in, const Env& env) {
  for (const absl::Status& s : in.failures) {
    env.err->Write(absl::StrCat("itt-dump: ", s.message(), "\n"));
  }
  env.err->Flush();
  return in.failures.empty() ? kExitOk : static_cast<int>(StatusForFailure(OpenFailure::kIo));
}

// Whether paths `a` and `b` name one file: the same device and inode where
// both exist, else the same text.
bool SameFile(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  if (stat(a.c_str(), &sa) == 0 && stat(b.c_str(), &sb) == 0) {
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  }
  return a == b;
}

// The input of `set` (read, or not readable) that `output` names, or null:
// writing it would truncate the trace before the second pass reads it.
const std::string* InputNamed(const TraceSet& set, const std::string& output) {
  for (const TraceFile& f : set.files()) {
    if (SameFile(f.source.name(), output)) return &f.source.name();
  }
  for (const TraceSet::Failure& f : set.failures()) {
    if (SameFile(f.name, output)) return &f.name;
  }
  return nullptr;
}

// Writes "itt-dump: MESSAGE" for each file of `set` that could not be read;
// returns the worst status among them (0 if none).
int ReportFailures(const TraceSet& set, const Env& env) {
  int worst = kExitOk;
  for (const std::string& note : set.left_out())
    env.err->Write(absl::StrCat("itt-dump: ", note, "\n"));
  for (const TraceSet::Failure& f : set.failures()) {
    worst = std::max(worst, static_cast<int>(StatusForFailure(f.failure)));
    env.err->Write(absl::StrCat("itt-dump: ", f.name, ": ", f.Reason(), "\n"));
  }
  env.err->Flush();
  return worst;
}

// The exit status of a verb's pass that failed: an input the index pass
// read but the verb's own pass could not open again (a pipe, a file
// replaced in between: OpenForPass) exits as that open failure would have
// at the start; anything else is the output's failure.
int PassFailureExit(const absl::Status& s) {
  const OpenFailure input = PassOpenFailure(s);
  return input == OpenFailure::kNone ? kExitOutput : static_cast<int>(StatusForFailure(input));
}

// Says why a verb failed (an error without text was said already: a file
// cut while it was read, WarnMerge), as "itt-dump: FILE: ..." with `ctx`,
// and returns its exit status (PassFailureExit).
int FailVerb(const Env& env, const absl::Status& s, const VerbContext* ctx = nullptr) {
  if (!s.message().empty()) {
    if (ctx != nullptr) {
      Warn(*ctx, std::string(s.message()));
    } else {
      env.err->Write(absl::StrCat("itt-dump: ", s.message(), "\n"));
      env.err->Flush();
    }
  }
  return PassFailureExit(s);
}

// Points `ctx` (at its final address: symbol warnings refer to it) at `set`
// with the command line's output, filters and merge options.
void BindContext(const Args& a, const Env& env, const TraceSet& set, Progress* progress,
                 VerbContext* ctx) {
  ctx->set = &set;
  ctx->index = set.empty() ? nullptr : &set.index();
  ctx->out = env.out;
  ctx->err = env.err;
  ctx->filter = a.filter;
  ctx->merge.max_buffered_bytes = a.lookahead;
  ctx->merge.stretch_items = env.stretch_items;
  ctx->merge.run_outputs = env.run_outputs;
  ctx->merge.progress = progress;
  ctx->wall_clock = a.wall;
  ctx->parallel = env.parallel && !a.serial;
  if (ctx->index != nullptr) {
    SetSymbolWarnings(*ctx->index, [ctx](std::string_view m) { Warn(*ctx, m); });
  }
}

int RunDiffCommand(const Args& a, const Env& env) {
  struct Side {
    std::unique_ptr<Progress> progress;
    TraceSet set;
    VerbContext ctx;
  };
  const bool want_progress = env.progress && !a.no_progress;
  Side sides[2];
  int open_status = kExitOk;
  for (int i = 0; i < 2; ++i) {
    Side& side = sides[i];
    Inputs in = ExpandInputs({a.files[static_cast<size_t>(i)]}, env);
    // (One argument: a side without its traces has nothing to compare.)
    if (const int failed = ReportFailures(in, env); failed != kExitOk) return failed;
    side.progress =
        std::make_unique<Progress>(in.name, want_progress ? in.bytes : 0, want_progress);
    side.progress->SetPass(1, 2, in.bytes);
    IndexOptions io;
    io.progress = in.sources.size() == 1 ? side.progress.get() : nullptr;
    side.set = TraceSet::Open(std::move(in.sources), io, in.name);
    open_status = std::max(open_status, ReportFailures(side.set, env));
    if (side.set.empty()) {
      side.progress->Done();
      return open_status;
    }
    BindContext(a, env, side.set, side.progress.get(), &side.ctx);
    side.progress->SetPass(2, 2, side.ctx.index->reader_stats.chunks_read);
    WarnDamage(side.ctx);
    WarnAlignment(side.ctx);
  }
  DiffOptions options;
  options.format = a.format;
  options.min_count = a.min_count;
  options.fail_above_pct = a.fail_above;
  bool regressed = false;
  const absl::Status s = RunDiff(sides[0].ctx, sides[1].ctx, options, &regressed);
  for (Side& side : sides) side.progress->Done();
  env.out->Flush();
  if (!s.ok()) return FailVerb(env, s);
  if (!env.out->status().ok()) {
    env.err->Write(absl::StrCat("itt-dump: ", env.out->status().message(), "\n"));
    env.err->Flush();
    return kExitOutput;
  }
  if (regressed) return kExitRegression;
  return open_status;
}

}  // namespace

int RunItDump(const std::vector<std::string>& args, const Env& env) {
  Args a;
  if (std::optional<std::string> error = Parse(args, &a)) {
    env.err->Write(absl::StrCat("itt-dump: ", *error, "\nTry 'itt-dump --help'.\n"));
    env.err->Flush();
    return kExitUsage;
  }
  if (a.help) {
    env.out->Write(HelpFor(a.verb));
    if (TakesFilters(a.verb)) {
      env.out->Write("\n");
      env.out->Write(kFilterHelp);
    }
    env.out->Flush();
    return kExitOk;
  }
  if (a.verb == "diff") return RunDiffCommand(a, env);

  // FILE arguments: traces, or directories of them (their .itt files).
  // An argument that names no trace is reported and left out, as a file
  // that cannot be read is; the others are read.
  Inputs in = ExpandInputs(a.files, env);
  const int expand_status = ReportFailures(in, env);
  if (in.sources.empty() && expand_status != kExitOk) return expand_status;
  const bool want_progress = env.progress && !a.no_progress;
  Progress progress(in.name, want_progress ? in.bytes : 0, want_progress);
  const int passes = a.verb == "info" ? 1 : 2;
  progress.SetPass(1, passes, in.bytes);
  IndexOptions io;
  io.decode_all_events = a.verb == "info" || a.verb == "verify";
  io.check_events = a.verb == "verify";
  io.progress = in.sources.size() == 1 ? &progress : nullptr;
  // (verify checks every file it is given, one process's dumps included.)
  const TraceSet set = TraceSet::Open(
      std::move(in.sources), io, in.name,
      a.verb == "verify" ? TraceSet::ProcessFiles::kEvery : TraceSet::ProcessFiles::kLatest);

  VerbContext ctx;
  BindContext(a, env, set, &progress, &ctx);

  // A file that cannot be read is reported and left out; the others are
  // read. The exit status says the worst that happened to one.
  const int open_status = std::max(expand_status, ReportFailures(set, env));
  if (a.verb == "verify") {
    const int status = std::max(expand_status, RunVerify(ctx));
    progress.Done();
    return status;
  }
  if (set.empty()) {
    progress.Done();
    return open_status;
  }
  progress.SetPass(2, passes, ctx.index->reader_stats.chunks_read);
  if (a.verb != "info") {
    WarnDamage(ctx);
    WarnAlignment(ctx);
  }

  absl::Status s;
  std::unique_ptr<Output> file_out;
  if (a.verb == "info") {
    s = RunInfo(ctx);
  } else if (a.verb == "text") {
    s = RunText(ctx);
  } else if (a.verb == "stats") {
    StatsOptions so;
    so.format = a.format;
    so.per_thread = a.per_thread;
    so.per_process = a.per_process;
    s = RunStats(ctx, so);
  } else if (a.verb == "chrome" || a.verb == "perfetto") {
    Output* out = env.out;
    if (a.output != "-") {
      if (const std::string* input = InputNamed(set, a.output)) {
        progress.Done();
        env.err->Write(
            absl::StrCat("itt-dump: ", a.output, " is the input trace ", *input,
                         ": writing it would destroy the trace; choose another output\n"));
        env.err->Flush();
        return kExitOutput;
      }
      absl::StatusOr<std::unique_ptr<Output>> f = env.create_file(a.output);
      if (!f.ok()) {
        progress.Done();
        env.err->Write(absl::StrCat("itt-dump: ", f.status().message(), "\n"));
        env.err->Flush();
        return kExitOutput;
      }
      file_out = std::move(*f);
      out = file_out.get();
    }
    ctx.out = out;
    if (a.verb == "chrome") {
      s = RunChrome(ctx);
    } else {
      PerfettoOptions po;
      po.compression = a.compression;
      s = RunPerfetto(ctx, po);
    }
    if (s.ok() && !out->status().ok()) s = out->status();
  } else if (a.verb == "leaks") {
    LeaksOptions lo;
    lo.format = a.format;
    lo.group = a.group;
    s = RunLeaks(ctx, lo);
  } else if (a.verb == "perf-map") {
    absl::Status d = env.make_dir(a.output);
    if (!d.ok()) {
      progress.Done();
      env.err->Write(absl::StrCat("itt-dump: ", d.message(), "\n"));
      env.err->Flush();
      return kExitOutput;
    }
    DirFactory files(env, a.output);
    s = RunPerfMap(ctx, &files);
  } else if (a.verb == "parquet") {
    ParquetOptions po;
    po.dir = a.output;
    if (!ctx.parallel) po.encoder_threads = 0;  // --serial: encoded on this thread
    s = RunParquet(ctx, po);
    if (!s.ok()) {
      progress.Done();
      return FailVerb(env, s);
    }
  } else if (a.verb == "vtune-csv") {
    absl::Status d = env.make_dir(a.output);
    if (!d.ok()) {
      progress.Done();
      env.err->Write(absl::StrCat("itt-dump: ", d.message(), "\n"));
      env.err->Flush();
      return kExitOutput;
    }
    DirFactory files(env, a.output);
    VtuneOptions vo;
    vo.prefix = a.prefix;
    s = RunVtuneCsv(ctx, vo, &files);
    if (!s.ok()) {
      progress.Done();
      return FailVerb(env, s);
    }
  }
  progress.Done();
  env.out->Flush();
  if (!s.ok()) return FailVerb(env, s, &ctx);
  if (!env.out->status().ok()) {
    env.err->Write(absl::StrCat("itt-dump: ", env.out->status().message(), "\n"));
    env.err->Flush();
    return kExitOutput;
  }
  return open_status;
}

absl::StatusOr<std::vector<std::string>> ExpandTraceArgument(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return std::vector<std::string>{path};
  DIR* d = opendir(path.c_str());
  if (d == nullptr) return absl::ErrnoToStatus(errno, path);
  std::vector<std::string> names;
  while (const dirent* e = readdir(d)) {
    const std::string_view n = e->d_name;
    if (n.size() > 4 && n.substr(n.size() - 4) == ".itt") names.emplace_back(n);
  }
  closedir(d);
  if (names.empty())
    return absl::NotFoundError(absl::StrCat(path, ": no .itt files in the directory"));
  std::sort(names.begin(), names.end());
  const std::string dir = path.back() == '/' ? path : path + "/";
  for (std::string& n : names) n = dir + n;
  return names;
}

std::unique_ptr<ProcessEnv> MakeProcessEnv() {
  auto p = std::make_unique<ProcessEnv>();
  p->out = FdOutput(STDOUT_FILENO, "stdout", false);
  p->err = FdOutput(STDERR_FILENO, "stderr", false);
  p->env.out = p->out.get();
  p->env.err = p->err.get();
  p->env.source = [](const std::string& path) { return TraceSource::File(path); };
  p->env.expand = ExpandTraceArgument;
  p->env.create_file = [](const std::string& path) { return FileOutput(path); };
  p->env.make_dir = [](const std::string& dir) -> absl::Status {
    if (mkdir(dir.c_str(), 0755) == 0 || errno == EEXIST) {
      struct stat st;
      if (stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
        return absl::OkStatus();
      }
      return absl::FailedPreconditionError(dir + ": not a directory");
    }
    return absl::ErrnoToStatus(errno, dir);
  };
  p->env.progress = Progress::StderrIsTerminal();
  return p;
}

int IttDumpMain(int argc, char** argv) {
  // A closed pipe shows up as EPIPE from write(2): the verb stops quietly.
  signal(SIGPIPE, SIG_IGN);
  // Chunk payloads (up to a few MiB each) are allocated and freed all the
  // time: from the heap, not from fresh zeroed pages of mmap each time.
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  std::vector<std::string> args(argv + 1, argv + argc);
  std::unique_ptr<ProcessEnv> p = MakeProcessEnv();
  const int status = RunItDump(args, p->env);
  p->out->Flush();
  p->err->Flush();
  return status;
}

}  // namespace itt_dump
}  // namespace ittc
