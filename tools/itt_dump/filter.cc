#include "tools/itt_dump/filter.h"

#include <cstdint>
#include <cstdlib>

#include "absl/strings/numbers.h"

namespace ittc {
namespace itt_dump {

bool Filter::HeapFunctionOk(uint64_t function) const {
  const HeapFunctionDef* def = index_.heap_functions.Find(function);
  return def != nullptr ? NameInDomainOk(def->name, def->domain_name) : NameInDomainOk("", "");
}

Filter::Filter(const FilterSpec& spec, const TraceIndex& index)
    : spec_(spec), index_(index), active_(!spec.empty()) {
  if (spec_.from_ns) from_ticks_ = index.clock.TicksAt(*spec_.from_ns);
  if (spec_.to_ns && *spec_.to_ns < INT64_MAX) {
    // The last tick still at or before `to`.
    const uint64_t after = index.clock.TicksAt(*spec_.to_ns + 1);
    to_ticks_ = after == 0 ? 0 : after - 1;
    if (*spec_.to_ns < (spec_.from_ns ? *spec_.from_ns : INT64_MIN)) {
      to_ticks_ = 0;
      from_ticks_ = 1;
    }
  }
}

bool Filter::MatchThread(const ThreadRec& t) const {
  uint64_t tid;
  if (absl::SimpleAtoi(*spec_.thread, &tid)) return t.tid == tid;
  return format::GlobMatch(*spec_.thread, t.name);
}

}  // namespace itt_dump
}  // namespace ittc
