#include "tools/itt_dump/report.h"

#include <algorithm>
#include <string_view>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/itt_dump/model/values.h"

namespace ittc {
namespace itt_dump {
namespace {

// A number or duration cell without a value.
bool Missing(const Column& c, const std::string& v) {
  return c.type != CellType::kText && v.empty();
}

std::string TableCell(const Column& c, const std::string& v) {
  if (Missing(c, v)) return "-";
  if (c.type != CellType::kDuration) return v;
  uint64_t ns;
  if (!absl::SimpleAtoi(v, &ns)) return v;
  return absl::StrFormat("%u.%03u", ns / 1000, ns % 1000);
}

// The group of a "group.key" column key, or "" when it has none.
std::string_view GroupOf(const std::string& key) {
  const size_t dot = key.find('.');
  return dot == std::string::npos ? std::string_view() : std::string_view(key).substr(0, dot);
}

void AppendJsonValue(const Column& c, const std::string& v, std::string* out) {
  if (c.type == CellType::kText) {
    AppendJsonString(out, v);
  } else if (Missing(c, v)) {
    out->append("null");
  } else if (v == "nan" || v == "inf" || v == "-inf") {
    AppendJsonString(out, v);  // JSON has no non-finite numbers
  } else {
    out->append(v);
  }
}

// One row as a JSON object, nesting grouped columns.
void AppendJsonRow(const std::vector<Column>& columns, const std::vector<std::string>& row,
                   std::string* out) {
  out->push_back('{');
  const size_t n = std::min(columns.size(), row.size());
  for (size_t i = 0; i < n;) {
    if (i != 0) out->push_back(',');
    const std::string_view group = GroupOf(columns[i].key);
    if (group.empty()) {
      AppendJsonString(out, columns[i].key);
      out->push_back(':');
      AppendJsonValue(columns[i], row[i], out);
      ++i;
      continue;
    }
    size_t end = i;
    bool all_missing = true;
    for (; end < n && GroupOf(columns[end].key) == group; ++end) {
      all_missing = all_missing && Missing(columns[end], row[end]);
    }
    AppendJsonString(out, group);
    if (all_missing) {
      out->append(":null");
    } else {
      out->append(":{");
      for (size_t j = i; j < end; ++j) {
        if (j != i) out->push_back(',');
        AppendJsonString(out, std::string_view(columns[j].key).substr(group.size() + 1));
        out->push_back(':');
        AppendJsonValue(columns[j], row[j], out);
      }
      out->push_back('}');
    }
    i = end;
  }
  out->push_back('}');
}

}  // namespace

void RenderTable(const std::vector<Section>& sections, std::string* out) {
  for (const Section& s : sections) {
    if (s.rows.empty()) continue;
    std::vector<std::vector<std::string>> cells;
    std::vector<size_t> width(s.columns.size(), 0);
    std::vector<std::string> header;
    for (size_t i = 0; i < s.columns.size(); ++i) {
      header.push_back(s.columns[i].title);
      width[i] = header[i].size();
    }
    for (const auto& row : s.rows) {
      std::vector<std::string> r;
      for (size_t i = 0; i < s.columns.size() && i < row.size(); ++i) {
        r.push_back(TableCell(s.columns[i], row[i]));
        width[i] = std::max(width[i], r.back().size());
      }
      cells.push_back(std::move(r));
    }
    absl::StrAppend(out, s.name, "\n");
    auto line = [&](const std::vector<std::string>& r) {
      std::string l = " ";
      for (size_t i = 0; i < r.size(); ++i) {
        const bool left = s.columns[i].type == CellType::kText;
        const size_t pad = width[i] - r[i].size();
        l.push_back(' ');
        if (!left) l.append(pad, ' ');
        l.append(r[i]);
        if (left && i + 1 < r.size()) l.append(pad, ' ');
      }
      while (!l.empty() && l.back() == ' ') l.pop_back();
      absl::StrAppend(out, l, "\n");
    };
    line(header);
    for (const auto& r : cells) line(r);
    out->push_back('\n');
  }
}

void RenderCsv(const std::vector<Section>& sections, std::string* out) {
  bool first = true;
  for (const Section& s : sections) {
    if (s.rows.empty()) continue;
    if (!first) out->push_back('\n');
    first = false;
    out->append("section");
    for (const Column& c : s.columns) {
      std::string key = c.key;
      std::replace(key.begin(), key.end(), '.', '_');
      absl::StrAppend(out, ",", key);
    }
    out->push_back('\n');
    for (const auto& row : s.rows) {
      AppendCsvField(out, s.name);
      for (const std::string& v : row) {
        out->push_back(',');
        AppendCsvField(out, v);
      }
      out->push_back('\n');
    }
  }
}

void RenderJson(const std::vector<Section>& sections, const std::string& prefix, std::string* out) {
  out->append("{");
  out->append(prefix);
  bool first_section = true;
  for (const Section& s : sections) {
    if (!first_section) out->push_back(',');
    first_section = false;
    out->append("\n");
    AppendJsonString(out, s.name);
    out->append(":[");
    for (size_t r = 0; r < s.rows.size(); ++r) {
      out->append(r == 0 ? "\n" : ",\n");
      AppendJsonRow(s.columns, s.rows[r], out);
    }
    out->append("]");
  }
  out->append("\n}\n");
}

void RenderReport(const std::vector<Section>& sections, ReportFormat format,
                  const std::string& table_title, const std::string& json_prefix,
                  std::string* out) {
  switch (format) {
    case ReportFormat::kTable:
      if (!table_title.empty()) {
        out->append(table_title);
        out->append("\n\n");
      }
      RenderTable(sections, out);
      break;
    case ReportFormat::kCsv:
      RenderCsv(sections, out);
      break;
    case ReportFormat::kJson:
      RenderJson(sections, json_prefix, out);
      break;
  }
}

}  // namespace itt_dump
}  // namespace ittc
