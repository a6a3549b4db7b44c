// Loading a trace: where its bytes come from (TraceSource), and the index
// pass (BuildIndex) that every verb runs first.
//
// The index pass reads the whole file once and keeps what is small and
// needed to interpret events: the header, every definition, thread info
// (the latest record of each thread wins), clock-sync points, losses (the
// largest cumulative count per thread and cause), the end record, damage
// reports, and for each thread the first event time of each of its events
// chunks (the k-way merge's schedule, merge.h). Memory is proportional to
// definitions, threads and chunks, never to events.
//
// Definitions must be known before the events that use them are printed,
// and clock-sync points after an event are needed to convert its time, so
// the second pass (the verb's own) starts with all of them at hand.
//
// Thread safety: none.

#ifndef TOOLS_ITT_DUMP_MODEL_TRACE_INDEX_H_
#define TOOLS_ITT_DUMP_MODEL_TRACE_INDEX_H_

#include <algorithm>
#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/node_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "format/format.h"
#include "tools/itt_dump/model/clock.h"
#include "tools/itt_dump/model/flat_map.h"
#include "tools/itt_dump/model/progress.h"

namespace ittc {
namespace itt_dump {

// Where a trace's bytes come from. Opened once per pass.
class TraceSource {
 public:
  static TraceSource File(std::string path);
  // `data` must outlive the source and every reader opened from it.
  static TraceSource Memory(std::string_view data, std::string name);

  // The name used in messages (the path).
  const std::string& name() const { return name_; }
  absl::StatusOr<std::unique_ptr<format::ByteSource>> Open() const;
  // Size in bytes, 0 if unknown. For the progress line only.
  uint64_t Size() const;

 private:
  std::string name_;
  bool memory_ = false;
  std::string_view data_;
};

// A damaged region or a malformed payload.
struct Problem {
  enum class Kind { kCorrupt, kTruncated };
  Kind kind = Kind::kCorrupt;
  uint64_t offset = 0;  // byte offset in the file
  uint64_t bytes = 0;   // bytes lost (0 for a gap in chunk sequence numbers)
  std::string reason;
};

struct CounterDef {
  std::string name;
  std::string domain_name;
  uint64_t domain = 0;
  uint64_t type = 0;     // MetadataType
  uint32_t process = 0;  // the file of a set (trace_set.h) that defines it
};

struct HistogramDef {
  uint64_t domain = 0;
  std::string name;
  uint64_t x_type = 0;
  uint64_t y_type = 0;
};

struct ClockDomainDef {
  uint64_t frequency_hz = 0;
  uint64_t clock_base = 0;
  uint64_t ticks = 0;
};

struct HeapFunctionDef {
  std::string name;
  std::string domain_name;
};

struct ThreadRec {
  uint32_t index = 0;
  // The file of the thread in a TraceSet (trace_set.h); 0 for one file.
  uint32_t process = 0;
  uint64_t tid = 0;  // without thread info: kMadeUpTidBase + index
  std::string name;
  bool ignored = false;
  bool has_info = false;  // a thread_info record was seen
  uint64_t events = 0;    // counted by BuildIndex with count_events
  // First event time of each events chunk of the thread, in file order;
  // kNoEvents for a chunk without a decodable event.
  std::vector<uint64_t> chunk_first_times;
  // "tid/name", "tid", or "#index" without thread info, as text prints it.
  std::string label;
};

inline constexpr uint64_t kNoEvents = ~uint64_t{0};

// The tid of a thread whose thread info was lost is this plus its index.
inline constexpr uint64_t kMadeUpTidBase = uint64_t{1} << 22;

// A module_mapped record, with the time of the module_unmapped that ended
// it (FORMAT.md, "Module map"): what symbols.h names code addresses with.
struct ModuleRec {
  uint32_t process = 0;  // which process's map (0 for a single file)
  uint64_t mapped_ticks = 0;
  uint64_t unmapped_ticks = kNoEvents;  // kNoEvents: never reported unmapped
  uint64_t load_bias = 0;
  uint64_t start_addr = 0;
  uint64_t size = 0;
  std::string path;
  std::string build_id;
};

class Symbolizer;  // symbols.h

// Sees what the index pass reads, in file order: every decoded event of
// every events chunk, and every record of the other chunks. For loaders
// that want everything in one pass (the tests' LoadTrace, the benchmarks'
// SummarizeTrace). Pointers are valid during the call only; the thread's
// info may arrive later in the file than its first events.
class IndexVisitor {
 public:
  virtual ~IndexVisitor() = default;
  virtual void OnEvent(const format::Event& e, const ThreadRec& thread) {}
  virtual void OnRecord(const format::Chunk& chunk, const format::Event& record) {}
};

struct IndexOptions {
  // Decode every event of every events chunk: counts events per thread and
  // reports malformed payloads. Without it only the first event of each
  // chunk is decoded (verbs that decode everything in their own pass).
  // Without a visitor the events are decoded on the reader's worker
  // threads, a chunk at a time, and only the sums reach the index.
  bool decode_all_events = false;
  // Implies decode_all_events: also fills TraceIndex::checks.
  bool check_events = false;
  Progress* progress = nullptr;  // may be null
  // Implies decode_all_events. May be null.
  IndexVisitor* visitor = nullptr;
};

// A thread's time going back: an event earlier than the thread's event
// before it (in the same chunk or the thread's previous one).
struct TimeBack {
  uint64_t chunk_offset = 0;  // file offset of the events chunk
  uint32_t thread_index = 0;
  uint64_t payload_offset = 0;  // of the event, in the decompressed payload
  uint64_t ticks = 0;           // by how much
};

// What IndexOptions::check_events finds: the checks `verify` reports.
struct EventChecks {
  bool done = false;  // the pass ran them
  // In file order; the first kMaxKept, and how many there were.
  std::vector<TimeBack> time_backs;
  uint64_t time_backs_total = 0;
  // Some event refers to an id no definition in the file gives (which
  // event: a pass of its own must say; verify.h).
  bool undefined_refs = false;
  // The events refer to more distinct ids than the pass keeps (kMaxRefs
  // in a chunk or in the file): they were not looked up, and only a pass
  // of its own can say whether all are defined.
  bool too_many_refs = false;
  static constexpr size_t kMaxKept = 1000;
  static constexpr size_t kMaxRefs = size_t{1} << 16;
};

struct TraceIndex {
  std::string name;
  format::FileHeader header;
  uint64_t header_size = 0;
  uint64_t file_bytes = 0;  // bytes the reader consumed

