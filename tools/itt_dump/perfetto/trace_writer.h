// Writes a trace in Perfetto's native format: a `Trace` message, that is a
// stream of `TracePacket`s, as defined by protos/perfetto/trace/*.proto in
// Perfetto's repository (the field numbers are in trace_writer.cc, each
// beside the message it belongs to). What Perfetto's UI and trace_processor
// load at scale, unlike JSON.
//
// Model of the output:
//  - Tracks: one per process (ProcessDescriptor), one per thread
//    (ThreadDescriptor), and named child tracks for anything else (async
//    slices, frames) and for counters (CounterDescriptor). Each is a
//    TrackDescriptor packet written when the track is created.
//  - Sequences: every thread track has its own packet sequence
//    (trusted_packet_sequence_id), and a caller may start more of its own
//    (StartPieceSequence). Its first packet clears the incremental
//    state and sets the sequence's defaults: the thread's track, and the
//    sequence's own incremental clock (below). Event names, categories and
//    debug annotation names are interned per sequence: the first packet that
//    uses one carries its InternedData entry; later ones refer to its iid.
//  - Time: the caller's timestamps are nanoseconds on the trace's own time
//    axis. Each sequence declares, in a ClockSnapshot, a sequence-scoped
//    incremental clock (id 64, nanoseconds) that reads 0 where REALTIME reads
//    `realtime_at_zero_ns`, and makes REALTIME the trace's primary clock, so
//    each packet carries only the delta from the previous one. An event
//    earlier than the previous one on its sequence (user-clock timestamps)
//    is timed on REALTIME itself (timestamp_clock_id), its sequence's clock
//    left as it was: a new snapshot there would step REALTIME, the trace's
//    clock, back, which Perfetto's trace processor refuses.
//  - Compression: packets are gathered into blocks, each written as one
//    TracePacket whose compressed-packets field holds the zstd- or
//    zlib-compressed packets (what Perfetto's own tracing service writes),
//    unless PerfettoCompression::kNone. The blocks are compressed at once
//    on threads of their own and written in order (PacketBlocks,
//    block_compressor.h), which the writer makes itself or the caller puts
//    behind a kNone writer's output.
//  - A piece's writer (no output: packets()) writes a thread's packets
//    on a sequence of the caller's choosing that it starts again
//    (StartPieceSequence), so that those packets depend on nothing written
//    before them (export.cc writes each events chunk's tasks so).
//
// Memory: interning tables (one entry per distinct name per sequence; the
// tables of small caller keys are dense vectors, at most 64 KB per sequence
// and kind), the track table, and the packets not handed on (up to
// kFlushBytes and one packet). Nothing grows with events.
//
// Cost: Write() allocates nothing once a sequence has seen its names; an
// event's packet is written in place in the block, its names found by the
// caller's keys without hashing text when it gives them.
//
// Thread safety: none.

#ifndef TOOLS_ITT_DUMP_PERFETTO_TRACE_WRITER_H_
#define TOOLS_ITT_DUMP_PERFETTO_TRACE_WRITER_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "tools/itt_dump/output.h"
#include "tools/itt_dump/perfetto/block_compressor.h"
#include "tools/itt_dump/perfetto/proto_writer.h"

namespace ittc::itt_dump {

// How packet blocks are compressed (block_compressor.h): kZstd needs
// Perfetto v58 (2026-08) or later to read; kDeflate any release.
enum class PerfettoCompression { kNone, kDeflate, kZstd };

// CounterDescriptor.Unit.
enum class CounterUnit { kUnspecified = 0, kTimeNs = 1, kCount = 2, kSizeBytes = 3 };

// One debug annotation: a name and one value.
struct Annotation {
  enum class Type { kInt, kUint, kDouble, kString, kBool, kPointer, kJson };
  std::string_view name;
  Type type = Type::kString;
  int64_t i = 0;
  uint64_t u = 0;
  double d = 0;
  std::string_view s;  // kString; kJson: a JSON value (legacy_json_value)

