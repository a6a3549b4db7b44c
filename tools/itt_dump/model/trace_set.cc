#include "tools/itt_dump/model/trace_set.h"

#include <pthread.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

namespace ittc {
namespace itt_dump {
namespace {

using format::Event;
using format::FieldRole;
using format::FieldType;
using F = format::Field;

constexpr uint64_t kDenseRemapLimit = uint64_t{1} << 20;

// The last path component without ".itt".
std::string ExeName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Set-wide ids by text: the same text in two files gets one id.
class Interner {
 public:
  uint64_t Add(const std::string& key) {
    auto [it, inserted] = ids_.try_emplace(key, ids_.size() + 1);
    return it->second;
  }
  // Ids given so far: 1 to size().
  uint64_t size() const { return ids_.size(); }

 private:
  absl::flat_hash_map<std::string, uint64_t> ids_;
};

// Local id -> set id. Ids the collector writes are dense (1, 2, ...);
// a table that is not (a damaged or foreign file) keeps what fits densely
// and drops the rest to 0, "undefined".
void Put(std::vector<uint64_t>* table, uint64_t local, uint64_t global) {
  if (local >= kDenseRemapLimit) return;
  if (local >= table->size()) table->resize(local + 1, 0);
  (*table)[local] = global;
}

uint64_t Lookup(const std::vector<uint64_t>& table, uint64_t local) {
  return local < table.size() ? table[local] : 0;
}

// What TraceSetMerger::Rewrite does to one field of a kind.
enum class Action : uint8_t {
  kNone,
  kString,
  kDomain,
  kCounter,
  kHistogram,
  kClockDomain,
  kHeapFunction,
  kEventName,
  // Actions from here on are not ids (Rewrite relies on the order).
  kTagUint,  // an object address: XOR ProcessTag
  kTagId,    // an __itt_id: XOR ProcessTag into d1
  kTime,     // trace ticks: onto the set's axis
};

constexpr uint32_t Bit(Action a) { return uint32_t{1} << static_cast<int>(a); }

}  // namespace

// What Rewrite does to one kind's fields (trace_set.h declares it).
struct KindActions {
  uint8_t count = 0;
  uint32_t mask = 0;  // Bit() of every action below
  // Every action below is kTagUint or kTagId: Rewrite toggles them inline.
  bool tags_only = false;
  uint8_t field[format::kMaxFields];
  Action action[format::kMaxFields];
};

namespace {

Action ActionFor(const format::FieldSpec& f) {
  switch (f.field) {
    case F::kAddr:
    case F::kNewAddr:
      return Action::kTagUint;
    case F::kId:
    case F::kParent:
    case F::kHead:
    case F::kTail:
      return f.type == FieldType::kId ? Action::kTagId : Action::kNone;
    default:
      break;
  }
  if (f.type == FieldType::kTime) return Action::kTime;
  switch (f.role) {
    case FieldRole::kStringRef:
      return Action::kString;
    case FieldRole::kDomainRef:
      return Action::kDomain;
    case FieldRole::kCounterRef:
      return Action::kCounter;
    case FieldRole::kHistogramRef:
      return Action::kHistogram;
    case FieldRole::kClockDomainRef:
      return Action::kClockDomain;
    case FieldRole::kHeapFunctionRef:
      return Action::kHeapFunction;
    case FieldRole::kEventRef:
      return Action::kEventName;
    default:
      return Action::kNone;
  }
}

// Per kind, the fields Rewrite touches. Built once from the schema; event
// kinds (below kDirect) by one index.
const KindActions* ActionsOfSlow(format::EventKind kind) {
  static const auto* table = [] {
    auto* t = new absl::flat_hash_map<uint32_t, KindActions>();
    int n = 0;
    const format::KindSchema* all = format::AllSchemas(&n);
    for (int k = 0; k < n; ++k) {
      KindActions a;
      for (int i = 0; i < all[k].field_count; ++i) {
        const Action act = ActionFor(all[k].fields[i]);
        if (act == Action::kNone) continue;
        a.field[a.count] = static_cast<uint8_t>(i);
        a.action[a.count] = act;
        a.mask |= Bit(act);
        ++a.count;
      }
      (*t)[static_cast<uint32_t>(all[k].kind)] = a;
    }
    return t;
  }();
  auto it = table->find(static_cast<uint32_t>(kind));
  return it == table->end() ? nullptr : &it->second;
}

constexpr uint32_t kDirect = 0x400;

// Event kinds (below kDirect) by one index: ActionsOf runs for every event
// of a merge.
const std::array<const KindActions*, kDirect>& DirectActions() {
  static const auto* direct = [] {
    auto* d = new std::array<const KindActions*, kDirect>();
    for (uint32_t k = 0; k < kDirect; ++k)
      (*d)[k] = ActionsOfSlow(static_cast<format::EventKind>(k));
    return d;
  }();
  return *direct;
}

inline const KindActions* ActionsOf(format::EventKind kind) {
  const uint32_t k = static_cast<uint32_t>(kind);
  return k < kDirect ? DirectActions()[k] : ActionsOfSlow(kind);
}

// XOR `tag` into an address (kTagUint) or an __itt_id's d1 (kTagId);
// tagging and untagging are the same. NULL and __itt_null stay as they are.
inline void ToggleAddressTag(uint64_t tag, format::FieldValue* v) {
  if (v->u != 0) v->u ^= tag;  // (UntagAddress undoes it)
}
inline void ToggleIdTag(uint64_t tag, format::FieldValue* v) {
  if ((v->id.d1 | v->id.d2 | v->id.d3) != 0) v->id.d1 ^= tag;
}

// Toggles `tag` in each field of `e` that `a` marks kTagUint or kTagId
// (its other actions are left alone).
inline void ToggleTags(uint64_t tag, const KindActions& a, format::Event* e) {
  for (int k = 0; k < a.count; ++k) {
    format::FieldValue* v = &e->fields[a.field[k]];
    if (a.action[k] == Action::kTagId) {
      ToggleIdTag(tag, v);
    } else if (a.action[k] == Action::kTagUint) {
      ToggleAddressTag(tag, v);
    }
  }
}

bool SameBoot(const format::FileHeader& a, const format::FileHeader& b) {
  static constexpr std::array<uint8_t, 16> kZero{};
  return a.boot_id != kZero && a.boot_id == b.boot_id && a.host_name == b.host_name &&
         a.timebase == b.timebase;
}

}  // namespace

void UntagIdentities(uint32_t process, format::Event* e) {
  const KindActions* a = ActionsOf(e->kind);
  if (a == nullptr || process == 0) return;
  ToggleTags(ProcessTag(process), *a, e);
}

TraceSet TraceSet::Open(std::vector<TraceSource> sources, const IndexOptions& options,
                        std::string name, ProcessFiles process_files) {
  TraceSet set;
  set.name_ = std::move(name);
  // Files are indexed on up to one thread per online CPU, each taking the
  // next file, when nothing is reported while they are read (a visitor or a
  // progress display wants the files one after the other).
  std::vector<IndexResult> results(sources.size());
  size_t threads = 1;
  if (options.visitor == nullptr && options.progress == nullptr) {
    threads = std::min(static_cast<size_t>(format::OnlineCpus()), sources.size());
  }
  std::atomic<size_t> next{0};
  auto index_files = [&] {
    for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < sources.size();) {
      results[i] = BuildIndex(sources[i], options);
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) {
    pool.emplace_back([&index_files] {
      pthread_setname_np(pthread_self(), "itt-dump-index");  // for profilers and the benchmark
      index_files();
    });
  }
  index_files();
  for (std::thread& t : pool) t.join();
  for (size_t i = 0; i < sources.size(); ++i) {
    IndexResult& r = results[i];
    if (r.index == nullptr) {
      set.failures_.push_back({sources[i].name(), r.failure, r.status});
      continue;
    }
    TraceFile f;
    f.source = std::move(sources[i]);
    f.index = std::move(r.index);
    set.files_.push_back(std::move(f));
  }
  if (process_files == ProcessFiles::kLatest) set.LeaveOutEarlierDumps();
  set.Label();
  if (set.files_.size() > 1) set.Merge();
  return set;
}

namespace {

// The first event time of a file's events chunk that begins last.
uint64_t LatestChunkTicks(const TraceIndex& x) {
  uint64_t latest = 0;
  for (const auto& [index, t] : x.threads.entries()) {
    for (const uint64_t first : t.chunk_first_times) {
      if (first != kNoEvents) latest = std::max(latest, first);
    }
  }
  return latest;
}

}  // namespace

void TraceSet::LeaveOutEarlierDumps() {
  // One process's recordings: files with its boot, host, pid and start
  // (its flight dumps, or copies of one file); per process, its latest
  // file: of two dumps the later, else the one whose events chunks begin
  // later (a dump cut before its end chunk has lost its number with it).
  using Process = std::tuple<std::array<uint8_t, 16>, std::string_view, uint32_t, uint64_t>;
  const auto process_of = [this](size_t i) -> std::optional<Process> {
    const TraceIndex& x = *files_[i].index;
    if (x.header.boot_id == std::array<uint8_t, 16>{}) return std::nullopt;
    return Process(x.header.boot_id, x.header.host_name, x.header.pid, x.header.start_ticks);
  };
  const auto later = [this](size_t a, size_t b) {
    const TraceIndex& x = *files_[a].index;
    const TraceIndex& y = *files_[b].index;
    if (x.has_flight && y.has_flight) return x.flight.dump > y.flight.dump;
    return LatestChunkTicks(x) > LatestChunkTicks(y);
  };
  std::map<Process, size_t> latest;
  for (size_t i = 0; i < files_.size(); ++i) {
    if (const std::optional<Process> p = process_of(i)) {
      const auto [it, added] = latest.try_emplace(*p, i);
      if (!added && later(i, it->second)) it->second = i;
    }
  }
  if (latest.size() == files_.size()) return;  // a file per process
  std::vector<size_t> latest_of(files_.size());
  for (size_t i = 0; i < files_.size(); ++i) {
    const std::optional<Process> p = process_of(i);
    latest_of[i] = p ? latest.at(*p) : i;
  }
  for (size_t i = 0; i < files_.size(); ++i) {
    const size_t last = latest_of[i];
    if (last == i) continue;
    const TraceIndex& x = *files_[i].index;
    const TraceIndex& y = *files_[last].index;
    left_out_.push_back(
        x.has_flight && y.has_flight
            ? absl::StrCat(files_[i].source.name(), ": left out: flight recorder dump ",
                           x.flight.dump, " of the process (pid ", x.header.pid, ") whose dump ",
                           y.flight.dump, " is ", files_[last].source.name(),
                           " (their windows may overlap); read it alone to see it")
            : absl::StrCat(files_[i].source.name(), ": left out: a recording of the process (pid ",
                           x.header.pid, ") that ", files_[last].source.name(),
                           " holds too, to a later time (a copy, or a flight recorder dump cut "
                           "short); read it alone to see it"));
  }
  std::vector<TraceFile> kept;
  for (size_t i = 0; i < files_.size(); ++i) {
    if (latest_of[i] == i) kept.push_back(std::move(files_[i]));
  }
  files_ = std::move(kept);
}

uint64_t TraceSet::WallTicks(size_t file, uint64_t ticks) const {
  const TraceFile& f = files_[file];
  const int64_t ns = group_clocks_[static_cast<size_t>(f.group)].SinceStartNs(ticks) + f.offset_ns;
  return ns < 0 ? 0 : static_cast<uint64_t>(ns);
}

void TraceSet::Label() {
  std::vector<uint32_t> pids;
  bool hosts_differ = false;
  for (const TraceFile& f : files_) {
    hosts_differ = hosts_differ || f.index->header.host_name != files_[0].index->header.host_name;
  }
  for (TraceFile& f : files_) {
    const format::FileHeader& h = f.index->header;
    const std::string exe = ExeName(h.executable_path);
    if (h.rank != format::kNoRank) {
      f.label = absl::StrCat("rank ", h.rank, " (", h.host_name, ") ", exe);
      f.tag = absl::StrCat("r", h.rank);
    } else {
      f.label = hosts_differ ? absl::StrCat(exe, " (", h.host_name, ")") : exe;
    }
    uint32_t pid = h.pid;
    // Linux pids stay below 2^22 (pid_max); made-up ones start above.
    while (std::find(pids.begin(), pids.end(), pid) != pids.end()) {
      pid = pid < (1u << 22) ? (1u << 22) + h.pid : pid + 1;
    }
    pids.push_back(pid);
    f.display_pid = pid;
    // Two processes of one pid (hosts, containers) are told apart as the
    // exports tell them: by the pid made up for the later.
    if (h.rank == format::kNoRank) f.tag = absl::StrCat("p", pid);
  }
}

void TraceSet::Merge() {
  // Time: one group per boot (files without a boot id are groups alone).
  std::vector<int> group_first;  // a file of each group
  for (size_t i = 0; i < files_.size(); ++i) {
    const format::FileHeader& h = files_[i].index->header;
    int g = -1;
    for (size_t k = 0; k < group_first.size(); ++k) {
      if (SameBoot(files_[static_cast<size_t>(group_first[k])].index->header, h)) {
        g = static_cast<int>(k);
        break;
      }
    }
    if (g < 0) {
      g = static_cast<int>(group_first.size());
      group_first.push_back(static_cast<int>(i));
    }
    files_[i].group = g;
  }
  groups_ = static_cast<int>(group_first.size());
  alignment_ = groups_ == 1 ? TimeAlignment::kSharedTsc : TimeAlignment::kWallClock;
  // Per group: the header of its earliest start, its clock from all its
  // files' sync points (in tick order), and where its start falls on the
  // set's wall-clock axis.
  std::vector<format::FileHeader> group_header;
  std::vector<format::ClockSync> shared_points;  // one group: the merged index's
  for (int g = 0; g < groups_; ++g) {
    format::FileHeader h =
        files_[static_cast<size_t>(group_first[static_cast<size_t>(g)])].index->header;
    std::vector<format::ClockSync> points;
    for (const TraceFile& f : files_) {
      if (f.group != g) continue;
      if (f.index->header.start_ticks < h.start_ticks) {
        h.start_ticks = f.index->header.start_ticks;
        h.start_realtime_ns = f.index->header.start_realtime_ns;
        h.start_monotonic_raw_ns = f.index->header.start_monotonic_raw_ns;
      }
      points.insert(points.end(), f.index->sync_points.begin(), f.index->sync_points.end());
    }
    std::sort(
        points.begin(), points.end(),
        [](const format::ClockSync& a, const format::ClockSync& b) { return a.ticks < b.ticks; });
    if (!points.empty()) {
      int64_t lo = std::numeric_limits<int64_t>::max();
      int64_t hi = std::numeric_limits<int64_t>::min();
      for (const format::ClockSync& p : points) {
        const int64_t d = p.realtime_ns - static_cast<int64_t>(p.monotonic_raw_ns);
        lo = std::min(lo, d);
        hi = std::max(hi, d);
      }
      if (groups_ > 1) wall_uncertainty_ns_ = std::max(wall_uncertainty_ns_, hi - lo);
    }
    if (groups_ == 1) shared_points = points;
    group_clocks_.emplace_back(h, std::move(points));
    group_header.push_back(std::move(h));
  }
  int64_t origin = std::numeric_limits<int64_t>::max();
  std::vector<int64_t> group_start(static_cast<size_t>(groups_));
  for (size_t g = 0; g < group_start.size(); ++g) {
    group_start[g] = group_clocks_[g].RealtimeNs(group_header[g].start_ticks);
    origin = std::min(origin, group_start[g]);
  }
  for (TraceFile& f : files_) f.offset_ns = group_start[static_cast<size_t>(f.group)] - origin;

  // The merged index.
  merged_ = std::make_unique<TraceIndex>();
  TraceIndex& m = *merged_;
  m.name = name_.empty() ? absl::StrCat(files_.size(), " traces") : name_;
  m.header = files_[0].index->header;
  m.header.rank = format::kNoRank;
  if (alignment_ == TimeAlignment::kWallClock) {
    m.header.timebase = format::Timebase::kUnknown;
    m.header.timebase_hz = 1000000000;
    m.header.start_ticks = 0;
    m.header.start_realtime_ns = origin;
    m.header.start_monotonic_raw_ns = 0;
  } else {
    m.header.start_ticks = group_header[0].start_ticks;
    m.header.start_realtime_ns = group_header[0].start_realtime_ns;
    m.header.start_monotonic_raw_ns = group_header[0].start_monotonic_raw_ns;
    m.sync_points = std::move(shared_points);
  }
  for (const TraceFile& f : files_) {
    if (f.index->header.host_name != m.header.host_name) m.header.host_name.clear();
  }

  Interner strings, domains, event_names, heap_functions;
  uint64_t next_counter = 0, next_histogram = 0, next_clock_domain = 0;
  uint32_t next_thread = 0;
  m.has_end = true;
  remaps_.resize(files_.size());
  // A table of names: one set-wide id per text.
  auto merge_names = [](const U64Map<std::string>& local, Interner* ids,
                        std::vector<uint64_t>* remap, U64Map<std::string>* merged) {
    for (const auto& [id, text] : local.entries()) {
      const uint64_t g = ids->Add(text);
      Put(remap, id, g);
      (*merged)[g] = text;
    }
  };
  for (size_t fi = 0; fi < files_.size(); ++fi) {
    const TraceIndex& x = *files_[fi].index;
    Remap& r = remaps_[fi];
    merge_names(x.strings, &strings, &r.strings, &m.strings);
    merge_names(x.domains, &domains, &r.domains, &m.domains);
    merge_names(x.event_names, &event_names, &r.event_names, &m.event_names);
    for (const auto& [id, def] : x.heap_functions.entries()) {
      const uint64_t g =
          heap_functions.Add(absl::StrCat(def.name, std::string(1, '\0'), def.domain_name));
      Put(&r.heap_functions, id, g);
      m.heap_functions[g] = def;
    }
    for (const auto& [id, def] : x.counters.entries()) {
      Put(&r.counters, id, ++next_counter);
      CounterDef d = def;
      d.domain = Lookup(r.domains, def.domain);
      d.process = static_cast<uint32_t>(fi);
      m.counters[next_counter] = std::move(d);
    }
    for (const auto& [id, def] : x.histograms.entries()) {
      Put(&r.histograms, id, ++next_histogram);
      HistogramDef d = def;
      d.domain = Lookup(r.domains, def.domain);
      m.histograms[next_histogram] = d;
    }
    for (const auto& [id, def] : x.clock_domains.entries()) {
      Put(&r.clock_domains, id, ++next_clock_domain);
      m.clock_domains[next_clock_domain] = def;
    }
    for (const auto& [index, t] : x.threads.entries()) {
      ThreadRec& g = m.threads[next_thread];
      g.index = next_thread++;
      g.process = static_cast<uint32_t>(fi);
      g.tid = t.tid;
      g.name = t.name;
      g.ignored = t.ignored;
      g.has_info = t.has_info;
      g.events = t.events;
      g.label = absl::StrCat(files_[fi].tag, ":", t.label);
      r.threads[index] = &g;
    }
    for (const auto& [key, count] : x.losses.entries()) {
      const ThreadRec* const* t = r.threads.Find(key >> 8);
      if (t != nullptr) m.losses[uint64_t{(*t)->index} << 8 | (key & 0xff)] += count;
    }
    for (const ModuleRec& mod : x.modules) {
      ModuleRec g = mod;
      g.process = static_cast<uint32_t>(fi);
      g.mapped_ticks = SetTicks(fi, mod.mapped_ticks);
      if (mod.unmapped_ticks != kNoEvents) g.unmapped_ticks = SetTicks(fi, mod.unmapped_ticks);
      m.modules.push_back(std::move(g));
    }
    for (const Problem& p : x.problems) {
      m.AddProblem(p.kind, p.offset, p.bytes, absl::StrCat(x.name, ": ", p.reason));
    }
    m.problems_dropped += x.problems_dropped;
    m.has_end = m.has_end && x.has_end;
    if (x.has_end) {
      m.end.events_recorded += x.end.events_recorded;
      m.end.events_dropped += x.end.events_dropped;
      m.end.chunk_count += x.end.chunk_count;
      m.end.end_ticks = std::max(m.end.end_ticks, SetTicks(fi, x.end.end_ticks));
    }
    m.reader_stats.chunks_read += x.reader_stats.chunks_read;
    m.reader_stats.chunks_unknown_skipped += x.reader_stats.chunks_unknown_skipped;
    m.reader_stats.chunks_out_of_order += x.reader_stats.chunks_out_of_order;
    m.reader_stats.chunks_missing += x.reader_stats.chunks_missing;
    m.reader_stats.corrupt_regions += x.reader_stats.corrupt_regions;
    m.reader_stats.corrupt_bytes += x.reader_stats.corrupt_bytes;
    m.reader_stats.truncated_bytes += x.reader_stats.truncated_bytes;
    m.reader_stats.truncated = m.reader_stats.truncated || x.reader_stats.truncated;
    m.reader_stats.bytes_read += x.reader_stats.bytes_read;
    m.file_bytes += x.file_bytes;
    m.events_chunks += x.events_chunks;
    m.record_chunks += x.record_chunks;
    m.events += x.events;
    m.unknown_events += x.unknown_events;
    m.unknown_records += x.unknown_records;
    m.events_payload_bytes += x.events_payload_bytes;
    m.malformed_payloads += x.malformed_payloads;
    m.malformed_bytes += x.malformed_bytes;
    if (m.first_malformed_payload.empty()) m.first_malformed_payload = x.first_malformed_payload;
    if (x.min_event_ticks != kNoEvents) {
      m.min_event_ticks = std::min(m.min_event_ticks, SetTicks(fi, x.min_event_ticks));
      m.max_event_ticks = std::max(m.max_event_ticks, SetTicks(fi, x.max_event_ticks));
    }
  }
  // What Rewrite changes in each file's events: the tables that do not map
  // every id of the set to itself (an id the file uses but whose definition
  // it lost is no other file's: it becomes 0, undefined), the identities of
  // every process but the first, and the times on a wall-clock axis.
  for (size_t fi = 0; fi < files_.size(); ++fi) {
    Remap& r = remaps_[fi];
    r.changes = 0;
    // Each table, what it rewrites, and the set's ids of that kind (1 to N).
    const std::tuple<const std::vector<uint64_t>*, Action, uint64_t> tables[] = {
        {&r.strings, Action::kString, strings.size()},
        {&r.domains, Action::kDomain, domains.size()},
        {&r.counters, Action::kCounter, next_counter},
        {&r.histograms, Action::kHistogram, next_histogram},
        {&r.clock_domains, Action::kClockDomain, next_clock_domain},
        {&r.heap_functions, Action::kHeapFunction, heap_functions.size()},
        {&r.event_names, Action::kEventName, event_names.size()}};
    for (const auto& [t, act, set_ids] : tables) {
      if (t->size() <= set_ids) r.changes |= Bit(act);
      for (size_t id = 1; id < t->size(); ++id) {
        if ((*t)[id] != id) r.changes |= Bit(act);
      }
    }
    if (ProcessTag(static_cast<uint32_t>(fi)) != 0) {
      r.changes |= Bit(Action::kTagUint) | Bit(Action::kTagId);
    }
    if (alignment_ == TimeAlignment::kWallClock) r.changes |= Bit(Action::kTime);
  }
  m.clock = Clock(m.header, m.sync_points);
}

TraceSetMerger::TraceSetMerger(const TraceSet& set, const MergeOptions& options) : set_(set) {
  const size_t n = set.files().size();
  if (n == 1) {
    absl::StatusOr<std::unique_ptr<format::TraceReader>> reader =
        OpenForPass(set.files()[0].source);
    if (!reader.ok()) {
      errors_.emplace_back(0, reader.status());
      return;
    }
    single_reader_ = std::move(*reader);
    single_ = std::make_unique<EventMerger>(*set.files()[0].index, single_reader_.get(), options);
    return;
  }
  // Many files: one decoding thread each while that stays a few threads,
  // the reading thread alone beyond; the lookahead is shared.
  format::ReaderOptions ro;
  ro.workers = n <= 8 ? 1 : 0;
  MergeOptions mo = options;
  mo.max_buffered_bytes = set.LookaheadPerFile(options.max_buffered_bytes);
  mo.progress = nullptr;
  inputs_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const TraceFile& f = set.files()[i];
    Input& in = inputs_[i];
    in.file = i;
    in.rewriter = std::make_unique<SetRewriter>(set, i);
    absl::StatusOr<std::unique_ptr<format::TraceReader>> reader = OpenForPass(f.source, ro);
    if (!reader.ok()) {
      errors_.emplace_back(i, reader.status());
      continue;
    }
    in.reader = std::move(*reader);
    in.merger = std::make_unique<EventMerger>(*f.index, in.reader.get(), mo);
    in.done = !Advance(&in);
  }
  // The tournament: leaves are the inputs (padded to a power of two with
  // inputs that are done), each inner node keeps the loser of its match.
  size_t leaves = 1;
  while (leaves < n) leaves *= 2;
  while (inputs_.size() < leaves) {
    inputs_.emplace_back();
    inputs_.back().done = true;
  }
  losers_.assign(leaves, 0);
  keys_.assign(leaves, kDone);
  for (size_t i = 0; i < leaves; ++i) SetKey(i);
  winner_ = Play(1);
}

// ActionsOf with only the actions a file's changes select, and none for a
// kind they leave as it is: most events of most files then need no look
// at their fields.
struct RewriteTable {
  std::vector<KindActions> kept;
  std::array<const KindActions*, kDirect> direct{};
};

namespace {

// The table of `changes`, built once per value and kept.
const RewriteTable* RewriteTableFor(uint32_t changes) {
  // Sets may be opened on several threads (tests do); a set has a few
  // distinct values, each built once.
  static std::mutex mu;
  static auto* tables = new absl::flat_hash_map<uint32_t, std::unique_ptr<RewriteTable>>();
  std::lock_guard<std::mutex> lock(mu);
  std::unique_ptr<RewriteTable>& t = (*tables)[changes];
  if (t != nullptr) return t.get();
  t = std::make_unique<RewriteTable>();
  t->kept.reserve(kDirect);  // no reallocation: direct points into it
  for (uint32_t k = 0; k < kDirect; ++k) {
    const KindActions* all = ActionsOf(static_cast<format::EventKind>(k));
    if (all == nullptr || (all->mask & changes) == 0) continue;
    KindActions a;
    for (int i = 0; i < all->count; ++i) {
      if ((Bit(all->action[i]) & changes) == 0) continue;
      a.field[a.count] = all->field[i];
      a.action[a.count] = all->action[i];
      a.mask |= Bit(all->action[i]);
      ++a.count;
    }
    a.tags_only = (a.mask & ~(Bit(Action::kTagUint) | Bit(Action::kTagId))) == 0;
    t->kept.push_back(a);
    t->direct[k] = &t->kept.back();
  }
  return t.get();
}

}  // namespace

SetRewriter::SetRewriter(const TraceSet& set, size_t file)
    : set_(&set),
      file_(file),
      changes_(set.remaps_[file].changes),
      table_(RewriteTableFor(changes_)) {}

bool SetRewriter::ReadsSimpleEvents() const { return (changes_ & Bit(Action::kTime)) == 0; }

bool SetRewriter::MapsSimpleIds() const {
  return (changes_ & (Bit(Action::kString) | Bit(Action::kDomain))) != 0;
}

void SetRewriter::MapSimpleIds(format::EventStreamDecoder::SimpleTask* task) const {
  const TraceSet::Remap& r = set_->remaps_[file_];
  if ((changes_ & Bit(Action::kDomain)) != 0) task->domain = Lookup(r.domains, task->domain);
  if (task->begin && (changes_ & Bit(Action::kString)) != 0) {
    task->name = Lookup(r.strings, task->name);
  }
}

void SetRewriter::MapSimpleIds(format::EventStreamDecoder::SimpleFrame* frame) const {
  if ((changes_ & Bit(Action::kDomain)) != 0) {
    frame->domain = Lookup(set_->remaps_[file_].domains, frame->domain);
  }
}

const ThreadRec* SetRewriter::SetThread(uint32_t thread_index) const {
  const ThreadRec* const* t = set_->remaps_[file_].threads.Find(thread_index);
  return t != nullptr ? *t : nullptr;
}

size_t TraceSetMerger::Play(size_t node) {
  const size_t leaves = losers_.size();
  if (node >= leaves) return node - leaves;
  const size_t a = Play(2 * node);
  const size_t b = Play(2 * node + 1);
  if (Before(a, b)) {
    losers_[node] = b;
    return a;
  }
  losers_[node] = a;
  return b;
}

TraceSetMerger::~TraceSetMerger() = default;

uint64_t TraceSetMerger::late_events() const {
  if (single_ != nullptr) return single_->late_events();
  uint64_t n = 0;
  for (const Input& in : inputs_) {
    if (in.merger != nullptr) n += in.merger->late_events();
  }
  return n;
}

uint64_t TraceSetMerger::forced_emits() const {
  if (single_ != nullptr) return single_->forced_emits();
  uint64_t n = 0;
  for (const Input& in : inputs_) {
    if (in.merger != nullptr) n += in.merger->forced_emits();
  }
  return n;
}

std::vector<MalformedChunk> TraceSetMerger::malformed() const {
  if (single_ != nullptr) return single_->malformed();  // file 0's
  std::vector<MalformedChunk> all;
  for (const Input& in : inputs_) {
    if (in.merger == nullptr) continue;
    for (MalformedChunk m : in.merger->malformed()) {
      m.file = in.file;
      all.push_back(std::move(m));
    }
  }
  return all;
}

void NoteShortReading(const TraceSet& set, size_t file, const format::TraceReader* reader,
                      std::vector<ShortReading>* out) {
  if (reader == nullptr) return;
  const uint64_t index_bytes = set.files()[file].index->file_bytes;
  const uint64_t read = reader->stats().bytes_read;
  if (read < index_bytes) out->push_back({file, read, index_bytes});
}

std::vector<ShortReading> TraceSetMerger::ShortReadings() const {
  std::vector<ShortReading> short_readings;
  if (single_ != nullptr) {
    NoteShortReading(set_, 0, single_reader_.get(), &short_readings);
  } else {
    for (const Input& in : inputs_) {
      NoteShortReading(set_, in.file, in.reader.get(), &short_readings);
    }
  }
  return short_readings;
}

bool TraceSetMerger::Advance(Input* in) {
  if (in->run_left > 0) {
    // The merger's decisions for the rest of its batch, taken at once: this
    // touches none of its state, which 64 files do not keep in the cache.
    --in->run_left;
    in->head = in->run++;
  } else {
    if (!in->merger->Next(&in->head, &in->thread)) return false;
    in->run_left = in->merger->TakeRun(&in->run);
  }
  in->key = set_.SetTicks(in->file, in->head->time);
  return true;
}

bool TraceSetMerger::NextOfMany(const format::Event** event, const ThreadRec** thread) {
  if (delivered_) {
    // The winner's file moves on; it replays its matches up to the root.
    Input& in = inputs_[winner_];
    in.done = !Advance(&in);
    SetKey(winner_);
    size_t w = winner_;
    for (size_t node = (w + losers_.size()) / 2; node >= 1; node /= 2) {
      if (Before(losers_[node], w)) std::swap(losers_[node], w);
    }
    winner_ = w;
  }
  Input& in = inputs_[winner_];
  if (in.done) return false;
  delivered_ = true;
  // In place: the file's EventMerger is done with its head once it handed
  // it out, and decodes the next event over it.
  in.rewriter->Rewrite(const_cast<Event*>(in.head), in.key);
  *event = in.head;
  *thread = SetThread(in);
  return true;
}

const ThreadRec* TraceSetMerger::SetThread(Input& in) {
  if (in.thread == in.last_thread) return in.last_set_thread;
  in.last_thread = in.thread;
  in.last_set_thread = SetThreadSlow(in);
  return in.last_set_thread;
}

const ThreadRec* TraceSetMerger::SetThreadSlow(const Input& in) {
  if (const ThreadRec* t = in.rewriter->SetThread(in.thread->index)) return t;
  // A thread the index pass did not see (the file changed in between).
  for (const ThreadRec& t : extra_threads_) {
    if (t.process == in.file && t.tid == in.thread->index) return &t;
  }
  extra_threads_.emplace_back();
  ThreadRec& t = extra_threads_.back();
  t.index = static_cast<uint32_t>(set_.index().threads.size() + extra_threads_.size() - 1);
  t.process = static_cast<uint32_t>(in.file);
  t.tid = in.thread->index;
  t.label = absl::StrCat(set_.files()[in.file].tag, ":#", in.thread->index);
  return &t;
}

void SetRewriter::RewriteFields(Event* e) const {
  const auto kind = static_cast<uint32_t>(e->kind);
  const KindActions* a = kind < kDirect ? table_->direct[kind] : ActionsOf(e->kind);
  if (a == nullptr || (a->mask & changes_) == 0) return;
  if (a->tags_only) {
    // Most rewritten events of most files: a task's ids, an object's
    // address, made the process's own; no call, no switch.
    ToggleTags(ProcessTag(static_cast<uint32_t>(file_)), *a, e);
    return;
  }
  RewriteEach(e, *a);
}

void SetRewriter::RewriteEach(Event* e, const KindActions& a) const {
  const TraceSet::Remap& r = set_->remaps_[file_];
  const uint64_t tag = ProcessTag(static_cast<uint32_t>(file_));
  for (int k = 0; k < a.count; ++k) {
    format::FieldValue& v = e->fields[a.field[k]];
    const Action act = a.action[k];
    if ((Bit(act) & changes_) == 0) continue;  // as it is
    switch (act) {
      case Action::kNone:
        break;
      case Action::kString:
        v.u = Lookup(r.strings, v.u);
        break;
      case Action::kDomain:
        v.u = Lookup(r.domains, v.u);
        break;
      case Action::kCounter:
        v.u = Lookup(r.counters, v.u);
        break;
      case Action::kHistogram:
        v.u = Lookup(r.histograms, v.u);
        break;
      case Action::kClockDomain:
        v.u = Lookup(r.clock_domains, v.u);
        break;
      case Action::kHeapFunction:
        v.u = Lookup(r.heap_functions, v.u);
        break;
      case Action::kEventName:
        v.u = Lookup(r.event_names, v.u);
        break;
      case Action::kTagUint:
        ToggleAddressTag(tag, &v);
        break;
      case Action::kTagId:
        ToggleIdTag(tag, &v);
        break;
      case Action::kTime:
        if (v.u != format::kTimestampNone) v.u = set_->SetTicks(file_, v.u);
        break;
    }
  }
}

}  // namespace itt_dump
}  // namespace ittc
