#include "format/records.h"

#include <cstring>
#include <initializer_list>

#include "format/coding.h"
#include "format/event_stream.h"

namespace ittc {
namespace format {

void RecordEncoder::Append(const Event& record) {
  const size_t at = buf_.size();
  buf_.resize(at + MaxEncodedRecordSize(record));
  char* end = EncodeRecordTo(record, &buf_[at]);
  buf_.resize(static_cast<size_t>(end - buf_.data()));
  ++count_;
}

size_t MaxEncodedRecordSize(const Event& record) {
  return 2 * kMaxVarint64Bytes + MaxEncodedEventSize(record);
}

char* EncodeRecordTo(const Event& record, char* dst) {
  const KindSchema* s = FindSchema(record.kind);
  // The fields go after the longest length prefix, then move back to
  // follow the real one (the block's length is known only afterwards).
  char* block = dst + 2 * kMaxVarint64Bytes;
  const size_t len = static_cast<size_t>(internal::EncodeFields(*s, record, 0, block) - block);
  char* p = PutVarint64(dst, static_cast<uint16_t>(record.kind));
  p = PutVarint64(p, len);
  std::memmove(p, block, len);
  return p + len;
}

void RecordDecoder::Reset(std::string_view payload) {
  begin_ = pos_ = payload.data();
  limit_ = payload.data() + payload.size();
  unknown_skipped_ = 0;
  status_ = absl::OkStatus();
}

bool RecordDecoder::Fail(const char* reason) {
  status_ = absl::DataLossError(reason);
  limit_ = pos_;
  return false;
}

bool RecordDecoder::Next(Event* record) {
  while (pos_ < limit_) {
    uint64_t kind;
    uint64_t len;
    const char* p = GetVarint64(pos_, limit_, &kind);
    if (p == nullptr || kind == 0 || kind > 0xffff) {
      return Fail("bad record kind");
    }
    p = GetVarint64(p, limit_, &len);
    if (p == nullptr || len > static_cast<uint64_t>(limit_ - p)) {
      return Fail("bad record length");
    }
    const char* block_limit = p + len;
    const auto k = static_cast<EventKind>(kind);
    const KindSchema* s = FindSchema(k);
    if (s == nullptr) {
      ++unknown_skipped_;
      pos_ = block_limit;
      continue;
    }
    const char* reason = nullptr;
    if (internal::DecodeFields(*s, p, block_limit, 0, record, &reason) == nullptr) {
      return Fail(reason);
    }
    record->kind = k;
    record->time = 0;
    pos_ = block_limit;  // trailing bytes: fields of a later minor version
    return true;
  }
  return false;
}

Event ToRecord(const ThreadInfo& v) {
  Event e;
  e.Init(EventKind::kThreadInfo, 0);
  e.Set(Field::kThreadIndex, v.thread_index);
  e.Set(Field::kTid, v.tid);
  e.SetBytes(Field::kName, v.name);
  e.Set(Field::kIgnored, v.ignored ? 1 : 0);
  return e;
}

Event ToRecord(const ModuleMapped& v) {
  Event e;
  e.Init(EventKind::kModuleMapped, 0);
  e.Set(Field::kTicks, v.ticks);
  e.Set(Field::kLoadBias, v.load_bias);
  e.Set(Field::kStartAddr, v.start_addr);
  e.Set(Field::kSize, v.size);
  e.SetBytes(Field::kPath, v.path);
  e.SetBytes(Field::kBuildId, v.build_id);
  return e;
}

Event ToRecord(const ModuleUnmapped& v) {
  Event e;
  e.Init(EventKind::kModuleUnmapped, 0);
  e.Set(Field::kTicks, v.ticks);
  e.Set(Field::kStartAddr, v.start_addr);
  return e;
}

bool FromRecord(const Event& r, ModuleMapped* v) {
  if (r.kind != EventKind::kModuleMapped) return false;
  v->ticks = r.Get(Field::kTicks);
  v->load_bias = r.Get(Field::kLoadBias);
  v->start_addr = r.Get(Field::kStartAddr);
  v->size = r.Get(Field::kSize);
  v->path = r.GetBytes(Field::kPath);
  v->build_id = r.GetBytes(Field::kBuildId);
  return true;
}

bool FromRecord(const Event& r, ModuleUnmapped* v) {
  if (r.kind != EventKind::kModuleUnmapped) return false;
  v->ticks = r.Get(Field::kTicks);
  v->start_addr = r.Get(Field::kStartAddr);
  return true;
}

Event ToRecord(const ClockSync& v) {
  Event e;
  e.Init(EventKind::kClockSync, 0);
  e.Set(Field::kTicks, v.ticks);
  e.Set(Field::kMonotonicRawNs, v.monotonic_raw_ns);
  e.SetSint(Field::kRealtimeNs, v.realtime_ns);
  return e;
}

Event ToRecord(const LossRecord& v) {
  Event e;
  e.Init(EventKind::kLoss, 0);
  e.Set(Field::kThreadIndex, v.thread_index);
  e.Set(Field::kCause, static_cast<uint64_t>(v.cause));
  e.Set(Field::kCount, v.count);
  return e;
}

Event ToRecord(const EndRecord& v) {
  Event e;
  e.Init(EventKind::kEnd, 0);
  e.Set(Field::kEventsRecorded, v.events_recorded);
  e.Set(Field::kEventsDropped, v.events_dropped);
  e.Set(Field::kChunkCount, v.chunk_count);
  e.Set(Field::kEndTicks, v.end_ticks);
  return e;
}

bool FromRecord(const Event& r, ThreadInfo* v) {
  const uint64_t index = r.Get(Field::kThreadIndex);
  if (r.kind != EventKind::kThreadInfo || index > UINT32_MAX) return false;
  v->thread_index = static_cast<uint32_t>(index);
  v->tid = r.Get(Field::kTid);
  v->name = r.GetBytes(Field::kName);
  v->ignored = r.Get(Field::kIgnored) != 0;
  return true;
}

bool FromRecord(const Event& r, ClockSync* v) {
  if (r.kind != EventKind::kClockSync) return false;
  v->ticks = r.Get(Field::kTicks);
  v->monotonic_raw_ns = r.Get(Field::kMonotonicRawNs);
  v->realtime_ns = r.GetSint(Field::kRealtimeNs);
  return true;
}

bool FromRecord(const Event& r, LossRecord* v) {
  const uint64_t index = r.Get(Field::kThreadIndex);
  const uint64_t cause = r.Get(Field::kCause);
  if (r.kind != EventKind::kLoss || index > UINT32_MAX || cause > 255) return false;
  v->thread_index = static_cast<uint32_t>(index);
  v->cause = static_cast<LossCause>(cause);
  v->count = r.Get(Field::kCount);
  return true;
}

bool FromRecord(const Event& r, EndRecord* v) {
  if (r.kind != EventKind::kEnd) return false;
  v->events_recorded = r.Get(Field::kEventsRecorded);
  v->events_dropped = r.Get(Field::kEventsDropped);
  v->chunk_count = r.Get(Field::kChunkCount);
  v->end_ticks = r.Get(Field::kEndTicks);
  return true;
}

const char* FlightReasonName(uint64_t reason) {
  switch (reason) {
    case 1:
      return "signal";
    case 2:
      return "marker";
    case 3:
      return "fatal signal";
    case 4:
      return "detach";
    case 5:
      return "exit";
    default:
      return "unknown";
  }
}

Event ToRecord(const FlightDump& v) {
  Event e;
  e.Init(EventKind::kFlightDump, 0);
  e.Set(Field::kReason, static_cast<uint64_t>(v.reason));
  e.Set(Field::kSignal, v.signal);
  e.Set(Field::kName, v.name);
  e.Set(Field::kWindowBegin, v.window_begin);
  e.Set(Field::kWindowEnd, v.window_end);
  e.Set(Field::kDump, v.dump);
  e.Set(Field::kTriggers, v.triggers);
  return e;
}

bool FromRecord(const Event& r, FlightDump* v) {
  const uint64_t reason = r.Get(Field::kReason);
  const uint64_t signal = r.Get(Field::kSignal);
  if (r.kind != EventKind::kFlightDump || reason > 255 || signal > UINT32_MAX) return false;
  v->reason = static_cast<FlightReason>(reason);
  v->signal = static_cast<uint32_t>(signal);
  v->name = r.Get(Field::kName);
  v->window_begin = r.Get(Field::kWindowBegin);
  v->window_end = r.Get(Field::kWindowEnd);
  v->dump = r.Get(Field::kDump);
  v->triggers = r.Get(Field::kTriggers);
  return true;
}

namespace {

Event Record(EventKind kind, std::initializer_list<FieldValue> fields) {
  Event e;
  e.Init(kind, 0);
  int i = 0;
  for (const FieldValue& f : fields) e.fields[i++] = f;
  return e;
}

using F = FieldValue;

}  // namespace

Event DefString(uint64_t id, std::string_view text) {
  return Record(EventKind::kDefString, {F::Uint(id), F::Bytes(text)});
}

Event DefDomain(uint64_t id, std::string_view name) {
  return Record(EventKind::kDefDomain, {F::Uint(id), F::Bytes(name)});
}

Event DefCounter(uint64_t id, std::string_view name, std::string_view domain_name,
                 uint64_t domain_id, MetadataType type) {
  return Record(EventKind::kDefCounter, {F::Uint(id), F::Bytes(name), F::Bytes(domain_name),
                                         F::Uint(domain_id), F::Uint(static_cast<uint64_t>(type))});
}

Event DefHistogram(uint64_t id, uint64_t domain_id, std::string_view name, MetadataType x_type,
                   MetadataType y_type) {
  return Record(EventKind::kDefHistogram,
                {F::Uint(id), F::Uint(domain_id), F::Bytes(name),
                 F::Uint(static_cast<uint64_t>(x_type)), F::Uint(static_cast<uint64_t>(y_type))});
}

Event DefClockDomain(uint64_t id, uint64_t frequency_hz, uint64_t clock_base, uint64_t ticks) {
  return Record(EventKind::kDefClockDomain,
                {F::Uint(id), F::Uint(frequency_hz), F::Uint(clock_base), F::Uint(ticks)});
}

Event DefHeapFunction(uint64_t id, std::string_view name, std::string_view domain_name) {
  return Record(EventKind::kDefHeapFunction, {F::Uint(id), F::Bytes(name), F::Bytes(domain_name)});
}

Event DefLegacyEvent(uint64_t id, std::string_view name) {
  return Record(EventKind::kDefEvent, {F::Uint(id), F::Bytes(name)});
}

Event DefTrackGroup(uint64_t id, uint64_t name_string_id, uint64_t type) {
  return Record(EventKind::kDefTrackGroup, {F::Uint(id), F::Uint(name_string_id), F::Uint(type)});
}

Event DefTrack(uint64_t id, uint64_t track_group_id, uint64_t name_string_id, uint64_t type) {
  return Record(EventKind::kDefTrack,
                {F::Uint(id), F::Uint(track_group_id), F::Uint(name_string_id), F::Uint(type)});
}

void AppendLineEntry(std::string* dst, const LineEntry& e) {
  AppendFixed32(dst, e.offset);
  AppendFixed32(dst, e.line);
}

long LineTableSize(std::string_view table) {
  if (table.size() % 8 != 0) return -1;
  return static_cast<long>(table.size() / 8);
}

LineEntry LineTableEntry(std::string_view table, size_t i) {
  LineEntry e;
  e.offset = DecodeFixed32(table.data() + 8 * i);
  e.line = DecodeFixed32(table.data() + 8 * i + 4);
  return e;
}

void AppendFormatArgInt(std::string* dst, int64_t v) {
  dst->push_back(static_cast<char>(FormatArgTag::kInt));
  AppendVarint64(dst, ZigZagEncode(v));
}

void AppendFormatArgUint(std::string* dst, uint64_t v) {
  dst->push_back(static_cast<char>(FormatArgTag::kUint));
  AppendVarint64(dst, v);
}

void AppendFormatArgDouble(std::string* dst, double v) {
  dst->push_back(static_cast<char>(FormatArgTag::kDouble));
  AppendFixed64(dst, FieldValue::Double(v).u);
}

void AppendFormatArgString(std::string* dst, std::string_view v) {
  dst->push_back(static_cast<char>(FormatArgTag::kString));
  AppendVarint64(dst, v.size());
  dst->append(v.data(), v.size());
}

void AppendFormatArgPointer(std::string* dst, uint64_t v) {
  dst->push_back(static_cast<char>(FormatArgTag::kPointer));
  AppendVarint64(dst, v);
}

bool NextFormatArg(std::string_view* args, FormatArg* out, bool* malformed) {
  *malformed = false;
  if (args->empty()) return false;
  const char* p = args->data();
  const char* limit = p + args->size();
  const auto tag = static_cast<FormatArgTag>(static_cast<unsigned char>(*p++));
  uint64_t v = 0;
  switch (tag) {
    case FormatArgTag::kInt:
      p = GetVarint64(p, limit, &v);
      if (p != nullptr) v = static_cast<uint64_t>(ZigZagDecode(v));
      break;
    case FormatArgTag::kUint:
    case FormatArgTag::kPointer:
      p = GetVarint64(p, limit, &v);
      break;
    case FormatArgTag::kDouble:
      if (limit - p < 8) {
        p = nullptr;
      } else {
        v = DecodeFixed64(p);
        p += 8;
      }
      break;
    case FormatArgTag::kString:
      p = GetVarint64(p, limit, &v);
      if (p != nullptr && v > static_cast<uint64_t>(limit - p)) p = nullptr;
      if (p != nullptr) {
        out->text = std::string_view(p, static_cast<size_t>(v));
        p += v;
      }
      break;
    default:
      p = nullptr;
      break;
  }
  if (p == nullptr) {
    *args = std::string_view();
    *malformed = true;
    return false;
  }
  out->tag = tag;
  out->u = v;
  out->d = FieldValue::Uint(v).as_double();
  args->remove_prefix(static_cast<size_t>(p - args->data()));
  return true;
}

}  // namespace format
}  // namespace ittc
