// Entry points: counters and histograms.
//
// counter_set_value reads the value as the counter's own type and stores it
// in one 64-bit word: unsigned types zero-extended, signed types
// sign-extended (two's complement), float and double as the bits of a
// double. The record carries the type so a reader can tell them apart.

#include <cstring>

#include "collector/internal/api_util.h"

using namespace ittc::collector_internal;  // NOLINT: entry points only
using ittc::format::EventKind;

namespace {

__itt_counter_info_t* AsCounter(__itt_counter c) {
  return reinterpret_cast<__itt_counter_info_t*>(c);
}

// False if the type is unknown.
bool CounterValueBits(int type, const void* p, uint64_t* bits) {
  switch (type) {
    case __itt_metadata_u64: {
      uint64_t v;
      std::memcpy(&v, p, sizeof(v));
      *bits = v;
      return true;
    }
    case __itt_metadata_s64: {
      int64_t v;
      std::memcpy(&v, p, sizeof(v));
      *bits = static_cast<uint64_t>(v);
      return true;
    }
    case __itt_metadata_u32: {
      uint32_t v;
      std::memcpy(&v, p, sizeof(v));
      *bits = v;
      return true;
    }
    case __itt_metadata_s32: {
      int32_t v;
      std::memcpy(&v, p, sizeof(v));
      *bits = static_cast<uint64_t>(static_cast<int64_t>(v));
      return true;
    }
    case __itt_metadata_u16: {
      uint16_t v;
      std::memcpy(&v, p, sizeof(v));
      *bits = v;
      return true;
    }
    case __itt_metadata_s16: {
      int16_t v;
      std::memcpy(&v, p, sizeof(v));
      *bits = static_cast<uint64_t>(static_cast<int64_t>(v));
      return true;
    }
    case __itt_metadata_float: {
      float v;
      std::memcpy(&v, p, sizeof(v));
      double d = v;
      std::memcpy(bits, &d, sizeof(d));
      return true;
    }
    case __itt_metadata_double: {
      double d;
      std::memcpy(&d, p, sizeof(d));
      std::memcpy(bits, &d, sizeof(d));
      return true;
    }
    default:
      return false;
  }
}

// Sets *id to the counter's; false if its calls record nothing (ITTC_DOMAINS
// leaves its domain out).
inline bool RecordedCounter(__itt_counter counter, uint32_t* id) {
  const __itt_counter_info_t* c = AsCounter(counter);
  *id = CounterId(c);
  return !FilteredOut(c);
}

inline void CounterOnly(EventKind kind, __itt_counter counter) {
  CallScope call;
  if (!call.ok()) return;
  if (counter == nullptr) return CountInvalidCall(call.thread());
  uint32_t id;
  if (!RecordedCounter(counter, &id)) return;
  Emit(call.thread(), kind, ReadTicks(), uint64_t{id});
}

// __itt_counter_inc and _dec: kind kCounterInc or kCounterDec.
inline void CounterStep(EventKind kind, __itt_counter counter) {
  CallScope call;
  if (!call.ok()) return;
  if (counter == nullptr) return CountInvalidCall(call.thread());
  uint32_t id;
  if (!RecordedCounter(counter, &id)) return;
  WriteCounterStep(kind, id, RingWriter(call.thread(), ReadTicks()));
}

inline void CounterDelta(EventKind kind, __itt_counter counter, unsigned long long delta) {
  CallScope call;
  if (!call.ok()) return;
  if (counter == nullptr) return CountInvalidCall(call.thread());
  uint32_t id;
  if (!RecordedCounter(counter, &id)) return;
  Emit(call.thread(), kind, ReadTicks(), uint64_t{id}, static_cast<uint64_t>(delta));
}

inline void SetValue(EventKind kind, __itt_counter counter, void* value_ptr) {
  CallScope call;
  if (!call.ok()) return;
  uint64_t bits;
  if (counter == nullptr || value_ptr == nullptr ||
      !CounterValueBits(AsCounter(counter)->type, value_ptr, &bits)) {
    return CountInvalidCall(call.thread());
  }
  uint32_t id;
  if (!RecordedCounter(counter, &id)) return;
  Emit(call.thread(), kind, ReadTicks(), uint64_t{id},
       static_cast<uint64_t>(AsCounter(counter)->type), bits);
}

inline void DomainCounter(EventKind kind, const __itt_domain* domain, __itt_string_handle* name) {
  CallScope call;
  if (!call.ok()) return;
  uint64_t now = ReadTicks();
  if (domain == nullptr || name == nullptr) return CountInvalidCall(call.thread());
  Emit(call.thread(), kind, now, uint64_t{DomainId(domain)}, uint64_t{StringId(name)});
}

inline void DomainCounterDelta(EventKind kind, const __itt_domain* domain,
                               __itt_string_handle* name, unsigned long long delta) {
  CallScope call;
  if (!call.ok()) return;
  uint64_t now = ReadTicks();
  if (domain == nullptr || name == nullptr) return CountInvalidCall(call.thread());
  Emit(call.thread(), kind, now, uint64_t{DomainId(domain)}, uint64_t{StringId(name)},
       static_cast<uint64_t>(delta));
}

}  // namespace

