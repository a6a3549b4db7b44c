#include "tools/itt_dump/report.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

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

// A text cell as a table shows it: control bytes as \xNN, so that a row is
// one line.
std::string TableText(const std::string& v) {
  std::string out;
  for (const char ch : v) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f) {
      absl::StrAppend(&out, absl::StrFormat("\\x%02x", c));
    } else {
      out.push_back(ch);
    }
  }
  return out;
}

// Columns a terminal gives a UTF-8 code point: 2 for East Asian wide and
// fullwidth ones (CJK, Hangul, fullwidth forms, emoji), else 1.
int CodePointColumns(uint32_t cp) {
  static constexpr std::pair<uint32_t, uint32_t> kWide[] = {
      {0x1100, 0x115f}, {0x2e80, 0x303e},   {0x3041, 0x33ff},   {0x3400, 0x4dbf},  {0x4e00, 0x9fff},
      {0xa000, 0xa4cf}, {0xac00, 0xd7a3},   {0xf900, 0xfaff},   {0xfe30, 0xfe4f},  {0xff00, 0xff60},
      {0xffe0, 0xffe6}, {0x1f300, 0x1f64f}, {0x1f900, 0x1f9ff}, {0x20000, 0x3fffd}};
  for (const auto& [lo, hi] : kWide) {
    if (cp >= lo && cp <= hi) return 2;
  }
  return 1;
}

// The columns `s` takes on a terminal: UTF-8 code points, wide ones 2
// (a byte that starts no valid sequence counts 1).
size_t DisplayColumns(std::string_view s) {
  size_t columns = 0;
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  while (p < end) {
    uint32_t cp;
    const int len = DecodeUtf8(p, end, &cp);
    columns += len != 0 ? static_cast<size_t>(CodePointColumns(cp)) : 1;
    p += len != 0 ? len : 1;
  }
  return columns;
}

std::string TableCell(const Column& c, const std::string& v) {
  if (Missing(c, v)) return "-";
  if (c.type == CellType::kText) return TableText(v);
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
    // Widths in terminal columns (DisplayColumns), not bytes.
    std::vector<std::vector<std::string>> cells;
    std::vector<size_t> width(s.columns.size(), 0);
    std::vector<std::string> header;
    for (size_t i = 0; i < s.columns.size(); ++i) {
      header.push_back(s.columns[i].title);
      width[i] = DisplayColumns(header[i]);
    }
    for (const auto& row : s.rows) {
      std::vector<std::string> r;
      for (size_t i = 0; i < s.columns.size() && i < row.size(); ++i) {
        r.push_back(TableCell(s.columns[i], row[i]));
        width[i] = std::max(width[i], DisplayColumns(r.back()));
      }
      cells.push_back(std::move(r));
    }
    absl::StrAppend(out, s.name, "\n");
    auto line = [&](const std::vector<std::string>& r) {
      std::string l = " ";
      for (size_t i = 0; i < r.size(); ++i) {
        const bool left = s.columns[i].type == CellType::kText;
        const size_t pad = width[i] - DisplayColumns(r[i]);
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
