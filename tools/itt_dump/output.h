// Buffered output for itt-dump's verbs: to a file descriptor (stdout, a file)
// or to a string (tests, the fuzz target).
//
// A closed pipe (the reader was `head`) is not an error: the output becomes
// "broken", further writes are dropped, and the verb stops early and exits 0.
// Any other write error is kept in status() for the caller to report.
//
// ThreadedOutput moves the writing (and whatever the output it feeds does
// with the bytes: RewrittenOutput's CRC, write(2)) off the thread that
// formats them.
//
// Thread safety: one Output per thread (a ThreadedOutput's inner output is
// its thread's while the bytes are passed on), but good() may be asked by
// another thread while one writes (the perfetto writer's compressor writes
// while the verb's pass asks whether to go on).

#ifndef TOOLS_ITT_DUMP_OUTPUT_H_
#define TOOLS_ITT_DUMP_OUTPUT_H_

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

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
    if (s.size() > buffer_size_ - used_) {
      Spill(s);
      return;
    }
    std::memcpy(buf_.get() + used_, s.data(), s.size());
    used_ += s.size();
  }
  void Put(char c) {
    if (used_ == buffer_size_) Pass();
    buf_[used_++] = c;
  }
  // Writes everything buffered (a ThreadedOutput: everything it was given,
  // and flushes its inner output). Returns false once the output is broken
  // or failed.
  virtual bool Flush() {
    Pass();
    return good();
  }
  // Writes what is buffered, then `s` without copying it.
  void WriteUnbuffered(std::string_view s) {
    Pass();
    if (good() && !s.empty()) WriteRaw(s.data(), s.size());
  }
  // Writes what is buffered, then `s`, whose CRC32C is `crc`, without
  // copying it.
  void WriteUnbuffered(std::string_view s, uint32_t crc) {
    Pass();
    if (good() && !s.empty()) WriteRawWithCrc(s.data(), s.size(), crc);
  }
  // WriteUnbuffered(*s, crc), taking *s (leaving another string there,
  // of any bytes, for the caller to size: a resize to a size it had
  // fills nothing): a ThreadedOutput hands it to its thread without a
  // copy.
  virtual void WriteTaken(std::string* s, uint32_t crc) { WriteUnbuffered(*s, crc); }

  // The reader went away (EPIPE): stop producing, exit quietly.
  bool broken() const { return broken_; }
  // OK, or the first write error other than EPIPE.
  const absl::Status& status() const { return status_; }
  // Neither broken nor failed: worth producing more.
  bool good() const { return !bad_.load(std::memory_order_relaxed); }

 protected:
  static constexpr size_t kBufferSize = 64 << 10;
  explicit Output(size_t buffer_size = kBufferSize);
  // Writes n bytes; on failure, SetState.
  virtual void WriteRaw(const char* p, size_t n) = 0;
  // The same, with their CRC32C (an output that takes the CRC of what it
  // writes need not).
  virtual void WriteRawWithCrc(const char* p, size_t n, uint32_t crc) { WriteRaw(p, n); }
  // Writes the n bytes of the full buffer *buf: WriteRaw, or an output
  // takes the buffer and leaves another of the same size in *buf.
  virtual void WriteBuffer(std::unique_ptr<char[]>* buf, size_t n) { WriteRaw(buf->get(), n); }
  // Writes what is buffered (WriteBuffer), if the output is good.
  void Pass() {
    if (used_ != 0 && good()) WriteBuffer(&buf_, used_);
    used_ = 0;
  }
  // Forgets what is buffered.
  void DropBuffered() { used_ = 0; }

  // Takes on a state: broken, or failed with `status` (not OK).
  void SetState(bool broken, const absl::Status& status) {
    broken_ = broken;
    status_ = status;
    bad_.store(broken || !status.ok(), std::memory_order_relaxed);
  }

 private:
  void Spill(std::string_view s);

  bool broken_ = false;
  absl::Status status_;
  std::atomic<bool> bad_{false};  // !good(), for a thread that does not write

  size_t buffer_size_;
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
  void WriteRawWithCrc(const char* p, size_t n, uint32_t crc) override;

 private:
  Output* out_;
  WrittenPrefix skip_;  // what is left of it
  uint32_t skipped_crc_ = 0;
  bool keep_crc_;
  WrittenPrefix written_;
  bool mismatch_ = false;
};

