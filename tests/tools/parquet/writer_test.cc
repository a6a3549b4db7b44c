// The Parquet writer against the specification: each encoding decoded
// back by a reader written here from Encodings.md, and files' footers read
// back through Thrift. DuckDB reads the files the export writes
// (duckdb_test.mjs).

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "tools/itt_dump/parquet/column_chunk.h"
#include "tools/itt_dump/parquet/encodings.h"
#include "tools/itt_dump/parquet/parquet_subset_types.h"
#include "tools/itt_dump/parquet/table_writer.h"
#include "tools/itt_dump/parquet/thrift_compact.h"

namespace ittc::parquet {
namespace {

namespace pt = ::ittc::parquet::thrift;

// Reads what the encoders write, as the specification describes it.
class Reader {
 public:
  explicit Reader(const std::string& bytes, size_t at = 0) : b_(bytes), at_(at) {}
  uint64_t Uleb() {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      const auto byte = static_cast<uint8_t>(b_.at(at_++));
      v |= uint64_t{byte & 0x7fu} << shift;
      if ((byte & 0x80) == 0) return v;
    }
  }
  int64_t ZigZagVarint() {
    const uint64_t u = Uleb();
    return static_cast<int64_t>(u >> 1) ^ -static_cast<int64_t>(u & 1);
  }
  uint8_t Byte() { return static_cast<uint8_t>(b_.at(at_++)); }
  uint32_t Le32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t{Byte()} << (8 * i);
    return v;
  }
  // `count` values of `width` bits, least significant bit first.
  std::vector<uint64_t> BitPacked(size_t count, int width) {
    std::vector<uint64_t> out;
    size_t bit = 0;
    for (size_t i = 0; i < count; ++i) {
      uint64_t v = 0;
      for (int k = 0; k < width; ++k, ++bit) {
        const auto byte = static_cast<uint8_t>(b_.at(at_ + bit / 8));
        v |= uint64_t{(byte >> (bit % 8)) & 1u} << k;
      }
      out.push_back(v);
    }
    at_ += (bit + 7) / 8;
    return out;
  }
  std::vector<uint32_t> RleHybrid(size_t count, int width) {
    std::vector<uint32_t> out;
    while (out.size() < count) {
      const uint64_t header = Uleb();
      if (header & 1) {
        for (uint64_t v : BitPacked((header >> 1) * 8, width))
          out.push_back(static_cast<uint32_t>(v));
      } else {
        uint32_t v = 0;
        for (int b = 0; b < (width + 7) / 8; ++b) v |= uint32_t{Byte()} << (8 * b);
        out.insert(out.end(), header >> 1, v);
      }
    }
    out.resize(count);  // the last group's padding
    return out;
  }
  std::vector<int64_t> DeltaBinaryPacked() {
    const uint64_t block = Uleb();
    const uint64_t miniblocks = Uleb();
    const uint64_t count = Uleb();
    std::vector<int64_t> out;
    if (count == 0) {
      ZigZagVarint();
      return out;
    }
    out.push_back(ZigZagVarint());
    const uint64_t per_mini = block / miniblocks;
    while (out.size() < count) {
      const int64_t min_delta = ZigZagVarint();
      std::vector<int> widths;
      for (uint64_t m = 0; m < miniblocks; ++m) widths.push_back(Byte());
      for (uint64_t m = 0; m < miniblocks && out.size() < count; ++m) {
        for (uint64_t d : BitPacked(per_mini, widths[m])) {
          if (out.size() == count) break;
          out.push_back(static_cast<int64_t>(static_cast<uint64_t>(out.back()) + d +
                                             static_cast<uint64_t>(min_delta)));
        }
      }
    }
    return out;
  }
  size_t at() const { return at_; }

 private:
  const std::string& b_;
  size_t at_;
};

