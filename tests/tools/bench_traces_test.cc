// The benchmark's two traces (bench/itt_dump_bench.cc: FrameTrace and
// MixedTrace, sample_traces.h), scaled down for the tests and cut in small
// chunks (many pieces), and the sample trace: every verb writes on every
// core what it writes on one, byte for byte, with and without filters
// (parquet: its dataset made with the encoder pool and on one thread).

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/tools/dump_runner.h"
#include "tests/tools/sample_traces.h"
#include "tools/itt_dump/model/trace_set.h"
#include "tools/itt_dump/output.h"
#include "tools/itt_dump/stats.h"

namespace ittc {
namespace itt_dump {
namespace testing {
namespace {

// About 160 k and 190 k events in chunks of 1024: sized for ThreadSanitizer.
constexpr uint64_t kChunk = 1024;
std::string SmallFrameTrace() { return FrameTrace(4, 5000, kChunk); }
std::string SmallMixedTrace() { return MixedTrace(4, 3000, kChunk); }

void ExpectSameEverywhere(const std::vector<std::string>& args, const std::string& trace,
                          const std::string& what) {
  const DumpResult all = RunDump(args, trace);
  const DumpResult one = RunDumpOnOneCore(args, trace);
  EXPECT_EQ(all.status, 0) << what << ": " << all.err;
  EXPECT_EQ(all.status, one.status) << what;
  EXPECT_EQ(all.out, one.out) << what;
  EXPECT_EQ(all.err, one.err) << what;
  EXPECT_EQ(all.files, one.files) << what;
}

void ExpectEveryVerbTheSame(const std::string& trace, const std::string& name) {
  const std::vector<std::vector<std::string>> runs = {
      {"stats", "trace.itt"},
      {"stats", "--per-thread", "--format=json", "trace.itt"},
      {"stats", "--thread=main", "--from=100000", "trace.itt"},
      {"stats", "--domain=frames", "trace.itt"},
      {"text", "trace.itt"},
      {"text", "--name=update", "trace.itt"},
      {"chrome", "trace.itt"},
      {"chrome", "--to=400000", "trace.itt"},
      {"perfetto", "-o", "out.pftrace", "trace.itt"},
      {"perfetto", "--compress=none", "-o", "out.pftrace", "trace.itt"},
      {"vtune-csv", "-o", "vt", "trace.itt"},
      {"vtune-csv", "--name=update", "-o", "vt", "trace.itt"},
  };
  for (const std::vector<std::string>& args : runs) {
    std::string what = name;
    for (const std::string& a : args) what += " " + a;
    ExpectSameEverywhere(args, trace, what);
  }
}

// `parquet` writes the same dataset with its rows made on every core as on
// one thread (--serial), byte for byte, with each of `filters`.
void ExpectParquetTheSame(const std::string& trace, const std::string& name,
                          const std::vector<std::vector<std::string>>& filters = {
                              {}, {"--name=update"}, {"--to=400000"}}) {
  for (size_t i = 0; i < filters.size(); ++i) {
    std::vector<std::string> args = {"parquet", "trace.itt"};
    args.insert(args.begin() + 1, filters[i].begin(), filters[i].end());
    const std::string dir = name + "_" + std::to_string(i);
    const DumpResult all = RunDumpToDir(args, {{"trace.itt", trace}}, dir + "_all", false);
    const DumpResult one = RunDumpToDir(args, {{"trace.itt", trace}}, dir + "_one", true);
    EXPECT_EQ(all.status, 0) << name << " " << i << ": " << all.err;
    EXPECT_EQ(one.status, 0) << name << " " << i << ": " << one.err;
    EXPECT_EQ(all.files.size(), 8u) << name << " " << i;  // a file per table
    EXPECT_GT(all.files.at("slice/part-0.parquet").size(), 1000u) << name << " " << i;
    EXPECT_TRUE(all.files == one.files) << name << " " << i;
  }
}

// Whether `stats` on `trace` took the pass on every core (else the test
// above compares the serial pass with itself).
bool StatsOnEveryCore(const std::string& trace) {
  std::vector<TraceSource> sources;
  sources.push_back(TraceSource::Memory(trace, "trace.itt"));
  const TraceSet set = TraceSet::Open(std::move(sources), IndexOptions(), "trace.itt");
  std::string out;
  std::string err;
  std::unique_ptr<Output> o = StringOutput(&out);
  std::unique_ptr<Output> e = StringOutput(&err);
  VerbContext ctx;
  ctx.set = &set;
  ctx.index = &set.index();
  ctx.out = o.get();
  ctx.err = e.get();
  std::unique_ptr<StatsCollector> stats;
  const absl::StatusOr<PassSummary> pass = CollectStats(ctx, StatsOptions(), &stats);
  return pass.ok() && pass->on_every_core;
}

TEST(BenchmarkTraces, FramesTraceIsTheSameOnEveryCore) {
  const std::string trace = SmallFrameTrace();
  EXPECT_TRUE(StatsOnEveryCore(trace));
  ExpectEveryVerbTheSame(trace, "frames");
  ExpectParquetTheSame(trace, "frames");
}

TEST(BenchmarkTraces, MixedTraceIsTheSameOnEveryCore) {
  const std::string trace = SmallMixedTrace();
  EXPECT_TRUE(StatsOnEveryCore(trace));
  ExpectEveryVerbTheSame(trace, "mixed");
  ExpectParquetTheSame(trace, "mixed");
}

// The sample trace has an event of every kind the exports write a row or
// an object for (JIT loads, metadata, sync objects, heap calls, markers,
// relations) in a few chunks: CI runs this under AddressSanitizer too, for
// the texts the exports keep past their event.
TEST(BenchmarkTraces, SampleTraceOfEveryKindIsTheSameOnEveryCore) {
  const std::string trace = SampleTrace();
  ExpectEveryVerbTheSame(trace, "sample");
  ExpectParquetTheSame(trace, "sample", {{}});
}

}  // namespace
}  // namespace testing
}  // namespace itt_dump
}  // namespace ittc
