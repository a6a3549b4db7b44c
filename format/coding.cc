#include "format/coding.h"

namespace ittc {
namespace format {

const char* GetVarint64Slow(const char* p, const char* limit, uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift <= 63 && p < limit; shift += 7) {
    const uint64_t byte = static_cast<unsigned char>(*p++);
    // The tenth byte holds bit 63 only; anything more overflows.
    if (shift == 63 && byte > 1) return nullptr;
    result |= (byte & 0x7f) << shift;
    if (byte < 0x80) {
      *v = result;
      return p;
    }
  }
  return nullptr;
}

void AppendFixed16(std::string* dst, uint16_t v) {
  char buf[2];
  PutFixed16(buf, v);
  dst->append(buf, sizeof buf);
}

void AppendFixed32(std::string* dst, uint32_t v) {
  char buf[4];
  PutFixed32(buf, v);
  dst->append(buf, sizeof buf);
}

void AppendFixed64(std::string* dst, uint64_t v) {
  char buf[8];
  PutFixed64(buf, v);
  dst->append(buf, sizeof buf);
}

void AppendVarint64(std::string* dst, uint64_t v) {
  char buf[kMaxVarint64Bytes];
  const char* end = PutVarint64(buf, v);
  dst->append(buf, static_cast<size_t>(end - buf));
}

}  // namespace format
}  // namespace ittc