  U64Map<std::string> strings;  // kDefString
  U64Map<std::string> domains;  // kDefDomain
  U64Map<CounterDef> counters;
  U64Map<HistogramDef> histograms;
  U64Map<ClockDomainDef> clock_domains;
  U64Map<HeapFunctionDef> heap_functions;
  U64Map<std::string> event_names;  // kDefEvent

  U64Map<ThreadRec> threads;  // by thread_index, in order of appearance

  // The module map in file order (the order modules were mapped), and the
  // names made from it, created on first use (symbols.h).
  std::vector<ModuleRec> modules;
  mutable std::shared_ptr<Symbolizer> symbolizer;

  std::vector<format::ClockSync> sync_points;
  Clock clock;

  // Key: thread_index << 8 | cause. Value: the largest cumulative count.
  U64Map<uint64_t> losses;

  bool has_end = false;
  format::EndRecord end;
  // A flight recorder's dump (FORMAT.md, "Flight dump"): why it was
  // written and the time window it covers.
  bool has_flight = false;
  format::FlightDump flight;

  EventChecks checks;  // with IndexOptions::check_events

  std::vector<Problem> problems;  // at most kMaxProblems kept
  uint64_t problems_dropped = 0;
  format::ReaderStats reader_stats;
  uint64_t events_chunks = 0;
  uint64_t record_chunks = 0;
  uint64_t events = 0;          // with decode_all_events
  uint64_t unknown_events = 0;  // sized kinds this version skips
  uint64_t unknown_records = 0;
  uint64_t min_event_ticks = kNoEvents;
  uint64_t max_event_ticks = 0;       // with decode_all_events
  uint64_t events_payload_bytes = 0;  // decompressed bytes of events chunks
  // The events chunks (file offsets, ascending) with which a thread's
  // events resume after some were lost: the thread had events chunks
  // before, and since its last one a chunk went missing or could not be
  // used (a gap in the sequence, a damaged or undecodable chunk: whose
  // thread it held is unknown). The verbs' pairing cuts the thread there
  // (IntervalTracker::CutThread); where its own chunk stopped decoding
  // part-way, their passes, which decode every event, cut it at its next.
  std::vector<uint64_t> cut_chunks;
  // Whether the events chunk at `offset` is one of them.
  bool CutsAt(uint64_t offset) const {
    return !cut_chunks.empty() && std::binary_search(cut_chunks.begin(), cut_chunks.end(), offset);
  }
  // Payloads that did not decode (a subset of `problems`: damage the
  // checksums did not catch, or a writer bug).
  uint64_t malformed_payloads = 0;
  uint64_t malformed_bytes = 0;         // their stored sizes
  std::string first_malformed_payload;  // its reason

