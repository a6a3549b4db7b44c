#include "bench/trace_summary.h"

#include <algorithm>
#include <string_view>
#include <vector>

#include "bench/bench_env.h"
#include "format/format.h"
#include "tools/itt_dump/model/trace_index.h"

namespace ittc::bench {

using format::EventKind;

namespace {

// Counts events per (kind, domain id) during the model's index pass.
class Counter : public itt_dump::IndexVisitor {
 public:
  void OnEvent(const format::Event& e, const itt_dump::ThreadRec& thread) override {
    const uint64_t domain = e.Has(format::Field::kDomain) ? e.Get(format::Field::kDomain) : kNone;
    ++kind_domain[{static_cast<uint16_t>(e.kind), domain}];
  }
  static constexpr uint64_t kNone = ~uint64_t{0};
  std::map<std::pair<uint16_t, uint64_t>, uint64_t> kind_domain;
};

}  // namespace

absl::StatusOr<TraceSummary> SummarizeTrace(const std::string& path) {
  Counter counter;
  itt_dump::IndexOptions options;
  options.visitor = &counter;
  const itt_dump::IndexResult r = itt_dump::BuildIndex(itt_dump::TraceSource::File(path), options);
  if (r.index == nullptr) return r.status;
  const itt_dump::TraceIndex& x = *r.index;
  if (x.malformed_payloads != 0) return absl::DataLossError(x.first_malformed_payload);
  TraceSummary out;
  out.file_bytes = FileSize(path);
  out.events = x.events;
  out.domains = x.domains.size();
  out.event_chunks = x.events_chunks;
  out.event_payload_bytes = x.events_payload_bytes;
  out.has_end = x.has_end;
  out.end_recorded = x.end.events_recorded;
  out.end_dropped = x.end.events_dropped;
  out.corrupt_regions = x.reader_stats.corrupt_regions;

  // Thread names may be set late in the file: named here, at the end.
  auto thread_name = [&](uint32_t index) {
    const itt_dump::ThreadRec* t = x.Thread(index);
    return t != nullptr && !t->name.empty() ? t->name : "thread-" + std::to_string(index);
  };
  for (const auto& [index, t] : x.threads.entries()) {
    if (t.events != 0) out.recorded_by_thread[thread_name(t.index)] += t.events;
  }
  for (const auto& [key, n] : x.losses.entries()) {
    out.dropped_by_thread[thread_name(static_cast<uint32_t>(key >> 8))] += n;
  }
  for (const auto& [key, n] : counter.kind_domain) {
    const format::KindSchema* schema = format::FindSchema(static_cast<EventKind>(key.first));
    std::string kind = schema != nullptr ? schema->name : "kind-" + std::to_string(key.first);
    out.by_kind[kind] += n;
    if (key.second != Counter::kNone) {
      const std::string* domain = x.domains.Find(key.second);
      out.by_kind_domain[{
          kind, domain != nullptr ? *domain : "domain-" + std::to_string(key.second)}] += n;
    }
  }
  return out;
}

}  // namespace ittc::bench
