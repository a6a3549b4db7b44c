#include "format/trace_reader.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "format/coding.h"
#include "format/crc32c.h"

namespace ittc {
namespace format {
namespace {

class FileSource : public ByteSource {
 public:
  explicit FileSource(int fd) : fd_(fd) {
    struct stat st {};
    if (fstat(fd_, &st) == 0 && S_ISREG(st.st_mode)) {
      positional_ = true;
      size_ = static_cast<uint64_t>(st.st_size);
    }
  }
  ~FileSource() override { close(fd_); }
  bool Positional() const override { return positional_; }
  uint64_t SizeHint() const override { return size_; }

  absl::StatusOr<size_t> ReadAt(char* buf, size_t n, uint64_t offset) override {
    size_t got = 0;
    while (got < n) {
      const ssize_t r = pread(fd_, buf + got, n - got, static_cast<off_t>(offset + got));
      if (r == 0) break;
      if (r > 0) {
        got += static_cast<size_t>(r);
      } else if (errno != EINTR) {
        // What came before the failure is the data's, as read(2) would
        // return it; the next call meets the failure.
        if (got > 0) break;
        return absl::ErrnoToStatus(errno, "read");
      }
    }
    return got;
  }

  absl::StatusOr<size_t> Read(char* buf, size_t n) override {
    for (;;) {
      const ssize_t r = read(fd_, buf, n);
      if (r >= 0) return static_cast<size_t>(r);
      if (errno != EINTR) {
        return absl::ErrnoToStatus(errno, "read");
      }
    }
  }

 private:
  int fd_;
  bool positional_ = false;  // a regular file
  uint64_t size_ = 0;        // when opened
};

class StringSource : public ByteSource {
 public:
  explicit StringSource(std::string_view data) : data_(data) {}
  absl::StatusOr<size_t> Read(char* buf, size_t n) override {
    const absl::StatusOr<size_t> r = ReadAt(buf, n, pos_);
    pos_ += *r;
    return r;
  }
  bool Positional() const override { return true; }
  uint64_t SizeHint() const override { return data_.size(); }
  absl::StatusOr<size_t> ReadAt(char* buf, size_t n, uint64_t offset) override {
    if (offset >= data_.size()) return 0;
    n = std::min<size_t>(n, data_.size() - static_cast<size_t>(offset));
    if (n > 0) std::memcpy(buf, data_.data() + offset, n);
    return n;
  }

 private:
  const std::string_view data_;
  uint64_t pos_ = 0;  // Read's
};

// Smallest read from the source; keeps read(2) calls few.
constexpr size_t kReadSize = 256 << 10;

}  // namespace

absl::StatusOr<std::unique_ptr<ByteSource>> OpenFileSource(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::ErrnoToStatus(errno, path);
  return std::unique_ptr<ByteSource>(new FileSource(fd));
}

std::unique_ptr<ByteSource> MemorySource(std::string_view data) {
  return std::unique_ptr<ByteSource>(new StringSource(data));
}

int OnlineCpus() {
  // Asked once: glibc reads /sys/devices/system/cpu/online at every call
  // (an open, a read and a close; 494 calls in one stats pass over the
  // 64 M-event trace, on the reading thread).
  static const int cpus = [] {
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? static_cast<int>(n) : 1;
  }();
  return cpus;
}

namespace {

// ThisThreadQueuedWorkCpuNs's.
thread_local uint64_t queued_work_cpu_ns = 0;

uint64_t ThreadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace

uint64_t ThisThreadQueuedWorkCpuNs() { return queued_work_cpu_ns; }

ReaderOptions ReaderOptions::Parallel() {
  ReaderOptions o;
  o.workers = OnlineCpus();
  return o;
}

namespace {

// Bytes that grow without zeroing what they add: the reader writes every
// byte it uses (read(2), zstd) before it looks at it, and zeroing a 256 KiB
// window or a 512 KiB payload per file opened showed in profiles of sets of
// many small files.
class ByteBuffer {
 public:
  char* data() { return data_.get(); }
  const char* data() const { return data_.get(); }
  size_t size() const { return size_; }
  // Makes size() at least n (growing by half at least), keeping the first
  // `keep` bytes. REQUIRES: keep <= size().
  void Grow(size_t n, size_t keep) {
    if (n <= size_) return;
    n = std::max(n, size_ + size_ / 2);
    std::unique_ptr<char[]> bigger(new char[n]);  // default-initialized: not zeroed
    if (keep > 0) std::memcpy(bigger.get(), data_.get(), keep);
    data_ = std::move(bigger);
    size_ = n;
  }

 private:
  std::unique_ptr<char[]> data_;
  size_t size_ = 0;
};

class Workers;

// The last of `spares`, taken off, or a new T if there is none.
template <typename T>
std::unique_ptr<T> Reuse(std::vector<std::unique_ptr<T>>* spares) {
  if (spares->empty()) return std::make_unique<T>();
  std::unique_ptr<T> t = std::move(spares->back());
  spares->pop_back();
  return t;
}

// A read ahead of the scan on a worker (Window::Prefetch): `bytes` of a
// positional source at `offset`, into `buf` after `headroom` bytes left for
// what the scan has not passed when it gets there.
//
// Thread safety: the window writes the fields before Submit and reads the
// result after RunOrWait (both under the pool's lock: Workers); Run, on
// one thread in between, writes only `got` and `status` and the bytes.
struct ReadTask : public PoolTask {
  void Run() override {
    absl::StatusOr<size_t> r = source->ReadAt(buf.get() + headroom, bytes, offset);
    if (r.ok()) {
      got = *r;
    } else {
      status = r.status();
    }
  }

