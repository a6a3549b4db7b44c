// Several trace files read as one: the ranks of an MPI job, a fork tree,
// the processes of one run (docs/ITT_DUMP.md, "Several processes").
//
// Each file keeps its own index (definitions, threads and clock are per
// file). For more than one file the set also builds a merged index, which
// is what the verbs read: every definition once under a set-wide id (names,
// domains, legacy event names and heap functions that read the same in two
// files share one id, so statistics sum over processes; counters, clock
// domains and histograms stay per process), every thread under a set-wide
// index with its process (ThreadRec::process), losses of all files, and
// one clock. TraceSetMerger delivers the events of all files in one time
// order, rewritten to the merged index's ids and time axis; with one file
// both are the file's own and nothing is rewritten.
//
// The time axis:
//   - one boot of one host (the header's host name and boot id agree, and
//     every file counts the TSC): the files share the timebase, their ticks
//     are compared as they are, and the merged clock is built from all
//     their sync points;
//   - otherwise (several hosts, or boots, or unknown boot ids) the axis is
//     nanoseconds on a 1 GHz timebase: each group of files sharing a boot is
//     placed by its wall clock (CLOCK_REALTIME at its first sync point) and
//     follows its monotonic clock from there. How far each group's wall
//     clock moved against its monotonic clock during the traces is reported
//     as the alignment's uncertainty (wall_uncertainty_ns()); the hosts'
//     own clock offset (NTP, PTP) adds to it and is not in the traces.
//
// Object identities of different processes must not meet: the merged
// stream XORs sync and heap addresses (addr, new_addr) and __itt_id values
// (id, parent, head, tail: their d1) of process p with ProcessTag(p), which
// is 0 for the first file; NULL and __itt_null stay as they are. Printing
// code undoes it with ProcessTag again.
//
// Thread safety: none. Memory: one index per file and a merged index (both
// proportional to definitions, threads and chunks), plus what each file's
// EventMerger buffers: the lookahead (MergeOptions::max_buffered_bytes) is
// shared by the files, at least kMinLookaheadPerFile each.

#ifndef TOOLS_ITT_DUMP_MODEL_TRACE_SET_H_
#define TOOLS_ITT_DUMP_MODEL_TRACE_SET_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "format/format.h"
#include "tools/itt_dump/model/merge.h"
#include "tools/itt_dump/model/trace_index.h"

namespace ittc {
namespace itt_dump {

// XORed into object identities of process `process` on a merged stream:
// the process in the top 16 bits, which no user-space address of x86-64
// (below 2^47) sets, so up to 65536 processes keep their objects apart.
inline constexpr int kProcessTagShift = 48;
inline uint64_t ProcessTag(uint32_t process) { return uint64_t{process} << kProcessTagShift; }

// An address of process `process` on the merged stream as the process
// wrote it: its tag undone, NULL left NULL (it was never tagged).
inline uint64_t UntagAddress(uint64_t addr, uint32_t process) {
  return addr == 0 ? 0 : addr ^ ProcessTag(process);
}

// An __itt_id of process `process` on the merged stream as the process
// wrote it (__itt_null left as it is: it was never tagged).
inline format::Id UntagId(format::Id id, uint32_t process) {
  if ((id.d1 | id.d2 | id.d3) != 0) id.d1 ^= ProcessTag(process);
  return id;
}

// Undoes the tags of process `process` in an event of the merged stream:
// its object identities as the process wrote them (for printing).
void UntagIdentities(uint32_t process, format::Event* e);

enum class TimeAlignment {
  kOneFile,    // a single trace: its own ticks
  kSharedTsc,  // one boot of one host: the files' ticks as they are
  kWallClock,  // several boots or hosts: ns, placed by wall clock
};

// How one file is placed on the set's time axis and how it is named.
struct TraceFile {
  TraceSource source;
  std::unique_ptr<TraceIndex> index;
  // The process's name: "rank 3 (host-a) app" with a rank, else "app",
  // or "app (host-a)" when the set spans several hosts.
  std::string label;
  // The same, short, for each line of text: "r3", else "p" and the
  // display_pid ("p1234").
  std::string tag;
  // A pid unique in the set: the header's, or when two files share one
  // (different hosts), a made-up one above the kernel's pid range.
  uint32_t display_pid = 0;
  // With kWallClock: set ns = clock.SinceStartNs(ticks) + offset_ns, where
  // `clock` is the file's group clock (the same boot's files together).
  int group = 0;
  int64_t offset_ns = 0;
};

class TraceSet {
 public:
  struct Failure {
    std::string name;
    OpenFailure failure = OpenFailure::kNone;
    absl::Status status;
    // Why, without the name where the status already starts with it (an
    // open's errno names the path).
    absl::string_view Reason() const {
      absl::string_view m = status.message();
      if (m.size() > name.size() + 2 && m.substr(0, name.size()) == name &&
          m.substr(name.size(), 2) == ": ") {
        m.remove_prefix(name.size() + 2);
      }
      return m;
    }
  };