TEST(Encodings, Uleb128AndZigZagAreTheSpecs) {
  std::string s;
  AppendUleb128(1, &s);
  AppendUleb128(300, &s);
  EXPECT_EQ(s, std::string("\x01\xac\x02", 3));
  EXPECT_EQ(ZigZag(0), 0u);
  EXPECT_EQ(ZigZag(-1), 1u);
  EXPECT_EQ(ZigZag(1), 2u);
  EXPECT_EQ(ZigZag(-2), 3u);
  EXPECT_EQ(ZigZag(std::numeric_limits<int64_t>::min()), ~uint64_t{0});
}

TEST(Encodings, BitPackingIsLeastSignificantBitFirst) {
  // Encodings.md's example: 0..7 at 3 bits.
  const uint64_t v[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  std::string s;
  AppendBitPacked(v, 8, 3, &s);
  EXPECT_EQ(s, std::string("\x88\xc6\xfa", 3));
}

TEST(Encodings, RleHybridRoundTrips) {
  std::mt19937_64 rng(7);
  for (const int width : {1, 3, 8, 13, 20, 32}) {
    std::vector<uint32_t> v;
    const uint64_t mask = width == 32 ? 0xffffffffu : (uint64_t{1} << width) - 1;
    // Runs of every length around the RLE threshold, and noise.
    for (int run = 1; run < 40; ++run)
      v.insert(v.end(), static_cast<size_t>(run), static_cast<uint32_t>(rng() & mask));
    for (int i = 0; i < 1000; ++i) v.push_back(static_cast<uint32_t>(rng() & mask));
    v.insert(v.end(), 5000, 1);
    for (const size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{9}, v.size()}) {
      SCOPED_TRACE(testing::Message() << "width " << width << " count " << n);
      std::string s;
      AppendRleHybrid(v.data(), n, width, &s);
      Reader r(s);
      EXPECT_EQ(r.RleHybrid(n, width), std::vector<uint32_t>(v.begin(), v.begin() + n));
      EXPECT_EQ(r.at(), s.size());
    }
  }
}

TEST(Encodings, LevelsHaveTheirLengthFirst) {
  std::vector<uint8_t> levels;
  for (int i = 0; i < 300; ++i) levels.push_back(i % 3 == 0 ? 0 : 1);
  levels.insert(levels.end(), 100, 1);
  std::string s;
  AppendLevels(levels.data(), levels.size(), &s);
  Reader r(s);
  const uint32_t length = r.Le32();
  EXPECT_EQ(length + 4, s.size());
  const std::vector<uint32_t> back = r.RleHybrid(levels.size(), 1);
  EXPECT_EQ(std::vector<uint8_t>(back.begin(), back.end()), levels);
}

TEST(Encodings, DeltaBinaryPackedRoundTrips) {
  std::mt19937_64 rng(11);
  std::vector<std::vector<int64_t>> cases = {{}, {42}, {-5, -5}};
  std::vector<int64_t> sorted;
  int64_t t = 1000;
  for (int i = 0; i < 1000; ++i) sorted.push_back(t += static_cast<int64_t>(rng() % 500));
  cases.push_back(sorted);
  std::vector<int64_t> wild;
  for (int i = 0; i < 777; ++i) wild.push_back(static_cast<int64_t>(rng()));
  wild.push_back(std::numeric_limits<int64_t>::min());
  wild.push_back(std::numeric_limits<int64_t>::max());
  cases.push_back(wild);
  std::vector<int64_t> exact(129, 3);  // a block and one value
  cases.push_back(exact);
  for (const bool aligned : {false, true}) {
    for (const std::vector<int64_t>& v : cases) {
      SCOPED_TRACE(testing::Message() << v.size() << " values, byte-aligned " << aligned);
      std::string s;
      AppendDeltaBinaryPacked(v.data(), v.size(), aligned, &s);
      Reader r(s);
      EXPECT_EQ(r.DeltaBinaryPacked(), v);
      EXPECT_EQ(r.at(), s.size());
    }
  }
}

