// Payloads of the non-event chunks (definitions, thread info, clock sync,
// loss, end): a sequence of length-prefixed records whose fields follow the
// same schemas as events (schema.h), plus typed views of the fixed-purpose
// records so callers need not know field positions.
//
// Record: varint kind, varint length of the field block, field block.
// A reader skips records of unknown kinds, and ignores bytes at the end of a
// known record's field block (fields a later minor version appended).

#ifndef FORMAT_RECORDS_H_
#define FORMAT_RECORDS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "format/schema.h"

namespace ittc {
namespace format {

// Builds a record-chunk payload. Off the hot path; may allocate.
// Thread safety: none.
class RecordEncoder {
 public:
  void Clear() {
    buf_.clear();
    count_ = 0;
  }
  // REQUIRES: FindSchema(record.kind) != nullptr.
  void Append(const Event& record);

  std::string_view payload() const { return buf_; }
  size_t record_count() const { return count_; }

 private:
  std::string buf_;
  size_t count_ = 0;
};

// Reads a record-chunk payload. Records of unknown kinds are skipped.
// Malformed input ends the iteration with an error status.
// Thread safety: none.
class RecordDecoder {
 public:
  void Reset(std::string_view payload);
  // False at the end or on error (status() then says why). kBytes views
  // point into the payload.
  bool Next(Event* record);
  const absl::Status& status() const { return status_; }
  size_t offset() const { return static_cast<size_t>(pos_ - begin_); }
  size_t unknown_skipped() const { return unknown_skipped_; }

 private:
  bool Fail(const char* reason);

