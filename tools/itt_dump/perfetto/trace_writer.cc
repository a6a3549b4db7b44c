#include "tools/itt_dump/perfetto/trace_writer.h"

#include <cstring>
#include <utility>

namespace ittc::itt_dump {
namespace {

// Field numbers of Perfetto's trace protos (protos/perfetto/trace/ in
// Perfetto's repository; the file of each message is named beside it).

// trace_packet.proto: message TracePacket.
constexpr uint32_t kPacketClockSnapshot = 6;
constexpr uint32_t kPacketTimestamp = 8;
constexpr uint32_t kPacketSequenceId = 10;  // trusted_packet_sequence_id
constexpr uint32_t kPacketTrackEvent = 11;
constexpr uint32_t kPacketInternedData = 12;
constexpr uint32_t kPacketSequenceFlags = 13;
constexpr uint32_t kPacketTimestampClockId = 58;  // timestamp_clock_id
constexpr uint32_t kPacketDefaults = 59;          // trace_packet_defaults
constexpr uint32_t kPacketTrackDescriptor = 60;
constexpr uint32_t kPacketFirstOnSequence = 87;  // first_packet_on_sequence
// TracePacket.SequenceFlags.
// (SEQ_NEEDS_INCREMENTAL_STATE, 2, is left off the event packets: it only
// lets a reader skip a sequence's packets after a loss before its next
// clear, and a file written here loses none. Two bytes of a packet's
// twelve to sixteen, about a seventh of what is compressed.)
constexpr uint64_t kSeqIncrementalStateCleared = 1;

// trace_packet_defaults.proto: message TracePacketDefaults.
constexpr uint32_t kDefaultsTimestampClockId = 58;
constexpr uint32_t kDefaultsTrackEvent = 11;  // track_event_defaults
// track_event.proto: message TrackEventDefaults.
constexpr uint32_t kTrackEventDefaultsTrackUuid = 11;

// clock_snapshot.proto: messages ClockSnapshot and ClockSnapshot.Clock;
// builtin_clock.proto: BuiltinClock.
constexpr uint32_t kSnapshotClocks = 1;
constexpr uint32_t kSnapshotPrimaryTraceClock = 2;
constexpr uint32_t kClockId = 1;
constexpr uint32_t kClockTimestamp = 2;
constexpr uint32_t kClockIsIncremental = 3;
constexpr uint64_t kBuiltinClockRealtime = 1;
// Sequence-scoped clock ids are 64..127.
constexpr uint64_t kSequenceClockId = 64;

// track_event.proto: message TrackEvent.
constexpr uint32_t kEventCategoryIids = 3;
constexpr uint32_t kEventDebugAnnotations = 4;
constexpr uint32_t kEventType = 9;
constexpr uint32_t kEventNameIid = 10;
constexpr uint32_t kEventTrackUuid = 11;
constexpr uint32_t kEventCounterValue = 30;
constexpr uint32_t kEventDoubleCounterValue = 44;
constexpr uint32_t kEventFlowIds = 47;             // fixed64
constexpr uint32_t kEventTerminatingFlowIds = 48;  // fixed64

// debug_annotation.proto: message DebugAnnotation.
constexpr uint32_t kAnnotationNameIid = 1;
constexpr uint32_t kAnnotationBool = 2;
constexpr uint32_t kAnnotationUint = 3;
constexpr uint32_t kAnnotationInt = 4;
constexpr uint32_t kAnnotationDouble = 5;
constexpr uint32_t kAnnotationString = 6;
constexpr uint32_t kAnnotationPointer = 7;
constexpr uint32_t kAnnotationLegacyJson = 9;

// interned_data.proto: message InternedData; track_event.proto:
// EventCategory and EventName; debug_annotation.proto: DebugAnnotationName
// (all three are {iid = 1, name = 2}).
constexpr uint32_t kInternedCategories = 1;
constexpr uint32_t kInternedNames = 2;
constexpr uint32_t kInternedAnnotationNames = 3;
constexpr uint32_t kInternedIid = 1;
constexpr uint32_t kInternedName = 2;

// track_descriptor.proto: message TrackDescriptor.
constexpr uint32_t kTrackUuid = 1;
constexpr uint32_t kTrackName = 2;
constexpr uint32_t kTrackProcess = 3;
constexpr uint32_t kTrackThread = 4;
constexpr uint32_t kTrackParentUuid = 5;
constexpr uint32_t kTrackCounter = 8;
// process_descriptor.proto: message ProcessDescriptor.
constexpr uint32_t kProcessPid = 1;
constexpr uint32_t kProcessName = 6;
constexpr uint32_t kProcessLabels = 8;
// thread_descriptor.proto: message ThreadDescriptor.
constexpr uint32_t kThreadPid = 1;
constexpr uint32_t kThreadTid = 2;
constexpr uint32_t kThreadName = 5;
// counter_descriptor.proto: message CounterDescriptor.
constexpr uint32_t kCounterUnit = 3;

// The most bytes PutPacketHead and PutEventHead write: keys of one byte
// (two for a counter value's), varints of at most ten bytes (five for the
// sequence id, a uint32).
constexpr size_t kPacketHeadBytes = (1 + 10) + (1 + 5);
constexpr size_t kEventHeadBytes = (1 + 1) + (1 + 10) + (1 + 10) + (1 + 10) + (2 + 10);
// ProtoWriter::BeginAt's most.
constexpr size_t kBeginBytes = 6;
// A timestamp_clock_id field: a two-byte key and a one-byte clock id.
constexpr size_t kClockIdBytes = 3;
// A packet of the two heads alone, its TrackEvent's key and length byte
// included: under 128 bytes, so its length takes one byte too.
constexpr size_t kShortPacketBodyBytes = kPacketHeadBytes + 2 + kEventHeadBytes;
static_assert(kShortPacketBodyBytes < 128, "a packet of heads alone has a one-byte length");

// Track descriptors go on a sequence of their own, which needs no
// incremental state.
constexpr uint32_t kDescriptorSequence = 1;

}  // namespace

Annotation Annotation::Int(std::string_view n, int64_t v) {
  Annotation a;
  a.name = n;
  a.type = Type::kInt;
  a.i = v;
  return a;
}
Annotation Annotation::Uint(std::string_view n, uint64_t v) {
  Annotation a;
  a.name = n;
  a.type = Type::kUint;
  a.u = v;
  return a;
}
Annotation Annotation::Double(std::string_view n, double v) {
  Annotation a;
  a.name = n;
  a.type = Type::kDouble;
  a.d = v;
  return a;
}
Annotation Annotation::String(std::string_view n, std::string_view v) {
  Annotation a;
  a.name = n;
  a.type = Type::kString;
  a.s = v;
  return a;
}
Annotation Annotation::Bool(std::string_view n, bool v) {
  Annotation a;
  a.name = n;
  a.type = Type::kBool;
  a.u = v ? 1 : 0;
  return a;
}
Annotation Annotation::Pointer(std::string_view n, uint64_t v) {
  Annotation a;
  a.name = n;
  a.type = Type::kPointer;
  a.u = v;
  return a;
}
Annotation Annotation::Json(std::string_view n, std::string_view v) {
  Annotation a;
  a.name = n;
  a.type = Type::kJson;
  a.s = v;
  return a;
}

PerfettoTraceWriter::PerfettoTraceWriter(Output* out, PerfettoCompression compression,
                                         int64_t realtime_at_zero_ns)
    : realtime_at_zero_ns_(realtime_at_zero_ns), last_sequence_(kDescriptorSequence) {
  if (out != nullptr) packets_.emplace(out, compression);
}

PerfettoTraceWriter::~PerfettoTraceWriter() = default;

uint64_t PerfettoTraceWriter::AddProcess(int32_t pid, std::string_view name,
                                         const std::vector<std::string>& labels) {
  const uint64_t uuid = NewUuid();
  ProtoWriter d;
  d.Varint(kTrackUuid, uuid);
  d.Begin(kTrackProcess);
  d.Int(kProcessPid, pid);
  if (!name.empty()) d.Bytes(kProcessName, name);
  for (const std::string& label : labels) d.Bytes(kProcessLabels, label);
  d.End();
  WriteTrackDescriptor(d);
  return uuid;
}

uint64_t PerfettoTraceWriter::AddThread(uint64_t process, int32_t pid, int64_t tid,
                                        std::string_view name) {
  const uint64_t uuid = NewUuid();
  ProtoWriter d;
  d.Varint(kTrackUuid, uuid);
  if (process != 0) d.Varint(kTrackParentUuid, process);
  d.Begin(kTrackThread);
  d.Int(kThreadPid, pid);
  d.Int(kThreadTid, tid);
  if (!name.empty()) d.Bytes(kThreadName, name);
  d.End();
  WriteTrackDescriptor(d);
  StartSequence(uuid, ++last_sequence_, /*first=*/true);
  return uuid;
}

uint64_t PerfettoTraceWriter::AddTrack(uint64_t parent, std::string_view name) {
  const uint64_t uuid = NewUuid();
  ProtoWriter d;
  d.Varint(kTrackUuid, uuid);
  if (parent != 0) d.Varint(kTrackParentUuid, parent);
  d.Bytes(kTrackName, name);
  WriteTrackDescriptor(d);
  return uuid;
}

uint64_t PerfettoTraceWriter::AddCounterTrack(uint64_t parent, std::string_view name,
                                              CounterUnit unit) {
  const uint64_t uuid = NewUuid();
  ProtoWriter d;
  d.Varint(kTrackUuid, uuid);
  if (parent != 0) d.Varint(kTrackParentUuid, parent);
  d.Bytes(kTrackName, name);
  d.Begin(kTrackCounter);
  if (unit != CounterUnit::kUnspecified) d.Varint(kCounterUnit, static_cast<uint64_t>(unit));
  d.End();
  WriteTrackDescriptor(d);
  return uuid;
}

void PerfettoTraceWriter::StartPieceSequence(uint64_t thread, uint32_t id) {
  // (Not marked first on its sequence: whether an earlier piece started it
  // is not this writer's to know.)
  StartSequence(thread, id, /*first=*/false);
}

void PerfettoTraceWriter::StartSequence(uint64_t track, uint32_t id, bool first) {
  if (sequences_.size() <= track) sequences_.resize(track + 1);
  // Its state from nothing: no names interned, the clock at 0 (below).
  auto seq = std::make_unique<Sequence>();
  seq->id = id;
  seq->track = track;
  sequences_[track] = std::move(seq);
  BeginPacket();
  block_.Varint(kPacketSequenceId, id);
  // It clears the incremental state and sets the defaults (clock, track),
  // which are part of that state.
  block_.Varint(kPacketSequenceFlags, kSeqIncrementalStateCleared);
  if (first) block_.Bool(kPacketFirstOnSequence, true);
  block_.Begin(kPacketDefaults);
  block_.Varint(kDefaultsTimestampClockId, kSequenceClockId);
  block_.Begin(kDefaultsTrackEvent);
  block_.Varint(kTrackEventDefaultsTrackUuid, track);
  block_.End();
  block_.End();
  block_.Begin(kPacketClockSnapshot);
  block_.Begin(kSnapshotClocks);
  block_.Varint(kClockId, kSequenceClockId);
  block_.Varint(kClockTimestamp, 0);
  block_.Bool(kClockIsIncremental, true);
  block_.End();
  block_.Begin(kSnapshotClocks);
  block_.Varint(kClockId, kBuiltinClockRealtime);
  block_.Varint(kClockTimestamp, static_cast<uint64_t>(realtime_at_zero_ns_));
  block_.End();
  block_.Varint(kSnapshotPrimaryTraceClock, kBuiltinClockRealtime);
  block_.End();
  EndPacket();
}

void PerfettoTraceWriter::WriteTrackDescriptor(const ProtoWriter& descriptor_body) {
  BeginPacket();
  block_.Varint(kPacketSequenceId, kDescriptorSequence);
  block_.Bytes(kPacketTrackDescriptor, descriptor_body.data());
  EndPacket();
}

uint64_t PerfettoTraceWriter::Intern(absl::flat_hash_map<std::string, uint64_t>* table,
                                     std::string_view s, uint32_t field,
                                     std::vector<PendingIntern>* pending) {
  // Debian's Abseil has its own string_view type.
  auto it = table->find(absl::string_view(s.data(), s.size()));
  if (it != table->end()) return it->second;
  const uint64_t iid = table->size() + 1;  // iids start at 1: 0 means none
  table->emplace(std::string(s), iid);
  // The caller's view, valid through Write(): the table's own keys move
  // when a later insertion rehashes it (flat_hash_map has no pointer
  // stability), and several names of one packet can go in one table.
  pending->push_back({field, iid, s});
  ++stats_.interned_strings;
  return iid;
}

uint64_t PerfettoTraceWriter::InternAnnotationName(Sequence* seq, std::string_view name) {
  for (const Sequence::RecentName& r : seq->recent_annotation_names) {
    if (r.iid != 0 && r.text == name) return r.iid;
  }
  const uint64_t iid = Intern(&seq->annotation_names, name, kInternedAnnotationNames, &pending_);
  Sequence::RecentName& r =
      seq->recent_annotation_names[seq->next_recent++ % seq->recent_annotation_names.size()];
  r.text.assign(name);
  r.iid = iid;
  return iid;
}

void PerfettoTraceWriter::KeyTable::Add(uint64_t key, uint64_t iid) {
  if (key < kDenseKeys && iid <= UINT32_MAX) {
    if (dense_.size() <= key) dense_.resize(key + 1, 0);
    dense_[key] = static_cast<uint32_t>(iid);
  } else {
    sparse_[key] = iid;
  }
}

uint64_t PerfettoTraceWriter::InternNewKey(KeyTable* keys, uint64_t key,
                                           absl::flat_hash_map<std::string, uint64_t>* table,
                                           std::string_view s, PerfettoKeyText* key_text,
                                           uint32_t field, std::vector<PendingIntern>* pending) {
  if (s.empty() && key_text != nullptr) {
    s = field == kInternedCategories ? key_text->CategoryText(key) : key_text->NameText(key);
  }
  if (s.empty()) return 0;  // no name: nothing to intern, the key stays new
  const uint64_t iid = Intern(table, s, field, pending);
  keys->Add(key, iid);
  return iid;
}

inline char* PerfettoTraceWriter::PutPacketHead(char* p, uint32_t sequence_id, uint64_t delta_ns) {
  p = ProtoWriter::PutVarintField(p, kPacketTimestamp, delta_ns);
  return ProtoWriter::PutVarintField(p, kPacketSequenceId, sequence_id);
}

inline char* PerfettoTraceWriter::PutEventHead(char* p, const PerfettoEvent& e, uint64_t thread,
                                               uint64_t category_iid, uint64_t name_iid) {
  p = ProtoWriter::PutVarintField(p, kEventType, static_cast<uint64_t>(e.type));
  if (e.track != 0 && e.track != thread) {
    p = ProtoWriter::PutVarintField(p, kEventTrackUuid, e.track);
  }
  if (category_iid != 0) p = ProtoWriter::PutVarintField(p, kEventCategoryIids, category_iid);
  if (name_iid != 0) p = ProtoWriter::PutVarintField(p, kEventNameIid, name_iid);
  if (e.type == PerfettoEvent::Type::kCounter) {
    if (e.is_double) {
      uint64_t bits;
      std::memcpy(&bits, &e.double_value, sizeof bits);
      p = ProtoWriter::PutFixed64Field(p, kEventDoubleCounterValue, bits);
    } else {
      p = ProtoWriter::PutVarintField(p, kEventCounterValue, static_cast<uint64_t>(e.int_value));
    }
  }
  return p;
}

void PerfettoTraceWriter::WriteShort(Sequence* seq, uint64_t thread, const PerfettoEvent& e,
                                     uint64_t category_iid, uint64_t name_iid) {
  // Nothing but the heads, so the packet and its TrackEvent are under 128
  // bytes and their lengths known to take one byte.
  char* packet_length = nullptr;
  char* event_length = nullptr;
  char* p = block_.Reserve(2 + kShortPacketBodyBytes);
  p = ProtoWriter::BeginShortAt(p, kTracePacketField, &packet_length);
  p = PutPacketHead(p, seq->id, e.time_ns - seq->last_time);
  seq->last_time = e.time_ns;
  p = ProtoWriter::BeginShortAt(p, kPacketTrackEvent, &event_length);
  p = PutEventHead(p, e, thread, category_iid, name_iid);
  ProtoWriter::EndShortAt(event_length, p);
  ProtoWriter::EndShortAt(packet_length, p);
  block_.Commit(p);
  ++stats_.events;
  PacketDone();
}

void PerfettoTraceWriter::WriteSliceEndShort(Sequence* seq, uint64_t thread, uint64_t track,
                                             uint64_t time_ns) {
  // PutEventHead's fields for a slice end: its type, and its track unless
  // it is the sequence's own.
  char* packet_length = nullptr;
  char* event_length = nullptr;
  char* p = block_.Reserve(2 + kShortPacketBodyBytes);
  p = ProtoWriter::BeginShortAt(p, kTracePacketField, &packet_length);
  p = PutPacketHead(p, seq->id, time_ns - seq->last_time);
  seq->last_time = time_ns;
  p = ProtoWriter::BeginShortAt(p, kPacketTrackEvent, &event_length);
  p = ProtoWriter::PutVarintField(p, kEventType,
                                  static_cast<uint64_t>(PerfettoEvent::Type::kSliceEnd));
  if (track != 0 && track != thread) p = ProtoWriter::PutVarintField(p, kEventTrackUuid, track);
  ProtoWriter::EndShortAt(event_length, p);
  ProtoWriter::EndShortAt(packet_length, p);
  block_.Commit(p);
  ++stats_.events;
  PacketDone();
}

void PerfettoTraceWriter::WriteSliceBeginShort(Sequence* seq, uint64_t thread, uint64_t track,
                                               uint64_t time_ns, uint64_t category_iid,
                                               uint64_t name_iid) {
  // PutEventHead's fields for a slice begin with both iids.
  char* packet_length = nullptr;
  char* event_length = nullptr;
  char* p = block_.Reserve(2 + kShortPacketBodyBytes);
  p = ProtoWriter::BeginShortAt(p, kTracePacketField, &packet_length);
  p = PutPacketHead(p, seq->id, time_ns - seq->last_time);
  seq->last_time = time_ns;
  p = ProtoWriter::BeginShortAt(p, kPacketTrackEvent, &event_length);
  p = ProtoWriter::PutVarintField(p, kEventType,
                                  static_cast<uint64_t>(PerfettoEvent::Type::kSliceBegin));
  if (track != 0 && track != thread) p = ProtoWriter::PutVarintField(p, kEventTrackUuid, track);
  p = ProtoWriter::PutVarintField(p, kEventCategoryIids, category_iid);
  p = ProtoWriter::PutVarintField(p, kEventNameIid, name_iid);
  ProtoWriter::EndShortAt(event_length, p);
  ProtoWriter::EndShortAt(packet_length, p);
  block_.Commit(p);
  ++stats_.events;
  PacketDone();
}

void PerfettoTraceWriter::WriteFull(uint64_t thread, const PerfettoEvent& e) {
  if (thread >= sequences_.size() || sequences_[thread] == nullptr) {
    return;  // REQUIRES violated: nothing to write on
  }
  Sequence& seq = *sequences_[thread];

  // Interning first: the InternedData entries go in the same packet, before
  // the event that uses them (field order does not matter to parsers).
  pending_.clear();
  const uint64_t category_iid = InternKeyed(&seq.category_keys, e.category_key, &seq.categories,
                                            e.category, e.key_text, kInternedCategories, &pending_);
  const uint64_t name_iid = InternKeyed(&seq.name_keys, e.name_key, &seq.names, e.name, e.key_text,
                                        kInternedNames, &pending_);
  // At most a few annotations per event: a small fixed array of iids,
  // room for a task's 64 args (the pairing engine's most) and the
  // exporter's own (open_at_end; review helper 41: at 64 it was lost).
  constexpr size_t kMaxAnnotations = 80;
  uint64_t annotation_iids[kMaxAnnotations];
  const size_t annotations =
      e.annotation_count < kMaxAnnotations ? e.annotation_count : kMaxAnnotations;
  for (size_t i = 0; i < annotations; ++i) {
    annotation_iids[i] = InternAnnotationName(&seq, e.annotations[i].name);
  }

  // A step back in time (user-clock timestamps of the *_ex calls, a past
  // frame_submit, a flow's tail begun before) cannot be an unsigned delta,
  // nor a new snapshot of the sequence's clock: its REALTIME, the trace's
  // clock, would step back, which Perfetto refuses, dropping the
  // sequence's later packets. The packet alone is timed on REALTIME; the
  // sequence's clock stays where it was.
  const bool back = e.time_ns < seq.last_time;
  if (!back && pending_.empty() && annotations == 0 && e.flow_count == 0 &&
      e.terminating_flow_count == 0) {
    WriteShort(&seq, thread, e, category_iid, name_iid);
    return;
  }
  char* p = block_.Reserve(kBeginBytes + kPacketHeadBytes + kClockIdBytes);
  p = block_.BeginAt(p, kTracePacketField);
  if (back) {
    p = ProtoWriter::PutVarintField(p, kPacketTimestampClockId, kBuiltinClockRealtime);
    p = PutPacketHead(p, seq.id, static_cast<uint64_t>(realtime_at_zero_ns_) + e.time_ns);
    ++stats_.realtime_packets;
  } else {
    p = PutPacketHead(p, seq.id, e.time_ns - seq.last_time);
    seq.last_time = e.time_ns;
  }
  block_.Commit(p);
  if (!pending_.empty()) {
    block_.Begin(kPacketInternedData);
    for (const PendingIntern& p : pending_) {
      block_.Begin(p.field);
      block_.Varint(kInternedIid, p.iid);
      block_.Bytes(kInternedName, p.name);
      block_.End();
    }
    block_.End();
  }
  p = block_.Reserve(kBeginBytes + kEventHeadBytes);
  p = block_.BeginAt(p, kPacketTrackEvent);
  p = PutEventHead(p, e, thread, category_iid, name_iid);
  block_.Commit(p);
  for (size_t i = 0; i < annotations; ++i) {
    const Annotation& a = e.annotations[i];
    block_.Begin(kEventDebugAnnotations);
    block_.Varint(kAnnotationNameIid, annotation_iids[i]);
    switch (a.type) {
      case Annotation::Type::kInt:
        block_.Int(kAnnotationInt, a.i);
        break;
      case Annotation::Type::kUint:
        block_.Varint(kAnnotationUint, a.u);
        break;
      case Annotation::Type::kDouble:
        block_.Double(kAnnotationDouble, a.d);
        break;
      case Annotation::Type::kString:
        block_.Bytes(kAnnotationString, a.s);
        break;
      case Annotation::Type::kBool:
        block_.Bool(kAnnotationBool, a.u != 0);
        break;
      case Annotation::Type::kPointer:
        block_.Varint(kAnnotationPointer, a.u);
        break;
      case Annotation::Type::kJson:
        block_.Bytes(kAnnotationLegacyJson, a.s);
        break;
    }
    block_.End();
  }
  for (size_t i = 0; i < e.flow_count; ++i) block_.Fixed64(kEventFlowIds, e.flow_ids[i]);
  for (size_t i = 0; i < e.terminating_flow_count; ++i) {
    block_.Fixed64(kEventTerminatingFlowIds, e.terminating_flow_ids[i]);
  }
  block_.End();
  ++stats_.events;
  EndPacket();
}

void PerfettoTraceWriter::PacketDone() {
  ++stats_.packets;
  if (block_.size() >= kFlushBytes) FlushPackets();
}

void PerfettoTraceWriter::FlushPackets() {
  if (block_.size() == 0 || !packets_) return;
  stats_.uncompressed_bytes += block_.size();
  // Whole packets, as PacketBlocks needs, past the output's buffer.
  packets_->output()->WriteUnbuffered(block_.data());
  block_.Clear();
}

void PerfettoTraceWriter::ClearPackets() {
  stats_.uncompressed_bytes += block_.size();
  block_.Clear();
}

void PerfettoTraceWriter::WritePackets(std::string_view packets) {
  char* p = block_.Reserve(packets.size());
  std::memcpy(p, packets.data(), packets.size());
  block_.Commit(p + packets.size());
  if (block_.size() >= kFlushBytes) FlushPackets();
}

absl::Status PerfettoTraceWriter::Finish() {
  FlushPackets();
  if (!packets_) return absl::OkStatus();
  absl::Status s = packets_->Finish();
  stats_.output_bytes = packets_->output_bytes(stats_.uncompressed_bytes);
  return s;
}

PerfettoPackets::PerfettoPackets(Output* out, PerfettoCompression compression) : out_(out) {
  if (compression == PerfettoCompression::kNone) return;
  blocks_.emplace(out, compression == PerfettoCompression::kZstd
                           ? BlockCompressor::Codec::kZstd
                           : BlockCompressor::Codec::kDeflate);
}

absl::Status PerfettoPackets::Finish() {
  const absl::Status blocks = blocks_ ? blocks_->Finish() : absl::OkStatus();
  out_->Flush();
  return blocks.ok() ? out_->status() : blocks;
}

}  // namespace ittc::itt_dump