TEST(Encodings, SortedTimesTakeFewBitsPerValue) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < 100000; ++i) v.push_back(1'700'000'000'000'000'000 + i * 1000 + (i % 7));
  std::string s;
  AppendDeltaBinaryPacked(v.data(), v.size(), /*byte_aligned=*/false, &s);
  // Deltas of 1000..1006 need 3 bits over their minimum.
  EXPECT_LT(s.size(), v.size() * 4 / 8 + 1000);
}

std::string ReadAll(const std::string& path) {
  std::stringstream s;
  s << std::ifstream(path, std::ios::binary).rdbuf();
  return s.str();
}

std::string TempDir() {
  const char* t = getenv("TEST_TMPDIR");
  return t != nullptr ? t : "/tmp";
}

std::vector<ColumnSpec> TestSchema() {
  return {{"ts", ColumnType::kInt64, false},
          {"name", ColumnType::kString, false},
          {"value", ColumnType::kDouble, true},
          {"flag", ColumnType::kBool, false},
          {"parent", ColumnType::kInt64, true}};
}

// Rows first .. first + rows - 1 of the test table, to a TableWriter or a
// RowBlock.
template <typename Target>
void Fill(Target* w, int rows, int first = 0) {
  for (int i = first; i < first + rows; ++i) {
    w->column(0).AppendInt(1000 + i * 10);
    w->column(1).AppendString(i % 3 == 0 ? "alpha" : i % 3 == 1 ? "beta" : "gamma");
    if (i % 5 == 0) {
      w->column(2).AppendNull();
    } else {
      w->column(2).AppendDouble(i % 11 == 0 ? NAN : i * 0.5);
    }
    w->column(3).AppendBool(i % 2 == 0);
    if (i % 4 == 0) {
      w->column(4).AppendNull();
    } else {
      w->column(4).AppendInt(i - 1);
    }
    w->EndRow();
  }
}

pt::FileMetaData Footer(const std::string& file) {
  EXPECT_GE(file.size(), 12u);
  EXPECT_EQ(file.substr(0, 4), "PAR1");
  EXPECT_EQ(file.substr(file.size() - 4), "PAR1");
  Reader r(file, file.size() - 8);
  const uint32_t length = r.Le32();
  pt::FileMetaData meta;
  const uint32_t read = ReadCompact(file, file.size() - 8 - length, &meta);
  EXPECT_EQ(read, length);
  return meta;
}

int64_t Le64At(const std::string& s) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8; ++i) v |= uint64_t{static_cast<uint8_t>(s.at(i))} << (8 * i);
  return static_cast<int64_t>(v);
}

// The rows of the test table as columns alone.
struct Columns {
  std::vector<Column> columns;
  Columns() {
    for (const ColumnSpec& c : TestSchema()) columns.emplace_back(c);
  }
  Column& column(size_t i) { return columns[i]; }
  void EndRow() {}
};

// A double chunk's statistics: min and max of the numbers, a zero min as
// -0.0 and a zero max as +0.0; with a NaN, its count and no min or max
// (an engine that skips chunks by min and max alone would skip it).
TEST(ColumnChunk, DoubleStatisticsLeaveNanChunksWithoutMinAndMax) {
  const auto stats = [](const std::vector<double>& values) {
    Column c(ColumnSpec{"v", ColumnType::kDouble, true});
    c.AppendNull();
    for (double v : values) c.AppendDouble(v);
    absl::StatusOr<EncodedChunk> chunk = EncodeColumnChunk(c, {}, ChunkOptions());
    EXPECT_TRUE(chunk.ok());
    return *std::move(chunk);
  };
  const auto as_double = [](const std::string& bytes) {
    EXPECT_EQ(bytes.size(), 8u);
    const auto bits = static_cast<uint64_t>(Le64At(bytes));
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  };
  EncodedChunk numbers = stats({2.5, -1.0, 0.5});
  ASSERT_TRUE(numbers.has_min_max);
  EXPECT_EQ(as_double(numbers.min), -1.0);
  EXPECT_EQ(as_double(numbers.max), 2.5);
  EXPECT_EQ(numbers.null_count, 1);
  EncodedChunk zeros = stats({0.0, -0.0});
  ASSERT_TRUE(zeros.has_min_max);
  EXPECT_TRUE(std::signbit(as_double(zeros.min)));
  EXPECT_FALSE(std::signbit(as_double(zeros.max)));
  EncodedChunk with_nan = stats({1.0, NAN, 2.0});
  EXPECT_FALSE(with_nan.has_min_max);
  EXPECT_EQ(with_nan.nan_count, 1);
}

