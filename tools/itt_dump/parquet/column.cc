#include "tools/itt_dump/parquet/column.h"

#include "tools/itt_dump/model/values.h"

namespace ittc::parquet {

uint32_t Column::Intern(std::string_view v) {
  // Consecutive rows often repeat a value (a kind, a category).
  if (has_last_ && dictionary_[last_index_] == v) return last_index_;
  auto it = dictionary_index_.find(v);
  if (it == dictionary_index_.end()) {
    // A STRING column holds UTF-8 (readers refuse a chunk that does not:
    // DuckDB its whole file): bytes that are not become U+FFFD in the
    // dictionary, and the bytes as given stay the entry's key.
    std::string_view key;
    if (itt_dump::IsValidUtf8(v)) {
      key = dictionary_.emplace_back(v);
    } else {
      dictionary_.push_back(itt_dump::ValidUtf8(v));
      key = invalid_keys_.emplace_back(v);
    }
    it = dictionary_index_.emplace(key, static_cast<uint32_t>(dictionary_.size() - 1)).first;
  }
  last_index_ = it->second;
  has_last_ = true;
  return last_index_;
}

void Column::Clear() {
  rows_ = 0;
  ints_.clear();
  doubles_.clear();
  bools_.clear();
  indices_.clear();
  dictionary_index_.clear();
  dictionary_.clear();
  invalid_keys_.clear();
  has_last_ = false;
  ++generation_;
  levels_.clear();
}

void Column::Reserve(size_t rows) {
  switch (type_) {
    case ColumnType::kInt64:
      ints_.reserve(rows);
      break;
    case ColumnType::kDouble:
      doubles_.reserve(rows);
      break;
    case ColumnType::kBool:
      bools_.reserve(rows);
      break;
    case ColumnType::kString:
      indices_.reserve(rows);
      break;
  }
  if (optional_) levels_.reserve(rows);
}

}  // namespace ittc::parquet