  static constexpr size_t kMinLookaheadPerFile = size_t{4} << 20;
  // The lookahead each file's merge gets out of `total`
  // (MergeOptions::max_buffered_bytes): all of it for one file, else an
  // equal share of at least kMinLookaheadPerFile.
  size_t LookaheadPerFile(size_t total) const {
    const size_t n = files_.size();
    return n <= 1 ? total : std::max(total / n, kMinLookaheadPerFile);
  }

  // Indexes every source (on up to one thread per online CPU when
  // `options` has no visitor and no progress; the files, failures and
  // problems keep the sources' order). A file that cannot be read is listed
  // in failures() and left out; the others are read whatever happened to it.
  // `name` names the set in messages when it has several files.
  // Several files of one process (the same boot, host, pid and start: its
  // flight recorder dumps, or copies of one file) would count its events
  // more than once: kLatest keeps only the latest (left_out() says which
  // it left out), kEvery every one (verify, which reads each alone).
  enum class ProcessFiles { kLatest, kEvery };
  static TraceSet Open(std::vector<TraceSource> sources, const IndexOptions& options,
                       std::string name = "", ProcessFiles process_files = ProcessFiles::kLatest);

  TraceSet() = default;
  TraceSet(TraceSet&&) = default;
  TraceSet& operator=(TraceSet&&) = default;

  const std::vector<TraceFile>& files() const { return files_; }
  const std::vector<Failure>& failures() const { return failures_; }
  // Files read and left out, each with why ("FILE: ..."): the earlier
  // recordings of a process whose later one is in the set (flight
  // recorder dumps, whose windows overlap, or copies: read together, one
  // process's events would count twice).
  const std::vector<std::string>& left_out() const { return left_out_; }
  bool empty() const { return files_.empty(); }

  // The index the verbs read: the only file's, or the merged one.
  // REQUIRES: !empty().
  const TraceIndex& index() const { return files_.size() == 1 ? *files_[0].index : *merged_; }

  TimeAlignment alignment() const { return alignment_; }
  // Distinct (host, boot) groups; 1 with kOneFile and kSharedTsc.
  int groups() const { return groups_; }
  // With kWallClock: the largest change of (realtime - monotonic) over any
  // group's sync points, in ns.
  int64_t wall_uncertainty_ns() const { return wall_uncertainty_ns_; }

  // The file of a thread of index().
  const TraceFile& FileOf(const ThreadRec& thread) const { return files_[thread.process]; }

  // Ticks of file `file` on the set's axis (index()'s ticks).
  uint64_t SetTicks(size_t file, uint64_t ticks) const {
    return alignment_ != TimeAlignment::kWallClock ? ticks : WallTicks(file, ticks);
  }

 private:
  friend class TraceSetMerger;
  friend class SetRewriter;
  // Per file: local ids to set-wide ids by role, and local thread indexes
  // to merged threads.
  struct Remap {
    std::vector<uint64_t> strings, domains, counters, histograms, clock_domains, heap_functions,
        event_names;
    U64Map<const ThreadRec*> threads;
    // A bit per rewrite action (trace_set.cc) that changes this file's
    // events: the tables that do not map every id to itself (ranks of one
    // program often define their names in the same order), the identity
    // tags of every process but the first, the times on a wall-clock axis.
    uint32_t changes = 0;
  };
  uint64_t WallTicks(size_t file, uint64_t ticks) const;
  void Label();
  void Merge();
  // Moves the earlier recordings of a process to left_out_ (Open).
  void LeaveOutEarlierDumps();

  std::vector<TraceFile> files_;
  std::vector<Failure> failures_;
  std::vector<std::string> left_out_;
  std::unique_ptr<TraceIndex> merged_;
  std::vector<Remap> remaps_;
  std::vector<Clock> group_clocks_;
  TimeAlignment alignment_ = TimeAlignment::kOneFile;
  int groups_ = 1;
  int64_t wall_uncertainty_ns_ = 0;
  std::string name_;
};

struct KindActions;   // trace_set.cc
struct RewriteTable;  // trace_set.cc

// What the merge of a set does to each event of one of its files: its ids,
// object identities and time fields made the set's (trace_set.h's
// header), and its thread the set's. For passes that read the files
// themselves (pieces.h); TraceSetMerger rewrites with it too. Reads the
// set only: several threads may use one at once.
class SetRewriter {
 public:
  // `set` must outlive the rewriter.
  SetRewriter(const TraceSet& set, size_t file);