  ByteSource* source = nullptr;
  uint64_t offset = 0;
  std::shared_ptr<char> buf;
  size_t size = 0;  // buf's
  size_t headroom = 0;
  size_t bytes = 0;
  // The result, once run.
  size_t got = 0;
  absl::Status status;
};

// The input: a window of the file's bytes. The scan position is head_; the
// bytes from the keep offset the caller passes to Fill (the oldest chunk
// it may rescan from) up to the scan position stay readable (Rewind).
//
// Bytes stay where they were read: the buffer the window reads into next
// gets only the bytes not scanned yet, and the buffers before it stay as
// the history (history_) while they hold bytes the caller keeps. A parallel
// reader's workers read their chunks where the window read them (Hold).
// So no byte is copied again for its worker, nor for the scan, however far
// the oldest chunk in flight is behind (with 20 chunks of 32 KiB in flight,
// moving the kept bytes down at every read copied every byte of the file
// about twice more). A buffer is written again only once nobody holds it.
//
// With Prefetch (a parallel reader of a positional source), the reads are
// the workers': each reads up to kPrefetchBytes ahead, into a buffer with
// room before its bytes for those the scan has not passed when it gets
// there (moved there: the only copy), and Fill takes from it what the
// serial window's read(2) would have given. The read(2) calls were a third
// of the reading thread's time in a `stats` pass (copying the file out of
// the page cache), work that any thread can do.
class Window {
 public:
  explicit Window(std::unique_ptr<ByteSource> source) : source_(std::move(source)) {}

  // Reads ahead on `workers` from now on, `depth` reads at most in flight,
  // if the source is positional. REQUIRES: nothing read yet.
  void Prefetch(Workers* workers, size_t depth);
  // Stops the reads ahead (before the workers go). Idempotent.
  void StopPrefetch();

  // Makes at least n bytes available at data() unless the data ends first
  // or a read fails (then status() is not OK from then on). Returns the
  // number available. Bytes before `keep` (a file offset <= offset()) may
  // be dropped. REQUIRES: n bounded by the format limits.
  //
  // Each read asks for what the serial reader's 256 KiB window would, so
  // that bytes_read() follows the same steps whatever is kept.
  size_t Fill(size_t n, uint64_t keep) {
    if (tail_ - head_ >= n || eof_) return tail_ - head_;
    read_size_ = std::max({read_size_, n, kReadSize});
    if (workers_ != nullptr) return FillAhead(n, keep);
    MoveOn(keep);
    while (tail_ - head_ < n && !eof_) {
      const size_t want = read_size_ - (tail_ - head_);
      absl::StatusOr<size_t> r = source_->Read(block_.bytes() + tail_, want);
      if (!r.ok()) {
        status_ = r.status();
        eof_ = true;
      } else if (*r == 0) {
        eof_ = true;
      } else {
        tail_ += *r;
      }
    }
    filled_ = tail_;
    return tail_ - head_;
  }
  // Fill, dropping everything before the scan position.
  size_t Fill(size_t n) { return Fill(n, offset()); }

  const char* data() const { return block_.bytes() + head_; }
  size_t available() const { return tail_ - head_; }
  uint64_t offset() const { return base_ + head_; }
  uint64_t bytes_read() const { return base_ + tail_; }
  void Consume(size_t n) { head_ += n; }
  // Moves the scan position back to `offset`, a kept byte.
  void Rewind(uint64_t offset) {
    if (offset < base_) Gather(offset);
    head_ = static_cast<size_t>(offset - base_);
  }
  // The first read error; it ends the data.
  const absl::Status& status() const { return status_; }
  // Keeps the bytes in the window now where they are while it is held.
  std::shared_ptr<const void> Hold() const { return block_.buf; }

 private:
  // A buffer the window reads into, shared with the workers that hold it:
  // its bytes from `skip` on (a read ahead's, after the part of its room
  // that the bytes moved there left).
  struct Block {
    std::shared_ptr<char> buf;
    size_t size = 0;  // the buffer's
    size_t skip = 0;
    char* bytes() const { return buf.get() + skip; }
    size_t room() const { return size - skip; }
  };
  // Kept bytes [begin, end) of the file in an earlier block, whose first
  // byte is at file offset `base`.
  struct Segment {
    Block block;
    uint64_t base = 0;
    uint64_t begin = 0;
    uint64_t end = 0;
  };
  // Buffers left when they were held, to use again once let go: as many
  // as the buffers a reader's chunks in flight may hold (one held beyond
  // them is freed when let go).
  static constexpr size_t kMaxSpares = 64;
  // The most a read ahead asks for, unless a read(2) asks for more (less
  // near the source's end as it was opened: a small file's reader holds no
  // more than the file).
  static constexpr size_t kPrefetchBytes = size_t{1} << 20;

  // The size of the blocks a read takes: a read(2)'s, or with Prefetch a
  // read ahead's with its room (one near the source's end may be smaller,
  // and is not kept once let go: blocks that no read takes would sit among
  // the spares, past the memory bound).
  size_t SpareSize() const { return workers_ != nullptr ? read_size_ + AheadBytes() : read_size_; }
  // The most a read ahead asks for: at least what a read(2) would, so that
  // the bytes not scanned yet (less than that) are moved once per read.
  size_t AheadBytes() const { return std::max(kPrefetchBytes, read_size_); }

  // Drops the history before `keep`.
  void DropHistory(uint64_t keep) {
    while (!history_.empty() && history_.front().end <= keep) {
      Keep(std::move(history_.front().block));
      history_.pop_front();
    }
  }

  // Readies block_ for a read of up to read_size_ bytes after the bytes not
  // scanned yet: they go to the start of a buffer nobody holds, and the
  // scanned bytes from `keep` on stay in the history.
  void MoveOn(uint64_t keep) {
    DropHistory(keep);
    const size_t unscanned = tail_ - head_;
    const bool kept_here = head_ > 0 && keep < offset();
    char* const from = block_.bytes();
    if (!kept_here && block_.buf.use_count() <= 1 && read_size_ <= block_.room()) {
      // Not zeroed: every byte used is read first.
      if (head_ > 0) std::memmove(from, from + head_, unscanned);
    } else {
      Block next = TakeSpare(read_size_);
      if (unscanned > 0) std::memcpy(next.bytes(), from + head_, unscanned);
      LeaveBlock(keep);
      block_ = std::move(next);
    }
    base_ += head_;
    tail_ = unscanned;
    filled_ = tail_;
    head_ = 0;
  }
  // Puts block_ in the history if it holds kept bytes before the scan
  // position (from `keep`), else among the spares.
  void LeaveBlock(uint64_t keep) {
    if (head_ > 0 && keep < offset()) {
      history_.push_back({std::move(block_), base_, std::max(keep, base_), offset()});
    } else {
      Keep(std::move(block_));
    }
  }

