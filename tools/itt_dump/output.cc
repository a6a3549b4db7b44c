#include "tools/itt_dump/output.h"

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>

#include "format/crc32c.h"

namespace ittc {
namespace itt_dump {

Output::Output(size_t buffer_size) : buffer_size_(buffer_size), buf_(new char[buffer_size]) {}

Output::~Output() = default;

void Output::Spill(std::string_view s) {
  Pass();
  if (s.size() >= buffer_size_) {
    if (good()) WriteRaw(s.data(), s.size());
    return;
  }
  std::memcpy(buf_.get(), s.data(), s.size());
  used_ = s.size();
}

RewrittenOutput::~RewrittenOutput() { Output::Flush(); }

void RewrittenOutput::Finish() {
  Flush();
  out_->Flush();
  if (skip_.bytes != 0) mismatch_ = true;
}

void RewrittenOutput::WriteRaw(const char* p, size_t n) {
  if (mismatch_) return;
  written_.bytes += n;
  if (keep_crc_) written_.crc = format::crc32c::Extend(written_.crc, p, n);
  if (skip_.bytes != 0) {
    const size_t k = static_cast<size_t>(std::min<uint64_t>(skip_.bytes, n));
    skipped_crc_ = format::crc32c::Extend(skipped_crc_, p, k);
    skip_.bytes -= k;
    p += k;
    n -= k;
    if (skip_.bytes != 0) return;
    if (skipped_crc_ != skip_.crc) {
      mismatch_ = true;
      return;
    }
  }
  out_->WriteUnbuffered(std::string_view(p, n));
  SetState(out_->broken(), out_->status());
}

void RewrittenOutput::WriteRawWithCrc(const char* p, size_t n, uint32_t crc) {
  // (Skipping part of it takes the CRC of that part.)
  if (mismatch_ || skip_.bytes != 0) return WriteRaw(p, n);
  written_.bytes += n;
  if (keep_crc_) written_.crc = format::crc32c::Combine(written_.crc, crc, n);
  out_->WriteUnbuffered(std::string_view(p, n));
  SetState(out_->broken(), out_->status());
}

ThreadedOutput::ThreadedOutput(Output* out)
    : Output(kBufferBytes), out_(out), thread_([this] { Run(); }) {}

ThreadedOutput::~ThreadedOutput() {
  Flush();
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  work_cv_.notify_one();
  thread_.join();
}

bool ThreadedOutput::Flush() {
  Pass();
  Drain();
  // The thread is idle until the next batch: out_ is this thread's.
  out_->Flush();
  SetState(out_->broken(), out_->status());
  return good();
}

void ThreadedOutput::WriteRaw(const char* p, size_t n) {
  Drain();
  if (!good()) return;
  out_->WriteUnbuffered(std::string_view(p, n));
  SetState(out_->broken(), out_->status());
  std::lock_guard<std::mutex> lock(mu_);
  out_broken_ = broken();
  out_status_ = status();
}

void ThreadedOutput::WriteBuffer(std::unique_ptr<char[]>* buf, size_t n) {
  std::unique_lock<std::mutex> lock(mu_);
  queue_.push_back({std::move(*buf), n, std::string()});
  Queued(&lock);
  if (free_.empty() && buffers_ < kBuffers) {
    ++buffers_;
    buf->reset(new char[kBufferBytes]);
  } else {
    WaitDone(&lock, [this] { return !free_.empty(); });
    *buf = std::move(free_.back());
    free_.pop_back();
  }
  CopyState();
}

void ThreadedOutput::WriteTaken(std::string* s, uint32_t crc) {
  Pass();
  if (s->empty()) return;
  std::unique_lock<std::mutex> lock(mu_);
  WaitDone(&lock, [this] { return taken_queued_ < kBuffers; });
  CopyState();
  if (!good()) {
    s->clear();
    return;
  }
  Batch batch;
  batch.taken.swap(*s);
  batch.size = batch.taken.size();
  batch.crc = crc;
  queue_.push_back(std::move(batch));
  ++taken_queued_;
  if (!free_taken_.empty()) {
    s->swap(free_taken_.back());
    free_taken_.pop_back();
  }
  Queued(&lock);
}

void ThreadedOutput::Queued(std::unique_lock<std::mutex>* lock) {
  if (queue_.size() >= kWakeBatches) Notify(lock, &work_cv_);
}

void ThreadedOutput::Notify(std::unique_lock<std::mutex>* lock, std::condition_variable* cv) {
  lock->unlock();
  cv->notify_all();
  lock->lock();
}

template <typename Ready>
void ThreadedOutput::WaitDone(std::unique_lock<std::mutex>* lock, Ready ready) {
  if (ready()) return;
  // What is queued may be waiting for a wake-up (Queued): it gets one.
  if (!queue_.empty()) Notify(lock, &work_cv_);
  done_cv_.wait(*lock, ready);
}

void ThreadedOutput::Drain() {
  std::unique_lock<std::mutex> lock(mu_);
  WaitDone(&lock, [this] { return queue_.empty() && !busy_; });
  CopyState();
}

void ThreadedOutput::Run() {
  // Named for profilers, and for the benchmark: one thread's work.
  pthread_setname_np(pthread_self(), "itt-dump-out");
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    work_cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stop_, and nothing is left
    Batch batch = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    if (out_->good()) {
      if (batch.buf != nullptr) {
        out_->WriteUnbuffered(std::string_view(batch.buf.get(), batch.size));
      } else {
        out_->WriteUnbuffered(batch.taken, batch.crc);
      }
    }
    const bool broken = out_->broken();
    absl::Status status = out_->status();
    lock.lock();
    out_broken_ = broken;
    out_status_ = std::move(status);
    busy_ = false;
    if (batch.buf != nullptr) {
      free_.push_back(std::move(batch.buf));
    } else {
      --taken_queued_;
      // Handed back as it is (WriteTaken): its next run is sized in it,
      // and a resize that zero-filled it was 6% of `text`'s CPU.
      if (free_taken_.size() < kFreeTaken) free_taken_.push_back(std::move(batch.taken));
    }
    Notify(&lock, &done_cv_);
  }
}

namespace {

class FdOutputImpl : public Output {
 public:
  FdOutputImpl(int fd, std::string name, bool owned)
      : fd_(fd), name_(std::move(name)), owned_(owned) {}
  ~FdOutputImpl() override {
    Flush();
    if (owned_) close(fd_);
  }

