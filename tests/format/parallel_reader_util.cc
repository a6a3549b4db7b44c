#include "tests/format/parallel_reader_util.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"

namespace ittc {
namespace format {
namespace testing {
namespace {

// Memory in reads of at most max_read bytes, failing from fail_at on; also
// read at offsets if `positional`.
class PlannedSource : public ByteSource {
 public:
  PlannedSource(std::string_view data, size_t max_read, uint64_t fail_at, bool positional)
      : data_(data),
        max_read_(max_read == 0 ? SIZE_MAX : max_read),
        fail_at_(fail_at),
        positional_(positional) {}
  absl::StatusOr<size_t> Read(char* buf, size_t n) override {
    const absl::StatusOr<size_t> r = ReadAt(buf, std::min(n, max_read_), pos_);
    if (r.ok()) pos_ += *r;
    return r;
  }
  bool Positional() const override { return positional_; }
  uint64_t SizeHint() const override { return data_.size(); }
  absl::StatusOr<size_t> ReadAt(char* buf, size_t n, uint64_t offset) override {
    if (offset >= fail_at_) return absl::DataLossError("EIO");
    if (offset >= data_.size()) return 0;
    n = static_cast<size_t>(std::min<uint64_t>({n, data_.size() - offset, fail_at_ - offset}));
    std::memcpy(buf, data_.data() + offset, n);
    return n;
  }

 private:
  std::string_view data_;
  size_t max_read_;
  uint64_t fail_at_;
  bool positional_;
  size_t pos_ = 0;  // Read's
};

class LogReporter : public Reporter {
 public:
  explicit LogReporter(std::vector<std::string>* log) : log_(log) {}
  void Corruption(uint64_t offset, uint64_t bytes, std::string_view reason) override {
    log_->push_back(absl::StrCat("corruption @", offset, " +", bytes, " ", std::string(reason)));
  }
  void Truncation(uint64_t offset, uint64_t bytes, std::string_view reason) override {
    log_->push_back(absl::StrCat("truncation @", offset, " +", bytes, " ", std::string(reason)));
  }

 private:
  std::vector<std::string>* log_;
};

std::string StatsString(const ReaderStats& s, bool bytes_read) {
  std::string out = absl::StrCat("read=", s.chunks_read, " unknown=", s.chunks_unknown_skipped,
                                 " ooo=", s.chunks_out_of_order, " missing=", s.chunks_missing,
                                 " corrupt=", s.corrupt_regions, "/", s.corrupt_bytes,
                                 " truncated=", s.truncated, "/", s.truncated_bytes);
  if (bytes_read) absl::StrAppend(&out, " bytes_read=", s.bytes_read);
  return out;
}

}  // namespace

Transcript ReadTranscript(std::string_view bytes, const ReadPlan& plan) {
  Transcript t;
  LogReporter reporter(&t.log);
  TraceReader reader(
      std::make_unique<PlannedSource>(bytes, plan.max_read, plan.fail_at, plan.positional),
      &reporter, plan.options);
  t.header_status = reader.ReadHeader();
  if (!t.header_status.ok()) return t;
  if (plan.read_ahead) reader.ReadAhead();
  Chunk c;
  size_t n = 0;
  while (n < plan.max_chunks && reader.Next(&c)) {
    ++n;
    if (plan.read_ahead) reader.ReadAhead();
    t.log.push_back(absl::StrCat("chunk type=", static_cast<int>(c.type), " flags=", c.flags,
                                 " seq=", c.sequence, " @", c.offset, " +", c.stored_size, " ",
                                 StatsString(reader.stats(), plan.log_bytes_read),
                                 " payload=", c.payload.size(), ":", std::string(c.payload)));
  }
  t.stats = reader.stats();
  t.status = reader.status();
  return t;
}

TestTraceWriter MultiThreadTrace(int threads, int chunks_per_thread, size_t events_per_chunk) {
  TestTraceWriter out(SampleHeader());
  Rng rng(12);
  std::vector<uint64_t> time(static_cast<size_t>(threads));
  std::vector<Event> infos;
  for (int i = 0; i < threads; ++i) {
    time[static_cast<size_t>(i)] = (1ull << 40) + 977u * static_cast<uint64_t>(i);
    infos.push_back(ToRecord(
        ThreadInfo{static_cast<uint32_t>(i), 100 + static_cast<uint32_t>(i), "worker", false}));
  }
  out.AddRecords(ChunkType::kThreadInfo, infos);
  out.AddRecords(ChunkType::kClockSync, {ToRecord(ClockSync{1ull << 40, 1000, 2000})});
  for (int c = 0; c < chunks_per_thread; ++c) {
    for (int i = 0; i < threads; ++i) {
      uint64_t* t = &time[static_cast<size_t>(i)];
      out.AddEvents(static_cast<uint32_t>(i), (c + i) % 2 == 0
                                                  ? TaskPairs(rng, events_per_chunk, t)
                                                  : RealisticMix(rng, events_per_chunk, t));
    }
    if (c == chunks_per_thread / 2) {
      out.AddRecords(ChunkType::kLoss, {ToRecord(LossRecord{1, LossCause::kBufferFull, 3})});
    }
  }
  out.AddRecords(ChunkType::kEnd, {ToRecord(EndRecord{1, 3, 0, time[0] + 10})});
  return out;
}

}  // namespace testing
}  // namespace format
}  // namespace ittc
