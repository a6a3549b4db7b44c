// The file header: the first bytes of every trace, with what a reader needs
// to interpret the chunks after it (process, host, timebase).
// FORMAT.md ("File header") has the byte diagram.
//
// Thread safety: pure functions.

#ifndef FORMAT_FILE_HEADER_H_
#define FORMAT_FILE_HEADER_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "format/chunk.h"

namespace ittc {
namespace format {

// The 8 bytes a trace starts with. The high first byte and the CR LF / SUB
// bytes catch text-mode transfers, as PNG's signature does.
inline constexpr unsigned char kFileMagic[8] = {0x89, 'I', 'T', 'T', 'C', '\r', '\n', 0x1A};

// Bytes of the fixed part of the header before its strings.
inline constexpr size_t kFileHeaderFixedSize = 64;

enum class Timebase : uint32_t {
  kUnknown = 0,
  kTsc = 1,             // RDTSC ticks (invariant TSC)
  kMonotonicRawNs = 2,  // CLOCK_MONOTONIC_RAW nanoseconds
};

const char* TimebaseName(Timebase t);

// Header flags.
inline constexpr uint32_t kHeaderFlagTruncated = 1u << 0;  // a string was cut

struct FileHeader {
  // Filled in by DecodeFileHeader; EncodeFileHeader always writes the
  // library's own version.
  uint16_t version_major = kFormatMajorVersion;
  uint16_t version_minor = kFormatMinorVersion;
  uint32_t flags = 0;

  uint32_t pid = 0;
  uint32_t ppid = 0;

  Timebase timebase = Timebase::kUnknown;
  // Ticks per second of the timebase: measured/reported TSC frequency, or
  // 1e9 for kMonotonicRawNs. Clock sync records refine the conversion.
  uint64_t timebase_hz = 0;
  // Timebase value, CLOCK_REALTIME and CLOCK_MONOTONIC_RAW nanoseconds read
  // together when collection started: "time zero" of the trace.
  uint64_t start_ticks = 0;
  int64_t start_realtime_ns = 0;
  uint64_t start_monotonic_raw_ns = 0;

  std::string host_name;
  std::string executable_path;
  // argv joined with NUL bytes, as /proc/<pid>/cmdline has it.
  std::string command_line;
  // Free text naming the writer, e.g. "ittcollector 0.1".
  std::string writer;
};

// Returns the complete encoded header. Strings longer than
// kMaxHeaderStringBytes are cut and kHeaderFlagTruncated is set.
std::string EncodeFileHeader(const FileHeader& header);

// Parses a complete header from the start of `data`.
// On success, *header_size is the number of bytes the header occupies.
// Errors, which callers distinguish by code:
//   kInvalidArgument  not a trace: the magic does not match
//   kOutOfRange       `data` ends before the header does (truncated, or
//                     more bytes are needed: *header_size then says how many
//                     are needed when known, else 0)
//   kUnimplemented    a major version this library cannot read
//   kDataLoss         the magic matches but the header is corrupt
absl::Status DecodeFileHeader(std::string_view data, FileHeader* header, size_t* header_size);

// True if `status` is DecodeFileHeader's / TraceReader's "not a trace".
bool IsNotATrace(const absl::Status& status);

}  // namespace format
}  // namespace ittc

#endif  // FORMAT_FILE_HEADER_H_
