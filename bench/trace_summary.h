// Counts what a trace holds, for benchmarks that must say how many of the
// events they emitted were recorded: events per kind, per (kind, domain
// name) and per thread name, the loss records and the end record. Reads
// the trace through the trace model's index pass (streaming, nothing kept).

#ifndef BENCH_TRACE_SUMMARY_H_
#define BENCH_TRACE_SUMMARY_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "absl/status/statusor.h"

namespace ittc::bench {

struct TraceSummary {
  uint64_t file_bytes = 0;
  uint64_t events = 0;   // in events chunks
  uint64_t domains = 0;  // kDefDomain records
  uint64_t event_chunks = 0;
  uint64_t event_payload_bytes = 0;         // decompressed
  std::map<std::string, uint64_t> by_kind;  // schema name -> count
  // (schema name, domain name) -> count, for kinds with a "domain" field.
  std::map<std::pair<std::string, std::string>, uint64_t> by_kind_domain;
  // Thread name (ITT name, else the kernel's) -> events recorded / dropped.
  std::map<std::string, uint64_t> recorded_by_thread;
  std::map<std::string, uint64_t> dropped_by_thread;
  bool has_end = false;
  uint64_t end_recorded = 0;
  uint64_t end_dropped = 0;
  uint64_t corrupt_regions = 0;
};

absl::StatusOr<TraceSummary> SummarizeTrace(const std::string& path);

}  // namespace ittc::bench

#endif  // BENCH_TRACE_SUMMARY_H_
