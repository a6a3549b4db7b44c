#include "format/trace_reader.h"

#include <fcntl.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "format/coding.h"
#include "format/crc32c.h"

namespace ittc {
namespace format {
namespace {

class FileSource : public ByteSource {
 public:
  explicit FileSource(int fd) : fd_(fd) {}
  ~FileSource() override { close(fd_); }

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
};

class StringSource : public ByteSource {
 public:
  explicit StringSource(std::string_view data) : data_(data) {}
  absl::StatusOr<size_t> Read(char* buf, size_t n) override {
    n = std::min(n, data_.size());
    if (n == 0) return n;
    std::memcpy(buf, data_.data(), n);
    data_.remove_prefix(n);
    return n;
  }

 private:
  std::string_view data_;
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

// The input window and the chunk-finding state machine.
class TraceReader::Impl {
 public:
  Impl(std::unique_ptr<ByteSource> source, Reporter* reporter, absl::Status* status,
       ReaderStats* stats)
      : source_(std::move(source)), reporter_(reporter), status_(status), stats_(stats) {
    dctx_ = ZSTD_createDCtx();
  }
  ~Impl() { ZSTD_freeDCtx(dctx_); }

  // Makes at least n bytes available at head_ unless the data ends first.
  // Returns the number available. REQUIRES: n bounded by the format limits.
  size_t Fill(size_t n);
  const char* data() const { return buf_.data() + head_; }
  size_t available() const { return tail_ - head_; }
  uint64_t offset() const { return base_ + head_; }
  void Consume(size_t n) { head_ += n; }

  // Consumes n bytes as part of a damaged region.
  void SkipDamaged(size_t n, const char* reason);
  // Ends the damaged region, if any, at the current offset.
  void FlushDamaged();
  // The rest of the input is damaged or truncated: report and consume it.
  void EndAtTail(const char* reason);

  bool NextChunk(Chunk* chunk);

 private:
  bool Decompress(uint64_t offset, const char* stored, uint32_t stored_len,
                  uint32_t decompressed_len, std::string_view* out);

  std::unique_ptr<ByteSource> source_;
  Reporter* reporter_;
  absl::Status* status_;
  ReaderStats* stats_;
  ZSTD_DCtx* dctx_;

  std::string buf_;
  size_t head_ = 0;
  size_t tail_ = 0;
  uint64_t base_ = 0;  // file offset of buf_[0]
  bool eof_ = false;

  std::string out_;

  bool damaged_ = false;
  bool damaged_nonzero_ = false;
  uint64_t damaged_start_ = 0;
  std::string damaged_reason_;