TEST(ColumnChunk, ChunkInAnOrderIsTheChunkOfItsRowsWrittenInThatOrder) {
  constexpr int kRows = 1000;
  // The first three rows stay first (each name's first row, so that both
  // dictionaries are in the same order); the others go by i % 4, then
  // backwards.
  std::vector<uint32_t> order;
  for (uint32_t i = 0; i < kRows; ++i) order.push_back(i);
  std::sort(order.begin() + 3, order.end(),
            [](uint32_t a, uint32_t b) { return a % 4 != b % 4 ? a % 4 < b % 4 : a > b; });
  Columns as_filled;
  Columns in_order;
  Fill(&as_filled, kRows);
  for (const uint32_t i : order) Fill(&in_order, 1, static_cast<int>(i));
  // Each row's place in that order.
  std::vector<uint32_t> places(kRows);
  for (uint32_t place = 0; place < kRows; ++place) places[order[place]] = place;
  ChunkOptions options;
  options.page_rows = 64;  // pages that start inside a run of one i % 4
  for (size_t c = 0; c < TestSchema().size(); ++c) {
    const absl::StatusOr<EncodedChunk> got =
        EncodeColumnChunk(as_filled.columns[c], places, options);
    const absl::StatusOr<EncodedChunk> want = EncodeColumnChunk(in_order.columns[c], {}, options);
    ASSERT_TRUE(got.ok() && want.ok()) << c;
    EXPECT_EQ(got->bytes, want->bytes) << TestSchema()[c].name;
    EXPECT_EQ(got->null_count, want->null_count) << c;
    EXPECT_EQ(got->min, want->min) << c;
    EXPECT_EQ(got->max, want->max) << c;
  }
  // Not the chunk of the rows as they came.
  EXPECT_NE(EncodeColumnChunk(as_filled.columns[0], places, options)->bytes,
            EncodeColumnChunk(as_filled.columns[0], {}, options)->bytes);
}

// A STRING column holds UTF-8: a byte where no sequence starts becomes
// U+FFFD in the dictionary (DuckDB refuses a file otherwise), and rows of
// the same bytes share its entry.
TEST(ColumnChunk, TextThatIsNotUtf8IsWrittenWithReplacementCharacters) {
  Column c({"name", ColumnType::kString, false});
  c.AppendString("caf\xe9.bin");
  c.AppendString("ok \xc3\xa9");
  c.AppendString("caf\xe9.bin");
  c.AppendString("\xff\xfe");
  ASSERT_EQ(c.dictionary().size(), 3u);
  EXPECT_EQ(c.dictionary()[0], "caf\xef\xbf\xbd.bin");
  EXPECT_EQ(c.dictionary()[1], "ok \xc3\xa9");
  EXPECT_EQ(c.dictionary()[2], "\xef\xbf\xbd\xef\xbf\xbd");
  EXPECT_EQ(c.indices(), (std::vector<uint32_t>{0, 1, 0, 2}));
}

class WriterTest : public ::testing::TestWithParam<int> {};