  // Rewrites `e` in place, its time to `set_time` (SetTicks of its time).
  void Rewrite(format::Event* e, uint64_t set_time) const {
    e->time = set_time;
    if (changes_ != 0) RewriteFields(e);
  }
  uint64_t SetTicks(uint64_t ticks) const { return set_->SetTicks(file_, ticks); }
  // The set's thread of the file's thread `thread_index`, or null when the
  // index pass did not see it.
  const ThreadRec* SetThread(uint32_t thread_index) const;
  // Whether Rewrite changes nothing of this file's tasks and frames with
  // null ids (EventStreamDecoder's SimpleTask and SimpleFrame: a domain, a
  // name, a time) but their string and domain ids: their times are on the
  // set's axis (the files of one host), and null ids stay null whatever
  // the tags. Then a pass may read them without an Event, their ids made
  // the set's by MapSimpleIds.
  bool ReadsSimpleEvents() const;
  // Whether MapSimpleIds changes anything: the file's string or domain ids
  // are not the set's (the ranks of one program, which define their names
  // in the same order, have the set's).
  bool MapsSimpleIds() const;
  // A simple task's or frame's ids made the set's, as Rewrite makes them.
  void MapSimpleIds(format::EventStreamDecoder::SimpleTask* task) const;
  void MapSimpleIds(format::EventStreamDecoder::SimpleFrame* frame) const;

 private:
  // The fields of `e` this file's changes touch.
  void RewriteFields(format::Event* e) const;
  // Rewrite's field loop, for a kind with more than tags to change.
  void RewriteEach(format::Event* e, const KindActions& a) const;

  const TraceSet* set_;
  size_t file_;
  uint32_t changes_;           // the file's Remap::changes
  const RewriteTable* table_;  // for those changes
};

// Appends file `file` of `set` to *out if `reader` (a verb's own reading
// of it, at its end; null: not read) read fewer bytes than its index pass:
// the one test of a file cut between the two readings, for either merger.
void NoteShortReading(const TraceSet& set, size_t file, const format::TraceReader* reader,
                      std::vector<ShortReading>* out);

// The events of every file of a set in time order (ties: the file listed
// first), with their threads of set.index(). Each file is merged by its own
// EventMerger; this merges those and rewrites each event to the set's ids
// and time axis (trace_set.h's header). With one file it is that file's
// EventMerger.
class TraceSetMerger {
 public:
  // `set` must outlive the merger.
  TraceSetMerger(const TraceSet& set, const MergeOptions& options);
  ~TraceSetMerger();

  // Why a file could not be opened for the pass (the others still are).
  const std::vector<std::pair<size_t, absl::Status>>& open_errors() const { return errors_; }

  // The next event and its thread; false at the end. Pointers stay valid
  // until the next call.
  bool Next(const format::Event** event, const ThreadRec** thread) {
    if (single_ != nullptr) return single_->Next(event, thread);
    return NextOfMany(event, thread);
  }

  uint64_t late_events() const;
  uint64_t forced_emits() const;
  // Every file's events chunks whose events stopped decoding part-way so
  // far (EventMerger::malformed), by file.
  std::vector<MalformedChunk> malformed() const;
  // The files whose reading ended before their index pass's did. Once
  // Next returned false.
  std::vector<ShortReading> ShortReadings() const;

 private:
  struct Input {
    size_t file = 0;
    std::unique_ptr<format::TraceReader> reader;
    std::unique_ptr<EventMerger> merger;
    const format::Event* head = nullptr;  // the merger's pending event
    // Events after head the merger handed over at once (TakeRun).
    const format::Event* run = nullptr;
    uint32_t run_left = 0;
    const ThreadRec* thread = nullptr;
    uint64_t key = 0;  // head's time on the set's axis
    bool done = true;  // no head: the file ended (or never opened)
    std::unique_ptr<SetRewriter> rewriter;
    // SetThread's one-entry cache.
    const ThreadRec* last_thread = nullptr;
    const ThreadRec* last_set_thread = nullptr;
  };

  bool NextOfMany(const format::Event** event, const ThreadRec** thread);
  // Takes input i's next event as its head; false when it has none.
  bool Advance(Input* in);
  const ThreadRec* SetThread(Input& in);
  const ThreadRec* SetThreadSlow(const Input& in);
  // Whether input a's head comes before input b's (ties: the file listed
  // first); an input that is done comes after every other.
  bool Before(size_t a, size_t b) const {
    return keys_[a] != keys_[b] ? keys_[a] < keys_[b] : a < b;
  }
  // keys_[i]: input i's head key, or kDone: the matches read this compact
  // array, not the inputs.
  static constexpr uint64_t kDone = ~uint64_t{0};
  void SetKey(size_t i) { keys_[i] = inputs_[i].done ? kDone : inputs_[i].key; }
  // Plays the matches below tournament node `node`; returns the winner.
  size_t Play(size_t node);

  const TraceSet& set_;
  std::unique_ptr<format::TraceReader> single_reader_;
  std::unique_ptr<EventMerger> single_;
  std::vector<Input> inputs_;  // by file, padded to a power of two
  // A tournament (loser) tree over the inputs' heads: losers_[node] for
  // inner nodes 1.., leaves are inputs; one replay of log2(files) matches
  // per event.
  std::vector<size_t> losers_;
  std::vector<uint64_t> keys_;
  size_t winner_ = 0;
  bool delivered_ = false;  // winner_'s head was delivered: advance it first
  std::vector<std::pair<size_t, absl::Status>> errors_;
  std::deque<ThreadRec> extra_threads_;  // threads no index knew
};

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_MODEL_TRACE_SET_H_
