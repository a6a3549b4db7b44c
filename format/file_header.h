// The file header: the first bytes of every trace, with what a reader needs
// to interpret the chunks after it (process, host, timebase).
// FORMAT.md ("File header") has the byte diagram.
//
// Thread safety: pure functions.

#ifndef FORMAT_FILE_HEADER_H_
#define FORMAT_FILE_HEADER_H_

#include <array>
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
inline constexpr uint32_t kHeaderFlagHasRank = 1u << 1;    // `rank` is meaningful (1.1)

// The rank of a process that no launcher started (or of a 1.0 trace).
inline constexpr int64_t kNoRank = -1;

// Bytes the 1.1 header appends after the strings: u32 rank, 16-byte boot id.
inline constexpr size_t kFileHeaderV11Size = 4 + 16;

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

  // Since 1.1. The launcher's rank (MPI, Slurm), or kNoRank; encoded as a
  // u32 with kHeaderFlagHasRank, which the encoder derives from this field.
  int64_t rank = kNoRank;
  // Since 1.1. /proc/sys/kernel/random/boot_id as its 16 bytes (the UUID's
  // hex digits in order); all zero when unknown. Traces with the same host
  // name and boot id share one TSC and one CLOCK_MONOTONIC_RAW.
  std::array<uint8_t, 16> boot_id{};
};

// Parses the text form of a boot id ("xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx",
// hex digits and dashes, an optional trailing newline). False on anything
// else.
bool ParseBootId(std::string_view text, std::array<uint8_t, 16>* out);

// The text form of a boot id: 36 characters, lowercase, dashed.
std::string BootIdString(const std::array<uint8_t, 16>& id);

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