  // Fill's loop with Prefetch: each "read" takes what read(2) would give
  // from the reads ahead.
  size_t FillAhead(size_t n, uint64_t keep);
  // Makes the next bytes of the source follow block_'s [head_, filled_) in
  // a block, from the oldest read ahead. False at the end of the data or
  // on a read error (status_, unless `mid_read`: part-way through one of
  // the serial window's reads, which returns short there and meets the
  // error at its next call).
  bool TakeRead(uint64_t keep, bool mid_read);
  // Hands reads to the workers until `depth_` are in flight.
  void IssueReads();

  // A block of at least `size` bytes nobody holds.
  Block TakeSpare(size_t size) {
    for (size_t i = 0; i < spares_.size(); ++i) {
      if (spares_[i].buf.use_count() == 1 && spares_[i].size >= size) {
        Block b = std::move(spares_[i]);
        spares_.erase(spares_.begin() + static_cast<std::ptrdiff_t>(i));
        return b;
      }
    }
    return NewBlock(size);
  }
  static Block NewBlock(size_t size) {
    return {std::shared_ptr<char>(new char[size], std::default_delete<char[]>()), size};
  }
  // Keeps a block the window is done with for TakeSpare, if it may serve
  // (a smaller one than a read needs never will: read_size_ only grows).
  void Keep(Block block) {
    block.skip = 0;  // all of it, once nobody holds it
    if (block.buf == nullptr || block.size < SpareSize()) return;
    if (spares_.size() == kMaxSpares) spares_.erase(spares_.begin());
    spares_.push_back(std::move(block));
  }

  // Makes block_ start at file offset `from` (in the history) again: the
  // kept bytes from there and the block's. Only a rescan gets here.
  void Gather(uint64_t from) {
    const size_t bytes = static_cast<size_t>(base_ + filled_ - from);
    Block all = NewBlock(std::max(bytes, SpareSize()));
    size_t at = 0;
    for (const Segment& seg : history_) {
      if (seg.end <= from) continue;
      const uint64_t begin = std::max(seg.begin, from);
      std::memcpy(all.bytes() + at, seg.block.bytes() + (begin - seg.base),
                  static_cast<size_t>(seg.end - begin));
      at += static_cast<size_t>(seg.end - begin);
    }
    std::memcpy(all.bytes() + at, block_.bytes(), filled_);
    history_.clear();
    tail_ = static_cast<size_t>(base_ + tail_ - from);
    block_ = std::move(all);
    base_ = from;
    filled_ = bytes;
  }

  std::unique_ptr<ByteSource> source_;
  Block block_;
  std::vector<Block> spares_;
  std::deque<Segment> history_;  // in file order, up to base_
  size_t head_ = 0;
  size_t tail_ = 0;
  // Bytes of block_ read from the source: tail_, or with Prefetch up to
  // the end of the read ahead it came from (past what Fill gave).
  size_t filled_ = 0;
  uint64_t base_ = 0;  // file offset of block_'s first byte
  size_t read_size_ = 0;
  bool eof_ = false;
  absl::Status status_;
  // With Prefetch.
  Workers* workers_ = nullptr;
  size_t depth_ = 0;
  std::deque<std::unique_ptr<ReadTask>> reads_;  // in flight, in file order
  std::vector<std::unique_ptr<ReadTask>> spare_reads_;
  uint64_t next_read_ = 0;   // the offset the next read ahead starts at
  bool short_read_ = false;  // the last read ahead taken ended the data then
};

// One chunk the framing scan found: its header passed its CRC and limits
// and all its bytes are present. Verify() decides the rest.
struct Job {
  enum class State { kIdle, kQueued, kRunning, kDone };

  // Set by the scan.
  uint64_t offset = 0;
  uint16_t type = 0;
  uint16_t flags = 0;
  uint32_t stored_len = 0;
  uint32_t decompressed_len = 0;
  uint64_t sequence = 0;
  std::string_view bytes;  // header + stored payload
  // A parallel reader's hold on the window's bytes `bytes` views
  // (Window::Hold), until retired.
  std::shared_ptr<const void> hold;

  // Set by Verify.
  bool crc_ok = false;
  const char* failure = nullptr;  // why the payload is unusable, if it is
  std::string_view payload;
  ByteBuffer output;                      // decompressed payload
  const ChunkDecoder* decoder = nullptr;  // its reader's
  std::unique_ptr<DecodedChunk> decoded;  // the ChunkDecoder's result

