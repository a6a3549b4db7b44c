#include "tools/itt_dump/model/progress.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <utility>

namespace ittc {
namespace itt_dump {
namespace {

int64_t NowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// Runs shorter than this never show a progress line.
constexpr int64_t kQuietNs = 1000000000;
// Refresh interval of the line.
constexpr int64_t kRefreshNs = 250000000;

}  // namespace

bool Progress::StderrIsTerminal() { return isatty(STDERR_FILENO) == 1; }

Progress::Progress(std::string name, uint64_t total, bool enabled)
    : name_(std::move(name)), total_(total), enabled_(enabled) {
  if (enabled_) start_ns_ = last_ns_ = NowNs();
}

Progress::~Progress() { Done(); }

void Progress::Print(uint64_t done) {
  const int64_t now = NowNs();
  if (now - start_ns_ < kQuietNs || now - last_ns_ < kRefreshNs) return;
  last_ns_ = now;
  shown_ = true;
  const double pct = total_ != 0 ? 100.0 * static_cast<double>(std::min(done, total_)) /
                                       static_cast<double>(total_)
                                 : 0.0;
  std::fprintf(stderr, "\ritt-dump: %s: pass %d/%d %3.0f%%\033[K", name_.c_str(), pass_, passes_,
               pct);
  std::fflush(stderr);
}

void Progress::Done() {
  if (!shown_) return;
  shown_ = false;
  std::fputs("\r\033[K", stderr);
  std::fflush(stderr);
}

}  // namespace itt_dump
}  // namespace ittc