  static Annotation Int(std::string_view n, int64_t v);
  static Annotation Uint(std::string_view n, uint64_t v);
  static Annotation Double(std::string_view n, double v);
  static Annotation String(std::string_view n, std::string_view v);
  static Annotation Bool(std::string_view n, bool v);
  static Annotation Pointer(std::string_view n, uint64_t v);
  static Annotation Json(std::string_view n, std::string_view v);
};

// The text behind a caller's interning keys (PerfettoEvent::category_key,
// name_key), for events that give a key without its text: the writer asks
// only when the event's sequence has not interned the key yet, so the
// caller looks a name up once per sequence instead of once per event.
// Returned views must stay valid during the Write() that asked; "" means
// the event has no such name.
class PerfettoKeyText {
 public:
  virtual ~PerfettoKeyText() = default;
  virtual std::string_view CategoryText(uint64_t key) = 0;
  virtual std::string_view NameText(uint64_t key) = 0;
};

// One TrackEvent. Views must stay valid during Write().
struct PerfettoEvent {
  enum class Type { kSliceBegin = 1, kSliceEnd = 2, kInstant = 3, kCounter = 4 };
  Type type = Type::kInstant;
  uint64_t time_ns = 0;
  // Where it shows; 0: the thread track of the sequence it is written on.
  uint64_t track = 0;
  std::string_view category;  // slices and instants; "" for none
  std::string_view name;      // slices and instants; "" for none
  // Optional identities of `category` and `name` chosen by the caller (say,
  // the trace's string id), nonzero: equal keys must mean equal strings.
  // With a key the writer finds the interned string without hashing text.
  uint64_t category_key = 0;
  uint64_t name_key = 0;
  // With a key and no text (`category` or `name` empty): where the text is,
  // asked only when the key is new on the sequence. Null: no such name.
  PerfettoKeyText* key_text = nullptr;
  // Counters: the value, as an integer unless `double_value`.
  int64_t int_value = 0;
  double double_value = 0;
  bool is_double = false;
  const Annotation* annotations = nullptr;
  size_t annotation_count = 0;
  // Flows: ids that leave this event, and ids that end at it.
  const uint64_t* flow_ids = nullptr;
  size_t flow_count = 0;
  const uint64_t* terminating_flow_ids = nullptr;
  size_t terminating_flow_count = 0;
};

struct PerfettoWriterStats {
  uint64_t packets = 0;
  uint64_t events = 0;
  uint64_t interned_strings = 0;
  uint64_t realtime_packets = 0;    // events timed on REALTIME: steps back in time
  uint64_t uncompressed_bytes = 0;  // packets before compression
  uint64_t output_bytes = 0;
};

// Where a writer's packets go: in blocks compressed on threads of their
// own (PacketBlocks), or as they are with kNone. A pass on every core puts
// its ordered output in front of it (export.cc).
class PerfettoPackets {
 public:
  // `out` must outlive it.
  PerfettoPackets(Output* out, PerfettoCompression compression);
  // Where whole packets are written.
  Output* output() { return blocks_ ? &*blocks_ : out_; }
  // Hands on what is left and flushes `out`; returns the first error
  // (compression, output). Destroyed without it, it drops the block not
  // filled (a pass that writes again writes it: WriteOnce, verb.h).
  absl::Status Finish();
  // The bytes written to `out` (final after Finish) of `packets` bytes of
  // packets.
  uint64_t output_bytes(uint64_t packets) const {
    return blocks_ ? blocks_->output_bytes() : packets;
  }

 private:
  Output* out_;
  std::optional<PacketBlocks> blocks_;
};

class PerfettoTraceWriter {
 public:
  // `out` must outlive the writer; null for a piece's writer, whose
  // packets the caller takes (packets()). `realtime_at_zero_ns`: the
  // wall clock (ns since the Unix epoch) at time 0 of the caller's time
  // axis. With kNone, every write to `out` holds whole packets (what
  // PacketBlocks needs).
  PerfettoTraceWriter(Output* out, PerfettoCompression compression, int64_t realtime_at_zero_ns);
  ~PerfettoTraceWriter();
  PerfettoTraceWriter(const PerfettoTraceWriter&) = delete;
  PerfettoTraceWriter& operator=(const PerfettoTraceWriter&) = delete;

