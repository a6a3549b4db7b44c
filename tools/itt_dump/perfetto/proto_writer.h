// A minimal writer of the protobuf wire format, enough to produce Perfetto
// traces without a protobuf library: varints, fixed64, length-delimited
// fields, and nested messages whose length is patched in when they end.
//
// Wire format facts (protobuf's "Encoding" documentation): a field is a key
// varint (field_number << 3 | wire_type) followed by its value; wire types
// 0 = varint, 1 = 64-bit, 2 = length-delimited, 5 = 32-bit. A nested message
// is a length-delimited field. Begin() reserves one byte for the length and
// End() writes it in; a message of 128 bytes or more needs more length bytes
// and End() moves its bytes up to make room. The output is the minimal
// encoding, the same bytes a protobuf library would write, and the writer
// need not know a message's size before writing it. Trace packets and the
// messages in them are almost all under 128 bytes, so the move is rare.
//
// Cost: the buffer is reused (Clear() keeps it), so writing allocates only
// while it grows to the largest content.
//
// Thread safety: none; one writer per thread.

#ifndef TOOLS_ITT_DUMP_PERFETTO_PROTO_WRITER_H_
#define TOOLS_ITT_DUMP_PERFETTO_PROTO_WRITER_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace ittc::itt_dump {

class ProtoWriter {
 public:
  void Varint(uint32_t field, uint64_t v) { Commit(PutVarintField(Reserve(20), field, v)); }
  // int32/int64 fields: negative values take ten bytes, as the format says.
  void Int(uint32_t field, int64_t v) { Varint(field, static_cast<uint64_t>(v)); }
  void Bool(uint32_t field, bool v) { Varint(field, v ? 1 : 0); }
  void Fixed64(uint32_t field, uint64_t v) { Commit(PutFixed64Field(Reserve(18), field, v)); }
  void Double(uint32_t field, double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    Fixed64(field, bits);
  }
  void Bytes(uint32_t field, std::string_view v) {
    char* p = PutBytesHead(Reserve(kMaxBytesHead + v.size()), field, v.size());
    if (!v.empty()) std::memcpy(p, v.data(), v.size());
    Commit(p + v.size());
  }

  // Starts a nested message in `field`; every Begin has its End.
  void Begin(uint32_t field) { Commit(BeginAt(Reserve(6), field)); }
  // Ends the innermost nested message and writes its length.
  // REQUIRES: a Begin is open.
  void End() {
    const size_t at = open_.back();
    open_.pop_back();
    const size_t n = size_ - at - 1;
    if (n < 0x80) {
      buf_[at] = static_cast<char>(n);
      return;
    }
    char length[10];
    const size_t k = static_cast<size_t>(PutVarint(length, n) - length);
    Reserve(k - 1);
    char* base = &buf_[0];
    std::memmove(base + at + k, base + at + 1, n);
    std::memcpy(base + at, length, k);
    size_ += k - 1;
  }

  // Writing through a cursor, for hot paths: Reserve(n) returns where the
  // next n bytes go, the Put*/BeginAt calls write there and return the new
  // end, and Commit(end) makes them part of the output. A local cursor
  // spares the per-field room check and the reload of the writer's state
  // after each byte store (char stores may alias anything).
  // REQUIRES: at most n bytes are written before Commit; no other write in
  // between. Fields: a key of at most 5 bytes, a varint of at most 10.
  char* Reserve(size_t n) {
    if (buf_.size() - size_ < n) Grow(n);
    return &buf_[size_];
  }
  void Commit(const char* end) { size_ = static_cast<size_t>(end - buf_.data()); }
  static char* PutVarintField(char* p, uint32_t field, uint64_t v) {
    return PutVarint(PutVarint(p, Key(field, 0)), v);
  }
  // The key of a length-delimited field `field` and its length `n`, at
  // most kMaxBytesHead bytes; the n bytes go after them.
  static constexpr size_t kMaxBytesHead = 20;
  static char* PutBytesHead(char* p, uint32_t field, uint64_t n) {
    return PutVarint(PutVarint(p, Key(field, 2)), n);
  }
  static char* PutFixed64Field(char* p, uint32_t field, uint64_t v) {
    p = PutVarint(p, Key(field, 1));
    for (int i = 0; i < 8; ++i) *p++ = static_cast<char>(v >> (8 * i));
    return p;
  }
  // Begin() at a cursor: at most 6 bytes (the key and one length byte).
  char* BeginAt(char* p, uint32_t field) {
    p = PutVarint(p, Key(field, 2));
    open_.push_back(static_cast<size_t>(p - buf_.data()));
    return p + 1;
  }

  // A nested message that stays under 128 bytes (its length one byte), at
  // a cursor and without the stack of open messages: BeginShortAt writes
  // the key and keeps the length byte's place in *length_at, EndShortAt
  // writes the length of what lies between it and `end`. The bytes are
  // those of Begin()/End(). REQUIRES: end - *length_at - 1 < 128.
  static char* BeginShortAt(char* p, uint32_t field, char** length_at) {
    p = PutVarint(p, Key(field, 2));
    *length_at = p;
    return p + 1;
  }
  static void EndShortAt(char* length_at, const char* end) {
    *length_at = static_cast<char>(end - length_at - 1);
  }

  // What was written so far; valid until the next write. REQUIRES for a
  // complete message: no Begin open.
  std::string_view data() const { return std::string_view(buf_.data(), size_); }
  size_t size() const { return size_; }
  bool nested() const { return !open_.empty(); }
  void Clear() {
    size_ = 0;
    open_.clear();
  }
  // Moves what was written into *out (its old bytes are lost) and clears
  // the writer, which reuses *out's old buffer with room for at least
  // `min_room` bytes: handing a block on costs no copy. The old buffer's
  // bytes are not cleared; it grows (zero-filled, as std::string does)
  // only by what it lacks, so buffers that go round between a writer and
  // its consumer are filled once, not per block. REQUIRES: no Begin open.
  void SwapOut(std::string* out, size_t min_room) {
    buf_.resize(size_);
    buf_.swap(*out);
    if (buf_.size() < min_room) buf_.resize(min_room);
    Clear();
  }

 private:
  static constexpr uint64_t Key(uint32_t field, uint32_t wire_type) {
    return (static_cast<uint64_t>(field) << 3) | wire_type;
  }
  // Writes v's varint at p (room for ten bytes); returns the end.
  static char* PutVarint(char* p, uint64_t v) {
    while (v >= 0x80) {
      *p++ = static_cast<char>(v | 0x80);
      v >>= 7;
    }
    *p++ = static_cast<char>(v);
    return p;
  }
  // Makes room for n more bytes. The string's size is the capacity in use;
  // size_ is what was written.
  void Grow(size_t n) { buf_.resize(std::max(buf_.size() * 2, size_ + n + 256)); }

  std::string buf_;
  size_t size_ = 0;
  std::vector<size_t> open_;  // offsets of the length bytes of open messages
};

}  // namespace ittc::itt_dump

#endif  // TOOLS_ITT_DUMP_PERFETTO_PROTO_WRITER_H_
