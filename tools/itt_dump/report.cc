#include "tools/itt_dump/report.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/itt_dump/model/values.h"

namespace ittc {
namespace itt_dump {
namespace {

std::string TableCell(const Column& c, const std::string& v) {
  if (c.type != CellType::kDuration) return v;
  uint64_t ns;
  if (!absl::SimpleAtoi(v, &ns)) return v;
  return absl::StrFormat("%u.%03u", ns / 1000, ns % 1000);
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
    for (const Column& c : s.columns) absl::StrAppend(out, ",", c.key);
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
      out->append(r == 0 ? "\n{" : ",\n{");
      for (size_t i = 0; i < s.columns.size() && i < s.rows[r].size(); ++i) {
        if (i != 0) out->push_back(',');
        AppendJsonString(out, s.columns[i].key);
        out->push_back(':');
        const std::string& v = s.rows[r][i];
        if (s.columns[i].type == CellType::kText) {
          AppendJsonString(out, v);
        } else if (v == "nan" || v == "inf" || v == "-inf") {
          AppendJsonString(out, v);  // JSON has no non-finite numbers
        } else {
          out->append(v);
        }
      }
      out->push_back('}');
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