  // Track creation. Each returns the track's uuid (never 0).
  uint64_t AddProcess(int32_t pid, std::string_view name, const std::vector<std::string>& labels);
  // Also starts the thread's packet sequence.
  uint64_t AddThread(uint64_t process, int32_t pid, int64_t tid, std::string_view name);
  // A named track under `parent` (a process or thread track): async slices,
  // frames, instants of a scope.
  uint64_t AddTrack(uint64_t parent, std::string_view name);
  uint64_t AddCounterTrack(uint64_t parent, std::string_view name, CounterUnit unit);

  // Writes `event` on the packet sequence of thread track `thread`.
  // REQUIRES: `thread` came from AddThread. Times should not decrease per
  // thread: an event before the thread's last one has a packet timed on
  // REALTIME (an absolute time, 8 or 9 bytes more than a delta).
  // Inline, for the usual event (the hot path of an export): on a sequence
  // that has interned its names' keys already, without annotations or
  // flows, and not earlier than the sequence's last event. Its packet holds
  // the heads alone (WriteShort); any other event takes WriteFull.
  void Write(uint64_t thread, const PerfettoEvent& event) {
    if (thread < sequences_.size() && sequences_[thread] != nullptr &&
        event.annotation_count == 0 && event.flow_count == 0 && event.terminating_flow_count == 0) {
      Sequence* seq = sequences_[thread].get();
      uint64_t category_iid = 0;
      uint64_t name_iid = 0;
      if (InternedBefore(seq->category_keys, event.category_key, event.category, &category_iid) &&
          InternedBefore(seq->name_keys, event.name_key, event.name, &name_iid) &&
          event.time_ns >= seq->last_time) {
        WriteShort(seq, thread, event, category_iid, name_iid);
        return;
      }
    }
    WriteFull(thread, event);
  }

  // Write() of a slice end without annotations or flows, the commonest
  // event (every slice has one), without a PerfettoEvent; `track` as its
  // field. Same bytes as Write().
  void WriteSliceEnd(uint64_t thread, uint64_t track, uint64_t time_ns) {
    if (thread < sequences_.size() && sequences_[thread] != nullptr &&
        time_ns >= sequences_[thread]->last_time) {
      WriteSliceEndShort(sequences_[thread].get(), thread, track, time_ns);
      return;
    }
    PerfettoEvent e;
    e.type = PerfettoEvent::Type::kSliceEnd;
    e.time_ns = time_ns;
    e.track = track;
    WriteFull(thread, e);
  }

  // Write() of a slice begin without annotations or flows whose category
  // and name the caller gives by keys (PerfettoEvent::category_key,
  // name_key), both nonzero, both interned on the sequence before, at a
  // time not before the sequence's last: the usual begin, without a
  // PerfettoEvent. Returns false, writing nothing, if it is not that (the
  // caller then calls Write()).
  bool TryWriteKeyedSliceBegin(uint64_t thread, uint64_t track, uint64_t time_ns,
                               uint64_t category_key, uint64_t name_key) {
    if (thread >= sequences_.size() || sequences_[thread] == nullptr || category_key == 0 ||
        name_key == 0) {
      return false;
    }
    Sequence* seq = sequences_[thread].get();
    const uint64_t category_iid = seq->category_keys.Find(category_key);
    const uint64_t name_iid = seq->name_keys.Find(name_key);
    if (category_iid == 0 || name_iid == 0 || time_ns < seq->last_time) return false;
    WriteSliceBeginShort(seq, thread, track, time_ns, category_iid, name_iid);
    return true;
  }

