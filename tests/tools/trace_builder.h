// Builds small traces in memory through the format library's writer API,
// the way the collector lays them out (definitions, thread info and clock
// sync chunks, one events chunk per call, loss and end chunks), for the
// itt-dump tests, the fuzz seed corpus and the benchmark.

#ifndef TESTS_TOOLS_TRACE_BUILDER_H_
#define TESTS_TOOLS_TRACE_BUILDER_H_

#include <cstdint>
#include <deque>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "format/format.h"

namespace ittc {
namespace itt_dump {
namespace testing {

// The header the tests use: a 1 GHz TSC (one tick per nanosecond),
// start_ticks 1000, pid 4242 on host "testhost".
format::FileHeader TestHeader();

using F = format::Field;

// A field's value and which FieldValue member it is in.
struct TypedValue {
  enum Member { kU, kId, kBytes } member;
  format::FieldValue value;
};

// One field of an event under construction, by name: {F::kDomain, U(1)}.
struct FieldInit {
  format::Field field;
  TypedValue value;
};

// An event with the named fields set and every other field 0 / null /
// empty. Bytes fields must point at storage that outlives the builder call
// that takes the event. Aborts if the kind has no such field of that type
// (a test bug).
format::Event Ev(format::EventKind kind, uint64_t time, std::initializer_list<FieldInit> fields);

inline TypedValue U(uint64_t v) { return {TypedValue::kU, format::FieldValue::Uint(v)}; }
inline TypedValue D(double v) { return {TypedValue::kU, format::FieldValue::Double(v)}; }
inline TypedValue T(uint64_t ticks) { return {TypedValue::kU, format::FieldValue::Time(ticks)}; }
inline TypedValue B(std::string_view v) {
  return {TypedValue::kBytes, format::FieldValue::Bytes(v)};
}
inline TypedValue I(uint64_t d1, uint64_t d2 = 0, uint64_t d3 = 0) {
  return {TypedValue::kId, format::FieldValue::OfId(format::Id{d1, d2, d3})};
}
inline TypedValue Null() { return I(0); }

// A counter_set_value of u64 counter `counter` to `value` at `time`.
inline format::Event CounterSetU64(uint64_t time, uint64_t counter, uint64_t value) {
  return Ev(format::EventKind::kCounterSetValue, time,
            {{format::Field::kCounter, U(counter)},
             {format::Field::kType, U(static_cast<uint64_t>(format::MetadataType::kU64))},
             {format::Field::kValue, U(value)}});
}

class TraceBuilder {
 public:
  // `compress` false frames every chunk uncompressed (flags 0), as the
  // format allows: for measuring decoding without decompression. `coding`:
  // how events chunks store their fields (kPlain: as versions 1.0 and 1.1
  // wrote them).
  explicit TraceBuilder(const format::FileHeader& header = TestHeader(), bool compress = true,
                        format::EventStreamEncoder::FieldCoding coding =
                            format::EventStreamEncoder::FieldCoding::kDelta);

  // Definitions are batched into one definitions chunk, written before
  // the next chunk of another type.
  TraceBuilder& String(uint64_t id, std::string_view text);
  TraceBuilder& Domain(uint64_t id, std::string_view name);
  TraceBuilder& Counter(uint64_t id, std::string_view name, std::string_view domain_name,
                        uint64_t domain, format::MetadataType type);
  TraceBuilder& Histogram(uint64_t id, uint64_t domain, std::string_view name,
                          format::MetadataType x, format::MetadataType y);
  TraceBuilder& HeapFunction(uint64_t id, std::string_view name, std::string_view domain_name);
  TraceBuilder& EventName(uint64_t id, std::string_view name);
  TraceBuilder& ClockDomain(uint64_t id, uint64_t hz, uint64_t base, uint64_t ticks);
  // Module map records (batched with the definitions, as the collector
  // writes them).
  TraceBuilder& Module(const format::ModuleMapped& m);
  // A module mapped at [start_addr, start_addr + size) from `path`, load
  // bias 0, no build id.
  TraceBuilder& Module(uint64_t ticks, uint64_t start_addr, uint64_t size, std::string_view path);
  TraceBuilder& ModuleGone(uint64_t ticks, uint64_t start_addr);

  TraceBuilder& Thread(uint32_t index, uint64_t tid, std::string_view name, bool ignored = false);
  TraceBuilder& Sync(uint64_t ticks, uint64_t mono_ns, int64_t real_ns);
  // Sync points of TestHeader's clock at `ticks`.
  TraceBuilder& SyncAt(uint64_t ticks);
  TraceBuilder& Loss(uint32_t thread_index, format::LossCause cause, uint64_t count);
  // One events chunk of `thread_index`.
  TraceBuilder& Events(uint32_t thread_index, const std::vector<format::Event>& events);
  // An events chunk of a payload made by hand (a malformed one), coded as
  // `flags` say (an encoder's chunk_flags()), in sequence.
  TraceBuilder& EventsPayload(std::string_view payload, uint16_t flags);
  // The end chunk; counts default to what was written.
  TraceBuilder& End(uint64_t end_ticks);
  // The end chunk of a flight recorder's dump: `flight`, then the end
  // record.
  TraceBuilder& FlightEnd(const format::FlightDump& flight, uint64_t end_ticks);
  // Raw bytes (damage, hand-made chunks).
  TraceBuilder& Raw(std::string_view bytes);

  // The file so far (pending definitions flushed).
  const std::string& bytes();
  // Offset where the next chunk will start.
  size_t size() { return bytes().size(); }

 private:
  void FlushDefinitions();
  // The end record of the file so far.
  format::EndRecord EndOf(uint64_t end_ticks) const;
  void Records(format::ChunkType type, std::initializer_list<format::Event> records);
  // `flags`: besides kChunkFlagZstd when compressed (an encoder's chunk_flags()).
  void Chunk(format::ChunkType type, std::string_view payload, uint16_t flags = 0);

  std::string out_;
  bool compress_;
  uint64_t sequence_ = 0;
  format::ChunkWriter writer_;
  format::RecordEncoder defs_;
  format::EventStreamEncoder events_;
  uint64_t events_written_ = 0;
  uint64_t dropped_ = 0;
};

}  // namespace testing
}  // namespace itt_dump
}  // namespace ittc

#endif  // TESTS_TOOLS_TRACE_BUILDER_H_
