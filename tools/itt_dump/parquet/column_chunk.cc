#include "tools/itt_dump/parquet/column_chunk.h"

#include <zstd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>

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

void IntStats(const std::vector<int64_t>& v, EncodedChunk* chunk) {
  if (v.empty()) return;
  // Values, not positions: a loop the compiler vectorizes (minmax_element
  // compares pairs with branches: a quarter of the chunk's encoding).
  int64_t lo = v[0];
  int64_t hi = v[0];
  for (const int64_t x : v) {
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  chunk->has_min_max = true;
  chunk->min = Le64(static_cast<uint64_t>(lo));
  chunk->max = Le64(static_cast<uint64_t>(hi));
}

// The spec's rules for floating-point statistics under the type's order:
// NaNs counted and left out; a zero minimum is -0.0, a zero maximum +0.0.
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
  if (!any) return;
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

// The levels and values of one page's rows at a time, in the order they
// are written: the column's own (pointers into it), or the rows `order`
// gives (a permutation of its row numbers), gathered a page at a time
// into buffers that stay in cache instead of into a reordered copy of the
// whole column.
class PageRows {
 public:
  PageRows(const Column& column, const std::vector<uint32_t>& order)
      : column_(column), order_(order) {
    if (order_.empty() || !column_.optional()) return;
    // Where each row's value is among the values (nulls have none).
    value_of_.resize(column_.rows());
    uint32_t v = 0;
    for (size_t r = 0; r < column_.rows(); ++r) {
      value_of_[r] = v;
      v += column_.levels()[r];
    }
  }

  // Rows [row, row + n) of the order, the pages' in turn.
  void Load(size_t row, size_t n) {
    switch (column_.type()) {
      case ColumnType::kInt64:
        Load(row, n, column_.ints(), &ints_);
        break;
      case ColumnType::kDouble:
        Load(row, n, column_.doubles(), &doubles_);
        break;
      case ColumnType::kBool:
        Load(row, n, column_.bools(), &bools_);
        break;
      case ColumnType::kString:
        Load(row, n, column_.indices(), &indices_);
        break;
    }
  }
  // With optional(): the page's levels.
  const uint8_t* levels() const { return levels_; }
  // The page's values (of the rows that are not null), of the column's
  // type: int64_t, double, uint8_t (bools) or uint32_t (indices).
  size_t present() const { return present_; }
  template <typename T>
  const T* values() const {
    return static_cast<const T*>(values_);
  }

 private:
  // Load, for the column's values `from`; `buffer` takes them gathered.
  template <typename T>
  void Load(size_t row, size_t n, const std::vector<T>& from, std::vector<T>* buffer) {
    if (order_.empty()) {
      present_ = n;
      if (column_.optional()) {
        levels_ = column_.levels().data() + row;
        present_ = static_cast<size_t>(std::count(levels_, levels_ + n, uint8_t{1}));
      }
      values_ = from.data() + next_value_;
      next_value_ += present_;
      return;
    }
    const uint32_t* rows = order_.data() + row;
    if (!column_.optional()) {
      buffer->resize(n);
      for (size_t i = 0; i < n; ++i) (*buffer)[i] = from[rows[i]];
    } else {
      buffer->clear();
      level_buffer_.resize(n);
      for (size_t i = 0; i < n; ++i) {
        const uint32_t r = rows[i];
        level_buffer_[i] = column_.levels()[r];
        if (level_buffer_[i] != 0) buffer->push_back(from[value_of_[r]]);
      }
      levels_ = level_buffer_.data();
    }
    present_ = buffer->size();
    values_ = buffer->data();
  }

  const Column& column_;
  const std::vector<uint32_t>& order_;
  std::vector<uint32_t> value_of_;  // with an order, of an optional column
  size_t next_value_ = 0;           // without an order: the next page's first value
  const void* values_ = nullptr;    // the page's, of the column's type
  size_t present_ = 0;
  const uint8_t* levels_ = nullptr;
  std::vector<uint8_t> level_buffer_;
  std::vector<int64_t> ints_;
  std::vector<double> doubles_;
  std::vector<uint8_t> bools_;
  std::vector<uint32_t> indices_;
};

}  // namespace

absl::StatusOr<EncodedChunk> EncodeColumnChunk(const Column& column,
                                               const std::vector<uint32_t>& order,
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
      IntStats(column.ints(), &chunk);
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

  PageRows page(column, order);
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