TEST_P(WriterTest, FooterDescribesRowGroupsAndStatistics) {
  EncoderPool pool(GetParam());
  WriterOptions options;
  options.row_group_rows = 1000;
  options.chunk.page_rows = 300;
  options.metadata = {{"table", "test"}};
  const std::string path = TempDir() + "/t" + std::to_string(GetParam()) + ".parquet";
  auto w = TableWriter::Create(path, TestSchema(), options, &pool);
  ASSERT_TRUE(w.ok()) << w.status();
  Fill(w->get(), 2500);
  ASSERT_TRUE((*w)->Close().ok());
  const std::string file = ReadAll(path);
  EXPECT_EQ(file.size(), (*w)->bytes());
  const pt::FileMetaData meta = Footer(file);
  EXPECT_EQ(meta.num_rows, 2500);
  ASSERT_EQ(meta.row_groups.size(), 3u);
  EXPECT_EQ(meta.row_groups[2].num_rows, 500);
  ASSERT_EQ(meta.schema.size(), 6u);
  EXPECT_EQ(meta.schema[0].num_children, 5);
  EXPECT_EQ(meta.schema[2].name, "name");
  EXPECT_EQ(meta.schema[2].converted_type, pt::ConvertedType::UTF8);
  EXPECT_TRUE(meta.schema[2].logicalType.__isset.STRING);
  EXPECT_EQ(meta.schema[3].repetition_type, pt::FieldRepetitionType::OPTIONAL);
  EXPECT_EQ(meta.column_orders.size(), 5u);
  ASSERT_EQ(meta.key_value_metadata.size(), 1u);
  EXPECT_EQ(meta.key_value_metadata[0].value, "test");

  // Second row group: rows 1000..1999.
  const pt::RowGroup& g = meta.row_groups[1];
  const pt::ColumnMetaData& ts = g.columns[0].meta_data;
  EXPECT_EQ(ts.codec, pt::CompressionCodec::ZSTD);
  EXPECT_EQ(Le64At(ts.statistics.min_value), 1000 + 1000 * 10);
  EXPECT_EQ(Le64At(ts.statistics.max_value), 1000 + 1999 * 10);
  EXPECT_EQ(ts.statistics.null_count, 0);
  const pt::ColumnMetaData& name = g.columns[1].meta_data;
  EXPECT_EQ(name.statistics.min_value, "alpha");
  EXPECT_EQ(name.statistics.max_value, "gamma");
  EXPECT_TRUE(name.__isset.dictionary_page_offset);
  EXPECT_EQ(name.statistics.null_count, 0);
  const pt::ColumnMetaData& value = g.columns[2].meta_data;
  EXPECT_EQ(value.statistics.null_count, 200);  // every fifth
  // NaNs (1001, 1012, ...): counted, and no min or max (DoubleStats).
  EXPECT_GT(value.statistics.nan_count, 0);
  EXPECT_FALSE(value.statistics.__isset.min_value);
  EXPECT_FALSE(value.statistics.__isset.max_value);

  // Each chunk's pages start where the footer says, with a page header.
  for (const pt::ColumnChunk& c : g.columns) {
    const int64_t first = c.meta_data.__isset.dictionary_page_offset
                              ? c.meta_data.dictionary_page_offset
                              : c.meta_data.data_page_offset;
    pt::PageHeader header;
    ReadCompact(file, static_cast<size_t>(first), &header);
    EXPECT_EQ(header.type, c.meta_data.__isset.dictionary_page_offset
                               ? pt::PageType::DICTIONARY_PAGE
                               : pt::PageType::DATA_PAGE);
  }
  // No temporary file is left.
  struct stat st;
  EXPECT_NE(stat((TempDir() + "/.t" + std::to_string(GetParam()) + ".parquet.tmp").c_str(), &st),
            0);
}

