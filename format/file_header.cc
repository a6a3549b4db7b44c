#include "format/file_header.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "absl/strings/match.h"
#include "format/coding.h"
#include "format/crc32c.h"

namespace ittc {
namespace format {
namespace {

constexpr char kNotATraceMessage[] = "not an ittcollector trace";

// Fields every major version keeps in place: magic, major, minor, size;
// and the CRC as the last four bytes.
constexpr size_t kStablePrefixSize = 16;
constexpr size_t kMinHeaderSize = kStablePrefixSize + 4;

void AppendString(std::string* dst, std::string_view s, uint32_t* flags) {
  if (s.size() > kMaxHeaderStringBytes) {
    s = s.substr(0, kMaxHeaderStringBytes);
    *flags |= kHeaderFlagTruncated;
  }
  AppendFixed32(dst, static_cast<uint32_t>(s.size()));
  dst->append(s.data(), s.size());
}

bool ReadString(const char** p, const char* limit, std::string* out) {
  if (limit - *p < 4) return false;
  const uint32_t n = DecodeFixed32(*p);
  *p += 4;
  if (n > static_cast<uint64_t>(limit - *p)) return false;
  out->assign(*p, n);
  *p += n;
  return true;
}

}  // namespace

const char* TimebaseName(Timebase t) {
  switch (t) {
    case Timebase::kTsc:
      return "tsc";
    case Timebase::kMonotonicRawNs:
      return "monotonic_raw_ns";
    default:
      return "unknown";
  }
}

bool ParseBootId(std::string_view text, std::array<uint8_t, 16>* out) {
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  if (text.size() != 36) return false;
  std::array<uint8_t, 16> id{};
  size_t nibble = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (c != '-') return false;
      continue;
    }
    int v;
    if (c >= '0' && c <= '9') {
      v = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      v = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      v = c - 'A' + 10;
    } else {
      return false;
    }
    id[nibble / 2] = static_cast<uint8_t>(id[nibble / 2] | (nibble % 2 == 0 ? v << 4 : v));
    ++nibble;
  }
  *out = id;
  return true;
}

std::string BootIdString(const std::array<uint8_t, 16>& id) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(36);
  for (size_t i = 0; i < id.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += kDigits[id[i] >> 4];
    out += kDigits[id[i] & 15];
  }
  return out;
}

std::string EncodeFileHeader(const FileHeader& h) {
  uint32_t flags = h.flags & ~(kHeaderFlagTruncated | kHeaderFlagHasRank);
  std::string strings;
  AppendString(&strings, h.host_name, &flags);
  AppendString(&strings, h.executable_path, &flags);
  AppendString(&strings, h.command_line, &flags);
  AppendString(&strings, h.writer, &flags);
  // 1.1: rank and boot id after the strings.
  const bool has_rank = h.rank >= 0 && h.rank <= UINT32_MAX;
  if (has_rank) flags |= kHeaderFlagHasRank;
  AppendFixed32(&strings, has_rank ? static_cast<uint32_t>(h.rank) : 0);
  strings.append(reinterpret_cast<const char*>(h.boot_id.data()), h.boot_id.size());

  std::string out;
  const size_t size = kFileHeaderFixedSize + strings.size() + 4;
  out.reserve(size);
  out.append(reinterpret_cast<const char*>(kFileMagic), sizeof kFileMagic);
  AppendFixed16(&out, kFormatMajorVersion);
  AppendFixed16(&out, kFormatMinorVersion);
  AppendFixed32(&out, static_cast<uint32_t>(size));
  AppendFixed32(&out, flags);
  AppendFixed32(&out, h.pid);
  AppendFixed32(&out, h.ppid);
  AppendFixed32(&out, static_cast<uint32_t>(h.timebase));
  AppendFixed64(&out, h.timebase_hz);
  AppendFixed64(&out, h.start_ticks);
  AppendFixed64(&out, static_cast<uint64_t>(h.start_realtime_ns));
  AppendFixed64(&out, h.start_monotonic_raw_ns);
  out.append(strings);
  AppendFixed32(&out, crc32c::Value(out.data(), out.size()));
  return out;
}

absl::Status DecodeFileHeader(std::string_view data, FileHeader* h, size_t* header_size) {
  *header_size = 0;
  const size_t magic_n = std::min(data.size(), sizeof kFileMagic);
  if (magic_n > 0 && std::memcmp(data.data(), kFileMagic, magic_n) != 0) {
    return absl::InvalidArgumentError(std::string(kNotATraceMessage) + " (bad magic)");
  }
  if (data.size() < kStablePrefixSize) {
    *header_size = kStablePrefixSize;
    return absl::OutOfRangeError("file ends inside the trace header");
  }
  const char* p = data.data();
  const uint16_t major = DecodeFixed16(p + 8);
  const uint16_t minor = DecodeFixed16(p + 10);
  const uint32_t size = DecodeFixed32(p + 12);
  if (size < kMinHeaderSize || size > kMaxFileHeaderBytes) {
    return absl::DataLossError("trace header has a bad size");
  }
  if (data.size() < size) {
    *header_size = size;
    return absl::OutOfRangeError("file ends inside the trace header");
  }
  if (crc32c::Value(p, size - 4) != DecodeFixed32(p + size - 4)) {
    return absl::DataLossError("trace header checksum mismatch");
  }
  if (major != kFormatMajorVersion) {
    return absl::UnimplementedError("unsupported trace format major version " +
                                    std::to_string(major));
  }
  if (size < kFileHeaderFixedSize + 16 + 4) {
    return absl::DataLossError("trace header too small");
  }
  h->version_major = major;
  h->version_minor = minor;
  h->flags = DecodeFixed32(p + 16);
  h->pid = DecodeFixed32(p + 20);
  h->ppid = DecodeFixed32(p + 24);
  h->timebase = static_cast<Timebase>(DecodeFixed32(p + 28));
  h->timebase_hz = DecodeFixed64(p + 32);
  h->start_ticks = DecodeFixed64(p + 40);
  h->start_realtime_ns = static_cast<int64_t>(DecodeFixed64(p + 48));
  h->start_monotonic_raw_ns = DecodeFixed64(p + 56);
  const char* q = p + kFileHeaderFixedSize;
  const char* limit = p + size - 4;
  if (!ReadString(&q, limit, &h->host_name) || !ReadString(&q, limit, &h->executable_path) ||
      !ReadString(&q, limit, &h->command_line) || !ReadString(&q, limit, &h->writer)) {
    return absl::DataLossError("trace header strings overrun the header");
  }
  h->rank = kNoRank;
  h->boot_id = {};
  if (minor >= 1) {
    if (static_cast<size_t>(limit - q) < kFileHeaderV11Size) {
      return absl::DataLossError("trace header too small for its minor version");
    }
    if (h->flags & kHeaderFlagHasRank) h->rank = DecodeFixed32(q);
    std::memcpy(h->boot_id.data(), q + 4, h->boot_id.size());
    q += kFileHeaderV11Size;
  }
  // Bytes between q and limit belong to later minor versions: ignored.
  *header_size = size;
  return absl::OkStatus();
}

bool IsNotATrace(const absl::Status& status) {
  // The message as well as the code: an I/O error can map to
  // kInvalidArgument too (EINVAL).
  return status.code() == absl::StatusCode::kInvalidArgument &&
         absl::StartsWith(status.message(), kNotATraceMessage);
}

}  // namespace format
}  // namespace ittc