  State state = State::kIdle;  // guarded by Workers::mu_ once submitted
  int waiters = 0;             // threads waiting for kDone (Workers::mu_)
};

bool Understood(uint16_t type, uint16_t flags) {
  return IsKnownChunkType(type) && (flags & kChunkFlagsMustUnderstand & ~kChunkFlagsKnown) == 0;
}

// The chunk Next() returns for `job`.
Chunk ToChunk(const Job& job) {
  Chunk c;
  c.type = static_cast<ChunkType>(job.type);
  c.flags = job.flags;
  c.sequence = job.sequence;
  c.offset = job.offset;
  c.stored_size = job.bytes.size();
  c.payload = job.payload;
  c.decoded = job.decoded.get();
  return c;
}

void DecodePayload(Job* job, ZSTD_DCtx* dctx);

// The per-chunk work that needs no state outside the chunk: the chunk CRC,
// then, for a chunk that will be returned if its sequence is right, the
// payload and the decoder's work on it. Runs on a worker or on the
// reader's thread.
void Verify(Job* job, ZSTD_DCtx* dctx, const ChunkDecoder* decoder) {
  const char* p = job->bytes.data();
  uint32_t crc = crc32c::Value(p, 28);
  crc = crc32c::Extend(crc, p + kChunkHeaderSize, job->stored_len);
  job->crc_ok = crc == DecodeFixed32(p + 28);
  job->failure = nullptr;
  job->payload = std::string_view();
  if (!job->crc_ok || !Understood(job->type, job->flags)) return;
  DecodePayload(job, dctx);
  if (job->failure != nullptr || decoder == nullptr) return;
  if (job->decoded == nullptr) job->decoded = decoder->NewResult();
  decoder->Decode(ToChunk(*job), job->decoded.get());
}

// Sets job->payload, or job->failure.
void DecodePayload(Job* job, ZSTD_DCtx* dctx) {
  const char* stored = job->bytes.data() + kChunkHeaderSize;
  const uint32_t stored_len = job->stored_len;
  const uint32_t size = job->decompressed_len;
  if ((job->flags & kChunkFlagZstd) == 0) {
    if (size != stored_len) {
      job->failure = "uncompressed chunk with mismatched lengths";
    } else {
      job->payload = std::string_view(stored, stored_len);
    }
    return;
  }
  if (ZSTD_getFrameContentSize(stored, stored_len) != size) {
    job->failure = "zstd frame size does not match the chunk header";
    return;
  }
  if (ZSTD_findFrameCompressedSize(stored, stored_len) != stored_len) {
    job->failure = "payload is not exactly one zstd frame";
    return;
  }
  job->output.Grow(std::max<size_t>(size, 1), 0);  // a valid pointer even for 0 bytes
  const size_t n = ZSTD_decompressDCtx(dctx, job->output.data(), size, stored, stored_len);
  if (ZSTD_isError(n)) {
    job->failure = "bad zstd frame";
  } else if (n != size) {
    job->failure = "zstd frame decompressed to the wrong size";
  } else {
    job->payload = std::string_view(job->output.data(), size);
  }
}

// Worker threads running Verify on submitted jobs (with each job's
// reader's decoder), oldest first.
//
// Thread safety: mu_ guards queue_, stop_ and every submitted job's state.
// A job's other fields are written by the reader before Submit (published
// by mu_), by whoever moves its state to kRunning while it runs, and read
// by the reader once it has seen kDone under mu_ (which the runner set
// under mu_ after its writes).
class Workers {
 public:
  explicit Workers(int n) {
    threads_.reserve(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) threads_.emplace_back([this] { Run(); });
  }
  ~Workers() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    work_cv_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

  void Submit(Job* job) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      job->state = Job::State::kQueued;
      queue_.push_back({job, nullptr});
    }
    work_cv_.notify_one();
  }

  // PoolTask::pool_state's values.
  static constexpr int kTaskQueued = 1;
  static constexpr int kTaskDone = 2;
  static constexpr int kTaskRunning = 3;

  void Submit(PoolTask* task) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      task->pool_state = kTaskQueued;
      queue_.push_back({nullptr, task});
    }
    work_cv_.notify_one();
  }

  bool Done(const PoolTask* task) {
    std::lock_guard<std::mutex> lock(mu_);
    return task->pool_state == kTaskDone;
  }

  // Unlike Finish, leaves the task to the workers: whoever waits for it
  // has work of its own (the reading thread), which is what a pool task
  // moves off it.
  void Wait(const PoolTask* task) {
    std::unique_lock<std::mutex> lock(mu_);
    WaitDone(&lock, &task->pool_waiters, [task] { return task->pool_state == kTaskDone; });
  }

  // Returns once `job` is verified. A job no worker has started yet runs
  // on the calling thread, with `dctx`: the reader never idles waiting for
  // a queue it could work on itself.
  void Finish(Job* job, ZSTD_DCtx* dctx) {
    if (!Claim(job)) return;
    const uint64_t start = ThreadCpuNs();
    Verify(job, dctx, job->decoder);
    queued_work_cpu_ns += ThreadCpuNs() - start;
    std::lock_guard<std::mutex> lock(mu_);
    job->state = Job::State::kDone;
  }

  // Returns once no thread touches `job`; its results are not wanted.
  void Cancel(Job* job) {
    if (!Claim(job)) return;
    std::lock_guard<std::mutex> lock(mu_);
    job->state = Job::State::kDone;
  }

  // Returns once the submitted `task` has run: on the calling thread if no
  // worker has started it (as Finish does a job), else on its worker.
  void RunOrWait(PoolTask* task) {
    if (!Claim(task)) return;
    const uint64_t start = ThreadCpuNs();
    task->Run();
    queued_work_cpu_ns += ThreadCpuNs() - start;
    std::lock_guard<std::mutex> lock(mu_);
    task->pool_state = kTaskDone;
  }

  // Returns once no thread runs the submitted `task`, which may not run.
  void Cancel(PoolTask* task) {
    if (!Claim(task)) return;
    std::lock_guard<std::mutex> lock(mu_);
    task->pool_state = kTaskDone;
  }

 private:
  // Takes a queued task off the queue (true: the caller runs it, or
  // drops it), or waits for a running one to finish (false).
  bool Claim(PoolTask* task) {
    std::unique_lock<std::mutex> lock(mu_);
    if (task->pool_state == kTaskQueued) {
      queue_.erase(std::find_if(queue_.begin(), queue_.end(),
                                [task](const Work& w) { return w.task == task; }));
      task->pool_state = kTaskRunning;
      return true;
    }
    WaitDone(&lock, &task->pool_waiters, [task] { return task->pool_state == kTaskDone; });
    return false;
  }

  // Takes a queued job off the queue (true: the caller now runs it), or
  // waits for a running one to finish (false).
  bool Claim(Job* job) {
    std::unique_lock<std::mutex> lock(mu_);
    if (job->state == Job::State::kQueued) {
      queue_.erase(std::find_if(queue_.begin(), queue_.end(),
                                [job](const Work& w) { return w.job == job; }));
      job->state = Job::State::kRunning;
      return true;
    }
    WaitDone(&lock, &job->waiters, [job] { return job->state == Job::State::kDone; });
    return false;
  }

  // Waits on done_cv_ until `done`, counted in *waiters meanwhile (whoever
  // makes it done wakes the waiters only if there are some: NotifyDone).
  template <typename Done>
  void WaitDone(std::unique_lock<std::mutex>* lock, int* waiters, Done done) {
    if (done()) return;
    ++*waiters;
    done_cv_.wait(*lock, done);
    --*waiters;
  }

