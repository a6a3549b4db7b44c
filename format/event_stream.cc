#include "format/event_stream.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "absl/base/attributes.h"
#include "format/coding.h"

namespace ittc {
namespace format {
namespace {

using internal::kMaxEventPrefixBytes;
using internal::kMaxFieldBytes;

// Kinds of the non-event chunks are not valid inside an events chunk.
constexpr uint16_t kFirstRecordKind = 0x100;

}  // namespace

namespace internal {

char* EncodeFields(const KindSchema& schema, const Event& event, uint64_t own_time, char* p) {
  EventFieldSource source(event);
  return EncodeFieldsFrom(schema, own_time, source, p);
}

const char* DecodeFields(const KindSchema& schema, const char* p, const char* limit,
                         uint64_t own_time, Event* event, const char** reason) {
  for (int i = 0; i < schema.field_count && p != nullptr; ++i) {
    FieldValue* f = &event->fields[i];
    p = WithFieldType(schema.fields[i].type, [&](auto type) {
      return GetField<decltype(type)::value>(p, limit, own_time, f, reason);
    });
  }
  if (p != nullptr) event->field_count = schema.field_count;
  return p;
}

const char* DecodeDeltaFields(const KindSchema& schema, uint16_t delta_mask, const char* p,
                              const char* limit, uint64_t own_time, FieldHistory::Slot* row,
                              Event* event, const char** reason) {
  for (int i = 0; i < schema.field_count && p != nullptr; ++i) {
    FieldValue* f = &event->fields[i];
    const bool delta = (delta_mask >> i) & 1;
    auto slot_of = [ row, i ]() -> auto& { return row[i]; };
    p = WithFieldType(schema.fields[i].type, [&](auto type) {
      return GetDeltaField<decltype(type)::value>(p, limit, own_time, slot_of, delta, f, reason);
    });
  }
  if (p != nullptr) event->field_count = schema.field_count;
  return p;
}

namespace {

// DecodeFixedFields's visitor for WithFixedFields.
struct FixedDecoder {
  const char* p;
  const char* limit;
  uint64_t own_time;
  FieldHistory* history;  // null: plain fields
  bool addresses;         // address fields as differences too
  EventKind kind;
  Event* event;
  const char** reason;
  bool* fixed;
  template <uint16_t kAddresses, FieldType... kTypes>
  ABSL_ATTRIBUTE_ALWAYS_INLINE const char* Fixed() {
    *fixed = true;
    if (history != nullptr) {
      return GetDeltaFields<kTypes...>(p, limit, own_time, history, kind,
                                       addresses ? kAddresses : 0, event, reason);
    }
    return GetFields<kTypes...>(p, limit, own_time, event, reason);
  }
  const char* Other() {
    *fixed = false;
    return nullptr;
  }
};

}  // namespace

// Inlined into EventStreamDecoder::Next, its hot path.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline const char* DecodeFixedFieldsInline(
    EventKind kind, const char* p, const char* limit, uint64_t own_time, FieldHistory* history,
    bool addresses, Event* event, const char** reason, bool* fixed) {
  return WithFixedFields(
      kind, FixedDecoder{p, limit, own_time, history, addresses, kind, event, reason, fixed});
}

const char* DecodeFixedFields(EventKind kind, const char* p, const char* limit, uint64_t own_time,
                              FieldHistory* history, bool addresses, Event* event,
                              const char** reason, bool* fixed) {
  return DecodeFixedFieldsInline(kind, p, limit, own_time, history, addresses, event, reason,
                                 fixed);
}

}  // namespace internal

namespace {

// PackFields's visitor for WithFixedFields: the usual kinds without a
// schema lookup.
struct FixedPacker {
  const Event& event;
  char* dst;
  template <uint16_t, FieldType... kTypes>
  ABSL_ATTRIBUTE_ALWAYS_INLINE char* Fixed() {
    internal::EventFieldSource source(event);
    return internal::PutFields<kTypes...>(dst, event.time, source);
  }
  char* Other() { return internal::EncodeFields(*FindSchema(event.kind), event, event.time, dst); }
};

// PackedFieldsBound's visitor.
struct FixedPackBound {
  const Event& event;
  template <uint16_t, FieldType... kTypes>
  ABSL_ATTRIBUTE_ALWAYS_INLINE size_t Fixed() {
    size_t n = sizeof...(kTypes) * kMaxFieldBytes;
    int i = 0;
    ((n += kTypes == FieldType::kBytes ? event.fields[i].bytes.size() : 0, ++i), ...);
    return n;
  }
  size_t Other() {
    const KindSchema* s = FindSchema(event.kind);
    size_t n = 0;
    for (int i = 0; i < s->field_count; ++i) {
      n += kMaxFieldBytes;
      if (s->fields[i].type == FieldType::kBytes) n += event.fields[i].bytes.size();
    }
    return n;
  }
};

}  // namespace

size_t PackedFieldsBound(const Event& event) {
  return internal::WithFixedFields(event.kind, FixedPackBound{event});
}

size_t MaxEncodedEventSize(const Event& event) {
  return kMaxEventPrefixBytes + PackedFieldsBound(event);
}

char* PackFields(const Event& event, char* dst) {
  return internal::WithFixedFields(event.kind, FixedPacker{event, dst});
}

const char* UnpackFields(const char* p, const char* limit, Event* event) {
  const char* reason = nullptr;
  bool fixed = false;
  const char* q =
      internal::DecodeFixedFieldsInline(event->kind, p, limit, event->time, /*history=*/nullptr,
                                        /*addresses=*/false, event, &reason, &fixed);
  if (fixed) return q;
  const KindSchema* s = FindSchema(event->kind);
  return s == nullptr ? nullptr : internal::DecodeFields(*s, p, limit, event->time, event, &reason);
}

bool EventStreamEncoder::Buffer::Grow(size_t n) {
  size_t cap = capacity() == 0 ? 4096 : capacity();
  while (cap - size() < n) cap *= 2;
  return GrowTo(cap);
}

bool EventStreamEncoder::Buffer::GrowTo(size_t cap) {
  if (cap <= capacity()) return true;
  const size_t used = size();
  char* nb =
      static_cast<char*>(std::realloc(data == nullptr ? nullptr : data - front, front + cap));
  if (nb == nullptr) return false;
  data = nb + front;
  end = data + used;
  limit = data + cap;
  return true;
}

bool EventStreamEncoder::Buffer::GrowFront(size_t bytes) {
  if (bytes <= front) return true;
  const size_t used = size(), cap = capacity();
  char* nb = static_cast<char*>(std::malloc(bytes + cap));
  if (nb == nullptr) return false;
  // All of it touched now, as Prepare touched the buffer it replaces (the
  // flusher's warm-up teaches its encoders their front).
  std::memset(nb, 0, bytes + cap);
  if (used > 0) std::memcpy(nb + bytes, data, used);
  if (data != nullptr) std::free(data - front);
  front = bytes;
  data = nb + bytes;
  end = data + used;
  limit = data + cap;
  return true;
}

void EventStreamEncoder::Buffer::Free() {
  if (data != nullptr) std::free(data - front);
  data = end = limit = nullptr;
  front = 0;
}

bool EventStreamEncoder::ReserveSlow(size_t op_room) {
  // Room for the event and a run of one-slot events after it, so that the
  // buffers grow ahead and most events take the countdown.
  constexpr size_t kRun = 64;
  if (ops_.Reserve(op_room + kRun * kSmallEventRoom) == nullptr ||
      times_.Reserve((1 + kRun) * kMaxVarint64Bytes) == nullptr) {
    small_events_left_ = 0;
    return false;
  }
  // Less this event's room: its ops and its time delta.
  small_events_left_ = std::min((ops_.capacity() - ops_.size() - op_room) / kSmallEventRoom,
                                (times_.capacity() - times_.size()) / kMaxVarint64Bytes - 1);
  return true;
}

EventStreamEncoder::EventStreamEncoder(FieldCoding coding) : delta_(coding == FieldCoding::kDelta) {
  times_.Grow(16 << 10);
  ops_.Grow(64 << 10);
}

EventStreamEncoder::~EventStreamEncoder() {
  times_.Free();
  ops_.Free();
  out_.Free();
}

void EventStreamEncoder::Reset(uint32_t thread_index, uint64_t base_time) {
  times_.end = times_.data;
  ops_.end = ops_.data;
  // Failing leaves the front as it was: payload() then copies.
  ops_.GrowFront(wanted_front_);
  small_events_left_ = 0;
  event_count_ = 0;
  thread_index_ = thread_index;
  base_time_ = last_time_ = base_time;
  failed_ = false;
  history_.Clear();
}

void EventStreamEncoder::Prepare(size_t payload_bytes) {
  for (Buffer* b : {&times_, &ops_, &out_}) {
    if (!b->GrowTo(b->size() + payload_bytes) || !b->HasRoom(1)) continue;
    std::memset(b->end, 0, b->capacity() - b->size());
  }
}

void EventStreamEncoder::Append(const Event& event) {
  internal::EventFieldSource source(event);
  AppendFrom(event.kind, event.time, BytesFieldsSize(event, *FindSchema(event.kind)), source);
}

size_t EventStreamEncoder::payload_size() const {
  return static_cast<size_t>(VarintLength(thread_index_)) + VarintLength(base_time_) +
         VarintLength(event_count_) + VarintLength(times_.size()) + times_.size() + ops_.size();
}

std::string_view EventStreamEncoder::payload() const {
  // Assembled on every call, with nothing kept about it: the views it
  // returned before point into buffers Append, Reset and Prepare move.
  const size_t before_ops = payload_size() - ops_.size();
  char* begin;
  const bool in_front = before_ops <= ops_.front;
  if (in_front) {
    begin = ops_.data - before_ops;
  } else {
    wanted_front_ = before_ops + before_ops / 8;
    out_.end = out_.data;
    begin = out_.Reserve(payload_size());
    if (begin == nullptr) {
      failed_ = true;
      return std::string_view();
    }
  }
  char* p = PutVarint64(begin, thread_index_);
  p = PutVarint64(p, base_time_);
  p = PutVarint64(p, event_count_);
  p = PutVarint64(p, times_.size());
  if (times_.size() > 0) std::memcpy(p, times_.data, times_.size());
  p += times_.size();
  if (!in_front) {
    if (ops_.size() > 0) std::memcpy(p, ops_.data, ops_.size());
    out_.end = p + ops_.size();
  }
  return std::string_view(begin, before_ops + ops_.size());
}

bool EventStreamEncoder::RestoreHistory() {
  if (!delta_) return false;
  history_.Clear();
  if (event_count_ == 0) return false;
  EventStreamDecoder decoder;
  if (!decoder.Reset(payload(), chunk_flags()).ok()) return false;
  Event e;
  while (decoder.Next(&e)) {
  }
  history_.CopyFrom(decoder.history_);
  return false;
}

absl::Status EventStreamDecoder::Reset(std::string_view payload, uint16_t chunk_flags) {
  delta_ = (chunk_flags & kChunkFlagDeltaFields) != 0;
  addresses_ = delta_ && (chunk_flags & kChunkFlagDeltaAddresses) != 0;
  times_ = delta_ && (chunk_flags & kChunkFlagDeltaTimes) != 0;
  history_.Clear();
  begin_ = pos_ = payload.data();
  limit_ = payload.data() + payload.size();
  tpos_ = tlimit_ = nullptr;
  events_decoded_ = 0;
  unknown_skipped_ = 0;
  event_count_ = 0;
  status_ = absl::OkStatus();
  uint64_t thread_index = 0;
  uint64_t base = 0;
  uint64_t count = 0;
  uint64_t times_len = 0;
  const char* p = GetVarint64(pos_, limit_, &thread_index);
  if (p != nullptr) p = GetVarint64(p, limit_, &base);
  if (p != nullptr) p = GetVarint64(p, limit_, &count);
  if (p != nullptr) p = GetVarint64(p, limit_, &times_len);
  if (p == nullptr || thread_index > UINT32_MAX || times_len > static_cast<uint64_t>(limit_ - p)) {
    pos_ = limit_;
    Fail("bad events chunk prefix");
    return status_;
  }
  thread_index_ = static_cast<uint32_t>(thread_index);
  base_time_ = last_time_ = base;
  event_count_ = count;
  tpos_ = p;
  tlimit_ = p + times_len;
  pos_ = tlimit_;
  return status_;
}

bool EventStreamDecoder::Fail(const char* reason) {
  status_ = absl::DataLossError(reason);
  limit_ = pos_;  // stop: nothing after a malformed event can be trusted
  return false;
}

bool EventStreamDecoder::Next(Event* event) {
  // One loop per coding, so that neither carries the other's branches.
  return delta_ ? NextIn<true>(event) : NextIn<false>(event);
}

template <bool kDelta>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline bool EventStreamDecoder::NextIn(Event* event) {
  while (pos_ < limit_) {
    if (events_decoded_ + unknown_skipped_ >= event_count_) {
      return Fail("more events than the declared count");
    }
    uint64_t kind;
    uint64_t zz;
    const char* p = GetVarint64(pos_, limit_, &kind);
    if (p == nullptr || kind == 0 || kind > 0xffff) return Fail("bad event kind");
    if (kind >= kFirstRecordKind && kind < kFirstSizedKind) {
      return Fail("record kind in events chunk");
    }
    const char* t = GetVarint64(tpos_, tlimit_, &zz);
    if (t == nullptr) return Fail("bad time delta");
    const uint64_t time = last_time_ + static_cast<uint64_t>(ZigZagDecode(zz));
    const auto k = static_cast<EventKind>(kind);
    const char* reason = nullptr;
    bool fixed = false;
    // The usual kinds by their straight-line form: they are unsized and
    // known, so what follows for the others has nothing to check for them.
    const char* q = internal::DecodeFixedFieldsInline(
        k, p, limit_, time, kDelta ? &history_ : nullptr, addresses_, event, &reason, &fixed);
    const char* block_limit = limit_;
    if (!fixed) {
      const KindSchema* s = FindSchema(k);
      if (kind >= kFirstSizedKind) {
        uint64_t len;
        p = GetVarint64(p, limit_, &len);
        if (p == nullptr || len > static_cast<uint64_t>(limit_ - p)) {
          return Fail("bad sized event length");
        }
        block_limit = p + len;
        if (s == nullptr) {
          pos_ = block_limit;
          tpos_ = t;
          last_time_ = time;
          ++unknown_skipped_;
          continue;
        }
      } else if (s == nullptr) {
        return Fail("unknown event kind");
      }
      // Sized kinds are never delta-coded.
      q = kDelta && kind < kFirstRecordKind
              ? internal::DecodeDeltaFields(*s, DeltaMask(*s), p, block_limit, time, history_.Of(k),
                                            event, &reason)
              : internal::DecodeFields(*s, p, block_limit, time, event, &reason);
    }
    if (q == nullptr) return Fail(reason);
    p = q;
    // A sized kind may carry fields appended by a later minor version.
    if (kind >= kFirstSizedKind) p = block_limit;
    event->kind = k;
    event->time = time;
    last_time_ = time;
    pos_ = p;
    tpos_ = t;
    ++events_decoded_;
    return true;
  }
  if (status_.ok() && (events_decoded_ + unknown_skipped_ != event_count_ || tpos_ != tlimit_)) {
    return Fail("event count does not match the streams");
  }
  return false;
}

}  // namespace format
}  // namespace ittc
