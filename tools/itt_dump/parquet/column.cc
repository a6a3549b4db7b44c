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

Column Reordered(const Column& c, const std::vector<uint32_t>& rows) {
  Column out(ColumnSpec{"", c.type_, c.optional_, c.byte_aligned_});
  out.rows_ = rows.size();
  // Where each row's value is among the values (nulls have none).
  std::vector<uint32_t> value_of;
  if (c.optional_) {
    value_of.resize(c.rows_);
    uint32_t v = 0;
    for (size_t r = 0; r < c.rows_; ++r) {
      value_of[r] = v;
      v += c.levels_[r];
    }
    out.levels_.reserve(rows.size());
    for (const uint32_t r : rows) out.levels_.push_back(c.levels_[r]);
  }
  auto gather = [&](const auto& from, auto* to) {
    to->reserve(from.size());
    for (const uint32_t r : rows) {
      if (c.optional_ && c.levels_[r] == 0) continue;
      to->push_back(from[c.optional_ ? value_of[r] : r]);
    }
  };
  switch (c.type_) {
    case ColumnType::kInt64:
      gather(c.ints_, &out.ints_);
      break;
    case ColumnType::kDouble:
      gather(c.doubles_, &out.doubles_);
      break;
    case ColumnType::kBool:
      gather(c.bools_, &out.bools_);
      break;
    case ColumnType::kString:
      gather(c.indices_, &out.indices_);
      out.dictionary_ = c.dictionary_;  // the map is not needed to encode
      break;
  }
  return out;
}

}  // namespace ittc::parquet