  void Run() {
    // Named for profilers and for the benchmark, which tells the pool's
    // threads (work on every core) from the threads of one job each.
    pthread_setname_np(pthread_self(), "itt-dump-read");
    ZSTD_DCtx* dctx = ZSTD_createDCtx();
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      work_cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
      if (stop_) break;
      const Work work = queue_.front();
      queue_.pop_front();
      if (work.task != nullptr) {
        work.task->pool_state = kTaskRunning;
        lock.unlock();
        work.task->Run();
        lock.lock();
        work.task->pool_state = kTaskDone;
        if (work.task->pool_waiters > 0) NotifyDone(&lock);
        continue;
      }
      Job* job = work.job;
      job->state = Job::State::kRunning;
      lock.unlock();
      Verify(job, dctx, job->decoder);
      lock.lock();
      job->state = Job::State::kDone;
      if (job->waiters > 0) NotifyDone(&lock);
    }
    lock.unlock();
    ZSTD_freeDCtx(dctx);
  }

  // Tells the waiters that a job or task is done, with `lock` (on mu_)
  // let go: woken while it is held, a waiter (the reading thread) would
  // only wait for it again, a second sleep and wake-up per job. Called
  // only where a thread waits for that one: a wake-up for another's (the
  // reading thread waiting for the oldest of the runs in flight, woken at
  // each of the others) costs it a sleep and a wake-up for nothing, which
  // on a VM was a large part of its time.
  void NotifyDone(std::unique_lock<std::mutex>* lock) {
    lock->unlock();
    done_cv_.notify_all();
    lock->lock();
  }

  std::mutex mu_;
  std::condition_variable work_cv_;  // queue_ not empty, or stop_
  std::condition_variable done_cv_;  // a job or task is done
  // Chunks to verify and tasks, in the order submitted: one of each Work.
  struct Work {
    Job* job;
    PoolTask* task;
  };
  std::deque<Work> queue_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace

void Window::Prefetch(Workers* workers, size_t depth) {
  if (!source_->Positional() || depth == 0) return;
  workers_ = workers;
  depth_ = depth;
}

void Window::StopPrefetch() {
  for (const std::unique_ptr<ReadTask>& r : reads_) workers_->Cancel(r.get());
  reads_.clear();
}

void Window::IssueReads() {
  const uint64_t size_hint = source_->SizeHint();
  while (reads_.size() < depth_ && status_.ok()) {
    // Past the end the source had when opened, one read at a time: it
    // finds the end, or what was appended since.
    const bool past_end = next_read_ >= size_hint;
    if (past_end && !reads_.empty()) return;
    const size_t bytes =
        past_end ? kReadSize
                 : static_cast<size_t>(std::min<uint64_t>(
                       AheadBytes(), std::max<uint64_t>(size_hint - next_read_, kReadSize)));
    std::unique_ptr<ReadTask> r = Reuse(&spare_reads_);
    Block b = TakeSpare(read_size_ + bytes);  // skip 0: the whole buffer
    r->source = source_.get();
    r->offset = next_read_;
    r->buf = std::move(b.buf);
    r->size = b.size;
    r->headroom = read_size_;
    r->bytes = bytes;
    r->got = 0;
    r->status = absl::OkStatus();
    next_read_ += bytes;
    workers_->Submit(r.get());
    reads_.push_back(std::move(r));
  }
}

bool Window::TakeRead(uint64_t keep, bool mid_read) {
  const uint64_t at = base_ + filled_;  // where the bytes taken next start
  if (!status_.ok()) return false;
  // A read came back short (the end of the data then): read on from there.
  if (!reads_.empty() && reads_.front()->offset != at) StopPrefetch();
  if (reads_.empty()) next_read_ = at;
  IssueReads();
  std::unique_ptr<ReadTask> r = std::move(reads_.front());
  reads_.pop_front();
  workers_->RunOrWait(r.get());
  IssueReads();
  const auto recycle = [this](std::unique_ptr<ReadTask> done) {
    Keep({std::move(done->buf), done->size, 0});
    spare_reads_.push_back(std::move(done));
  };
  if (!r->status.ok()) {
    StopPrefetch();
    // Part-way through a read(2), the error comes at the next call: the
    // next TakeRead reads there again.
    if (!mid_read) status_ = r->status;
    recycle(std::move(r));
    return false;
  }
  if (r->got == 0) {
    recycle(std::move(r));
    return false;
  }
  short_read_ = r->got < r->bytes;
  // The bytes not scanned yet go just before the read's, in its room for
  // them if it has enough.
  const size_t unscanned = filled_ - head_;
  Block next;
  if (unscanned <= r->headroom) {
    next = {std::move(r->buf), r->size, r->headroom - unscanned};
  } else {
    next = NewBlock(std::max(unscanned + r->got, SpareSize()));
    std::memcpy(next.bytes() + unscanned, r->buf.get() + r->headroom, r->got);
  }
  if (unscanned > 0) std::memcpy(next.bytes(), block_.bytes() + head_, unscanned);
  LeaveBlock(keep);
  block_ = std::move(next);
  base_ += head_;
  tail_ -= head_;
  head_ = 0;
  filled_ = unscanned + r->got;
  recycle(std::move(r));
  return true;
}

size_t Window::FillAhead(size_t n, uint64_t keep) {
  DropHistory(keep);
  while (tail_ - head_ < n && !eof_) {
    // What the serial window's read(2) of a regular file gives: `want`
    // bytes, fewer only where the data ends.
    const size_t want = read_size_ - (tail_ - head_);
    size_t got = 0;
    while (got < want) {
      if (tail_ == filled_) {
        // read(2) returns what it has where the data ended (a short read
        // ahead) or at a failure; the next call meets the end or error.
        if (got > 0 && short_read_) break;
        if (!TakeRead(keep, /*mid_read=*/got > 0)) break;
      }
      const size_t take = std::min(want - got, filled_ - tail_);
      tail_ += take;
      got += take;
    }
    if (got == 0) eof_ = true;
  }
  return tail_ - head_;
}

class ReaderPool::Threads {
 public:
  explicit Threads(int n) : workers_(n) {}
  Workers* workers() { return &workers_; }

 private:
  Workers workers_;
};

