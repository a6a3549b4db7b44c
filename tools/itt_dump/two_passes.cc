#include "tools/itt_dump/two_passes.h"

#include <chrono>
#include <thread>
#include <utility>

namespace ittc {
namespace itt_dump {

bool TwoPasses::WriteInTurn(uint64_t index, const TextBuffer& text) {
  for (int tries = 0;; ++tries) {
    if (stop_.load(std::memory_order_relaxed)) return false;
    const uint64_t turn = next_.load(std::memory_order_acquire);
    if (turn == index) break;
    // The pass whose turn it is may have ended without that batch: it had
    // fewer. turn was read first, so `done` counts at least the batches it
    // wrote up to then.
    const uint64_t done = finished_[turn % 2].load(std::memory_order_acquire);
    if (done != kRunning && turn >= done) {
      mismatch_.store(true, std::memory_order_relaxed);
      stop_.store(true, std::memory_order_relaxed);
      return false;
    }
    // The other pass is formatting the batch before this one: some tens of
    // microseconds. A short spin, then sleeps that leave the core to it.
    if (tries < 64) {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  }
  out_->Write(text.view());
  if (!out_->good()) stop_.store(true, std::memory_order_relaxed);
  next_.store(index + 1, std::memory_order_release);
  return true;
}

void PassShare::EndBatch() {
  if (batch_ % 2 == static_cast<uint64_t>(share_)) {
    ahead_.push_back({batch_, std::move(text_)});
    if (spare_.empty()) {
      text_ = std::make_unique<TextBuffer>();
    } else {
      text_ = std::move(spare_.back());
      spare_.pop_back();
    }
    WriteAhead(kMaxAhead);
  }
  ++batch_;
  in_batch_ = 0;
  batch_bytes_ = 0;
}

void PassShare::WriteAhead(size_t keep) {
  while (!ahead_.empty()) {
    Ahead& a = ahead_.front();
    // Beyond `keep` batches the pass waits for their turn; within, it
    // writes only those whose turn has come.
    if (ahead_.size() <= keep && passes_->next_.load(std::memory_order_acquire) != a.index) return;
    if (!passes_->WriteInTurn(a.index, *a.text)) {
      ahead_.clear();  // stopped: nothing more is written
      return;
    }
    a.text->clear();
    spare_.push_back(std::move(a.text));
    ahead_.pop_front();
  }
}

void PassShare::Finish() {
  if (in_batch_ > 0) EndBatch();
  WriteAhead(0);
  passes_->Finished(share_, batch_);
}

}  // namespace itt_dump
}  // namespace ittc
