// The layout of records in a thread's ring, written by the hot path and read
// by the flusher, which encodes them straight into events-chunk payloads
// (AppendRawRecord) or, for definitions, into format::Event values.
//
//   word 0   bits  0..8   kind (format::EventKind; 0 = ring padding): every
//                         kind a ring or the definitions hold is below 0x200
//            bits  9..15  id mask: bit i set = the i-th kId field of the
//                         kind's schema is present (non-null)
//            bits 16..31  record size in 8-byte words, this one included
//            bits 32..63  time: the record's ticks minus those of the
//                         record before it in the same ring (signed, two's
//                         complement), or kWideTicks when the difference
//                         does not fit 32 bits: then
//   [word 1  the record's ticks]
//   then the kind's fields in schema order:
//     kUint, kSint, kDouble, kTime   one word
//     kId                            three words (d1, d2, d3) if present,
//                                    nothing if null
//     kBytes                         one word of length, then the bytes,
//                                    zero-padded to a multiple of 8
//
// Times as differences keep the hot records small (a task end is two words,
// a task begin three; see kRawPackedTaskBegin, kRawTaskBeginRepeat and
// kRawTaskBeginName for smaller ones): the ring's lines are what the
// producer's core and the flusher's hand back and forth. The first record
// of a ring, and the definitions (whose ticks are 0), are measured from 0. Both ends keep the
// previous record's ticks (ThreadState::ring_ticks, flusher_ticks) and the
// task word (below); a ring that is reset resets them on both ends.
//
// Fixed-width host-order words: the ring never leaves the process, and the
// flusher re-encodes everything into the portable trace format.

#ifndef COLLECTOR_INTERNAL_RAW_RECORD_H_
#define COLLECTOR_INTERNAL_RAW_RECORD_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>

#include "collector/internal/spsc_ring.h"
#include "format/event_stream.h"
#include "format/schema.h"