 protected:
  void WriteRaw(const char* p, size_t n) override {
    while (n > 0) {
      const ssize_t w = write(fd_, p, n);
      if (w < 0) {
        if (errno == EINTR) continue;
        if (errno == EPIPE) {
          SetState(true, status());
        } else {
          SetState(broken(), absl::ErrnoToStatus(errno, name_));
        }
        return;
      }
      p += w;
      n -= static_cast<size_t>(w);
    }
  }

 private:
  int fd_;
  std::string name_;
  bool owned_;
};

class StringOutputImpl : public Output {
 public:
  StringOutputImpl(std::string* dst, size_t limit) : dst_(dst), limit_(limit) {}
  ~StringOutputImpl() override { Flush(); }

 protected:
  void WriteRaw(const char* p, size_t n) override {
    const size_t room = limit_ > dst_->size() ? limit_ - dst_->size() : 0;
    dst_->append(p, n < room ? n : room);
  }

 private:
  std::string* dst_;
  size_t limit_;
};

}  // namespace

std::unique_ptr<Output> FdOutput(int fd, std::string name, bool owned) {
  return std::make_unique<FdOutputImpl>(fd, std::move(name), owned);
}

absl::StatusOr<std::unique_ptr<Output>> FileOutput(const std::string& path) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return absl::ErrnoToStatus(errno, path);
  return FdOutput(fd, path, /*owned=*/true);
}

std::unique_ptr<Output> StringOutput(std::string* dst, size_t limit) {
  return std::make_unique<StringOutputImpl>(dst, limit);
}

}  // namespace itt_dump
}  // namespace ittc
