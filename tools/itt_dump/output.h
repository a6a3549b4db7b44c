// Buffered output for itt-dump's verbs: to a file descriptor (stdout, a file)
// or to a string (tests, the fuzz target).
//
// A closed pipe (the reader was `head`) is not an error: the output becomes
// "broken", further writes are dropped, and the verb stops early and exits 0.
// Any other write error is kept in status() for the caller to report.
//
// Thread safety: none; one Output per thread.

#ifndef TOOLS_ITT_DUMP_OUTPUT_H_
#define TOOLS_ITT_DUMP_OUTPUT_H_

#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace ittc {
namespace itt_dump {

class Output {
 public:
  virtual ~Output();
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;

  void Write(std::string_view s) {
    if (s.size() > kBufferSize - used_) {
      Spill(s);
      return;
    }
    std::memcpy(buf_.get() + used_, s.data(), s.size());
    used_ += s.size();
  }
  void Put(char c) {
    if (used_ == kBufferSize) Flush();
    buf_[used_++] = c;
  }
  // Writes everything buffered. Returns false once the output is broken or
  // failed.
  bool Flush();
  // Writes what is buffered, then `s` without copying it.
  void WriteUnbuffered(std::string_view s) {
    Flush();
    if (good() && !s.empty()) WriteRaw(s.data(), s.size());
  }

  // The reader went away (EPIPE): stop producing, exit quietly.
  bool broken() const { return broken_; }
  // OK, or the first write error other than EPIPE.
  const absl::Status& status() const { return status_; }
  // Neither broken nor failed: worth producing more.
  bool good() const { return !broken_ && status_.ok(); }

 protected:
  Output();
  // Writes n bytes; sets broken_/status_ on failure.
  virtual void WriteRaw(const char* p, size_t n) = 0;

  bool broken_ = false;
  absl::Status status_;

 private:
  static constexpr size_t kBufferSize = 64 << 10;
  void Spill(std::string_view s);

  std::unique_ptr<char[]> buf_;
  size_t used_ = 0;
};

// Writes to `fd` with write(2). Does not close it unless `owned`.
// `name` is used in error messages ("stdout", a path).
std::unique_ptr<Output> FdOutput(int fd, std::string name, bool owned);

// Creates or truncates `path`.
absl::StatusOr<std::unique_ptr<Output>> FileOutput(const std::string& path);

// Appends to *dst, which must outlive the Output. `limit` caps the bytes kept
// (further bytes are counted, not stored) so a fuzz run cannot grow memory.
std::unique_ptr<Output> StringOutput(std::string* dst, size_t limit = static_cast<size_t>(-1));

// What one pass handed to an output: its first `bytes` bytes and their
// CRC32C.
struct WrittenPrefix {
  uint64_t bytes = 0;
  uint32_t crc = 0;
};

// An output for a pass that writes again what an earlier pass began to
// write to `out` (and stopped, leaving `skip` there): drops the first
// skip.bytes bytes and checks them against skip.crc, then hands the rest
// on to `out`. If they differ, nothing more goes out and mismatch() is
// true (also when the pass ends before them: Finish). With keep_crc,
// written() has the CRC of everything it was given. Broken or failed when
// `out` is.
class RewrittenOutput final : public Output {
 public:
  RewrittenOutput(Output* out, const WrittenPrefix& skip, bool keep_crc)
      : out_(out), skip_(skip), keep_crc_(keep_crc) {}
  ~RewrittenOutput() override;

  // Flushes it and `out`; the pass is over: a prefix it did not reach is
  // a mismatch.
  void Finish();
  // What it was given and has flushed (the CRC only with keep_crc).
  const WrittenPrefix& written() const { return written_; }
  bool mismatch() const { return mismatch_; }

 protected:
  void WriteRaw(const char* p, size_t n) override;

 private:
  Output* out_;
  WrittenPrefix skip_;  // what is left of it
  uint32_t skipped_crc_ = 0;
  bool keep_crc_;
  WrittenPrefix written_;
  bool mismatch_ = false;
};

// Receives the files a verb creates (vtune-csv). The default creates real
// files in a directory; tests collect them in memory.
class OutputFactory {
 public:
  virtual ~OutputFactory() = default;
  virtual absl::StatusOr<std::unique_ptr<Output>> Create(const std::string& file_name) = 0;
};

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_OUTPUT_H_