namespace ittc::collector_internal {

inline constexpr size_t kRawHeaderBytes = 8;
// The time word that follows the header when kWideTicks stands in for the
// difference.
inline constexpr size_t kRawWideTicksBytes = 8;
inline constexpr int32_t kWideTicks = INT32_MIN;
inline constexpr uint16_t kRawKindLimit = 0x200;
inline constexpr size_t kRawMaxSize = kMaxRecordBytes;  // spsc_ring.h
static_assert(static_cast<uint16_t>(format::EventKind::kDefTrack) < kRawKindLimit,
              "definition kinds must fit the ring header's kind bits");

// Longest string or byte array one record carries; longer ones are cut to
// this and the record is flagged truncated. 4 KiB holds any sensible name,
// metadata string or JIT method name, and keeps one record far below the
// smallest ring's max_record().
inline constexpr size_t kMaxRawBytesField = 4096;

inline constexpr size_t RoundUp8(size_t n) { return (n + 7) & ~size_t{7}; }

// The header's size bits hold the longest record any kind can make.
static_assert(kRawHeaderBytes + kRawWideTicksBytes +
                      format::kMaxFields * (8 + RoundUp8(kMaxRawBytesField)) <=
                  kRawMaxSize,
              "the largest record must fit the header's size bits");

// Whether `ticks` can be given as a difference from `prev` in the header.
inline bool TicksFitHeader(uint64_t ticks, uint64_t prev) {
  const auto d = static_cast<int64_t>(ticks - prev);
  return d > INT32_MIN && d <= INT32_MAX;
}
inline size_t RawTimeBytes(uint64_t ticks, uint64_t prev) {
  return TicksFitHeader(ticks, prev) ? 0 : kRawWideTicksBytes;
}

// REQUIRES: size a multiple of 8, at most kRawMaxSize; kind below
// kRawKindLimit; id_mask below 0x80.
constexpr uint64_t MakeRawHeader(format::EventKind kind, uint8_t id_mask, size_t size,
                                 int32_t delta) {
  return static_cast<uint64_t>(kind) | (static_cast<uint64_t>(id_mask) << 9) |
         (static_cast<uint64_t>(size / 8) << 16) |
         (static_cast<uint64_t>(static_cast<uint32_t>(delta)) << 32);
}

inline constexpr uint32_t kRawIdMaskBits = 0x7fu << 9;
constexpr uint16_t RawKind(uint64_t header) { return static_cast<uint16_t>(header & 0x1ff); }
constexpr uint8_t RawIdMask(uint64_t header) {
  return static_cast<uint8_t>((header & kRawIdMaskBits) >> 9);
}
constexpr uint32_t RawSize(uint64_t header) {
  return static_cast<uint32_t>((header >> 16) & 0xffff) * 8;
}
constexpr int32_t RawTickDelta(uint64_t header) {
  return static_cast<int32_t>(static_cast<uint32_t>(header >> 32));
}
// Where the fields of a record with this header start.
constexpr size_t RawFieldsOffset(uint64_t header) {
  return kRawHeaderBytes + (RawTickDelta(header) == kWideTicks ? kRawWideTicksBytes : 0);
}
// One host-order word of a record at p (the header, a field, an id's part).
inline uint64_t LoadRawWord(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
// The ticks of `record`, whose predecessor in its ring had `prev`.
// REQUIRES: the record is whole (its size is readable).
inline uint64_t RawTicks(const uint8_t* record, uint64_t prev) {
  const int32_t delta = RawTickDelta(LoadRawWord(record));
  if (__builtin_expect(delta != kWideTicks, 1)) return prev + static_cast<uint64_t>(int64_t{delta});
  return LoadRawWord(record + kRawHeaderBytes);
}

// Kinds only rings hold stand for a format kind in fewer bytes; nothing in
// the format uses their values. Every one of them is this value or above
// (the flusher's checked path tells them apart by that).
inline constexpr uint16_t kRawFirstRingOnlyKind = 0x1e0;
static_assert(kRawFirstRingOnlyKind > static_cast<uint16_t>(format::EventKind::kDefTrack),
              "the ring-only kinds must stay clear of the format's kinds");

// Ring-only kinds whose one field, a reference below kHeaderBitsLimit, is
// the header's id-mask bits (the kinds they stand for have no ids, or a
// null one): a record of one word where the whole one takes two.
//   kRawFrameBeginSmall, kRawFrameEndSmall   __itt_frame_begin_v3/_end_v3
//                                            with a null id: the domain;
//   kRawCounterIncSmall, kRawCounterDecSmall __itt_counter_inc/_dec: the
//                                            counter.
// Four consecutive kinds from a multiple of 4: the flusher's inline path
// takes them with one compare once its switch of the hot kinds found no
// case (AppendRawRecord), so that those pay nothing for them. Registry ids
// count from 1 in the order a process creates its domains and counters, so
// the first 127 of each take this form (WriteFrame, WriteCounterStep).
inline constexpr uint32_t kHeaderBitsLimit = 0x80;
inline constexpr auto kRawFrameBeginSmall = static_cast<format::EventKind>(0x1e0);
inline constexpr auto kRawFrameEndSmall = static_cast<format::EventKind>(0x1e1);
inline constexpr auto kRawCounterIncSmall = static_cast<format::EventKind>(0x1e2);
inline constexpr auto kRawCounterDecSmall = static_cast<format::EventKind>(0x1e3);
static_assert(static_cast<uint16_t>(kRawFrameBeginSmall) == kRawFirstRingOnlyKind &&
                  kRawFirstRingOnlyKind % 4 == 0,
              "the header-bits kinds are one aligned group of four");
// The format kind a header-bits kind stands for.
constexpr format::EventKind HeaderBitsStandsFor(uint16_t kind) {
  constexpr format::EventKind kStands[] = {
      format::EventKind::kFrameBegin, format::EventKind::kFrameEnd, format::EventKind::kCounterInc,
      format::EventKind::kCounterDec};
  return kStands[kind & 3];
}

// A kind only rings hold: a task begin with null ids whose domain and name,
// both 32-bit registry ids, share one word (domain in the low half), so that
// the hottest begin is two words like its end. The flusher writes it to the
// trace as kTaskBegin.
inline constexpr auto kRawPackedTaskBegin = static_cast<format::EventKind>(0x1f0);
static_assert(0x1f0 < kRawKindLimit, "the packed task begin must fit the kind bits");
constexpr uint64_t PackTaskBegin(uint32_t domain, uint32_t name) {
  return uint64_t{domain} | (uint64_t{name} << 32);
}
constexpr uint32_t TaskWordDomain(uint64_t task_word) { return static_cast<uint32_t>(task_word); }
constexpr uint32_t TaskWordName(uint64_t task_word) {
  return static_cast<uint32_t>(task_word >> 32);
}

// More ring-only kinds for a thread that runs the same task over and over:
// both ends of a ring remember the word of the last packed task begin in it
// (its "task word": ThreadState::ring_task_word and flusher_task_word,
// kNoTaskWord before the first), and
//   kRawTaskBeginRepeat        is a packed task begin with that word (no
//                              fields);
//   kRawTaskEndRepeat          is a task end whose domain is that word's
//                              domain (no fields).
// The overlapped forms, for an overlapped task whose id's d3 is 0 (as
// __itt_id_make makes them) and whose parent is null, carry the id's d1 and
// d2 after the packed word:
//   kRawPackedOverlappedBegin  the packed word, d1, d2;
//   kRawOverlappedBeginRepeat  d1, d2 (the word is the task word);
//   kRawOverlappedEndRepeat    d1, d2 (the domain is the task word's).
// A loop of one task is then one word per call in the ring. The producer
// changes its task word only when a packed begin is committed, and the
// flusher when it reads one, so the two agree record by record.
inline constexpr auto kRawTaskBeginRepeat = static_cast<format::EventKind>(0x1f1);
inline constexpr auto kRawTaskEndRepeat = static_cast<format::EventKind>(0x1f2);
inline constexpr auto kRawPackedOverlappedBegin = static_cast<format::EventKind>(0x1f3);
inline constexpr auto kRawOverlappedBeginRepeat = static_cast<format::EventKind>(0x1f4);
inline constexpr auto kRawOverlappedEndRepeat = static_cast<format::EventKind>(0x1f5);
inline constexpr uint64_t kNoTaskWord = 0;
static_assert(0x1f5 < kRawKindLimit, "the ring-only task kinds must fit the kind bits");

// And for a thread whose tasks take turns in one domain (an outer task and
// its inner ones, a few names in a loop), where each begin's word differs
// from the last:
//   kRawTaskBeginName          is a packed task begin whose domain is the
//                              task word's and whose name is below
//                              kHeaderBitsLimit: the name is the header's
//                              id-mask bits (no fields; the kind has no
//                              ids). Its word becomes the task word.
// A task begin and end are then two words in the ring instead of three.
// String ids count from 1 in the order a process creates its strings, so
// the names below the limit are the first 127 it makes.
inline constexpr auto kRawTaskBeginName = static_cast<format::EventKind>(0x1f9);
static_assert(0x1f9 < kRawKindLimit, "the ring-only kinds must fit the kind bits");

// Which record a task begin with null ids whose packed word is `word` takes
// in a ring whose task word is `task_word` (WriteTaskBegin writes it).
enum class BeginForm { kRepeat, kName, kPacked };
inline BeginForm TaskBeginForm(uint64_t word, uint64_t task_word) {
  if (word == task_word) return BeginForm::kRepeat;
  if (TaskWordDomain(word) == TaskWordDomain(task_word) && TaskWordName(word) < kHeaderBitsLimit) {
    return BeginForm::kName;
  }
  return BeginForm::kPacked;
}

// A ring-only kind for a metadata add of one value (count 1) with a null
// id, as a loop that tags each of its tasks with a number makes them: the
// packed word (PackMetadataValue: domain, type, key), then one word that
// holds the value's bytes from its start, zero after them. 24 bytes where
// the whole record takes 56 (and a copy and a fill of the data). The
// flusher writes it to the trace as the kMetadataAdd it stands for, whose
// data is the type's size of bytes.
inline constexpr auto kRawMetadataValue = static_cast<format::EventKind>(0x1f6);
static_assert(0x1f6 < kRawKindLimit, "the ring-only metadata kind must fit the kind bits");
// Ring-only kinds for the _ex task calls on the default clock (a null clock
// domain, or one the collector does not know: clock id 0, and the ticks are
// the user timestamp) with null ids:
//   kRawDefaultClockBeginEx  the packed word (PackTaskBegin), the timestamp;
//   kRawDefaultClockEndEx    the domain, the timestamp.
// 24 bytes each where the whole records take 48 and 40. The flusher writes
// them as the kTaskBeginEx and kTaskEndEx they stand for. A begin's packed
// word becomes the ring's task word, as a packed task begin's does, and
// against it (WriteDefaultClockBeginEx, WriteDefaultClockEndEx):
//   kRawDefaultClockBeginExRepeat  the timestamp (the word is the task word);
//   kRawDefaultClockEndExRepeat    the timestamp (the domain is the task
//                                  word's).
// 16 bytes each.
inline constexpr auto kRawDefaultClockBeginEx = static_cast<format::EventKind>(0x1f7);
inline constexpr auto kRawDefaultClockEndEx = static_cast<format::EventKind>(0x1f8);
inline constexpr auto kRawDefaultClockBeginExRepeat = static_cast<format::EventKind>(0x1fc);
inline constexpr auto kRawDefaultClockEndExRepeat = static_cast<format::EventKind>(0x1fd);
static_assert(0x1fd < kRawKindLimit, "the ring-only kinds must fit the kind bits");

// A ring-only kind for a relation between two ids with d3 = 0 (what
// __itt_id_make gives: an address and a number):
//   kRawRelationShortIds  the domain and relation in one word
//                         (PackRelation), the head's d1 and d2, the
//                         tail's d1 and d2.
// 48 bytes where the whole record takes 72. The flusher writes it as the
// kRelationAdd it stands for.
inline constexpr auto kRawRelationShortIds = static_cast<format::EventKind>(0x1fa);
static_assert(0x1fa < kRawKindLimit, "the ring-only kinds must fit the kind bits");
constexpr uint64_t PackRelation(uint32_t domain, uint32_t relation) {
  return uint64_t{domain} | (uint64_t{relation} << 32);
}

// A ring-only kind for a JIT method load that names no class or source
// file and has no line table (what a JIT that reports only its code's
// names and addresses sends):
//   kRawJitMethodLoadName  the method id, its name (a bytes field), the
//                          load address, the size.
// The whole record's fields in their order without the three empty bytes
// fields that end it: 24 bytes fewer. The flusher writes it as the
// kJitMethodLoad it stands for.
inline constexpr auto kRawJitMethodLoadName = static_cast<format::EventKind>(0x1fb);
static_assert(0x1fb < kRawKindLimit, "the ring-only kinds must fit the kind bits");

// A ring-only kind for __itt_marker with a null id, as a loop that marks
// each of its steps makes them: one word, the domain, scope and name
// packed as a metadata value's domain, type and key are
// (PackDomainByteString). 16 bytes where the whole record takes 32. The
// flusher writes it to the trace as the kMarker it stands for.
inline constexpr auto kRawMarkerPacked = static_cast<format::EventKind>(0x1fe);

// Every ring-only kind: each in [kRawFirstRingOnlyKind, kRawKindLimit), no
// two alike.
inline constexpr format::EventKind kRingOnlyKinds[] = {kRawFrameBeginSmall,
                                                       kRawFrameEndSmall,
                                                       kRawCounterIncSmall,
                                                       kRawCounterDecSmall,
                                                       kRawPackedTaskBegin,
                                                       kRawTaskBeginRepeat,
                                                       kRawTaskEndRepeat,
                                                       kRawPackedOverlappedBegin,
                                                       kRawOverlappedBeginRepeat,
                                                       kRawOverlappedEndRepeat,
                                                       kRawMetadataValue,
                                                       kRawDefaultClockBeginEx,
                                                       kRawDefaultClockEndEx,
                                                       kRawTaskBeginName,
                                                       kRawRelationShortIds,
                                                       kRawJitMethodLoadName,
                                                       kRawDefaultClockBeginExRepeat,
                                                       kRawDefaultClockEndExRepeat,
                                                       kRawMarkerPacked};
constexpr bool RingOnlyKindsValid() {
  for (size_t i = 0; i < std::size(kRingOnlyKinds); ++i) {
    const auto k = static_cast<uint16_t>(kRingOnlyKinds[i]);
    if (k < kRawFirstRingOnlyKind || k >= kRawKindLimit) return false;
    for (size_t j = 0; j < i; ++j) {
      if (kRingOnlyKinds[j] == kRingOnlyKinds[i]) return false;
    }
  }
  return true;
}
static_assert(RingOnlyKindsValid(), "a ring-only kind out of range or used twice");
// The header-bits kinds stand for, in the group's order, what their
// choosers (WriteFrame, WriteCounterStep) and the flusher's inline path
// take them for.
static_assert(HeaderBitsStandsFor(static_cast<uint16_t>(kRawFrameBeginSmall)) ==
                      format::EventKind::kFrameBegin &&
                  HeaderBitsStandsFor(static_cast<uint16_t>(kRawFrameEndSmall)) ==
                      format::EventKind::kFrameEnd &&
                  HeaderBitsStandsFor(static_cast<uint16_t>(kRawCounterIncSmall)) ==
                      format::EventKind::kCounterInc &&
                  HeaderBitsStandsFor(static_cast<uint16_t>(kRawCounterDecSmall)) ==
                      format::EventKind::kCounterDec,
              "the header-bits group: two frame kinds, then two counter kinds");

// The word of a metadata value (kRawMetadataValue) and of a marker
// (kRawMarkerPacked): a domain in the low 24 bits, a byte (the type, the
// scope) above it, a 32-bit string id (the key, the name) in the high half.
// The largest domain id it holds (a larger one takes the whole record):
inline constexpr uint32_t kMaxPackedDomain = (1u << 24) - 1;
// REQUIRES: domain <= kMaxPackedDomain.
constexpr uint64_t PackDomainByteString(uint32_t domain, uint8_t byte, uint32_t string) {
  return uint64_t{domain} | (uint64_t{byte} << 24) | (uint64_t{string} << 32);
}
constexpr uint32_t PackedDomain(uint64_t word) {
  return static_cast<uint32_t>(word) & kMaxPackedDomain;
}
constexpr uint8_t PackedByte(uint64_t word) { return static_cast<uint8_t>(word >> 24); }
constexpr uint32_t PackedString(uint64_t word) { return static_cast<uint32_t>(word >> 32); }
inline uint64_t PackMetadataValue(uint32_t domain, uint8_t type, uint32_t key) {
  return PackDomainByteString(domain, type, key);
}
// The task word a kRawTaskBeginName record with this header makes of the
// one before it.
constexpr uint64_t NamedTaskWord(uint64_t header, uint64_t task_word) {
  return PackTaskBegin(TaskWordDomain(task_word), RawIdMask(header));
}

// The ring's padding word (spsc_ring.h) is a header of this layout.
static_assert(RawKind(PaddingHeader(4096)) == kPaddingKind && RawSize(PaddingHeader(4096)) == 4096,
              "the ring's padding must read as a padding record");

// Argument wrappers for the emitter: a plain uint64_t is a one-word field.
struct RawId {
  uint64_t d1, d2, d3;
  bool present() const { return (d1 | d2 | d3) != 0; }
};
struct RawBytes {
  const void* data;
  size_t size;  // bytes at data, already capped by the caller
  // Bytes the field holds after those (a cut string's mark), or none.
  const char* tail = nullptr;
  size_t tail_size = 0;
};

inline size_t RawFieldSize(uint64_t) { return 8; }
inline size_t RawFieldSize(const RawId& id) { return id.present() ? 24 : 0; }
inline size_t RawFieldSize(const RawBytes& b) { return 8 + RoundUp8(b.size + b.tail_size); }

inline uint8_t* PutRaw(uint8_t* p, uint64_t v) {
  std::memcpy(p, &v, 8);
  return p + 8;
}
inline uint8_t* PutRaw(uint8_t* p, const RawId& id) {
  if (!id.present()) return p;
  std::memcpy(p, &id.d1, 8);
  std::memcpy(p + 8, &id.d2, 8);
  std::memcpy(p + 16, &id.d3, 8);
  return p + 24;
}
inline uint8_t* PutRaw(uint8_t* p, const RawBytes& b) {
  uint64_t n = b.size + b.tail_size;
  std::memcpy(p, &n, 8);
  size_t padded = RoundUp8(n);
  // The padding is zero: the last word is zeroed first, and the bytes
  // copied over its start (one store where a memset call was).
  if (padded != 0) std::memset(p + padded, 0, 8);
  if (b.size != 0) std::memcpy(p + 8, b.data, b.size);
  if (b.tail_size != 0) std::memcpy(p + 8 + b.size, b.tail, b.tail_size);
  return p + 8 + padded;
}

// An emitter argument that is no field but bits of the header's id mask
// (kRawTaskBeginName's name). REQUIRES: bits below 0x80.
struct RawHeaderBits {
  uint8_t bits;
};
inline size_t RawFieldSize(const RawHeaderBits&) { return 0; }
inline uint8_t* PutRaw(uint8_t* p, const RawHeaderBits&) { return p; }

// Id-mask bit contributed by one argument: ids count in order, others not.
inline void AddIdBit(const RawHeaderBits& b, uint8_t* mask, int*) { *mask |= b.bits; }
inline void AddIdBit(uint64_t, uint8_t*, int*) {}
inline void AddIdBit(const RawBytes&, uint8_t*, int*) {}
inline void AddIdBit(const RawId& id, uint8_t* mask, int* index) {
  if (id.present()) *mask |= static_cast<uint8_t>(1u << *index);
  ++*index;
}

// A task begin with null ids whose packed word is `word`, in the ring whose
// task word is *task_word: `write(kind, fields...)` appends the record of
// the form TaskBeginForm chooses and returns whether it was kept; the word
// of a kept named or packed begin becomes the task word. The hot path and
// the tests' and benchmarks' ring writers all go through here.
template <typename Write>
inline void WriteTaskBegin(uint64_t word, uint64_t* task_word, Write&& write) {
  switch (TaskBeginForm(word, *task_word)) {
    case BeginForm::kRepeat:
      write(kRawTaskBeginRepeat);
      return;
    case BeginForm::kName:
      if (write(kRawTaskBeginName, RawHeaderBits{static_cast<uint8_t>(TaskWordName(word))})) {
        *task_word = word;
      }
      return;
    case BeginForm::kPacked:
      if (write(kRawPackedTaskBegin, word)) *task_word = word;
      return;
  }
}

// __itt_task_begin_ex on the default clock with null ids, whose packed word
// is `word` and user timestamp `ts`, in the ring whose task word is
// *task_word: `write(kind, fields...)` appends the repeat when the word is
// the task word, else the packed record, whose word then becomes the task
// word if it was kept. The hot path and the benchmarks' ring writers go
// through here, and __itt_task_end_ex through WriteDefaultClockEndEx.
template <typename Write>
inline void WriteDefaultClockBeginEx(uint64_t word, uint64_t ts, uint64_t* task_word,
                                     Write&& write) {
  if (word == *task_word) {
    write(kRawDefaultClockBeginExRepeat, ts);
  } else if (write(kRawDefaultClockBeginEx, word, ts)) {
    *task_word = word;
  }
}
template <typename Write>
inline void WriteDefaultClockEndEx(uint32_t domain, uint64_t ts, uint64_t task_word,
                                   Write&& write) {
  if (domain == TaskWordDomain(task_word)) {
    write(kRawDefaultClockEndExRepeat, ts);
  } else {
    write(kRawDefaultClockEndEx, uint64_t{domain}, ts);
  }
}

// A JIT method load's name-only record (kRawJitMethodLoadName), the first
// form of WriteJitMethodLoad, for a caller that knows the class file,
// source file and line table empty without making them.
template <typename Write>
inline void WriteJitMethodLoadName(uint64_t method_id, const RawBytes& name, uint64_t address,
                                   uint64_t size, Write&& write) {
  write(kRawJitMethodLoadName, method_id, name, address, size);
}

// iJIT_NotifyEvent(METHOD_LOAD_FINISHED)'s fields as `write(kind,
// fields...)` appends them: with no class file, source file or line table
// as kRawJitMethodLoadName, else the whole kJitMethodLoad. The hot path and
// the benchmarks' ring writers go through here.
template <typename Write>
inline void WriteJitMethodLoad(uint64_t method_id, const RawBytes& name, uint64_t address,
                               uint64_t size, const RawBytes& class_file,
                               const RawBytes& source_file, const RawBytes& lines, Write&& write) {
  if (class_file.size + class_file.tail_size + source_file.size + source_file.tail_size +
          lines.size + lines.tail_size ==
      0) {
    WriteJitMethodLoadName(method_id, name, address, size, write);
  } else {
    write(format::EventKind::kJitMethodLoad, method_id, name, address, size, class_file,
          source_file, lines);
  }
}

// __itt_relation_add(domain, head, relation, tail) as `write(kind,
// fields...)` appends it: short ids (both present with d3 = 0, a relation
// that fits 32 bits) as kRawRelationShortIds, else the whole kRelationAdd.
// The hot path and the benchmarks' ring writers go through here.
template <typename Write>
inline void WriteRelation(uint32_t domain, const RawId& head, uint64_t relation, const RawId& tail,
                          Write&& write) {
  if (head.d3 == 0 && tail.d3 == 0 && (head.d1 | head.d2) != 0 && (tail.d1 | tail.d2) != 0 &&
      (relation >> 32) == 0) {
    write(kRawRelationShortIds, PackRelation(domain, static_cast<uint32_t>(relation)), head.d1,
          head.d2, tail.d1, tail.d2);
  } else {
    write(format::EventKind::kRelationAdd, uint64_t{domain}, head, relation, tail);
  }
}

// __itt_marker's fields as `write(kind, fields...)` appends them: with a
// null id, a domain up to kMaxPackedDomain and a scope below 256 as
// kRawMarkerPacked, else the whole kMarker. The hot path and the
// benchmarks' ring writers go through here.
template <typename Write>
inline void WriteMarker(uint32_t domain, const RawId& id, uint32_t name, uint64_t scope,
                        Write&& write) {
  if (!id.present() && domain <= kMaxPackedDomain && scope < 256) {
    write(kRawMarkerPacked, PackDomainByteString(domain, static_cast<uint8_t>(scope), name));
  } else {
    write(format::EventKind::kMarker, uint64_t{domain}, id, uint64_t{name}, scope);
  }
}

// __itt_frame_begin_v3 or _end_v3 (`kind` kFrameBegin or kFrameEnd) as
// `write(kind, fields...)` appends it: with a null id and a domain below
// kHeaderBitsLimit in the header-bits form, else the whole record. The hot
// path and the benchmarks' ring writers go through here.
template <typename Write>
inline void WriteFrame(format::EventKind kind, uint32_t domain, const RawId& id, Write&& write) {
  if (!id.present() && domain < kHeaderBitsLimit) {
    write(kind == format::EventKind::kFrameBegin ? kRawFrameBeginSmall : kRawFrameEndSmall,
          RawHeaderBits{static_cast<uint8_t>(domain)});
  } else {
    write(kind, uint64_t{domain}, id);
  }
}
// __itt_counter_inc or _dec (`kind` kCounterInc or kCounterDec) the same
// way: with a counter below kHeaderBitsLimit in the header-bits form.
template <typename Write>
inline void WriteCounterStep(format::EventKind kind, uint32_t counter, Write&& write) {
  if (counter < kHeaderBitsLimit) {
    write(kind == format::EventKind::kCounterInc ? kRawCounterIncSmall : kRawCounterDecSmall,
          RawHeaderBits{static_cast<uint8_t>(counter)});
  } else {
    write(kind, uint64_t{counter});
  }
}

// Size of a record of these fields at `ticks`, after one at `prev`.
template <typename... Args>
inline size_t RawRecordSize(uint64_t ticks, uint64_t prev, const Args&... args) {
  return kRawHeaderBytes + RawTimeBytes(ticks, prev) + (size_t{0} + ... + RawFieldSize(args));
}

// Writes a whole record of `size` bytes (RawRecordSize of the same ticks,
// prev and args) at p. Always inline: the hot path's (Emit) body.
template <typename... Args>
__attribute__((always_inline)) inline void WriteRawRecord(uint8_t* p, size_t size,
                                                          format::EventKind kind, uint64_t ticks,
                                                          uint64_t prev, const Args&... args) {
  uint8_t id_mask = 0;
  int id_index = 0;
  (AddIdBit(args, &id_mask, &id_index), ...);
  if (__builtin_expect(TicksFitHeader(ticks, prev), 1)) {
    p = PutRaw(p, MakeRawHeader(kind, id_mask, size, static_cast<int32_t>(ticks - prev)));
  } else {
    p = PutRaw(p, MakeRawHeader(kind, id_mask, size, kWideTicks));
    p = PutRaw(p, ticks);
  }
  ((p = PutRaw(p, args)), ...);
}

// The id of an overlapped compact form: d1 and d2 at p, d3 = 0.
inline format::Id LoadShortId(const uint8_t* p) {
  return format::Id{LoadRawWord(p), LoadRawWord(p + 8), 0};
}

// A present id's three words at p.
inline format::Id LoadRawId(const uint8_t* p) {
  return format::Id{LoadRawWord(p), LoadRawWord(p + 8), LoadRawWord(p + 16)};
}

// Reads the fields of one whole raw record in schema order: the field
// source (format/event_stream.h) the encoder pulls from. Every read is
// bounded by the record's size; a record that does not match its kind's
// schema leaves ok() false.
class RawFieldSource {
 public:
  explicit RawFieldSource(const uint8_t* record) {
    const uint64_t header = LoadRawWord(record);
    p_ = record + RawFieldsOffset(header);
    end_ = record + RawSize(header);
    id_mask_ = RawIdMask(header);
  }
  uint64_t Word() {
    if (__builtin_expect(end_ - p_ < 8, 0)) return Bad();
    const uint64_t v = LoadRawWord(p_);
    p_ += 8;
    return v;
  }
  format::Id NextId() {
    format::Id id;
    const bool present = (id_mask_ & 1) != 0;
    id_mask_ >>= 1;
    if (!present) return id;
    if (__builtin_expect(end_ - p_ < 24, 0)) {
      Bad();
      return id;
    }
    id = LoadRawId(p_);
    p_ += 24;
    return id;
  }
  // Every bytes field is zero-padded to 8 bytes inside the record
  // (NextBytes checks), which bounds the rounded sizes (format::kPadsBytes).
  static constexpr bool kPadsBytes = true;
  std::string_view NextBytes() {
    const uint64_t n = Word();
    const auto room = static_cast<uint64_t>(end_ - p_);
    if (__builtin_expect(n > room || RoundUp8(n) > room, 0)) {
      Bad();
      return {};
    }
    std::string_view b(reinterpret_cast<const char*>(p_), static_cast<size_t>(n));
    p_ += RoundUp8(static_cast<size_t>(n));
    return b;
  }
  // True if every read stayed inside the record, the fields filled it and
  // its header marked no id the kind does not have.
  bool ok() const { return !bad_ && p_ == end_ && id_mask_ == 0; }

 private:
  // A read past the record: it and the rest return nothing.
  uint64_t Bad() {
    bad_ = true;
    p_ = end_;
    return 0;
  }

  const uint8_t* p_;
  const uint8_t* end_;
  uint8_t id_mask_;
  bool bad_ = false;
};

// The fields of a record whose size was found to match the layout its
// header gives (kind, id mask, time form): no bounds checks; ids by the
// mask. With a mask of 0 (the plain path below) the id reads fold away.
class LaidOutFieldSource {
 public:
  LaidOutFieldSource(const uint8_t* fields, uint8_t id_mask) : p_(fields), id_mask_(id_mask) {}
  uint64_t Word() {
    const uint64_t v = LoadRawWord(p_);
    p_ += 8;
    return v;
  }
  format::Id NextId() {
    const bool present = (id_mask_ & 1) != 0;
    id_mask_ >>= 1;
    if (!present) return format::Id{};
    const format::Id id = LoadRawId(p_);
    p_ += 24;
    return id;
  }
  std::string_view NextBytes() { return {}; }  // never asked: kinds with bytes are not laid out
  bool ok() const { return true; }

 private:
  const uint8_t* p_;
  uint8_t id_mask_;
};

// What a ring-only record's field source gives for the fields its record
// does not hold: null ids and no bytes; nothing it reads can fail.
struct NullIdsSource {
  format::Id NextId() { return format::Id{}; }
  std::string_view NextBytes() { return {}; }
  bool ok() const { return true; }
};

// The fields of the task begin or end a ring-only task record stands for,
// in its kind's order: from the task word the domain (and for a begin the
// name), null ids.
class RingTaskSource : public NullIdsSource {
 public:
  explicit RingTaskSource(uint64_t task_word) : word_(task_word) {}
  uint64_t Word() { return next_++ == 0 ? TaskWordDomain(word_) : TaskWordName(word_); }

 private:
  uint64_t word_;
  int next_ = 0;
};

// The same for the overlapped forms, whose first id is `id` (a type of its
// own, so that the flusher's inline code for task begins stays apart).
class RingOverlappedSource {
 public:
  RingOverlappedSource(uint64_t task_word, format::Id id) : task_(task_word), id_(id) {}
  uint64_t Word() { return task_.Word(); }
  format::Id NextId() {
    const format::Id id = id_;
    id_ = format::Id{};
    return id;
  }
  std::string_view NextBytes() { return {}; }
  bool ok() const { return true; }

 private:
  RingTaskSource task_;
  format::Id id_;
};

// The uint fields of a packed word (PackDomainByteString) in the order the
// kinds of kRawMetadataValue and kRawMarkerPacked list them: domain, the
// string id (key, name), the byte (type, scope); then `after` for each
// further read.
class PackedWordFields {
 public:
  explicit PackedWordFields(uint64_t word) : word_(word) {}
  uint64_t Next(uint64_t after) {
    switch (next_++) {
      case 0:
        return PackedDomain(word_);
      case 1:
        return PackedString(word_);
      case 2:
        return PackedByte(word_);
      default:
        return after;
    }
  }
  uint64_t word() const { return word_; }

 private:
  uint64_t word_;
  int next_ = 0;
};

// The fields of the kMetadataAdd a kRawMetadataValue record stands for, in
// its kind's order (domain, null id, key, type, count 1, data), from the
// record's fields at `fields`. Not ok() if the type has no size.
class RingMetadataSource {
 public:
  explicit RingMetadataSource(const uint8_t* fields)
      : fields_(fields), packed_(LoadRawWord(fields)) {}
  uint64_t Word() { return packed_.Next(1); }  // then the count
  format::Id NextId() { return format::Id{}; }
  // The value's word holds any type's bytes (format::kPadsBytes).
  static constexpr bool kPadsBytes = true;
  std::string_view NextBytes() {
    const int size = format::MetadataTypeSize(PackedByte(packed_.word()));
    ok_ = size > 0;
    return {reinterpret_cast<const char*>(fields_ + 8), static_cast<size_t>(size)};
  }
  bool ok() const { return ok_; }

 private:
  const uint8_t* fields_;
  PackedWordFields packed_;
  bool ok_ = false;
};

// The fields of the kind a header-bits record (kRawFrameBeginSmall...)
// stands for, from its header: the reference, and for a frame a null id.
class HeaderBitsSource : public NullIdsSource {
 public:
  explicit HeaderBitsSource(uint64_t header) : value_(RawIdMask(header)) {}
  uint64_t Word() { return value_; }

 private:
  uint64_t value_;
};

// The fields of the kMarker a kRawMarkerPacked record stands for, in its
// kind's order (domain, null id, name, scope), from the record's word.
class RingMarkerSource : public NullIdsSource {
 public:
  explicit RingMarkerSource(uint64_t word) : packed_(word) {}
  uint64_t Word() { return packed_.Next(0); }

 private:
  PackedWordFields packed_;
};

// The fields of the kTaskBeginEx or kTaskEndEx a kRawDefaultClockBeginEx or
// kRawDefaultClockEndEx record stands for, from its fields at `f`, in the
// kind's order: domain, clock domain 0, user timestamp, timestamp (the
// same), and for a begin its name. An end's domain word reads as a packed
// word with no name. Each read counted, as RingTaskSource does: the
// straight-line encoder then keeps everything in registers.
class DefaultClockExSource : public NullIdsSource {
 public:
  explicit DefaultClockExSource(const uint8_t* f)
      : word_(LoadRawWord(f)), ts_(LoadRawWord(f + 8)) {}
  // A repeat's: the task word and the timestamp.
  DefaultClockExSource(uint64_t word, uint64_t ts) : word_(word), ts_(ts) {}
  uint64_t Word() {
    switch (next_++) {
      case 0:
        return TaskWordDomain(word_);
      case 1:
        return 0;
      case 2:
      case 3:
        return ts_;
      default:
        return TaskWordName(word_);
    }
  }

 private:
  uint64_t word_, ts_;
  int next_ = 0;
};

// The fields of the kRelationAdd a kRawRelationShortIds record stands for,
// from its fields at `f`, in the kind's order: domain, head, relation, tail.
class RingRelationSource {
 public:
  explicit RingRelationSource(const uint8_t* f) : f_(f) {}
  uint64_t Word() {
    const uint64_t word = LoadRawWord(f_);
    return next_word_++ == 0 ? static_cast<uint32_t>(word) : word >> 32;
  }
  format::Id NextId() {
    const format::Id id = LoadShortId(f_ + 8 + 16 * next_id_);
    ++next_id_;
    return id;
  }
  std::string_view NextBytes() { return {}; }
  bool ok() const { return true; }

 private:
  const uint8_t* f_;
  int next_word_ = 0, next_id_ = 0;
};

// The fields of the kJitMethodLoad a kRawJitMethodLoadName record stands
// for, in the kind's order: its own four, then the three empty bytes
// fields. The record is checked once against the layout its name's length
// gives (method id, the length word and the padded name, address, size;
// no id bits); then each field is read with no check. A record that does
// not match reads zeros and is not ok().
class RingJitLoadSource {
 public:
  explicit RingJitLoadSource(const uint8_t* record) {
    const uint64_t header = LoadRawWord(record);
    const size_t offset = RawFieldsOffset(header), size = RawSize(header);
    if (RawIdMask(header) != 0 || size < offset + kFixedBytes) return;
    const uint64_t n = LoadRawWord(record + offset + 8);
    if (n > size || size - offset - kFixedBytes != RoundUp8(static_cast<size_t>(n))) return;
    p_ = record + offset;
    name_size_ = static_cast<size_t>(n);
    ok_ = true;
  }
  uint64_t Word() {
    const uint64_t v = LoadRawWord(p_);
    p_ += 8;
    return v;
  }
  format::Id NextId() { return format::Id{}; }  // never asked: the kind has no ids
  static constexpr bool kPadsBytes = true;
  std::string_view NextBytes() {
    if (bytes_++ != 0) return {};
    std::string_view name(reinterpret_cast<const char*>(p_ + 8), name_size_);
    p_ += 8 + RoundUp8(name_size_);
    return name;
  }
  bool ok() const { return ok_; }

 private:
  // The record's words besides the name's bytes: method id, the name's
  // length, address, size.
  static constexpr size_t kFixedBytes = 32;
  // What a record that does not match reads: a zero for each of them.
  static constexpr uint8_t kZeros[kFixedBytes] = {};
  const uint8_t* p_ = kZeros;
  size_t name_size_ = 0;
  int bytes_ = 0;
  bool ok_ = false;
};

// The low half of the header of a record of `kind` with `words` one-word
// fields, no ids and its time in the header: kind, id mask and size in one
// compare (the size tells a time word apart).
constexpr uint32_t PlainHeader(format::EventKind kind, size_t words) {
  return static_cast<uint32_t>(MakeRawHeader(kind, 0, kRawHeaderBytes + 8 * words, 0));
}

// AppendRawRecord for every record: a ring-only record as the kind it
// stands for; a JIT method load, or a kind with a straight-line field list,
// by that list (with no bytes fields, by the layout its header gives once
// the size matches it; else every read checked against the record's size);
// any other by its schema, every read checked. Out of line.
bool AppendRawRecordChecked(const uint8_t* record, uint64_t ticks, uint64_t* task_word,
                            format::EventStreamEncoder* encoder);
// AppendRawRecordChecked for a kRawJitMethodLoadName record. Out of line.
bool AppendJitMethodLoadName(const uint8_t* record, uint64_t ticks,
                             format::EventStreamEncoder* encoder);

// Encodes one whole raw record, whose ticks are `ticks` (RawTicks), straight
// into `encoder`'s payload; *task_word is the ring's task word, which a
// packed task begin sets. Returns false (nothing appended) if the record
// does not match its kind's schema, a collector bug the flusher counts.
// kBytes fields are copied. Always inline: the flusher's loop runs it for
// every event, and the hot kinds' paths are a few instructions.
__attribute__((always_inline)) inline bool AppendRawRecord(const uint8_t* record, uint64_t ticks,
                                                           uint64_t* task_word,
                                                           format::EventStreamEncoder* encoder) {
  const uint64_t header = LoadRawWord(record);
  // What tight loops emit most, with null ids: straight-line code whose
  // field types are the kind's list in format::internal::WithFixedFields.
  using format::EventKind;
  constexpr format::FieldType U = format::FieldType::kUint, I = format::FieldType::kId,
                              T = format::FieldType::kTime, B = format::FieldType::kBytes;
  LaidOutFieldSource plain(record + kRawHeaderBytes, 0);
  uint32_t shape = static_cast<uint32_t>(header);
  // The end of a task loop's task, half of its records: first, before the
  // switch's compares.
  if (shape == PlainHeader(kRawTaskEndRepeat, 0)) {
    RingTaskSource source(*task_word);
    return encoder->AppendFixed<U>(EventKind::kTaskEnd, ticks, 0, source);
  }
  if ((shape & ~kRawIdMaskBits) == PlainHeader(kRawTaskBeginName, 0)) {
    // A begin repeat once the name is in the task word.
    *task_word = NamedTaskWord(header, *task_word);
    shape = PlainHeader(kRawTaskBeginRepeat, 0);
  }
  // One body for the sync calls, the four consecutive kinds in one
  // compare before the switch's: a lock loop takes turns among three of
  // them, and with a jump target each (a period of three) the jump
  // mispredicted often enough to cost a third of their encoding.
  static_assert(
      static_cast<int>(EventKind::kSyncCancel) == static_cast<int>(EventKind::kSyncPrepare) + 1 &&
          static_cast<int>(EventKind::kSyncAcquired) ==
              static_cast<int>(EventKind::kSyncPrepare) + 2 &&
          static_cast<int>(EventKind::kSyncReleasing) ==
              static_cast<int>(EventKind::kSyncPrepare) + 3,
      "the sync kinds are four consecutive values");
  if (shape - PlainHeader(EventKind::kSyncPrepare, 1) <=
      PlainHeader(EventKind::kSyncReleasing, 1) - PlainHeader(EventKind::kSyncPrepare, 1)) {
    return encoder->AppendFixedCounting<1u << 0, U>(static_cast<EventKind>(RawKind(header)), ticks,
                                                    0, plain);
  }
  switch (shape) {
    case PlainHeader(EventKind::kTaskEnd, 1):
      return encoder->AppendFixed<U>(EventKind::kTaskEnd, ticks, 0, plain);
    case PlainHeader(kRawPackedTaskBegin, 1):
      *task_word = LoadRawWord(record + kRawHeaderBytes);
      [[fallthrough]];  // one copy of the begin's code, which then stays inline
    case PlainHeader(kRawTaskBeginRepeat, 0): {
      RingTaskSource source(*task_word);
      return encoder->AppendFixed<U, I, I, U>(EventKind::kTaskBegin, ticks, 0, source);
    }
    case PlainHeader(kRawPackedOverlappedBegin, 3):
      *task_word = LoadRawWord(record + kRawHeaderBytes);
      record += 8;  // then as the repeat: the id is next
      [[fallthrough]];
    case PlainHeader(kRawOverlappedBeginRepeat, 2): {
      RingOverlappedSource source(*task_word, LoadShortId(record + kRawHeaderBytes));
      return encoder->AppendFixed<U, I, I, U>(EventKind::kTaskBeginOverlapped, ticks, 0, source);
    }
    case PlainHeader(kRawOverlappedEndRepeat, 2): {
      RingOverlappedSource source(*task_word, LoadShortId(record + kRawHeaderBytes));
      return encoder->AppendFixed<U, I>(EventKind::kTaskEndOverlapped, ticks, 0, source);
    }
    case PlainHeader(kRawMetadataValue, 2): {
      RingMetadataSource source(record + kRawHeaderBytes);
      return encoder->AppendFixed<U, I, U, U, U, B>(EventKind::kMetadataAdd, ticks, 8, source);
    }
    case PlainHeader(kRawDefaultClockBeginEx, 2): {
      DefaultClockExSource source(record + kRawHeaderBytes);
      *task_word = LoadRawWord(record + kRawHeaderBytes);
      return encoder->AppendFixedCounting<1u << 2, U, U, U, T, I, I, U>(EventKind::kTaskBeginEx,
                                                                        ticks, 0, source);
    }
    case PlainHeader(kRawDefaultClockBeginExRepeat, 1): {
      DefaultClockExSource source(*task_word, LoadRawWord(record + kRawHeaderBytes));
      return encoder->AppendFixedCounting<1u << 2, U, U, U, T, I, I, U>(EventKind::kTaskBeginEx,
                                                                        ticks, 0, source);
    }
    case PlainHeader(kRawDefaultClockEndExRepeat, 1): {
      DefaultClockExSource source(*task_word, LoadRawWord(record + kRawHeaderBytes));
      return encoder->AppendFixedCounting<1u << 2, U, U, U, T>(EventKind::kTaskEndEx, ticks, 0,
                                                               source);
    }
    case PlainHeader(kRawDefaultClockEndEx, 2): {
      DefaultClockExSource source(record + kRawHeaderBytes);
      return encoder->AppendFixedCounting<1u << 2, U, U, U, T>(EventKind::kTaskEndEx, ticks, 0,
                                                               source);
    }
    case PlainHeader(EventKind::kTaskBegin, 2):
      return encoder->AppendFixed<U, I, I, U>(EventKind::kTaskBegin, ticks, 0, plain);
    case PlainHeader(EventKind::kFrameBegin, 1):
      return encoder->AppendFixed<U, I>(EventKind::kFrameBegin, ticks, 0, plain);
    case PlainHeader(EventKind::kFrameEnd, 1):
      return encoder->AppendFixed<U, I>(EventKind::kFrameEnd, ticks, 0, plain);
    case PlainHeader(EventKind::kMarker, 3):
      return encoder->AppendFixed<U, I, U, U>(EventKind::kMarker, ticks, 0, plain);
    case PlainHeader(kRawMarkerPacked, 1): {
      RingMarkerSource source(LoadRawWord(record + kRawHeaderBytes));
      return encoder->AppendFixed<U, I, U, U>(EventKind::kMarker, ticks, 0, source);
    }
    case PlainHeader(EventKind::kCounterInc, 1):
      return encoder->AppendFixed<U>(EventKind::kCounterInc, ticks, 0, plain);
    case PlainHeader(EventKind::kCounterSetValue, 3):
      return encoder->AppendFixed<U, U, U>(EventKind::kCounterSetValue, ticks, 0, plain);
    // __itt_event_start and _end: one body, as for the sync calls below.
    case PlainHeader(EventKind::kEventStart, 1):
    case PlainHeader(EventKind::kEventEnd, 1):
      return encoder->AppendFixed<U>(static_cast<EventKind>(RawKind(header)), ticks, 0, plain);
    case PlainHeader(EventKind::kHeapAllocateBegin, 3):
      return encoder->AppendFixed<U, U, U>(EventKind::kHeapAllocateBegin, ticks, 0, plain);
    case PlainHeader(EventKind::kHeapAllocateEnd, 4):
      return encoder->AppendFixedCounting<1u << 1, U, U, U, U>(EventKind::kHeapAllocateEnd, ticks,
                                                               0, plain);
    // The *_ex task forms with the null ids of __itt_null: domain, clock
    // domain, user timestamp (counting: bit 2), timestamp[, ids], name.
    case PlainHeader(EventKind::kTaskBeginEx, 5):
      return encoder->AppendFixedCounting<1u << 2, U, U, U, T, I, I, U>(EventKind::kTaskBeginEx,
                                                                        ticks, 0, plain);
    case PlainHeader(EventKind::kTaskEndEx, 4):
      return encoder->AppendFixedCounting<1u << 2, U, U, U, T>(EventKind::kTaskEndEx, ticks, 0,
                                                               plain);
    case PlainHeader(kRawRelationShortIds, 5): {
      RingRelationSource source(record + kRawHeaderBytes);
      return encoder->AppendFixed<U, I, U, I>(EventKind::kRelationAdd, ticks, 0, source);
    }
    case static_cast<uint32_t>(MakeRawHeader(EventKind::kRelationAdd, 3, 8 + 8 * 8, 0)): {
      // Both ids present: domain, head (3 words), relation, tail (3 words).
      LaidOutFieldSource ids(record + kRawHeaderBytes, 3);
      return encoder->AppendFixed<U, I, U, I>(EventKind::kRelationAdd, ticks, 0, ids);
    }
    default:
      // The header-bits kinds, their reference in the id-mask bits.
      if ((shape & ~kRawIdMaskBits & ~3u) ==
          PlainHeader(static_cast<EventKind>(kRawFirstRingOnlyKind), 0)) {
        HeaderBitsSource source(header);
        const EventKind stands = HeaderBitsStandsFor(RawKind(header));
        if (RawKind(header) < static_cast<uint16_t>(kRawCounterIncSmall)) {
          return encoder->AppendFixed<U, I>(stands, ticks, 0, source);
        }
        return encoder->AppendFixed<U>(stands, ticks, 0, source);
      }
      // A JIT's method loads by name: one call less than the checked path.
      if (RawKind(header) == static_cast<uint16_t>(kRawJitMethodLoadName)) {
        return AppendJitMethodLoadName(record, ticks, encoder);
      }
      return AppendRawRecordChecked(record, ticks, task_word, encoder);
  }
}

// Decodes one raw record (already known to be whole), whose ticks are
// `ticks`, into *event, with kBytes views pointing into the record;
// *task_word as for AppendRawRecord. Returns false if the record does not
// match its kind's schema (a collector bug; the flusher counts it).
bool DecodeRawRecord(const uint8_t* record, uint64_t ticks, uint64_t* task_word,
                     format::Event* event);

}  // namespace ittc::collector_internal

#endif  // COLLECTOR_INTERNAL_RAW_RECORD_H_
