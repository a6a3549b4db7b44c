// Tables of results rendered as an aligned text table, CSV or JSON: what
// stats prints. A Section is a named table whose cells carry their type, so
// one set of rows gives every format (durations: microseconds with three
// decimals in tables, integer nanoseconds in CSV and JSON).
//
// Thread safety: none.

#ifndef TOOLS_ITT_DUMP_REPORT_H_
#define TOOLS_ITT_DUMP_REPORT_H_

#include <cstdint>
#include <string>
#include <vector>

namespace ittc {
namespace itt_dump {

enum class CellType { kText, kNumber, kDuration };

// A key "group.key" (one dot) nests: consecutive columns of the same group
// are one JSON object {"group": {"key": ...}}, and the CSV header says
// "group_key". A number or duration cell that is empty is missing: JSON
// null (a group of missing cells is null as a whole), an empty CSV field,
// "-" in tables.
struct Column {
  std::string key;    // CSV header and JSON key, e.g. "total_ns"
  std::string title;  // table header, e.g. "total(us)"
  CellType type = CellType::kText;
};

struct Section {
  std::string name;  // "tasks", "frames", ...
  std::vector<Column> columns;
  std::vector<std::vector<std::string>> rows;  // numbers as decimal text

  void AddRow(std::vector<std::string> row) { rows.push_back(std::move(row)); }
};

enum class ReportFormat { kTable, kCsv, kJson };

// Table: "<name>\n" then the aligned header and rows, indented by two
// spaces, and a blank line; text cells are left-aligned, numbers
// right-aligned. Empty sections are left out.
void RenderTable(const std::vector<Section>& sections, std::string* out);
// CSV: per non-empty section a header line "section,<keys...>" and one
// line per row "<name>,<cells...>"; sections separated by a blank line.
void RenderCsv(const std::vector<Section>& sections, std::string* out);
// JSON: {"<name>": [{"<key>": value, ...}, ...], ...} with every section,
// empty ones as []; `prefix` (e.g. "\"trace\":\"x\",") is inserted first.
void RenderJson(const std::vector<Section>& sections, const std::string& prefix, std::string* out);

// One of the three by `format`: a table after `table_title` (a line such as
// "trace x: N events", empty for none), CSV, or JSON after `json_prefix`.
void RenderReport(const std::vector<Section>& sections, ReportFormat format,
                  const std::string& table_title, const std::string& json_prefix, std::string* out);

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_REPORT_H_