// Passes what it is given on to `out` on a thread of its own, in order, in
// buffers of 1 MiB: the thread that writes to it only formats, and the
// writes `out` makes (and what it does first: RewrittenOutput's CRC) run
// beside it. Up to kBuffers buffers are in use; a writer that gets ahead
// of `out` by that much waits. The thread starts on the buffers once six
// wait, or when the writer must wait for it (a full queue, Flush, bytes
// too many for a buffer): what it is given reaches `out` five buffers late
// at most. Flush() returns once `out` has everything
// and is flushed. A write error or a broken pipe shows in good() a few
// buffers later than on `out` itself (what follows is dropped, as `out`
// would). `out` must outlive it and is not to be touched by others until
// the ThreadedOutput is flushed or destroyed.
class ThreadedOutput final : public Output {
 public:
  explicit ThreadedOutput(Output* out);
  ~ThreadedOutput() override;
  bool Flush() override;

  static constexpr size_t kBufferBytes = 1 << 20;
  static constexpr size_t kBuffers = 8;  // more than kWakeBatches
  // Queues *s for the thread (at most kBuffers of them at once).
  void WriteTaken(std::string* s, uint32_t crc) override;

 protected:
  // Bytes too many for a buffer (Spill, WriteUnbuffered): written to `out`
  // on the calling thread once the thread has written what came before.
  void WriteRaw(const char* p, size_t n) override;
  void WriteBuffer(std::unique_ptr<char[]>* buf, size_t n) override;

 private:
  struct Batch {
    std::unique_ptr<char[]> buf;  // or, if null, `taken`, whose CRC32C is `crc`
    size_t size = 0;
    std::string taken;
    uint32_t crc = 0;
  };
  void Run();
  // Waits until the thread has written every batch; copies out_'s state.
  void Drain();
  // After a batch is queued: wakes the thread once kWakeBatches wait, not
  // for each (a wake-up of a thread that drained the queue, once per run
  // of the pass on every core, was a sixth of `text`'s reading thread;
  // once per two, still a fifth of it once the reading thread ran the
  // runs it had waited for: 2026-12-01); whoever waits for the thread
  // wakes it first (WaitDone).
  void Queued(std::unique_lock<std::mutex>* lock);
  static constexpr size_t kWakeBatches = 6;
  // Notifies `cv` (one thread waits on each) with `lock` (on mu_) let go:
  // woken while it is held, that thread would only wait for it again, a
  // second sleep and wake-up per batch.
  static void Notify(std::unique_lock<std::mutex>* lock, std::condition_variable* cv);
  // Waits on done_cv_ until `ready` (under mu_, held by `lock`), waking
  // the thread first if batches are queued.
  template <typename Ready>
  void WaitDone(std::unique_lock<std::mutex>* lock, Ready ready);
  void CopyState() { SetState(out_broken_, out_status_); }  // REQUIRES: mu_ held

  Output* out_;
  std::mutex mu_;
  std::condition_variable work_cv_;  // a batch, or stop_
  std::condition_variable done_cv_;  // a batch written
  std::deque<Batch> queue_;
  std::vector<std::unique_ptr<char[]>> free_;
  // Strings written, for WriteTaken to hand back (a few more than are
  // queued: their writers keep several in flight).
  static constexpr size_t kFreeTaken = 16;
  std::vector<std::string> free_taken_;
  size_t taken_queued_ = 0;  // strings in queue_
  size_t buffers_ = 1;       // made so far, the base's included
  bool busy_ = false;        // the thread is writing a batch
  bool stop_ = false;
  bool out_broken_ = false;  // out_'s, as of the last batch written
  absl::Status out_status_;
  std::thread thread_;  // last: starts once the rest is set up
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
