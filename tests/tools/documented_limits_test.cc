// itt-dump's defaults stated in prose match the code's: the merge lookahead
// (MergeOptions) and its share per file of a set (TraceSet), in
// docs/ITT_DUMP.md and in the command line's help; parquet's rows per row
// group and per batch (ParquetOptions), the buffers of text's and chrome's output thread
// (ThreadedOutput), the counter rows vtune-csv holds in memory
// (VtuneOptions), perfetto's block compressor threads (BlockCompressor),
// the size of a run of output merged on a worker
// (PieceMerger) and the metadata values a task keeps (IntervalTracker) in
// docs/ITT_DUMP.md.

#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "tests/tools/dump_runner.h"
#include "tools/itt_dump/model/intervals.h"
#include "tools/itt_dump/model/merge.h"
#include "tools/itt_dump/model/pieces.h"
#include "tools/itt_dump/model/trace_set.h"
#include "tools/itt_dump/output.h"
#include "tools/itt_dump/parquet/export.h"
#include "tools/itt_dump/perfetto/block_compressor.h"
#include "tools/itt_dump/vtune_csv.h"

namespace ittc::itt_dump {
namespace {

std::string ReadRunfile(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

TEST(DocumentedLimits, LookaheadDefaultAndShareAreTheCodes) {
  const std::string mib = std::to_string(MergeOptions().max_buffered_bytes >> 20);
  const std::string per_file = std::to_string(TraceSet::kMinLookaheadPerFile >> 20);
  const std::string doc = ReadRunfile("docs/ITT_DUMP.md");
  ASSERT_FALSE(doc.empty());
  EXPECT_NE(doc.find("`--lookahead-mb` (" + mib + " MiB)"), std::string::npos);
  EXPECT_NE(doc.find("shared by the files, at least " + per_file + " MiB each"), std::string::npos);
  const testing::DumpResult help = testing::RunDump({"text", "--help"}, "");
  EXPECT_NE(
      help.out.find("--lookahead-mb=N  memory bound of the time-order merge (default " + mib + ")"),
      std::string::npos)
      << help.out;
}

TEST(DocumentedLimits, ParquetRowGroupRowsAreTheCodes) {
  const size_t rows = ParquetOptions().row_group_rows;
  ASSERT_EQ(rows % 1024, 0u);
  const std::string doc = ReadRunfile("docs/ITT_DUMP.md");
  EXPECT_NE(doc.find("the row group it is filling (" + std::to_string(rows / 1024) + " Ki rows)"),
            std::string::npos);
}

TEST(DocumentedLimits, ParquetBatchRowsAreTheCodes) {
  const size_t rows = ParquetOptions().batch_rows;
  std::string digits = std::to_string(rows);
  for (size_t i = digits.size(); i > 3; i -= 3) digits.insert(i - 3, ",");
  const std::string doc = ReadRunfile("docs/ITT_DUMP.md");
  EXPECT_NE(doc.find("The rows go in batches of " + digits + ","), std::string::npos) << digits;
}

TEST(DocumentedLimits, PerfettoCompressorThreadsAreTheCodes) {
  const std::string doc = ReadRunfile("docs/ITT_DUMP.md");
  EXPECT_NE(doc.find("online CPU, at most " + std::to_string(BlockCompressor::kMaxDefaultThreads) +
                     ": `itt-dump-zstd`)"),
            std::string::npos);
}

TEST(DocumentedLimits, OutputThreadBuffersAreTheCodes) {
  ASSERT_EQ(ThreadedOutput::kBufferBytes % (1 << 20), 0u);
  const std::string doc = ReadRunfile("docs/ITT_DUMP.md");
  EXPECT_NE(
      doc.find("in buffers of " + std::to_string(ThreadedOutput::kBufferBytes >> 20) + " MiB (" +
               std::to_string(ThreadedOutput::kBuffers) + " at most, held at once"),
      std::string::npos);
}

TEST(DocumentedLimits, RunsOfMergedOutputAreTheCodes) {
  ASSERT_EQ(PieceMerger::kRunOwnBytes % (1 << 20), 0u);
  ASSERT_EQ(PieceMerger::kRunOutputs % 1024, 0u);
  const std::string doc = ReadRunfile("docs/ITT_DUMP.md");
  EXPECT_NE(doc.find("A run ends after " + std::to_string(PieceMerger::kRunSteps) + " steps or " +
                     std::to_string(PieceMerger::kRunOwnBytes >> 20) +
                     " MiB of the reading thread's bytes,\nand wherever about " +
                     std::to_string(PieceMerger::kRunOutputs / 1024) + " Ki outputs wait"),
            std::string::npos);
}

TEST(DocumentedLimits, MetadataValuesATaskKeepsAreTheCodes) {
  const std::string doc = ReadRunfile("docs/ITT_DUMP.md");
  ASSERT_FALSE(doc.empty());
  EXPECT_NE(
      doc.find("A task keeps its first " + std::to_string(IntervalTracker::kMaxArgs) + " values"),
      std::string::npos);
}

TEST(DocumentedLimits, VtuneCounterRowsInMemoryAreTheCodes) {
  const size_t bytes = VtuneOptions().spool_memory;
  ASSERT_EQ(bytes % (1 << 20), 0u);
  const std::string doc = ReadRunfile("docs/ITT_DUMP.md");
  EXPECT_NE(
      doc.find("`pid,tid` (" + std::to_string(bytes >> 20) + " MiB in memory at most, the rest"),
      std::string::npos);
  const testing::DumpResult help = testing::RunDump({"vtune-csv", "--help"}, "");
  EXPECT_NE(help.out.find("wait for the end of the pass: past " + std::to_string(bytes >> 20) +
                          " MiB in an unnamed temporary file"),
            std::string::npos)
      << help.out;
}

}  // namespace
}  // namespace ittc::itt_dump
