#include "format/event_stream.h"

#include <cstdlib>
#include <cstring>

#include "format/coding.h"

namespace ittc {
namespace format {
namespace {

using internal::kMaxEventPrefixBytes;
using internal::kMaxFieldBytes;

// Kinds of the non-event chunks are not valid inside an events chunk.
constexpr uint16_t kFirstRecordKind = 0x100;

}  // namespace

size_t MaxEncodedEventSize(const Event& event) {
  const KindSchema* s = FindSchema(event.kind);
  size_t n = kMaxEventPrefixBytes;
  for (int i = 0; i < s->field_count; ++i) {
    n += kMaxFieldBytes;
    if (s->fields[i].type == FieldType::kBytes) n += event.fields[i].bytes.size();
  }
  return n;
}

namespace internal {

char* EncodeFields(const KindSchema& schema, const Event& event, uint64_t own_time, char* p) {
  EventFieldSource source(event);
  return EncodeFieldsFrom(schema, own_time, source, p);
}

const char* DecodeFields(const KindSchema& schema, const char* p, const char* limit,
                         uint64_t own_time, Event* event, const char** reason) {
  for (int i = 0; i < schema.field_count; ++i) {
    FieldValue& f = event->fields[i];
    uint64_t v;
    switch (schema.fields[i].type) {
      case FieldType::kUint:
        p = GetVarint64(p, limit, &f.u);
        if (p == nullptr) {
          *reason = "bad varint field";
          return nullptr;
        }
        break;
      case FieldType::kSint:
        p = GetVarint64(p, limit, &v);
        if (p == nullptr) {
          *reason = "bad zigzag field";
          return nullptr;
        }
        f.u = static_cast<uint64_t>(ZigZagDecode(v));
        break;
      case FieldType::kDouble:
        if (limit - p < 8) {
          *reason = "truncated double field";
          return nullptr;
        }
        f.u = DecodeFixed64(p);
        p += 8;
        break;
      case FieldType::kTime:
        p = GetVarint64(p, limit, &v);
        if (p == nullptr) {
          *reason = "bad time field";
          return nullptr;
        }
        f.u = own_time + static_cast<uint64_t>(ZigZagDecode(v));
        break;
      case FieldType::kId: {
        if (p >= limit) {
          *reason = "truncated id field";
          return nullptr;
        }
        const unsigned mask = static_cast<unsigned char>(*p++);
        if (mask > 7) {
          *reason = "bad id presence byte";
          return nullptr;
        }
        f.id = Id{};
        if (mask & 1) p = GetVarint64(p, limit, &f.id.d1);
        if (p != nullptr && (mask & 2)) p = GetVarint64(p, limit, &f.id.d2);
        if (p != nullptr && (mask & 4)) p = GetVarint64(p, limit, &f.id.d3);
        if (p == nullptr) {
          *reason = "bad id field";
          return nullptr;
        }
        break;
      }
      case FieldType::kBytes:
        p = GetVarint64(p, limit, &v);
        if (p == nullptr || v > static_cast<uint64_t>(limit - p)) {
          *reason = "bad bytes field length";
          return nullptr;
        }
        f.bytes = std::string_view(p, static_cast<size_t>(v));
        p += v;
        break;
    }
  }
  event->field_count = schema.field_count;
  return p;
}

}  // namespace internal

bool EventStreamEncoder::Buffer::Grow(size_t n) {
  size_t cap = capacity == 0 ? 4096 : capacity;
  while (cap - size < n) cap *= 2;
  char* nb = static_cast<char*>(std::realloc(data, cap));
  if (nb == nullptr) return false;
  data = nb;
  capacity = cap;
  return true;
}

void EventStreamEncoder::Buffer::Free() {
  std::free(data);
  data = nullptr;
  size = capacity = 0;
}

EventStreamEncoder::EventStreamEncoder() {
  times_.Grow(16 << 10);
  ops_.Grow(64 << 10);
}

EventStreamEncoder::~EventStreamEncoder() {
  times_.Free();
  ops_.Free();
  out_.Free();
}

void EventStreamEncoder::Reset(uint32_t thread_index, uint64_t base_time) {
  times_.size = 0;
  ops_.size = 0;
  event_count_ = 0;
  thread_index_ = thread_index;
  base_time_ = last_time_ = base_time;
  assembled_ = false;
  failed_ = false;
}

void EventStreamEncoder::Append(const Event& event) {
  const KindSchema* s = FindSchema(event.kind);
  size_t bytes = 0;
  for (int i = 0; s->bytes_field_count != 0 && i < s->field_count; ++i) {
    if (s->fields[i].type == FieldType::kBytes) bytes += event.fields[i].bytes.size();
  }
  internal::EventFieldSource source(event);
  AppendFrom(event.kind, event.time, bytes, source);
}

size_t EventStreamEncoder::payload_size() const {
  return static_cast<size_t>(VarintLength(thread_index_)) + VarintLength(base_time_) +
         VarintLength(event_count_) + VarintLength(times_.size) + times_.size + ops_.size;
}

std::string_view EventStreamEncoder::payload() const {
  if (!assembled_) {
    out_.size = 0;
    char* p = out_.Reserve(payload_size());
    if (p == nullptr) {
      failed_ = true;
      return std::string_view();
    }
    p = PutVarint64(p, thread_index_);
    p = PutVarint64(p, base_time_);
    p = PutVarint64(p, event_count_);
    p = PutVarint64(p, times_.size);
    if (times_.size > 0) std::memcpy(p, times_.data, times_.size);
    p += times_.size;
    if (ops_.size > 0) std::memcpy(p, ops_.data, ops_.size);
    p += ops_.size;
    out_.size = static_cast<size_t>(p - out_.data);
    assembled_ = true;
  }
  return std::string_view(out_.data, out_.size);
}

namespace {

inline const char* GetId(const char* p, const char* limit, Id* id) {
  if (p >= limit) return nullptr;
  const unsigned mask = static_cast<unsigned char>(*p++);
  *id = Id{};
  if (mask == 0) return p;
  if (mask > 7) return nullptr;
  if (mask & 1) p = GetVarint64(p, limit, &id->d1);
  if (p != nullptr && (mask & 2)) p = GetVarint64(p, limit, &id->d2);
  if (p != nullptr && (mask & 4)) p = GetVarint64(p, limit, &id->d3);
  return p;
}

// Straight-line decoding of the two kinds most traces are made of. Returns
// nullptr on any malformation; the caller then lets DecodeFields, which
// reads the same bytes, say exactly what is wrong.
const char* DecodeTaskFast(EventKind kind, const char* p, const char* limit, Event* event) {
  FieldValue* f = event->fields;
  p = GetVarint64(p, limit, &f[0].u);
  if (p == nullptr) return nullptr;
  if (kind == EventKind::kTaskEnd) {
    event->field_count = 1;
    return p;
  }
  p = GetId(p, limit, &f[1].id);
  if (p != nullptr) p = GetId(p, limit, &f[2].id);
  if (p != nullptr) p = GetVarint64(p, limit, &f[3].u);
  event->field_count = 4;
  return p;
}

}  // namespace

absl::Status EventStreamDecoder::Reset(std::string_view payload) {
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
    const KindSchema* s = FindSchema(k);
    const char* block_limit = limit_;
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
    const char* reason = nullptr;
    const char* q = nullptr;
    if (k == EventKind::kTaskEnd || k == EventKind::kTaskBegin) {
      q = DecodeTaskFast(k, p, limit_, event);
    }
    if (q == nullptr) {
      q = internal::DecodeFields(*s, p, block_limit, time, event, &reason);
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
