#include "tools/itt_dump/parquet/column_chunk.h"

#include <zstd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "tools/itt_dump/parquet/encodings.h"
#include "tools/itt_dump/parquet/parquet_subset_types.h"
#include "tools/itt_dump/parquet/thrift_compact.h"

namespace ittc::parquet {
namespace {

namespace pt = ::ittc::parquet::thrift;

struct ZstdContextFree {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};

// One compression context per thread, reused for every page it writes.
ZSTD_CCtx* ThreadContext() {
  thread_local std::unique_ptr<ZSTD_CCtx, ZstdContextFree> context(ZSTD_createCCtx());
  return context.get();
}

std::string Le64(uint64_t v) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>(v >> (8 * i));
  return s;
}

// Appends a page: its header, then `body` compressed.
absl::Status AppendPage(const pt::PageHeader& partial, const std::string& body, int level,
                        std::string* scratch, EncodedChunk* chunk) {
  scratch->resize(ZSTD_compressBound(body.size()));
  const size_t n = ZSTD_compressCCtx(ThreadContext(), scratch->data(), scratch->size(), body.data(),
                                     body.size(), level);
  if (ZSTD_isError(n)) {
    return absl::InternalError(absl::StrCat("zstd: ", ZSTD_getErrorName(n)));
  }
  pt::PageHeader header = partial;
  header.uncompressed_page_size = static_cast<int32_t>(body.size());
  header.compressed_page_size = static_cast<int32_t>(n);
  const size_t before = chunk->bytes.size();
  AppendCompact(header, &chunk->bytes);
  const size_t header_bytes = chunk->bytes.size() - before;
  chunk->bytes.append(scratch->data(), n);
  chunk->uncompressed_bytes += static_cast<int64_t>(header_bytes + body.size());
  return absl::OkStatus();
}

// The least and largest of some int64 values, made as a loop meets them.
struct IntRange {
  int64_t lo = std::numeric_limits<int64_t>::max();
  int64_t hi = std::numeric_limits<int64_t>::min();
  bool any = false;
  void Add(int64_t x) {
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  void SetStats(EncodedChunk* chunk) const {
    if (!any) return;
    chunk->has_min_max = true;
    chunk->min = Le64(static_cast<uint64_t>(lo));
    chunk->max = Le64(static_cast<uint64_t>(hi));
  }
};

IntRange RangeOf(const std::vector<int64_t>& v) {
  // Values, not positions: two compares and moves per value (minmax_element
  // compares pairs with branches: a quarter of the chunk's encoding).
  IntRange range;
  range.any = !v.empty();
  for (const int64_t x : v) range.Add(x);
  return range;
}

// The spec's rules for floating-point statistics under the type's order:
// NaNs counted and left out; a zero minimum is -0.0, a zero maximum +0.0.
// A chunk with a NaN has no min and max: an engine that orders NaN above
// every number and skips chunks by min and max alone (DuckDB 1.5) would
// skip it for `value > x` or `value = 'nan'` (as DuckDB's own writer
// does).
void DoubleStats(const std::vector<double>& v, EncodedChunk* chunk) {
  double lo = INFINITY;
  double hi = -INFINITY;
  bool any = false;
  for (const double d : v) {
    if (std::isnan(d)) {
      ++chunk->nan_count;
      continue;
    }
    any = true;
    lo = std::min(lo, d);
    hi = std::max(hi, d);
  }
  if (!any || chunk->nan_count != 0) return;
  if (lo == 0) lo = -0.0;
  if (hi == 0) hi = 0.0;
  uint64_t bits;
  std::memcpy(&bits, &lo, sizeof bits);
  chunk->min = Le64(bits);
  std::memcpy(&bits, &hi, sizeof bits);
  chunk->max = Le64(bits);
  chunk->has_min_max = true;
}

void BoolStats(const std::vector<uint8_t>& v, EncodedChunk* chunk) {
  if (v.empty()) return;
  const bool any_true = std::find(v.begin(), v.end(), 1) != v.end();
  const bool any_false = std::find(v.begin(), v.end(), 0) != v.end();
  chunk->has_min_max = true;
  chunk->min = std::string(1, any_false ? '\0' : '\1');
  chunk->max = std::string(1, any_true ? '\1' : '\0');
}

// Strings compare as unsigned bytes (UTF-8's order); every dictionary
// entry of a chunk is used by some row.
void StringStats(const std::deque<std::string>& dictionary, EncodedChunk* chunk) {
  if (dictionary.empty()) return;
  const auto less = [](const std::string& a, const std::string& b) {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
      return static_cast<uint8_t>(x) < static_cast<uint8_t>(y);
    });
  };
  const auto [lo, hi] = std::minmax_element(dictionary.begin(), dictionary.end(), less);
  chunk->has_min_max = true;
  chunk->min = *lo;
  chunk->max = *hi;
}