TEST_P(WriterTest, OutputIsTheSameOnAnyNumberOfThreads) {
  std::string files[2];
  for (int k = 0; k < 2; ++k) {
    EncoderPool pool(k == 0 ? 0 : GetParam());
    WriterOptions options;
    options.row_group_rows = 700;
    const std::string path = TempDir() + "/same" + std::to_string(k) + ".parquet";
    auto w = TableWriter::Create(path, TestSchema(), options, &pool);
    ASSERT_TRUE(w.ok());
    Fill(w->get(), 5000);
    ASSERT_TRUE((*w)->Close().ok());
    files[k] = ReadAll(path);
  }
  EXPECT_EQ(files[0], files[1]);
}

TEST_P(WriterTest, BlocksFilledOnOtherThreadsAreRowGroupsInTheOrderAdded) {
  EncoderPool pool(GetParam());
  WriterOptions options;
  options.row_group_rows = 1000;
  const std::string path = TempDir() + "/blocks" + std::to_string(GetParam()) + ".parquet";
  auto w = TableWriter::Create(path, TestSchema(), options, &pool);
  ASSERT_TRUE(w.ok());
  Fill(w->get(), 1500);  // a group of 1000 sealed, 500 rows pending
  // Two blocks filled at once elsewhere, added in the other order.
  RowBlock a = (*w)->NewBlock();
  RowBlock b = (*w)->NewBlock();
  std::thread ta([&a] { Fill(&a, 300, 5000); });
  std::thread tb([&b] { Fill(&b, 40, 6000); });
  ta.join();
  tb.join();
  EXPECT_EQ(a.rows(), 300u);
  (*w)->AddBlock(std::move(b));
  (*w)->AddBlock(std::move(a));
  (*w)->AddBlock((*w)->NewBlock());  // empty: no group
  Fill(w->get(), 200, 1500);         // the pending group goes on
  ASSERT_TRUE((*w)->Close().ok());
  EXPECT_EQ((*w)->rows(), 2040u);
  const pt::FileMetaData meta = Footer(ReadAll(path));
  EXPECT_EQ(meta.num_rows, 2040);
  ASSERT_EQ(meta.row_groups.size(), 4u);
  const int64_t rows[] = {1000, 40, 300, 700};
  const int64_t first[] = {0, 6000, 5000, 1000};
  const int64_t last[] = {999, 6039, 5299, 1699};
  for (size_t g = 0; g < 4; ++g) {
    EXPECT_EQ(meta.row_groups[g].num_rows, rows[g]) << g;
    const pt::Statistics& ts = meta.row_groups[g].columns[0].meta_data.statistics;
    EXPECT_EQ(Le64At(ts.min_value), 1000 + first[g] * 10) << g;
    EXPECT_EQ(Le64At(ts.max_value), 1000 + last[g] * 10) << g;
  }
}

TEST_P(WriterTest, ClusteredRowsAreEachClustersRowsInTimeOrder) {
  // Rows with cluster key i % 4 that come in order but for cluster 1's,
  // which swap in pairs within a group: each group is written as clusters
  // in the order of their first rows, each cluster's rows by ts (column
  // 0). (Each group's first names come in the same order both ways, so
  // that the dictionaries are the same.)
  constexpr int kRows = 1000;
  constexpr int kGroupRows = 400;
  std::vector<int> arrival(kRows);
  for (int i = 0; i < kRows; ++i) arrival[i] = i;
  for (int at = 5; at + 4 < kRows; at += 8) {
    if (at / kGroupRows == (at + 4) / kGroupRows) std::swap(arrival[at], arrival[at + 4]);
  }
  std::vector<int> expected;
  for (int g = 0; g < kRows; g += kGroupRows) {
    const auto first = arrival.begin() + g;
    const auto last = arrival.begin() + std::min(g + kGroupRows, kRows);
    std::vector<int> keys;  // in the order of their first rows
    for (auto it = first; it != last; ++it) {
      if (std::find(keys.begin(), keys.end(), *it % 4) == keys.end()) keys.push_back(*it % 4);
    }
    for (const int key : keys) {
      std::vector<int> rows;
      for (auto it = first; it != last; ++it) {
        if (*it % 4 == key) rows.push_back(*it);
      }
      std::sort(rows.begin(), rows.end());  // ts = 1000 + 10 i
      expected.insert(expected.end(), rows.begin(), rows.end());
    }
  }
  ASSERT_NE(expected, arrival);
  // The rows to a writer, each with its cluster key.
  struct Keyed {
    TableWriter* w;
    uint64_t key;
    Column& column(size_t i) { return w->column(i); }
    void EndRow() { w->EndRow(key); }
  };
  std::string files[2];
  for (int k = 0; k < 2; ++k) {
    EncoderPool pool(GetParam());
    WriterOptions options;
    options.row_group_rows = kGroupRows;
    options.cluster = k == 0;
    options.cluster_order_column = k == 0 ? 0 : -1;
    const std::string path =
        TempDir() + "/clustered" + std::to_string(GetParam()) + std::to_string(k) + ".parquet";
    auto w = TableWriter::Create(path, TestSchema(), options, &pool);
    ASSERT_TRUE(w.ok());
    for (const int i : k == 0 ? arrival : expected) {
      Keyed keyed{w->get(), static_cast<uint64_t>(i % 4)};
      Fill(&keyed, 1, i);
    }
    ASSERT_TRUE((*w)->Close().ok());
    files[k] = ReadAll(path);
  }
  EXPECT_EQ(files[0], files[1]);
}

