// A printing verb's pass made twice at once, one pass per core, each
// formatting every other batch of events (text.cc).
//
// What a line says can depend on every event before it (the name of the
// task an end closes, a sync object's name), so each pass reads and pairs
// every event, which is the smaller part of the work, and formats only
// the events of its own batches, the larger part. The batches' text goes
// to the output in the order of the batches. Handing the decoded events
// to a second thread instead costs more than it saves on this kind of
// machine: every event's bytes would cross between the cores' caches.
//
// Both passes must read the same events: the trace files do not change
// while they are read. A pass that ends before the other (a file changed,
// or could not be reopened) leaves a batch the other waits for; the
// waiting pass then stops, and mismatch() says so.
//
// Thread safety: one TwoPasses is shared by the two passes, each using its
// own PassShare. A batch's text is written to the output by the pass that
// formatted it, when next_ says it is the batch's turn: the write happens
// before the release store of next_ that hands the turn on, and the other
// pass's acquire load of next_ sees it before it writes (the output is
// used by one pass at a time).

#ifndef TOOLS_ITT_DUMP_TWO_PASSES_H_
#define TOOLS_ITT_DUMP_TWO_PASSES_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "tools/itt_dump/model/text_buffer.h"
#include "tools/itt_dump/output.h"

namespace ittc {
namespace itt_dump {

class TwoPasses {
 public:
  // Events per batch: a batch's text (some 100 KiB for `text`) stays in
  // the second-level cache of the core that formats it. A batch also ends
  // once its events' byte fields (names, metadata strings, line tables)
  // reach kBatchBytes, so that the text of the batches kept ahead of
  // their turn stays bounded (a byte prints as at most 4 characters).
  static constexpr uint64_t kBatchEvents = 2048;
  static constexpr uint64_t kBatchBytes = 256 << 10;

  // `out` must outlive this.
  explicit TwoPasses(Output* out) : out_(out) {}

  // Whether the passes should stop: the output broke or failed, or one
  // pass waits for a batch the other will not write.
  bool stopped() const { return stop_.load(std::memory_order_relaxed); }
  // The passes did not read the same events (see the header).
  bool mismatch() const { return mismatch_.load(std::memory_order_relaxed); }

 private:
  friend class PassShare;
  static constexpr uint64_t kRunning = ~uint64_t{0};

  // Writes batch `index` once every batch before it is written; false
  // (and nothing written) once the passes stopped.
  bool WriteInTurn(uint64_t index, const TextBuffer& text);
  // Pass `share` wrote all its batches: `batches` in all.
  void Finished(int share, uint64_t batches) {
    finished_[share].store(batches, std::memory_order_release);
  }

  Output* const out_;
  std::atomic<uint64_t> next_{0};  // the batch whose turn it is
  std::atomic<uint64_t> finished_[2] = {kRunning, kRunning};
  // Relaxed: a hint to stop early; what was written is read after both
  // passes ended (the join).
  std::atomic<bool> stop_{false};
  std::atomic<bool> mismatch_{false};
};

// One pass's part: the batches of `share` (0 or 1) are formatted into
// text(), which goes to the output in its turn.
class PassShare {
 public:
  PassShare(TwoPasses* passes, int share) : passes_(passes), share_(share) {}

  // Called for every event of the pass, in order, with the size of its
  // byte fields, before anything else is done with it: whether this pass
  // formats it. Both passes must give the same sizes.
  bool NextEvent(uint64_t bytes) {
    if (in_batch_ == TwoPasses::kBatchEvents || batch_bytes_ >= TwoPasses::kBatchBytes) {
      EndBatch();
    }
    ++in_batch_;
    batch_bytes_ += bytes;
    return batch_ % 2 == static_cast<uint64_t>(share_);
  }
  // Where this pass formats its current batch.
  TextBuffer& text() { return *text_; }
  // After the pass's last event: hands over its last batch, and returns
  // once every batch of this pass is written (or the passes stopped).
  void Finish();

 private:
  // Batches formatted ahead of their turn, kept for it; past this many the
  // pass waits for the other one.
  static constexpr size_t kMaxAhead = 4;
  struct Ahead {
    uint64_t index;
    std::unique_ptr<TextBuffer> text;
  };
  void EndBatch();
  // Writes the batches kept whose turn has come, and waits for the turns
  // of the first ones while more than `keep` are kept.
  void WriteAhead(size_t keep);

  TwoPasses* const passes_;
  const int share_;
  uint64_t batch_ = 0;        // the current batch
  uint64_t in_batch_ = 0;     // events of it so far
  uint64_t batch_bytes_ = 0;  // and their byte fields' bytes
  std::unique_ptr<TextBuffer> text_ = std::make_unique<TextBuffer>();
  std::deque<Ahead> ahead_;
  std::vector<std::unique_ptr<TextBuffer>> spare_;
};

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_TWO_PASSES_H_