// A column's levels and values reordered (rows go to their places), kept
// per thread for the next chunk it encodes: reused, they cost no page
// faults.
struct Reordered {
  std::vector<uint8_t> levels;
  std::vector<uint32_t> value_at;  // by place: the index of its value, if any
  std::vector<int64_t> ints;
  std::vector<double> doubles;
  std::vector<uint8_t> bools;
  std::vector<uint32_t> indices;
};

// The levels and values of one page's rows at a time, in the order they
// are written: the column's own, or its rows at their places (`places`
// gives each row's, a permutation), moved there once for the whole chunk.
// Each row's value is written to its place, reading the column in its own
// order: a scatter, whose writes go to a few sequential streams (a
// cluster's rows, in order). Gathering each place's value instead reads
// every cluster's rows across the whole column: in a loop of each alone,
// 3.4 ns a row against the scatter's 0.9 (512 Ki int64 rows in 12
// interleaved clusters, 2-core Intel Xeon VM); in the export, 2-4% of its
// CPU (docs/ITT_DUMP.md).
class PageRows {
 public:
  PageRows(const Column& column, const std::vector<uint32_t>& places) : column_(column) {
    thread_local Reordered reordered;
    if (places.empty()) {
      levels_ = column_.optional() ? column_.levels().data() : nullptr;
      values_ = OfType(&reordered, [this](const auto& from, auto*) { return Own(from); });
    } else {
      values_ = OfType(&reordered, [&](const auto& from, auto* to) {
        return Reorder(places, from, to, &reordered);
      });
    }
  }

  // Rows [row, row + n), the pages' in turn.
  void Load(size_t row, size_t n) {
    present_ = n;
    if (column_.optional()) {
      page_levels_ = levels_ + row;
      present_ = static_cast<size_t>(std::count(page_levels_, page_levels_ + n, uint8_t{1}));
    }
    page_values_ = static_cast<const char*>(values_) + next_value_ * value_size_;
    next_value_ += present_;
  }
  // With optional(): the page's levels.
  const uint8_t* levels() const { return page_levels_; }
  // The page's values (of the rows that are not null), of the column's
  // type: int64_t, double, uint8_t (bools) or uint32_t (indices).
  size_t present() const { return present_; }
  template <typename T>
  const T* values() const {
    return reinterpret_cast<const T*>(page_values_);
  }

 private:
  // fn(the column's values, r's buffer of their type).
  template <typename Fn>
  const void* OfType(Reordered* r, Fn&& fn) {
    switch (column_.type()) {
      case ColumnType::kInt64:
        return fn(column_.ints(), &r->ints);
      case ColumnType::kDouble:
        return fn(column_.doubles(), &r->doubles);
      case ColumnType::kBool:
        return fn(column_.bools(), &r->bools);
      case ColumnType::kString:
        return fn(column_.indices(), &r->indices);
    }
    return nullptr;
  }
  // The column's own values, `from`.
  template <typename T>
  const T* Own(const std::vector<T>& from) {
    value_size_ = sizeof(T);
    return from.data();
  }
  // The column's values `from` (and levels) at their rows' places, in
  // *to (and r's levels); returns them. An int64 column's range is made on
  // the way (int_range()): its values are read once.
  template <typename T>
  const T* Reorder(const std::vector<uint32_t>& places, const std::vector<T>& from,
                   std::vector<T>* to, Reordered* r) {
    constexpr bool kInts = std::is_same_v<T, int64_t>;
    value_size_ = sizeof(T);
    const size_t rows = column_.rows();
    to->resize(from.size());
    int_range_.any = !from.empty();
    if (!column_.optional()) {
      for (size_t row = 0; row < rows; ++row) {
        const T x = from[row];
        (*to)[places[row]] = x;
        if constexpr (kInts) int_range_.Add(x);
      }
      return to->data();
    }
    const std::vector<uint8_t>& levels = column_.levels();
    r->levels.resize(rows);
    for (size_t row = 0; row < rows; ++row) r->levels[places[row]] = levels[row];
    r->value_at.resize(rows);
    uint32_t v = 0;
    for (size_t place = 0; place < rows; ++place) {
      r->value_at[place] = v;
      v += r->levels[place];
    }
    v = 0;
    for (size_t row = 0; row < rows; ++row) {
      if (levels[row] != 0) {
        const T x = from[v++];
        (*to)[r->value_at[places[row]]] = x;
        if constexpr (kInts) int_range_.Add(x);
      }
    }
    levels_ = r->levels.data();
    return to->data();
  }