  static constexpr size_t kMaxProblems = 1000;

  bool corrupt() const;
  bool truncated() const { return reader_stats.truncated; }

  // Whether a field of role `role` holding `id` refers to something the
  // file defines: false only for a nonzero id of a definition role
  // (format::IsDefinitionRef) that no definition gives.
  bool Defines(format::FieldRole role, uint64_t id) const;

  // Name lookups: "" for id 0, and "#N" for an id N the file does not
  // define (its definition lost to damage), so that every verb names it
  // the same way. Any thread may call them.
  std::string_view String(uint64_t id) const;
  std::string_view Domain(uint64_t id) const;
  const ThreadRec* Thread(uint32_t index) const { return threads.Find(index); }

  void AddProblem(Problem::Kind kind, uint64_t offset, uint64_t bytes, std::string reason);

  // The "#N" names String and Domain made up, where their views point:
  // made on a miss only, then looked up under the shared lock, so that a
  // trace whose ids are all defined never takes it, and threads that meet
  // the same undefined ids do not wait for each other.
  struct UndefinedNames {
    std::shared_mutex mu;
    absl::node_hash_map<uint64_t, std::string> strings;  // node: views stay valid
    absl::node_hash_map<uint64_t, std::string> domains;
  };
  std::unique_ptr<UndefinedNames> undefined_names = std::make_unique<UndefinedNames>();
};

// An events chunk whose events stopped decoding part-way (a malformed
// event: the rest of the chunk is lost). The index pass of the verbs that
// read the events again decodes only each chunk's first event; their own
// pass finds the others, and says so (WarnMerge).
struct MalformedChunk {
  size_t file = 0;      // in the set
  uint64_t offset = 0;  // the chunk's, in its file
  uint64_t bytes = 0;   // its stored size
  std::string reason;   // MalformedEventsReason
};
// A file whose second reading (a verb's own pass) ended before the bytes
// its index pass read: it was cut (or replaced) in between, and what was
// cut is missing from the verb's output.
struct ShortReading {
  size_t file = 0;           // in the set
  uint64_t bytes_read = 0;   // by the second reading
  uint64_t index_bytes = 0;  // by the index pass (TraceIndex::file_bytes)
};
// The one text of that damage, the index pass's and the verbs' alike.
std::string MalformedEventsReason(uint32_t thread_index, const absl::Status& s,
                                  uint64_t payload_offset);

// Why a file could not be read at all.
enum class OpenFailure {
  kNone,
  kNotATrace,    // wrong magic, or an empty file
  kTruncated,    // ends inside the file header
  kCorrupt,      // the header is damaged
  kUnsupported,  // a format major version this tool cannot read
  kIo,           // cannot open or read
};

struct IndexResult {
  OpenFailure failure = OpenFailure::kNone;
  absl::Status status;  // why, when failure != kNone
  std::unique_ptr<TraceIndex> index;
};

IndexResult BuildIndex(const TraceSource& source, const IndexOptions& options);

// Opens `source` for a verb's own pass: a reader positioned after the
// header, whose chunks are the ones the index pass saw.
// The reader decodes on ReaderOptions::Parallel()'s threads unless
// `options` says otherwise. An error says what kind of open failure it is
// (PassOpenFailure): the input was read once but not again (a pipe, a
// file changed or removed in between).
absl::StatusOr<std::unique_ptr<format::TraceReader>> OpenForPass(const TraceSource& source);
absl::StatusOr<std::unique_ptr<format::TraceReader>> OpenForPass(
    const TraceSource& source, const format::ReaderOptions& options);
// The kind of open failure of an error OpenForPass returned, as a verb's
// pass passes it on; kNone for any other status (an output's error).
OpenFailure PassOpenFailure(const absl::Status& s);
// `s` marked as that kind of input failure (PassOpenFailure gives it back).
absl::Status MarkPassOpenFailure(absl::Status s, OpenFailure failure);

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_MODEL_TRACE_INDEX_H_
