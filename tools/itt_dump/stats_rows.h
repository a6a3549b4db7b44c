// Rows of `itt-dump stats` and small helpers shared by its files
// (stats.cc routes events; stats_health.cc, stats_tasks.cc,
// stats_counters.cc and stats_sync_heap.cc each keep one family of
// sections). Private to the stats verb.

#ifndef TOOLS_ITT_DUMP_STATS_ROWS_H_
#define TOOLS_ITT_DUMP_STATS_ROWS_H_

#include <cmath>
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "tools/itt_dump/model/values.h"
#include "tools/itt_dump/sketch.h"
#include "tools/itt_dump/stats.h"

namespace ittc {
namespace itt_dump {
namespace stats_internal {

inline constexpr uint64_t kAllThreads = ~uint64_t{0};
// TaskRow::thread of a per-process row: this bit and the process.
inline constexpr uint64_t kProcessRow = uint64_t{1} << 62;

inline std::string Num(uint64_t v) { return absl::StrCat(v); }

// Which part of the collector takes an event of `kind`: the one list of
// the kinds stats reads itself (StatsCollector::OnEvent, Ignores,
// KeepsApart, and its stretches).
enum class Family { kCounter, kSync, kHeap, kJit, kIntervals };
Family FamilyOf(format::EventKind kind);

inline std::string Real(long double v) {
  std::string s;
  AppendNumber(&s, v);
  return s;
}

}  // namespace stats_internal

struct StatsCollector::TaskRow {
  int kind = 0;  // IntervalKind
  uint64_t domain = 0;
  uint64_t name_id = 0;
  uint64_t fn = 0;
  uint64_t event_id = 0;
  // kAllThreads, a thread index for per-thread rows, or kProcessRow | the
  // process for per-process rows.
  uint64_t thread = stats_internal::kAllThreads;
  std::string name;
  std::string match_name;  // a task_begin_fn row's StableFunctionName
  // The durations' sum is the sketch's (sum(): 128 bits, saturated at
  // 2^64-1); the self times' likewise.
  unsigned __int128 self_ns = 0;
  PercentileSketch sketch;
  uint64_t SelfNs() const {
    return self_ns > ~uint64_t{0} ? ~uint64_t{0} : static_cast<uint64_t>(self_ns);
  }
};

struct StatsCollector::FrameRow {
  uint64_t domain = 0;
  uint64_t first_begin = ~uint64_t{0};
  uint64_t last_end = 0;
  PercentileSketch sketch;
};

struct StatsCollector::CounterRow {
  int8_t passes = 0;     // cached name/domain filter answer (0: unknown)
  long double last = 0;  // value at the last kept sample
  uint64_t samples = 0;
  // Of the samples that are not NaN (NaN when none is): a NaN orders
  // against nothing, so it would stay min and max once first.
  uint64_t ordered = 0;
  long double min = NAN;
  long double max = NAN;

  // `n` samples, `ordered_n` of them not NaN, those within [lo, hi]; the
  // last of them `last_value`. Samples in time order, rows' too.
  void Add(uint64_t n, uint64_t ordered_n, long double lo, long double hi, long double last_value) {
    if (ordered_n != 0) {
      if (ordered == 0 || lo < min) min = lo;
      if (ordered == 0 || hi > max) max = hi;
      ordered += ordered_n;
    }
    last = last_value;
    samples += n;
  }
};

struct StatsCollector::SyncRow {
  uint64_t addr = 0;  // as the merged stream has it (trace_set.h)
  uint32_t process = 0;
  uint64_t acquisitions = 0;
  uint64_t cancels = 0;
  uint64_t total_wait_ns = 0;
  uint64_t max_wait_ns = 0;
  bool used = false;
};

struct StatsCollector::HeapRow {
  uint64_t function = 0;
  uint64_t allocations = 0;
  uint64_t reallocs = 0;
  uint64_t frees = 0;
  uint64_t bytes = 0;
  uint64_t live = 0;
  uint64_t peak = 0;
  bool used = false;
};

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_STATS_ROWS_H_