 public:
  // The values' range: with places, of an int64 column's (Reorder);
  // else the caller's (RangeOf).
  const IntRange& int_range() const { return int_range_; }

 private:
  IntRange int_range_;
  const Column& column_;
  const uint8_t* levels_ = nullptr;  // the chunk's, in order
  const void* values_ = nullptr;     // the chunk's, in order
  size_t value_size_ = 0;
  size_t next_value_ = 0;  // the next page's first value
  size_t present_ = 0;
  const uint8_t* page_levels_ = nullptr;
  const char* page_values_ = nullptr;
};

}  // namespace

absl::StatusOr<EncodedChunk> EncodeColumnChunk(const Column& column,
                                               const std::vector<uint32_t>& places,
                                               const ChunkOptions& options) {
  // Data pages: the levels of page_rows rows, then the values of those
  // of them that are not null; a chunk of no rows has none.
  EncodedChunk chunk;
  chunk.num_values = static_cast<int64_t>(column.rows());
  std::string body;
  std::string scratch;
  EncodingId values_encoding = EncodingId::kPlain;
  int index_width = 1;
  switch (column.type()) {
    case ColumnType::kInt64:
      values_encoding = EncodingId::kDeltaBinaryPacked;
      // (With places, PageRows makes the range as it reorders the values.)
      if (places.empty()) RangeOf(column.ints()).SetStats(&chunk);
      break;
    case ColumnType::kDouble:
      DoubleStats(column.doubles(), &chunk);
      break;
    case ColumnType::kBool:
      BoolStats(column.bools(), &chunk);
      break;
    case ColumnType::kString: {
      values_encoding = EncodingId::kRleDictionary;
      StringStats(column.dictionary(), &chunk);
      for (const std::string& s : column.dictionary()) AppendPlainByteArray(s, &body);
      pt::PageHeader header;
      header.type = pt::PageType::DICTIONARY_PAGE;
      pt::DictionaryPageHeader dict;
      dict.num_values = static_cast<int32_t>(column.dictionary().size());
      dict.encoding = pt::Encoding::PLAIN;
      header.__set_dictionary_page_header(dict);
      if (absl::Status s = AppendPage(header, body, options.zstd_level, &scratch, &chunk);
          !s.ok()) {
        return s;
      }
      chunk.dictionary_bytes = chunk.bytes.size();
      // At least one bit: a width of 0 is valid, but not every reader takes it.
      const size_t entries = column.dictionary().size();
      index_width = std::max(1, BitWidth(entries > 1 ? entries - 1 : 0));
      chunk.encodings.push_back(EncodingId::kPlain);
      break;
    }
  }
  chunk.encodings.push_back(EncodingId::kRle);  // the levels'
  chunk.encodings.push_back(values_encoding);
  if (column.optional()) {
    chunk.null_count = static_cast<int64_t>(
        std::count(column.levels().begin(), column.levels().end(), uint8_t{0}));
  }

  PageRows page(column, places);
  if (column.type() == ColumnType::kInt64 && !places.empty()) page.int_range().SetStats(&chunk);
  const size_t rows = column.rows();
  for (size_t row = 0; row < rows; row += options.page_rows) {
    const size_t n = std::min(options.page_rows, rows - row);
    page.Load(row, n);
    body.clear();
    if (column.optional()) AppendLevels(page.levels(), n, &body);
    switch (column.type()) {
      case ColumnType::kInt64:
        AppendDeltaBinaryPacked(page.values<int64_t>(), page.present(),
                                column.byte_aligned_deltas(), &body);
        break;
      case ColumnType::kDouble:
        AppendPlainDoubles(page.values<double>(), page.present(), &body);
        break;
      case ColumnType::kBool:
        AppendPlainBools(page.values<uint8_t>(), page.present(), &body);
        break;
      case ColumnType::kString:
        body.push_back(static_cast<char>(index_width));
        AppendRleHybrid(page.values<uint32_t>(), page.present(), index_width, &body);
        break;
    }
    pt::PageHeader header;
    header.type = pt::PageType::DATA_PAGE;
    pt::DataPageHeader data;
    data.num_values = static_cast<int32_t>(n);
    data.encoding = static_cast<pt::Encoding::type>(values_encoding);
    data.definition_level_encoding = pt::Encoding::RLE;
    data.repetition_level_encoding = pt::Encoding::RLE;
    header.__set_data_page_header(data);
    if (absl::Status s = AppendPage(header, body, options.zstd_level, &scratch, &chunk); !s.ok()) {
      return s;
    }
  }
  return chunk;
}

}  // namespace ittc::parquet