ITTC_EXPORT void ITTAPI __itt_counter_inc(__itt_counter id) {
  CounterStep(EventKind::kCounterInc, id);
}
ITTC_EXPORT void ITTAPI __itt_counter_dec(__itt_counter id) {
  CounterStep(EventKind::kCounterDec, id);
}
ITTC_EXPORT void ITTAPI __itt_counter_destroy(__itt_counter id) {
  CounterOnly(EventKind::kCounterDestroy, id);
}
ITTC_EXPORT void ITTAPI __itt_counter_inc_delta(__itt_counter id, unsigned long long value) {
  CounterDelta(EventKind::kCounterIncDelta, id, value);
}
ITTC_EXPORT void ITTAPI __itt_counter_dec_delta(__itt_counter id, unsigned long long value) {
  CounterDelta(EventKind::kCounterDecDelta, id, value);
}
ITTC_EXPORT void ITTAPI __itt_counter_set_value(__itt_counter id, void* value_ptr) {
  SetValue(EventKind::kCounterSetValue, id, value_ptr);
}
ITTC_EXPORT void ITTAPI __itt_counter_set_value_v3(__itt_counter counter, void* value_ptr) {
  SetValue(EventKind::kCounterSetValueV3, counter, value_ptr);
}

ITTC_EXPORT void ITTAPI __itt_counter_set_value_ex(__itt_counter id,
                                                   __itt_clock_domain* clock_domain,
                                                   unsigned long long timestamp, void* value_ptr) {
  CallScope call;
  if (!call.ok()) return;
  uint64_t bits;
  if (id == nullptr || value_ptr == nullptr ||
      !CounterValueBits(AsCounter(id)->type, value_ptr, &bits)) {
    return CountInvalidCall(call.thread());
  }
  uint32_t counter_id;
  if (!RecordedCounter(id, &counter_id)) return;
  const uint64_t now = ReadTicks();
  uint64_t clock_id;
  uint64_t ticks = UserTimeToTicks(clock_domain, timestamp, &clock_id);
  Emit(call.thread(), EventKind::kCounterSetValueEx, now, uint64_t{counter_id}, clock_id,
       static_cast<uint64_t>(timestamp), ticks, static_cast<uint64_t>(AsCounter(id)->type), bits);
}

ITTC_EXPORT void ITTAPI __itt_counter_inc_v3(const __itt_domain* domain,
                                             __itt_string_handle* name) {
  DomainCounter(EventKind::kCounterIncV3, domain, name);
}
ITTC_EXPORT void ITTAPI __itt_counter_dec_v3(const __itt_domain* domain,
                                             __itt_string_handle* name) {
  DomainCounter(EventKind::kCounterDecV3, domain, name);
}
ITTC_EXPORT void ITTAPI __itt_counter_inc_delta_v3(const __itt_domain* domain,
                                                   __itt_string_handle* name,
                                                   unsigned long long delta) {
  DomainCounterDelta(EventKind::kCounterIncDeltaV3, domain, name, delta);
}
ITTC_EXPORT void ITTAPI __itt_counter_dec_delta_v3(const __itt_domain* domain,
                                                   __itt_string_handle* name,
                                                   unsigned long long delta) {
  DomainCounterDelta(EventKind::kCounterDecDeltaV3, domain, name, delta);
}

// One record per metadata element: string kinds carry text, the others a
// 64-bit value read from where `value` points.
ITTC_EXPORT void ITTAPI __itt_bind_context_metadata_to_counter(__itt_counter counter, size_t length,
                                                               __itt_context_metadata* metadata) {
  CallScope call;
  if (!call.ok()) return;
  if (counter == nullptr || (metadata == nullptr && length != 0)) {
    return CountInvalidCall(call.thread());
  }
  uint32_t counter_id;
  if (!RecordedCounter(counter, &counter_id)) return;
  const uint64_t now = ReadTicks();
  for (size_t i = 0; i < length; ++i) {
    const __itt_context_metadata& m = metadata[i];
    const uint64_t type = EnumBits(m.type);
    const bool is_text = IsTextContext(type);
    uint64_t value = 0;
    RawBytes text{"", 0};
    if (is_text) {
      text = StringField(static_cast<const char*>(m.value), -1);
    } else if (m.value != nullptr) {
      std::memcpy(&value, m.value, sizeof(value));
    }
    Emit(call.thread(), EventKind::kCounterBindContextMetadata, now, counter_id, type, value, text);
  }
}

ITTC_EXPORT void ITTAPI __itt_histogram_submit(__itt_histogram* hist, size_t length, void* x_data,
                                               void* y_data) {
  CallScope call;
  if (!call.ok()) return;
  uint64_t now = ReadTicks();
  if (hist == nullptr || y_data == nullptr) return CountInvalidCall(call.thread());
  int x_size = ittc::format::MetadataTypeSize(EnumBits(hist->x_type));
  int y_size = ittc::format::MetadataTypeSize(EnumBits(hist->y_type));
  // x may be omitted (the index is the x value); y is required.
  if (y_size <= 0 || length > (size_t{1} << 32) || (x_data != nullptr && x_size <= 0)) {
    return CountInvalidCall(call.thread());
  }
  RawBytes x{"", 0};
  if (x_data != nullptr) x = RawBytes{x_data, length * static_cast<size_t>(x_size)};
  RawBytes y{y_data, length * static_cast<size_t>(y_size)};
  const uint32_t id = HistogramId(hist);
  if (FilteredOut(hist)) return;
  // A histogram too large for the ring is counted as too large by Emit.
  Emit(call.thread(), EventKind::kHistogramSubmit, now, uint64_t{id}, static_cast<uint64_t>(length),
       x, y);
}