  const char* begin_ = nullptr;
  const char* pos_ = nullptr;
  const char* limit_ = nullptr;
  size_t unknown_skipped_ = 0;
  absl::Status status_;
};

// kThreadInfo: one per thread, written when the thread first records and
// again when its name or ignore flag changes (the latest one wins).
struct ThreadInfo {
  uint32_t thread_index = 0;  // the events chunks' thread_index
  uint64_t tid = 0;           // OS thread id (gettid)
  std::string_view name;      // may be empty
  bool ignored = false;       // __itt_thread_ignore was called
};

// kClockSync: the three clocks read together (timebase in the middle of the
// two others), at start, periodically and at the end.
struct ClockSync {
  uint64_t ticks = 0;
  uint64_t monotonic_raw_ns = 0;
  int64_t realtime_ns = 0;
};

// kLoss: events of one thread dropped for one cause, cumulative since the
// start of the trace: a reader keeps the largest count per (thread, cause).
struct LossRecord {
  uint32_t thread_index = 0;
  LossCause cause = LossCause::kUnknown;
  uint64_t count = 0;
};

// kEnd: written by a clean close as the last chunk. Totals over the trace.
struct EndRecord {
  uint64_t events_recorded = 0;
  uint64_t events_dropped = 0;
  uint64_t chunk_count = 0;  // chunks before the end chunk
  uint64_t end_ticks = 0;    // timebase value when the trace was closed
};

// kModuleMapped: a loaded ELF object (the executable, a shared library, the
// vDSO) as the dynamic loader reports it. Written for every object mapped
// at the start of the trace, then for each one loaded later.
struct ModuleMapped {
  uint64_t ticks = 0;         // timebase value when the collector saw it
  uint64_t load_bias = 0;     // added to the ELF file's addresses (dlpi_addr)
  uint64_t start_addr = 0;    // lowest address of its PT_LOAD segments, biased
  uint64_t size = 0;          // bytes from start_addr to the end of the last segment
  std::string_view path;      // as the loader has it; the executable's from /proc/self/exe
  std::string_view build_id;  // NT_GNU_BUILD_ID note's bytes; empty if none
};

// kModuleUnmapped: the module that was mapped at start_addr is gone
// (dlclose): addresses in its range mean something else from `ticks` on.
struct ModuleUnmapped {
  uint64_t ticks = 0;
  uint64_t start_addr = 0;
};

// Why a flight recorder wrote a dump (FlightDump::reason).
enum class FlightReason : uint8_t {
  kUnknown = 0,
  kSignal = 1,       // the trigger signal (SIGUSR2 unless configured)
  kMarker = 2,       // an __itt_marker whose name matched the trigger pattern
  kFatalSignal = 3,  // SIGSEGV, SIGBUS, SIGABRT, SIGFPE or SIGILL
  kDetach = 4,       // __itt_detach
  kExit = 5,         // the end of the process (exit, return from main)
};

const char* FlightReasonName(uint64_t reason);

// kFlightDump (1.5): the end chunk of a file a flight recorder wrote holds
// one, before the end record. The recorder keeps its newest chunks in
// memory and drops the oldest whole; from window_begin on, the file holds
// every event of every thread that no loss record counts, up to the
// trigger at window_end (a whole chunk may reach a little past it, and
// the file may hold events from before window_begin).
struct FlightDump {
  FlightReason reason = FlightReason::kUnknown;
  uint32_t signal = 0;        // kSignal, kFatalSignal: the signal's number
  uint64_t name = 0;          // kMarker: the marker name's def_string id
  uint64_t window_begin = 0;  // ticks
  uint64_t window_end = 0;    // ticks: when the trigger fired
  uint64_t dump = 0;          // this dump's number in the process, from 1
  // Triggers this dump answers: 1, or more when triggers came while the
  // dump before it was being written.
  uint64_t triggers = 0;
};

Event ToRecord(const ThreadInfo& v);
Event ToRecord(const ModuleMapped& v);
Event ToRecord(const ModuleUnmapped& v);
bool FromRecord(const Event& record, ModuleMapped* v);
bool FromRecord(const Event& record, ModuleUnmapped* v);
Event ToRecord(const ClockSync& v);
Event ToRecord(const LossRecord& v);
Event ToRecord(const EndRecord& v);

// Return false if `record` is not of the matching kind.
bool FromRecord(const Event& record, ThreadInfo* v);
bool FromRecord(const Event& record, ClockSync* v);
bool FromRecord(const Event& record, LossRecord* v);
bool FromRecord(const Event& record, EndRecord* v);
Event ToRecord(const FlightDump& v);
bool FromRecord(const Event& record, FlightDump* v);

// A record as a RecordEncoder appends it (kind, length, field block),
// encoded at `dst` with no allocation: for writers that may not allocate
// (the collector's crash dump, in a signal handler). Returns the end.
// REQUIRES: FindSchema(record.kind) != nullptr; room for
// MaxEncodedRecordSize(record) bytes at dst.
char* EncodeRecordTo(const Event& record, char* dst);
size_t MaxEncodedRecordSize(const Event& record);

// Builders of definition records, for writers. Text views must stay valid
// until the record is appended to a RecordEncoder.
Event DefString(uint64_t id, std::string_view text);
Event DefDomain(uint64_t id, std::string_view name);
Event DefCounter(uint64_t id, std::string_view name, std::string_view domain_name,
                 uint64_t domain_id, MetadataType type);
Event DefHistogram(uint64_t id, uint64_t domain_id, std::string_view name, MetadataType x_type,
                   MetadataType y_type);
Event DefClockDomain(uint64_t id, uint64_t frequency_hz, uint64_t clock_base, uint64_t ticks);
Event DefHeapFunction(uint64_t id, std::string_view name, std::string_view domain_name);
Event DefLegacyEvent(uint64_t id, std::string_view name);
Event DefTrackGroup(uint64_t id, uint64_t name_string_id, uint64_t type);
Event DefTrack(uint64_t id, uint64_t track_group_id, uint64_t name_string_id, uint64_t type);

// JIT line tables (kBytes field "line_table" of the kJit* kinds) are the
// iJIT LineNumberInfo array as pairs of u32 LE (offset, line).
struct LineEntry {
  uint32_t offset = 0;
  uint32_t line = 0;
};
void AppendLineEntry(std::string* dst, const LineEntry& e);
// Number of entries, or -1 if the size is not a multiple of 8.
long LineTableSize(std::string_view table);
LineEntry LineTableEntry(std::string_view table, size_t i);

// Raw arguments of formatted metadata (the "args" field of
// kFormattedMetadataAdd*): one tagged value per conversion of the format
// string, in order. FORMAT.md, "Formatted metadata arguments".
enum class FormatArgTag : uint8_t {
  kInt = 1,      // zigzag varint: d, i, c and their length modifiers
  kUint = 2,     // varint: u, o, x, X and their length modifiers
  kDouble = 3,   // 8 bytes LE IEEE 754: f, e, g, a (float promoted)
  kString = 4,   // varint length + bytes: s
  kPointer = 5,  // varint: p
};

struct FormatArg {
  FormatArgTag tag = FormatArgTag::kInt;
  uint64_t u = 0;         // kInt (two's complement), kUint, kPointer
  double d = 0;           // kDouble
  std::string_view text;  // kString; points into the args bytes
};

void AppendFormatArgInt(std::string* dst, int64_t v);
void AppendFormatArgUint(std::string* dst, uint64_t v);
void AppendFormatArgDouble(std::string* dst, double v);
void AppendFormatArgString(std::string* dst, std::string_view v);
void AppendFormatArgPointer(std::string* dst, uint64_t v);

// Reads the next argument from the front of *args and removes it. Returns
// false at the end or on malformed bytes (then *args is left empty and
// *malformed is set).
bool NextFormatArg(std::string_view* args, FormatArg* out, bool* malformed);

}  // namespace format
}  // namespace ittc

#endif  // FORMAT_RECORDS_H_
