#include "bench/trace_summary.h"

#include <algorithm>
#include <string_view>
#include <vector>

#include "bench/bench_env.h"
#include "format/format.h"

namespace ittc::bench {

using format::EventKind;

absl::StatusOr<TraceSummary> SummarizeTrace(const std::string& path) {
  auto reader = format::TraceReader::Open(path, nullptr);
  if (!reader.ok()) return reader.status();
  TraceSummary out;
  out.file_bytes = FileSize(path);

  // Definitions come before their uses (FORMAT.md), but thread names may be
  // set late: count per thread index and name them at the end.
  std::map<uint64_t, std::string> domains;
  std::map<uint32_t, std::string> thread_names;
  std::map<uint32_t, uint64_t> recorded;
  std::map<std::pair<uint32_t, int>, uint64_t> losses;
  std::map<std::pair<uint16_t, uint64_t>, uint64_t> kind_domain;

  format::Chunk chunk;
  format::Event e;
  while ((*reader)->Next(&chunk)) {
    if (chunk.type == format::ChunkType::kEvents) {
      ++out.event_chunks;
      out.event_payload_bytes += chunk.payload.size();
      format::EventStreamDecoder dec;
      absl::Status s = dec.Reset(chunk.payload);
      if (!s.ok()) return s;
      uint32_t thread = dec.thread_index();
      while (dec.Next(&e)) {
        ++out.events;
        ++recorded[thread];
        const format::KindSchema* schema = format::FindSchema(e.kind);
        int domain_field = schema != nullptr ? format::FindField(*schema, "domain") : -1;
        uint64_t domain = domain_field >= 0 ? e.fields[domain_field].u : ~uint64_t{0};
        ++kind_domain[{static_cast<uint16_t>(e.kind), domain}];
      }
      if (!dec.status().ok()) return dec.status();
      continue;
    }
    format::RecordDecoder dec;
    dec.Reset(chunk.payload);
    while (dec.Next(&e)) {
      format::ThreadInfo info;
      format::LossRecord loss;
      format::EndRecord end;
      if (format::FromRecord(e, &info)) {
        if (!info.name.empty()) thread_names[info.thread_index] = std::string(info.name);
      } else if (format::FromRecord(e, &loss)) {
        uint64_t& n = losses[{loss.thread_index, static_cast<int>(loss.cause)}];
        n = std::max(n, loss.count);
      } else if (format::FromRecord(e, &end)) {
        out.has_end = true;
        out.end_recorded = end.events_recorded;
        out.end_dropped = end.events_dropped;
      } else if (e.kind == EventKind::kDefDomain) {
        const format::KindSchema* schema = format::FindSchema(e.kind);
        int id = format::FindField(*schema, "id");
        int name = format::FindField(*schema, "name");
        if (id >= 0 && name >= 0) domains[e.fields[id].u] = std::string(e.fields[name].bytes);
        ++out.domains;
      }
    }
    if (!dec.status().ok()) return dec.status();
  }
  if (!(*reader)->status().ok()) return (*reader)->status();
  out.corrupt_regions = (*reader)->stats().corrupt_regions;

  auto thread_name = [&](uint32_t index) {
    auto it = thread_names.find(index);
    return it != thread_names.end() ? it->second : "thread-" + std::to_string(index);
  };
  for (const auto& [index, n] : recorded) out.recorded_by_thread[thread_name(index)] += n;
  for (const auto& [key, n] : losses) out.dropped_by_thread[thread_name(key.first)] += n;
  for (const auto& [key, n] : kind_domain) {
    const format::KindSchema* schema = format::FindSchema(static_cast<EventKind>(key.first));
    std::string kind = schema != nullptr ? schema->name : "kind-" + std::to_string(key.first);
    out.by_kind[kind] += n;
    if (key.second != ~uint64_t{0}) {
      auto it = domains.find(key.second);
      std::string domain =
          it != domains.end() ? it->second : "domain-" + std::to_string(key.second);
      out.by_kind_domain[{kind, domain}] += n;
    }
  }
  return out;
}

}  // namespace ittc::bench
