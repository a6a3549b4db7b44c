// A growable char buffer with inline appends, which the verbs build each
// output line in: std::string::append is an out-of-line call per piece,
// and a line of `text` or `chrome` is some twenty pieces, most of them
// literals, which this buffer copies with a fixed-size memcpy the compiler
// inlines. The values.h helpers write to it as to a std::string.
//
// Thread safety: none.

#ifndef TOOLS_ITT_DUMP_MODEL_TEXT_BUFFER_H_
#define TOOLS_ITT_DUMP_MODEL_TEXT_BUFFER_H_

#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>
#include <utility>

namespace ittc {
namespace itt_dump {

class TextBuffer {
 public:
  // The verbs hand their buffer to the output once it holds this many
  // bytes, not line by line (a copy and a call per line showed in
  // profiles): 4 KiB stays in the first-level cache, 32 KiB was slower.
  static constexpr size_t kWriteBatch = 4 << 10;

  TextBuffer() { Grow(kInitial); }
  TextBuffer(const TextBuffer&) = delete;
  TextBuffer& operator=(const TextBuffer&) = delete;

  void clear() { size_ = 0; }
  // Drops what follows the first n bytes. REQUIRES: n <= size().
  void Truncate(size_t n) { size_ = n; }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  bool empty() const { return size_ == 0; }
  const char* data() const { return buf_.get(); }
  char* data() { return buf_.get(); }
  std::string_view view() const { return std::string_view(buf_.get(), size_); }

  void push_back(char c) {
    if (size_ == capacity_) Grow(1);
    buf_[size_++] = c;
  }
  void append(const char* p, size_t n) {
    if (n == 0) return;  // p may be null then (an empty string_view)
    if (n > capacity_ - size_) Grow(n);
    std::memcpy(buf_.get() + size_, p, n);
    size_ += n;
  }
  void append(std::string_view s) { append(s.data(), s.size()); }
  // Room for n more bytes at the end: the caller writes k <= n of them
  // there, then calls Advance(k). For writers that know an upper bound
  // before they know the length (AppendDecimal).
  char* Room(size_t n) {
    if (n > capacity_ - size_) Grow(n);
    return buf_.get() + size_;
  }
  void Advance(size_t k) { size_ += k; }
  // A string literal: its length is known here, so the copy is inlined.
  template <size_t N>
  void append(const char (&literal)[N]) {
    append(literal, N - 1);
  }

 private:
  static constexpr size_t kInitial = 1024;
  // Makes room for n more bytes at least, doubling.
  void Grow(size_t n) {
    size_t capacity = capacity_ == 0 ? kInitial : capacity_;
    while (capacity - size_ < n) capacity *= 2;
    std::unique_ptr<char[]> b(new char[capacity]);
    if (size_ != 0) std::memcpy(b.get(), buf_.get(), size_);
    buf_ = std::move(b);
    capacity_ = capacity;
  }

  std::unique_ptr<char[]> buf_;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_MODEL_TEXT_BUFFER_H_
