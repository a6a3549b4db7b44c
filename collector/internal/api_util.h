// Helpers shared by the exported ITT/JIT entry points.

#ifndef COLLECTOR_INTERNAL_API_UTIL_H_
#define COLLECTOR_INTERNAL_API_UTIL_H_

#include <cstring>
#include <string>
#include <string_view>

#include "collector/internal/itt_types.h"
#include "collector/internal/raw_record.h"
#include "collector/internal/registry.h"
#include "collector/internal/thread_state.h"
#include "collector/internal/timebase.h"

// Entry points are the only symbols the collector exports.
#define ITTC_EXPORT extern "C" __attribute__((visibility("default")))

namespace ittc::collector_internal {

inline RawId ToRaw(const __itt_id& id) { return RawId{id.d1, id.d2, id.d3}; }

inline RawId ToRawPtr(const __itt_id* id) { return id != nullptr ? ToRaw(*id) : RawId{0, 0, 0}; }

// The `write(kind, fields...)` that raw_record.h's record choosers
// (WriteTaskBegin, WriteRelation, ...) call: emits into t's ring at `now`
// and says whether the record was kept. Always inline, as Emit: a call
// with the fields by reference made the hot path spill them.
inline auto RingWriter(ThreadState* t, uint64_t now) {
  return [ t, now ](format::EventKind kind, const auto&... fields) __attribute__((always_inline)) {
    return Emit(t, kind, now, fields...);
  };
}

// Whether a counter context metadata item of `type` holds text (its value
// points to a string) rather than a number.
inline bool IsTextContext(uint64_t type) {
  return type == __itt_context_nameA || type == __itt_context_deviceA ||
         type == __itt_context_unitsA || type == __itt_context_pci_addrA;
}

// Marker that ends a string cut to kMaxRawBytesField bytes.
inline constexpr char kTruncatedMark[] = "...[truncated]";

// A string field of at most kMaxRawBytesField bytes. A longer string is cut
// and ends in kTruncatedMark, the field's tail: nothing is copied here, so
// entry points keep no scratch buffer on their stack (three of 4 KiB made
// a JIT method load's frame cost more than its work).
// `length` < 0 means NUL-terminated. A given length is an upper bound: the
// text also ends at a NUL, so a wrong, huge length never reads past the end
// of a terminated string (text fields hold no NULs).
inline RawBytes StringField(const char* s, long length) {
  if (s == nullptr) return RawBytes{"", 0};
  size_t limit = kMaxRawBytesField + 1;
  if (length >= 0 && static_cast<size_t>(length) < limit) limit = static_cast<size_t>(length);
  size_t n = strnlen(s, limit);
  if (n <= kMaxRawBytesField) return RawBytes{s, n};
  constexpr size_t kMark = sizeof(kTruncatedMark) - 1;
  return RawBytes{s, kMaxRawBytesField - kMark, kTruncatedMark, kMark};
}

// Whether StringField(s, -1) is empty, without measuring s.
inline bool EmptyString(const char* s) { return s == nullptr || *s == '\0'; }

// The text of a StringField (its tail appended): the registry's copy.
inline std::string StringFieldText(const RawBytes& b) {
  std::string text(static_cast<const char*>(b.data), b.size);
  text.append(b.tail, b.tail_size);
  return text;
}

// The integer a caller stored in an enum-typed field. C code may store any
// int in an enum, but a C++ load of a value outside the enum's range is
// undefined, so the field is read as the int it is.
template <typename Enum>
inline uint64_t EnumBits(const Enum& e) {
  static_assert(sizeof(Enum) == sizeof(int), "C enums are int-sized");
  int v;
  std::memcpy(&v, &e, sizeof(v));
  return static_cast<uint64_t>(static_cast<int64_t>(v));
}

// Converts a timestamp of user clock domain `cd` to trace ticks. A null
// clock domain means the timestamp already is in ticks (__itt_get_timestamp).
inline uint64_t UserTimeToTicks(const __itt_clock_domain* cd, unsigned long long ts,
                                uint64_t* clock_id) {
  if (cd == nullptr) {
    *clock_id = 0;
    return ts;
  }
  const ClockParams* p = ClockParamsOf(cd);
  if (p == nullptr) {
    *clock_id = 0;
    return ts;
  }
  *clock_id = p->id;
  double delta = static_cast<double>(static_cast<int64_t>(ts - p->clock_base)) * p->ticks_per_unit;
  return p->ticks_at_base + static_cast<uint64_t>(static_cast<int64_t>(delta));
}

}  // namespace ittc::collector_internal

#endif  // COLLECTOR_INTERNAL_API_UTIL_H_
