// A table's columns (ColumnSpec) and the values of one row group's rows in
// one column (Column), which column_chunk.h encodes.
//
// Four types, each with the one encoding itt-dump writes it in:
//   kInt64    INT64, DELTA_BINARY_PACKED (timestamps, ids, sizes: sorted
//             or slowly changing, so the deltas are small)
//   kDouble   DOUBLE, PLAIN
//   kBool     BOOLEAN, PLAIN
//   kString   BYTE_ARRAY annotated as UTF-8 (STRING), dictionary-encoded:
//             a PLAIN dictionary page per column chunk and RLE_DICTIONARY
//             indices; a byte where no UTF-8 sequence starts is written
//             as U+FFFD
// A column is REQUIRED, or OPTIONAL (nullable: definition levels, RLE).
//
// Thread safety: none. A Column is filled by one thread, then handed
// whole to the one that encodes it.

#ifndef TOOLS_ITT_DUMP_PARQUET_COLUMN_H_
#define TOOLS_ITT_DUMP_PARQUET_COLUMN_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace ittc::parquet {

enum class ColumnType { kInt64, kDouble, kBool, kString };

struct ColumnSpec {
  std::string name;
  ColumnType type = ColumnType::kInt64;
  bool optional = false;  // nullable
  // kInt64: DELTA_BINARY_PACKED at byte widths (encodings.h): for sorted
  // times.
  bool byte_aligned_deltas = false;
};

class Column {
 public:
  explicit Column(const ColumnSpec& spec)
      : type_(spec.type), optional_(spec.optional), byte_aligned_(spec.byte_aligned_deltas) {}

  ColumnType type() const { return type_; }
  bool byte_aligned_deltas() const { return byte_aligned_; }
  bool optional() const { return optional_; }
  // Rows so far, nulls included.
  size_t rows() const { return rows_; }

  // One row's value. REQUIRES: the column's type.
  void AppendInt(int64_t v) {
    ints_.push_back(v);
    Present();
  }
  void AppendDouble(double v) {
    doubles_.push_back(v);
    Present();
  }
  void AppendBool(bool v) {
    bools_.push_back(v ? 1 : 0);
    Present();
  }
  void AppendString(std::string_view v) {
    indices_.push_back(Intern(v));
    Present();
  }
  // The same for a value whose text only depends on `key` (nonzero), such
  // as a string id: the text is hashed once per key and row group (and
  // `text` asked for only then).
  template <typename Text>
  void AppendKeyedString(uint64_t key, Text&& text) {
    KeyedSlot& slot = keyed_[key % kKeyedSlots];
    if (slot.key != key || slot.generation != generation_) {
      slot.key = key;
      slot.generation = generation_;
      slot.index = Intern(text());
    }
    indices_.push_back(slot.index);
    Present();
  }
  // A null. REQUIRES: optional().
  void AppendNull() {
    levels_.push_back(0);
    ++rows_;
  }

  // Empties it for the next row group, keeping its memory.
  void Clear();
  // Makes room for `rows` rows (of its type) without growing.
  void Reserve(size_t rows);

  // For the encoder: the values of the rows that are not null, in order.
  const std::vector<int64_t>& ints() const { return ints_; }
  const std::vector<double>& doubles() const { return doubles_; }
  const std::vector<uint8_t>& bools() const { return bools_; }
  // kString: each value's index in dictionary().
  const std::vector<uint32_t>& indices() const { return indices_; }
  const std::deque<std::string>& dictionary() const { return dictionary_; }
  // With optional(): one per row, 1 present or 0 null.
  const std::vector<uint8_t>& levels() const { return levels_; }

 private:
  void Present() {
    if (optional_) levels_.push_back(1);
    ++rows_;
  }
  uint32_t Intern(std::string_view v);

  struct KeyedSlot {
    uint64_t key = 0;
    uint64_t generation = 0;
    uint32_t index = 0;
  };
  static constexpr size_t kKeyedSlots = 256;

  ColumnType type_;
  bool optional_;
  bool byte_aligned_;
  size_t rows_ = 0;
  std::vector<int64_t> ints_;
  std::vector<double> doubles_;
  std::vector<uint8_t> bools_;
  std::vector<uint32_t> indices_;
  // The row group's distinct strings; the map's keys view them (a deque
  // keeps them in place as it grows).
  std::deque<std::string> dictionary_;
  // The keys of the entries whose bytes were not UTF-8 (the entries hold
  // them made valid).
  std::deque<std::string> invalid_keys_;
  absl::flat_hash_map<std::string_view, uint32_t> dictionary_index_;
  uint32_t last_index_ = 0;
  bool has_last_ = false;
  // A slot's index is of this row group only while its generation is.
  uint64_t generation_ = 1;
  std::vector<KeyedSlot> keyed_ = std::vector<KeyedSlot>(kKeyedSlots);
  std::vector<uint8_t> levels_;
};

}  // namespace ittc::parquet

#endif  // TOOLS_ITT_DUMP_PARQUET_COLUMN_H_