  // Sequence ids for the caller's own sequences (StartPieceSequence): n
  // of them, from the one returned on, which no track's sequence takes.
  uint32_t ReserveSequenceIds(uint32_t n) {
    const uint32_t first = last_sequence_ + 1;
    last_sequence_ += n;
    return first;
  }
  // Starts a sequence `id` for thread track `thread` (a track another
  // writer made) again: a packet clears its state and declares its
  // defaults and clock, as AddThread's sequence's first; Write() then
  // writes on it. `id` is the caller's (ReserveSequenceIds of the writer
  // that made the track).
  void StartPieceSequence(uint64_t thread, uint32_t id);
  // The packets written and not handed on (a writer without an output:
  // the caller takes them), and forgetting them.
  std::string_view packets() const { return block_.data(); }
  void ClearPackets();
  bool has_packets() const { return block_.size() != 0; }
  // Writes whole packets another writer wrote (packets()), here, at once.
  void WritePackets(std::string_view packets);
  // Hands the packets written so far on to the output.
  void FlushPackets();

  // Writes what is buffered and flushes the output. Call once at the end.
  absl::Status Finish();

  const PerfettoWriterStats& stats() const { return stats_; }

 private:
  // Interned iids of a caller's keys: a vector indexed by the key while keys
  // are small (string and domain ids usually are), a hash map beyond.
  class KeyTable {
   public:
    // The iid of `key`, 0 if it has none yet.
    uint64_t Find(uint64_t key) const {
      if (key < dense_.size()) return dense_[key];
      if (key < kDenseKeys) return 0;
      auto it = sparse_.find(key);
      return it != sparse_.end() ? it->second : 0;
    }
    void Add(uint64_t key, uint64_t iid);

   private:
    // Dense entries per sequence and table at most: 64 KB of iids.
    static constexpr uint64_t kDenseKeys = uint64_t{1} << 14;
    std::vector<uint32_t> dense_;
    absl::flat_hash_map<uint64_t, uint64_t> sparse_;
  };
  struct Sequence {
    uint32_t id = 0;
    uint64_t track = 0;      // the thread track: the sequence's default
    uint64_t last_time = 0;  // the incremental clock's value
    // Interned strings: one table per kind, as InternedData keeps them.
    absl::flat_hash_map<std::string, uint64_t> categories;
    absl::flat_hash_map<std::string, uint64_t> names;
    absl::flat_hash_map<std::string, uint64_t> annotation_names;
    KeyTable category_keys;
    KeyTable name_keys;
    // The annotation names interned last, compared before the table is
    // hashed: an event's few names mostly repeat ("addr", "acquired", a
    // task's metadata keys).
    struct RecentName {
      std::string text;
      uint64_t iid = 0;  // 0: empty
    };
    std::array<RecentName, 4> recent_annotation_names;
    size_t next_recent = 0;  // the slot to fill next
  };