  bool have_sequence_ = false;
  uint64_t last_sequence_ = 0;
};

size_t TraceReader::Impl::Fill(size_t n) {
  if (tail_ - head_ >= n || eof_) return tail_ - head_;
  if (head_ > 0) {
    std::memmove(&buf_[0], buf_.data() + head_, tail_ - head_);
    base_ += head_;
    tail_ -= head_;
    head_ = 0;
  }
  const size_t want = std::max(n, kReadSize);
  if (buf_.size() < want) buf_.resize(want);
  while (tail_ < n && !eof_) {
    absl::StatusOr<size_t> r = source_->Read(&buf_[tail_], buf_.size() - tail_);
    if (!r.ok()) {
      *status_ = r.status();
      eof_ = true;
    } else if (*r == 0) {
      eof_ = true;
    } else {
      tail_ += *r;
    }
  }
  stats_->bytes_read = base_ + tail_;
  return tail_ - head_;
}

void TraceReader::Impl::SkipDamaged(size_t n, const char* reason) {
  if (!damaged_) {
    damaged_ = true;
    damaged_nonzero_ = false;
    damaged_start_ = offset();
    damaged_reason_ = reason;
  }
  const char* p = data();
  for (size_t i = 0; i < n && !damaged_nonzero_; ++i) {
    if (p[i] != 0) damaged_nonzero_ = true;
  }
  head_ += n;
}

void TraceReader::Impl::FlushDamaged() {
  if (!damaged_) return;
  damaged_ = false;
  const uint64_t bytes = offset() - damaged_start_;
  ++stats_->corrupt_regions;
  stats_->corrupt_bytes += bytes;
  if (reporter_ != nullptr) {
    reporter_->Corruption(damaged_start_, bytes, damaged_reason_);
  }
}

void TraceReader::Impl::EndAtTail(const char* reason) {
  // All-zero bytes up to the end are what a crash leaves in preallocated
  // blocks: a truncation, like a partial chunk.
  if (damaged_ && !damaged_nonzero_) {
    const uint64_t start = damaged_start_;
    damaged_ = false;
    head_ = tail_;
    const uint64_t bytes = offset() - start;
    stats_->truncated = true;
    stats_->truncated_bytes += bytes;
    if (reporter_ != nullptr) {
      reporter_->Truncation(start, bytes, "zero-filled tail");
    }
    return;
  }
  FlushDamaged();
  const uint64_t start = offset();
  const uint64_t bytes = available();
  if (bytes == 0) return;  // a clean end
  head_ = tail_;
  stats_->truncated = true;
  stats_->truncated_bytes += bytes;
  if (reporter_ != nullptr) reporter_->Truncation(start, bytes, reason);
}

bool TraceReader::Impl::Decompress(uint64_t offset, const char* stored, uint32_t stored_len,
                                   uint32_t decompressed_len, std::string_view* out) {
  const char* reason = nullptr;
  const unsigned long long content = ZSTD_getFrameContentSize(stored, stored_len);
  if (content != decompressed_len) {
    reason = "zstd frame size does not match the chunk header";
  } else if (ZSTD_findFrameCompressedSize(stored, stored_len) != stored_len) {
    reason = "payload is not exactly one zstd frame";
  } else {
    if (out_.size() < decompressed_len) out_.resize(decompressed_len);
    const size_t n = ZSTD_decompressDCtx(dctx_, &out_[0], decompressed_len, stored, stored_len);
    if (ZSTD_isError(n)) {
      reason = "bad zstd frame";
    } else if (n != decompressed_len) {
      reason = "zstd frame decompressed to the wrong size";
    }
  }
  if (reason != nullptr) {
    ++stats_->corrupt_regions;
    stats_->corrupt_bytes += kChunkHeaderSize + stored_len;
    if (reporter_ != nullptr) {
      reporter_->Corruption(offset, kChunkHeaderSize + stored_len, reason);
    }
    return false;
  }
  *out = std::string_view(out_.data(), decompressed_len);
  return true;
}

bool TraceReader::Impl::NextChunk(Chunk* chunk) {
  for (;;) {
    const size_t avail = Fill(kChunkHeaderSize);
    if (!status_->ok()) return false;  // an I/O error is not damage
    if (avail == 0) {
      EndAtTail("");
      return false;
    }
    const char* p = data();
    const size_t sync_n = std::min(avail, sizeof kChunkSync);
    const bool sync_ok = std::memcmp(p, kChunkSync, sync_n) == 0;
    if (avail < kChunkHeaderSize) {
      // The data ends before a whole header: a partial chunk if it starts
      // like one.
      if (sync_ok) {
        EndAtTail("data ends inside a chunk header");
        return false;
      }
      SkipDamaged(1, "bad chunk sync marker");
      continue;
    }
    if (!sync_ok) {
      // Skip to the next candidate marker in the window.
      const void* hit = std::memchr(p + 1, kChunkSync[0], avail - 1);
      const size_t skip =
          hit == nullptr ? avail : static_cast<size_t>(static_cast<const char*>(hit) - p);
      SkipDamaged(skip, "bad chunk sync marker");
      continue;
    }
    if (crc32c::Value(p, 24) != DecodeFixed32(p + 24)) {
      SkipDamaged(1, "chunk header checksum mismatch");
      continue;
    }
    const uint16_t type = DecodeFixed16(p + 4);
    const uint16_t flags = DecodeFixed16(p + 6);
    const uint32_t stored_len = DecodeFixed32(p + 8);
    const uint32_t decompressed_len = DecodeFixed32(p + 12);
    const uint64_t sequence = DecodeFixed64(p + 16);
    if (stored_len > kMaxChunkStoredBytes || decompressed_len > kMaxChunkPayloadBytes) {
      SkipDamaged(1, "chunk length exceeds the format limit");
      continue;
    }
    const size_t need = kChunkHeaderSize + stored_len;
    const size_t have = Fill(need);
    if (!status_->ok()) return false;
    if (have < need) {
      EndAtTail("data ends inside a chunk");
      return false;
    }
    p = data();
    uint32_t crc = crc32c::Value(p, 28);
    crc = crc32c::Extend(crc, p + kChunkHeaderSize, stored_len);
    if (crc != DecodeFixed32(p + 28)) {
      SkipDamaged(1, "chunk checksum mismatch");
      continue;
    }

    // An intact chunk: whatever came before it is a closed damaged region.
    FlushDamaged();
    const uint64_t chunk_offset = offset();
    head_ += need;

    if (have_sequence_ && sequence <= last_sequence_) {
      ++stats_->chunks_out_of_order;
      ++stats_->corrupt_regions;
      stats_->corrupt_bytes += need;
      if (reporter_ != nullptr) {
        reporter_->Corruption(chunk_offset, need,
                              absl::StrCat("duplicate or out-of-order chunk: sequence ", sequence,
                                           " after ", last_sequence_));
      }
      continue;
    }
    const uint64_t expected = have_sequence_ ? last_sequence_ + 1 : 0;
    if (sequence > expected) {
      stats_->chunks_missing += sequence - expected;
      if (reporter_ != nullptr) {
        reporter_->Corruption(
            chunk_offset, 0,
            absl::StrCat(sequence - expected, " chunk(s) missing before sequence ", sequence));
      }
    }
    have_sequence_ = true;
    last_sequence_ = sequence;

    if (!IsKnownChunkType(type) || (flags & kChunkFlagsMustUnderstand & ~kChunkFlagsKnown) != 0) {
      ++stats_->chunks_unknown_skipped;
      continue;
    }
    const char* stored = p + kChunkHeaderSize;
    std::string_view payload;
    if (flags & kChunkFlagZstd) {
      if (!Decompress(chunk_offset, stored, stored_len, decompressed_len, &payload)) {
        continue;
      }
    } else {
      if (decompressed_len != stored_len) {
        ++stats_->corrupt_regions;
        stats_->corrupt_bytes += need;
        if (reporter_ != nullptr) {
          reporter_->Corruption(chunk_offset, need, "uncompressed chunk with mismatched lengths");
        }
        continue;
      }
      payload = std::string_view(stored, stored_len);
    }
    chunk->type = static_cast<ChunkType>(type);
    chunk->flags = flags;
    chunk->sequence = sequence;
    chunk->offset = chunk_offset;
    chunk->stored_size = need;
    chunk->payload = payload;
    ++stats_->chunks_read;
    return true;
  }
}

TraceReader::TraceReader(std::unique_ptr<ByteSource> source, Reporter* reporter)
    : impl_(new Impl(std::move(source), reporter, &status_, &stats_)) {}

TraceReader::~TraceReader() = default;

absl::StatusOr<std::unique_ptr<TraceReader>> TraceReader::Open(const std::string& path,
                                                               Reporter* reporter) {
  absl::StatusOr<std::unique_ptr<ByteSource>> source = OpenFileSource(path);
  if (!source.ok()) return source.status();
  auto reader = std::make_unique<TraceReader>(std::move(*source), reporter);
  absl::Status s = reader->ReadHeader();
  if (!s.ok()) return s;
  return reader;
}

absl::Status TraceReader::ReadHeader() {
  size_t want = kFileHeaderFixedSize;
  for (;;) {
    const size_t avail = impl_->Fill(want);
    if (!status_.ok()) return status_;
    size_t size = 0;
    absl::Status s = DecodeFileHeader(std::string_view(impl_->data(), avail), &header_, &size);
    if (s.ok()) {
      header_size_ = size;
      impl_->Consume(size);  // chunk offsets continue after the header
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