// The chunk-finding state machine of FORMAT.md section 11, in two halves:
//
//  - The scan (Scan) walks the framing: sync markers, header CRCs, length
//    limits, the end of data. It assumes every chunk it finds is intact,
//    reports nothing and appends what it saw to items_: damaged bytes it
//    skipped, a chunk (a Job, handed to the workers), the end of data or a
//    read error. It runs ahead of the consumer by up to max_in_flight
//    chunks.
//  - The consumer (NextChunk) takes the items in order and does everything
//    with an effect: damaged regions, sequence checks, reports, stats. When
//    a chunk's CRC fails it drops the items after it, rewinds the scan to
//    the chunk's second byte and marks its first byte damaged, exactly as
//    the serial state machine does.
//
// With no workers and one chunk in flight this is the serial reader: each
// chunk is verified on the calling thread right after the scan found it.
class TraceReader::Impl {
 public:
  Impl(std::unique_ptr<ByteSource> source, Reporter* reporter, const ReaderOptions& options,
       absl::Status* status, ReaderStats* stats)
      : window_(std::move(source)),
        reporter_(reporter),
        decoder_(options.decoder),
        status_(status),
        stats_(stats) {
    const int workers = std::max(options.workers, 0);
    max_in_flight_ = options.max_in_flight > 0 ? static_cast<size_t>(options.max_in_flight)
                     : workers > 0             ? static_cast<size_t>(2 * workers + 2)
                                               : 1;
    if (workers > 0) {
      own_workers_ = std::make_unique<Workers>(workers);
      workers_ = own_workers_.get();
    } else if (options.pool != nullptr) {
      workers_ = options.pool->threads_->workers();
    }
    // Two reads ahead where several chunks are in flight; one where a pass
    // over many files holds few per file.
    if (workers_ != nullptr) window_.Prefetch(workers_, max_in_flight_ > 2 ? 2 : 1);
    dctx_ = ZSTD_createDCtx();
  }
  ~Impl() {
    window_.StopPrefetch();
    if (own_workers_ != nullptr) {
      own_workers_.reset();  // joins: no worker touches a job after this
    } else if (workers_ != nullptr) {
      // Shared threads go on: none may still hold one of these jobs.
      for (Item& item : items_) {
        if (item.job != nullptr) workers_->Cancel(item.job.get());
      }
    }
    ZSTD_freeDCtx(dctx_);
  }

  Window& window() { return window_; }
  bool NextChunk(Chunk* chunk);
  void ReadAhead() {
    if (workers_ == nullptr) return;
    while (!scan_done_ && chunks_in_flight_ < max_in_flight_) Scan();
  }
  std::unique_ptr<DecodedChunk> TakeDecoded() {
    return current_ != nullptr ? std::move(current_->decoded) : nullptr;
  }

 private:
  struct Item {
    enum class Kind { kSkip, kChunk, kEnd, kError };
    Kind kind = Kind::kSkip;
    uint64_t offset = 0;       // where the skipped bytes, the chunk or the end starts
    uint64_t bytes = 0;        // kSkip: bytes skipped; kEnd: bytes left over
    bool nonzero = false;      // kSkip: some skipped byte is not zero
    const char* reason = "";   // kSkip: why the first byte was skipped; kEnd
    std::unique_ptr<Job> job;  // kChunk
    uint64_t bytes_read = 0;   // the window's bytes_read() when scanned
  };

  // The scan: appends items up to and including the next chunk or the end.
  void Scan();
  void ScanSkip(size_t n, const char* reason);
  void ScanEnd(const char* reason);
  void ScanError();
  void ScanChunk(const char* p, size_t need);
  void PushItem(Item item);
  uint64_t KeepOffset() const { return items_.empty() ? window_.offset() : items_.front().offset; }

  // The consumer.
  void SkipDamaged(uint64_t offset, uint64_t bytes, bool nonzero, const char* reason);
  void FlushDamaged(uint64_t offset);
  void EndAt(const Item& end);
  // The front chunk failed its CRC: forget what the scan found after it.
  void Rescan(uint64_t offset);
  void Retire(std::unique_ptr<Job> job);

  Window window_;
  Reporter* reporter_;
  const ChunkDecoder* decoder_;
  absl::Status* status_;
  ReaderStats* stats_;
  std::unique_ptr<Workers> own_workers_;
  Workers* workers_ = nullptr;  // own_workers_, a pool's, or none
  ZSTD_DCtx* dctx_;
  size_t max_in_flight_ = 1;

  // Scan state.
  std::deque<Item> items_;
  size_t chunks_in_flight_ = 0;  // kChunk items in items_, plus current_
  bool scan_done_ = false;       // items_ ends with kEnd or kError
  bool have_skip_ = false;       // skip_ is being extended
  Item skip_;
  std::vector<std::unique_ptr<Job>> free_jobs_;

  // Consumer state.
  std::unique_ptr<Job> current_;  // holds the payload Next() returned
  bool damaged_ = false;
  bool damaged_nonzero_ = false;
  uint64_t damaged_start_ = 0;
  const char* damaged_reason_ = "";
  bool have_sequence_ = false;
  uint64_t last_sequence_ = 0;
};

void TraceReader::Impl::PushItem(Item item) {
  item.bytes_read = window_.bytes_read();
  items_.push_back(std::move(item));
}

void TraceReader::Impl::ScanSkip(size_t n, const char* reason) {
  const uint64_t offset = window_.offset();
  if (!have_skip_) {
    have_skip_ = true;
    skip_ = Item();
    skip_.kind = Item::Kind::kSkip;
    skip_.offset = offset;
    skip_.reason = reason;
  }
  const char* p = window_.data();
  for (size_t i = 0; i < n && !skip_.nonzero; ++i) {
    if (p[i] != 0) skip_.nonzero = true;
  }
  skip_.bytes += n;
  window_.Consume(n);
}

void TraceReader::Impl::ScanEnd(const char* reason) {
  if (have_skip_) {
    have_skip_ = false;
    PushItem(std::move(skip_));
  }
  Item end;
  end.kind = Item::Kind::kEnd;
  end.offset = window_.offset();
  end.bytes = window_.available();
  end.reason = reason;
  window_.Consume(window_.available());
  PushItem(std::move(end));
  scan_done_ = true;
}