  uint64_t NewUuid() { return ++last_uuid_; }
  // Returns the iid of `s` in `table`, adding an InternedData entry to
  // *pending (a list of (field, iid, string)) when it is new.
  struct PendingIntern {
    uint32_t field;
    uint64_t iid;
    std::string_view name;
  };
  uint64_t Intern(absl::flat_hash_map<std::string, uint64_t>* table, std::string_view s,
                  uint32_t field, std::vector<PendingIntern>* pending);
  // Intern() of an annotation name on *seq, through its recent names.
  uint64_t InternAnnotationName(Sequence* seq, std::string_view name);
  // Intern() through a caller's key (0: by text only); returns 0 for no
  // name (empty text). `s` empty with a key: the text is asked of
  // `key_text` when the key is new. Inlined: twice per event, and a found
  // key is a bounds check and a load.
  ABSL_ATTRIBUTE_ALWAYS_INLINE uint64_t
  InternKeyed(KeyTable* keys, uint64_t key, absl::flat_hash_map<std::string, uint64_t>* table,
              std::string_view s, PerfettoKeyText* key_text, uint32_t field,
              std::vector<PendingIntern>* pending) {
    if (key == 0) return s.empty() ? 0 : Intern(table, s, field, pending);
    const uint64_t iid = keys->Find(key);
    return iid != 0 ? iid : InternNewKey(keys, key, table, s, key_text, field, pending);
  }
  // Whether a name given as (key, text) needs no new InternedData entry:
  // its key has an iid on the sequence, or it has neither key nor text (no
  // name, iid 0). Sets *iid then.
  static bool InternedBefore(const KeyTable& keys, uint64_t key, std::string_view text,
                             uint64_t* iid) {
    *iid = key != 0 ? keys.Find(key) : 0;
    return key != 0 ? *iid != 0 : text.empty();
  }
  // Write()'s two paths. WriteShort: a packet of heads alone, given the
  // names' iids. WriteFull: any event (interning what is new first).
  // REQUIRES for WriteShort: no annotations, no flows, no pending
  // InternedData, e.time_ns >= seq->last_time.
  void WriteShort(Sequence* seq, uint64_t thread, const PerfettoEvent& e, uint64_t category_iid,
                  uint64_t name_iid);
  void WriteFull(uint64_t thread, const PerfettoEvent& e);
  // WriteShort of a slice end, and of a slice begin.
  // REQUIRES: time_ns >= seq->last_time.
  void WriteSliceEndShort(Sequence* seq, uint64_t thread, uint64_t track, uint64_t time_ns);
  void WriteSliceBeginShort(Sequence* seq, uint64_t thread, uint64_t track, uint64_t time_ns,
                            uint64_t category_iid, uint64_t name_iid);
  uint64_t InternNewKey(KeyTable* keys, uint64_t key,
                        absl::flat_hash_map<std::string, uint64_t>* table, std::string_view s,
                        PerfettoKeyText* key_text, uint32_t field,
                        std::vector<PendingIntern>* pending);
  // Starts sequence `id` of thread track `track` from nothing, with the
  // packet that says so: its defaults, and the ClockSnapshot where its
  // clock reads 0; `first` marks it the first on its sequence (AddThread's;
  // StartPieceSequence's are not marked).
  void StartSequence(uint64_t track, uint32_t id, bool first);
  void WriteTrackDescriptor(const ProtoWriter& descriptor_body);
  // Packets are written straight into the block: BeginPacket() opens a
  // Trace.packet field, EndPacket() closes it and flushes a full block.
  void BeginPacket() { block_.Begin(kTracePacketField); }
  void EndPacket() {
    block_.End();
    PacketDone();
  }
  // Counts a packet written and hands the packets on past kFlushBytes.
  void PacketDone();
  // The fields of an event's packet before its TrackEvent, and those of the
  // TrackEvent before its annotations and flows, written at cursor `p`;
  // each returns the end.
  static char* PutPacketHead(char* p, uint32_t sequence_id, uint64_t delta_ns);
  static char* PutEventHead(char* p, const PerfettoEvent& e, uint64_t thread, uint64_t category_iid,
                            uint64_t name_iid);

  // trace.proto: Trace.packet.
  static constexpr uint32_t kTracePacketField = 1;
  // Packets written before they are handed on to the output.
  static constexpr size_t kFlushBytes = size_t{64} << 10;

  std::optional<PerfettoPackets> packets_;  // none without an output
  int64_t realtime_at_zero_ns_;
  uint64_t last_uuid_ = 0;
  uint32_t last_sequence_ = 0;
  // By thread track uuid (uuids are small and dense); null for other tracks.
  std::vector<std::unique_ptr<Sequence>> sequences_;
  ProtoWriter block_;  // Trace.packet fields not yet handed on
  std::vector<PendingIntern> pending_;
  PerfettoWriterStats stats_;
};

}  // namespace ittc::itt_dump

#endif  // TOOLS_ITT_DUMP_PERFETTO_TRACE_WRITER_H_
