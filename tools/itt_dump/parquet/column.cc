#include "tools/itt_dump/parquet/column.h"

namespace ittc::parquet {

uint32_t Column::Intern(std::string_view v) {
  // Consecutive rows often repeat a value (a kind, a category).
  if (has_last_ && dictionary_[last_index_] == v) return last_index_;
  auto it = dictionary_index_.find(v);
  if (it == dictionary_index_.end()) {
    dictionary_.emplace_back(v);
    it = dictionary_index_
             .emplace(std::string_view(dictionary_.back()),
                      static_cast<uint32_t>(dictionary_.size() - 1))
             .first;
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