INSTANTIATE_TEST_SUITE_P(Threads, WriterTest, ::testing::Values(0, 1, 3));

TEST(TableWriter, EmptyTableIsAValidFile) {
  EncoderPool pool(0);
  const std::string path = TempDir() + "/empty.parquet";
  auto w = TableWriter::Create(path, TestSchema(), {}, &pool);
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->Close().ok());
  const pt::FileMetaData meta = Footer(ReadAll(path));
  EXPECT_EQ(meta.num_rows, 0);
  EXPECT_TRUE(meta.row_groups.empty());
}

TEST(TableWriter, UnclosedWriterLeavesNoFile) {
  EncoderPool pool(2);
  const std::string dir = TempDir() + "/unclosed";
  mkdir(dir.c_str(), 0755);
  {
    WriterOptions options;
    options.row_group_rows = 100;
    auto w = TableWriter::Create(dir + "/t.parquet", TestSchema(), options, &pool);
    ASSERT_TRUE(w.ok());
    Fill(w->get(), 1000);
  }
  DIR* d = opendir(dir.c_str());
  ASSERT_NE(d, nullptr);
  int entries = 0;
  while (dirent* e = readdir(d)) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) ++entries;
  }
  closedir(d);
  EXPECT_EQ(entries, 0);
}

TEST(TableWriter, UncreatableFileIsAnErrorWithItsPath) {
  EncoderPool pool(0);
  auto w = TableWriter::Create(TempDir() + "/no/such/dir/t.parquet", TestSchema(), {}, &pool);
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("no/such/dir/.t.parquet.tmp"), std::string::npos)
      << w.status();
}

TEST(TableWriter, WriteErrorIsReportedByClose) {
  if (access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no /dev/full";
  EncoderPool pool(0);
  // A directory whose temporary name is /dev/full: writes fail with ENOSPC.
  const std::string dir = TempDir() + "/full";
  mkdir(dir.c_str(), 0755);
  ASSERT_EQ(symlink("/dev/full", (dir + "/.t.parquet.tmp").c_str()), 0);
  WriterOptions options;
  options.row_group_rows = 100;
  auto w = TableWriter::Create(dir + "/t.parquet", TestSchema(), options, &pool);
  ASSERT_TRUE(w.ok()) << w.status();
  Fill(w->get(), 1000);
  const absl::Status s = (*w)->Close();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cannot write"), std::string::npos) << s;
  struct stat st;
  EXPECT_NE(stat((dir + "/t.parquet").c_str(), &st), 0);
}

}  // namespace
}  // namespace ittc::parquet
