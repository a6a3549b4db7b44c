// A minimal writer of the protobuf wire format, enough to produce Perfetto
// traces without a protobuf library: varints, fixed64, length-delimited
// fields, and nested messages whose length is patched in when they end.
//
// Wire format facts (protobuf's "Encoding" documentation): a field is a key
// varint (field_number << 3 | wire_type) followed by its value; wire types
// 0 = varint, 1 = 64-bit, 2 = length-delimited, 5 = 32-bit. A nested message
// is a length-delimited field. Begin() reserves the four bytes the largest
// length needs and End() writes the length in as few bytes as it takes,
// moving the message's bytes down over the rest: the output is the minimal
// encoding, the same bytes a protobuf library would write, and the writer
// need not know a message's size before writing it. The move costs a copy
// of each nested message once per level; packets are small.
// Four bytes limit one nested message to 2^28 - 1 bytes.
//
// Thread safety: none; one writer per thread.

#ifndef TOOLS_ITT_DUMP_PERFETTO_PROTO_WRITER_H_
#define TOOLS_ITT_DUMP_PERFETTO_PROTO_WRITER_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace ittc::itt_dump {

class ProtoWriter {
 public:
  // Largest nested message the 4-byte length can describe.
  static constexpr size_t kMaxNestedBytes = (size_t{1} << 28) - 1;

  void Varint(uint32_t field, uint64_t v) {
    Key(field, 0);
    PutVarint(v);
  }
  // int32/int64 fields: negative values take ten bytes, as the format says.
  void Int(uint32_t field, int64_t v) { Varint(field, static_cast<uint64_t>(v)); }
  void Bool(uint32_t field, bool v) { Varint(field, v ? 1 : 0); }
  void Fixed64(uint32_t field, uint64_t v) {
    Key(field, 1);
    char b[8];
    for (int i = 0; i < 8; ++i) b[i] = static_cast<char>(v >> (8 * i));
    buf_.append(b, 8);
  }
  void Double(uint32_t field, double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    Fixed64(field, bits);
  }
  void Bytes(uint32_t field, std::string_view v) {
    Key(field, 2);
    PutVarint(v.size());
    buf_.append(v.data(), v.size());
  }

  // Starts a nested message in `field`; every Begin has its End.
  void Begin(uint32_t field) {
    Key(field, 2);
    open_.push_back(buf_.size());
    buf_.append(4, '\0');
  }
  // Ends the innermost nested message and writes its length.
  // REQUIRES: a Begin is open; the message is at most kMaxNestedBytes.
  void End() {
    const size_t at = open_.back();
    open_.pop_back();
    const size_t n = buf_.size() - at - 4;
    char len[10];
    const size_t k = EncodeVarint(n, len);
    if (k != 4) std::memmove(&buf_[at + k], &buf_[at + 4], n);
    std::memcpy(&buf_[at], len, k);
    buf_.resize(at + k + n);
  }

  // What was written so far. REQUIRES for a complete message: no Begin open.
  const std::string& data() const { return buf_; }
  size_t size() const { return buf_.size(); }
  bool nested() const { return !open_.empty(); }
  void Clear() {
    buf_.clear();
    open_.clear();
  }

 private:
  void Key(uint32_t field, uint32_t wire_type) {
    PutVarint((static_cast<uint64_t>(field) << 3) | wire_type);
  }
  // Writes v's varint into out (room for ten bytes); returns its length.
  static size_t EncodeVarint(uint64_t v, char* out) {
    size_t n = 0;
    while (v >= 0x80) {
      out[n++] = static_cast<char>(v | 0x80);
      v >>= 7;
    }
    out[n++] = static_cast<char>(v);
    return n;
  }
  void PutVarint(uint64_t v) {
    char b[10];
    buf_.append(b, EncodeVarint(v, b));
  }

  std::string buf_;
  std::vector<size_t> open_;  // offsets of the length bytes of open messages
};

}  // namespace ittc::itt_dump

#endif  // TOOLS_ITT_DUMP_PERFETTO_PROTO_WRITER_H_