void TraceReader::Impl::ScanError() {
  if (have_skip_) {
    have_skip_ = false;
    PushItem(std::move(skip_));
  }
  Item error;
  error.kind = Item::Kind::kError;
  error.offset = window_.offset();
  PushItem(std::move(error));
  scan_done_ = true;
}

void TraceReader::Impl::ScanChunk(const char* p, size_t need) {
  if (have_skip_) {
    have_skip_ = false;
    PushItem(std::move(skip_));
  }
  std::unique_ptr<Job> job = Reuse(&free_jobs_);
  job->offset = window_.offset();
  job->type = DecodeFixed16(p + 4);
  job->flags = DecodeFixed16(p + 6);
  job->stored_len = DecodeFixed32(p + 8);
  job->decompressed_len = DecodeFixed32(p + 12);
  job->sequence = DecodeFixed64(p + 16);
  job->decoder = decoder_;
  // With workers the window moves on while one reads the chunk (its hold
  // keeps the bytes in place); else it is verified first.
  if (workers_ != nullptr) job->hold = window_.Hold();
  job->bytes = std::string_view(p, need);
  window_.Consume(need);
  Item item;
  item.kind = Item::Kind::kChunk;
  item.offset = job->offset;
  if (workers_ != nullptr) workers_->Submit(job.get());
  item.job = std::move(job);
  PushItem(std::move(item));
  ++chunks_in_flight_;
}

void TraceReader::Impl::Scan() {
  for (;;) {
    const size_t avail = window_.Fill(kChunkHeaderSize, KeepOffset());
    if (avail < kChunkHeaderSize && !window_.status().ok()) {
      ScanError();  // an I/O error is not damage
      return;
    }
    if (avail == 0) {
      ScanEnd("");
      return;
    }
    const char* p = window_.data();
    const size_t sync_n = std::min(avail, sizeof kChunkSync);
    const bool sync_ok = std::memcmp(p, kChunkSync, sync_n) == 0;
    if (avail < kChunkHeaderSize) {
      // The data ends before a whole header: a partial chunk if it starts
      // like one.
      if (sync_ok) {
        ScanEnd("data ends inside a chunk header");
        return;
      }
      ScanSkip(1, "bad chunk sync marker");
      continue;
    }
    if (!sync_ok) {
      // Skip to the next candidate marker in the window.
      const void* hit = std::memchr(p + 1, kChunkSync[0], avail - 1);
      const size_t skip =
          hit == nullptr ? avail : static_cast<size_t>(static_cast<const char*>(hit) - p);
      ScanSkip(skip, "bad chunk sync marker");
      continue;
    }
    if (crc32c::Value(p, 24) != DecodeFixed32(p + 24)) {
      ScanSkip(1, "chunk header checksum mismatch");
      continue;
    }
    const uint32_t stored_len = DecodeFixed32(p + 8);
    const uint32_t decompressed_len = DecodeFixed32(p + 12);
    if (stored_len > kMaxChunkStoredBytes || decompressed_len > kMaxChunkPayloadBytes) {
      ScanSkip(1, "chunk length exceeds the format limit");
      continue;
    }
    const size_t need = kChunkHeaderSize + stored_len;
    const size_t have = window_.Fill(need, KeepOffset());
    if (have < need && !window_.status().ok()) {
      ScanError();
      return;
    }
    if (have < need) {
      ScanEnd("data ends inside a chunk");
      return;
    }
    ScanChunk(window_.data(), need);
    return;
  }
}

void TraceReader::Impl::SkipDamaged(uint64_t offset, uint64_t bytes, bool nonzero,
                                    const char* reason) {
  if (!damaged_) {
    damaged_ = true;
    damaged_nonzero_ = false;
    damaged_start_ = offset;
    damaged_reason_ = reason;
  }
  damaged_nonzero_ = damaged_nonzero_ || nonzero;
}

void TraceReader::Impl::FlushDamaged(uint64_t offset) {
  if (!damaged_) return;
  damaged_ = false;
  const uint64_t bytes = offset - damaged_start_;
  ++stats_->corrupt_regions;
  stats_->corrupt_bytes += bytes;
  if (reporter_ != nullptr) {
    reporter_->Corruption(damaged_start_, bytes, damaged_reason_);
  }
}

void TraceReader::Impl::EndAt(const Item& end) {
  // All-zero bytes up to the end are what a crash leaves in preallocated
  // blocks: a truncation, like a partial chunk.
  if (damaged_ && !damaged_nonzero_) {
    damaged_ = false;
    const uint64_t bytes = end.offset + end.bytes - damaged_start_;
    stats_->truncated = true;
    stats_->truncated_bytes += bytes;
    if (reporter_ != nullptr) {
      reporter_->Truncation(damaged_start_, bytes, "zero-filled tail");
    }
    return;
  }
  FlushDamaged(end.offset);
  if (end.bytes == 0) return;  // a clean end
  stats_->truncated = true;
  stats_->truncated_bytes += end.bytes;
  if (reporter_ != nullptr) reporter_->Truncation(end.offset, end.bytes, end.reason);
}

void TraceReader::Impl::Retire(std::unique_ptr<Job> job) {
  if (job == nullptr) return;
  --chunks_in_flight_;
  job->state = Job::State::kIdle;  // no worker holds it
  job->hold.reset();               // nor its bytes
  free_jobs_.push_back(std::move(job));
}

void TraceReader::Impl::Rescan(uint64_t offset) {
  while (!items_.empty()) {
    Item& item = items_.back();
    if (item.job != nullptr) {
      if (workers_ != nullptr) workers_->Cancel(item.job.get());
      Retire(std::move(item.job));
    }
    items_.pop_back();
  }
  scan_done_ = false;
  window_.Rewind(offset);
}

bool TraceReader::Impl::NextChunk(Chunk* chunk) {
  Retire(std::move(current_));
  for (;;) {
    while (!scan_done_ && chunks_in_flight_ < max_in_flight_) Scan();
    if (items_.empty()) return false;  // the end was reached before
    Item item = std::move(items_.front());
    items_.pop_front();
    stats_->bytes_read = item.bytes_read;
    switch (item.kind) {
      case Item::Kind::kSkip:
        SkipDamaged(item.offset, item.bytes, item.nonzero, item.reason);
        continue;
      case Item::Kind::kEnd:
        EndAt(item);
        return false;
      case Item::Kind::kError:
        *status_ = window_.status();
        return false;
      case Item::Kind::kChunk:
        break;
    }
    std::unique_ptr<Job> job = std::move(item.job);
    if (workers_ != nullptr) {
      workers_->Finish(job.get(), dctx_);
    } else {
      Verify(job.get(), dctx_, decoder_);
    }
    if (!job->crc_ok) {
      // Its header was fine, so the serial reader got here too, and moves
      // one byte on: the scan resumes there.
      const uint64_t offset = job->offset;
      Retire(std::move(job));
      Rescan(offset + 1);
      SkipDamaged(offset, 1, /*nonzero=*/true, "chunk checksum mismatch");
      continue;
    }

    // An intact chunk: whatever came before it is a closed damaged region.
    FlushDamaged(job->offset);
    const uint64_t need = job->bytes.size();
    const uint64_t sequence = job->sequence;
    if (have_sequence_ && sequence <= last_sequence_) {
      ++stats_->chunks_out_of_order;
      ++stats_->corrupt_regions;
      stats_->corrupt_bytes += need;
      if (reporter_ != nullptr) {
        reporter_->Corruption(job->offset, need,
                              absl::StrCat("duplicate or out-of-order chunk: sequence ", sequence,
                                           " after ", last_sequence_));
      }
      Retire(std::move(job));
      continue;
    }
    const uint64_t expected = have_sequence_ ? last_sequence_ + 1 : 0;
    if (sequence > expected) {
      stats_->chunks_missing += sequence - expected;
      if (reporter_ != nullptr) {
        reporter_->Corruption(
            job->offset, 0,
            absl::StrCat(sequence - expected, " chunk(s) missing before sequence ", sequence));
      }
    }
    have_sequence_ = true;
    last_sequence_ = sequence;

    if (!Understood(job->type, job->flags)) {
      ++stats_->chunks_unknown_skipped;
      // A type this reader does not know is an extension it may skip; a
      // known type with a must-understand flag it does not know holds
      // data it would misread (FORMAT.md, section 3): lost, and said so.
      if (IsKnownChunkType(job->type)) {
        ++stats_->corrupt_regions;
        stats_->corrupt_bytes += need;
        if (job->type == static_cast<uint16_t>(ChunkType::kEvents)) ++stats_->events_chunks_lost;
        if (reporter_ != nullptr) {
          reporter_->Corruption(
              job->offset, need,
              absl::StrCat(ChunkTypeName(job->type), " chunk with flags 0x", absl::Hex(job->flags),
                           " this reader does not know (a newer format version?): skipped"));
        }
      }
      Retire(std::move(job));
      continue;
    }
    if (job->failure != nullptr) {
      ++stats_->corrupt_regions;
      stats_->corrupt_bytes += need;
      if (job->type == static_cast<uint16_t>(ChunkType::kEvents)) ++stats_->events_chunks_lost;
      if (reporter_ != nullptr) reporter_->Corruption(job->offset, need, job->failure);
      Retire(std::move(job));
      continue;
    }
    *chunk = ToChunk(*job);
    ++stats_->chunks_read;
    current_ = std::move(job);
    return true;
  }
}

TraceReader::TraceReader(std::unique_ptr<ByteSource> source, Reporter* reporter,
                         const ReaderOptions& options)
    : impl_(new Impl(std::move(source), reporter, options, &status_, &stats_)) {}

TraceReader::~TraceReader() = default;

ReaderPool::ReaderPool(int threads) : threads_(std::make_unique<Threads>(std::max(threads, 1))) {}

ReaderPool::~ReaderPool() = default;

void ReaderPool::Submit(PoolTask* task) { threads_->workers()->Submit(task); }
bool ReaderPool::Done(const PoolTask* task) { return threads_->workers()->Done(task); }
void ReaderPool::Wait(const PoolTask* task) { threads_->workers()->Wait(task); }
void ReaderPool::RunOrWait(PoolTask* task) { threads_->workers()->RunOrWait(task); }

std::unique_ptr<DecodedChunk> TraceReader::TakeDecoded() { return impl_->TakeDecoded(); }

void TraceReader::ReadAhead() {
  if (header_size_ != 0 && status_.ok()) impl_->ReadAhead();
}

absl::StatusOr<std::unique_ptr<TraceReader>> TraceReader::Open(const std::string& path,
                                                               Reporter* reporter,
                                                               const ReaderOptions& options) {
  absl::StatusOr<std::unique_ptr<ByteSource>> source = OpenFileSource(path);
  if (!source.ok()) return source.status();
  auto reader = std::make_unique<TraceReader>(std::move(*source), reporter, options);
  absl::Status s = reader->ReadHeader();
  if (!s.ok()) return s;
  return reader;
}

absl::Status TraceReader::ReadHeader() {
  size_t want = kFileHeaderFixedSize;
  for (;;) {
    Window& window = impl_->window();
    const size_t avail = window.Fill(want);
    stats_.bytes_read = window.bytes_read();
    if (!window.status().ok()) {
      status_ = window.status();
      return status_;
    }
    size_t size = 0;
    absl::Status s = DecodeFileHeader(std::string_view(window.data(), avail), &header_, &size);
    if (s.ok()) {
      header_size_ = size;
      window.Consume(size);  // chunk offsets continue after the header
      return absl::OkStatus();
    }
    // More bytes may complete the header; stop once the data has ended.
    if (s.code() != absl::StatusCode::kOutOfRange || size <= avail || avail < want) {
      return s;
    }
    want = size;
  }
}

bool TraceReader::Next(Chunk* chunk) {
  if (header_size_ == 0) {
    status_ = absl::FailedPreconditionError("ReadHeader has not succeeded");
  }
  if (!status_.ok()) return false;
  return impl_->NextChunk(chunk) && status_.ok();
}

}  // namespace format
}  // namespace ittc
