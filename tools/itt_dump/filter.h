// The filters of text, stats, chrome and vtune-csv:
//   --thread=ID|NAME  OS thread id, or a glob on the thread's name
//   --domain=GLOB     glob on the domain name
//   --name=GLOB       glob on the event's name (task, marker, counter, ...)
//   --from=NS --to=NS time window, nanoseconds since the start of the trace
// Globs are format/glob.h's, as the collector's ITTC_DOMAINS reads them.
// Each verb documents what an item is for the name and time tests
// (docs/ITT_DUMP.md, "Filters").
//
// Thread safety: none (per-thread and per-domain answers are cached).

#ifndef TOOLS_ITT_DUMP_FILTER_H_
#define TOOLS_ITT_DUMP_FILTER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "format/glob.h"
#include "tools/itt_dump/model/counters.h"
#include "tools/itt_dump/model/flat_map.h"
#include "tools/itt_dump/model/intervals.h"
#include "tools/itt_dump/model/trace_index.h"

namespace ittc {
namespace itt_dump {

struct FilterSpec {
  std::optional<std::string> thread;
  std::optional<std::string> domain;
  std::optional<std::string> name;
  std::optional<int64_t> from_ns;
  std::optional<int64_t> to_ns;

  bool empty() const { return !thread && !domain && !name && !from_ns && !to_ns; }
};

class Filter {
 public:
  // `index` must outlive the filter.
  Filter(const FilterSpec& spec, const TraceIndex& index);

  bool active() const { return active_; }

  bool ThreadOk(const ThreadRec& t) {
    if (!spec_.thread) return true;
    int8_t& c = thread_cache_[t.index];
    if (c == 0) c = MatchThread(t) ? 1 : -1;
    return c > 0;
  }
  // Domain by id; an event without a domain (0) fails a domain filter.
  bool DomainOk(uint64_t domain_id) {
    if (!spec_.domain) return true;
    int8_t& c = domain_cache_[domain_id];
    if (c == 0) {
      c = domain_id != 0 && format::GlobMatch(*spec_.domain, index_.Domain(domain_id)) ? 1 : -1;
    }
    return c > 0;
  }
  bool DomainNameOk(std::string_view name) const {
    return !spec_.domain || format::GlobMatch(*spec_.domain, name);
  }
  bool NameOk(std::string_view name) const {
    return !spec_.name || format::GlobMatch(*spec_.name, name);
  }
  // An item's domain known by its name (a counter's, a heap function's;
  // "" for none, which fails a domain filter): the domain filter keeps it.
  bool ItemDomainOk(std::string_view domain) const {
    return !has_domain() || (!domain.empty() && DomainNameOk(domain));
  }
  // An item named `name` in the domain named `domain` (ItemDomainOk): the
  // name and domain filters keep it.
  bool NameInDomainOk(std::string_view name, std::string_view domain) const {
    return NameOk(name) && ItemDomainOk(domain);
  }
  // Heap function `function` (kDefHeapFunction id), by its name and domain.
  bool HeapFunctionOk(uint64_t function) const;
  // Name by kDefString id.
  bool NameIdOk(uint64_t string_id) {
    if (!spec_.name) return true;
    int8_t& c = name_cache_[string_id];
    if (c == 0) c = format::GlobMatch(*spec_.name, index_.String(string_id)) ? 1 : -1;
    return c > 0;
  }
  // An item named by kDefString id `string_id`, 0 for none (a sync
  // object never named), which fails a name filter.
  bool NamedIdOk(uint64_t string_id) {
    return !has_name() || (string_id != 0 && NameIdOk(string_id));
  }
  // `ticks` inside [from, to].
  bool TimeOk(uint64_t ticks) const { return ticks >= from_ticks_ && ticks <= to_ticks_; }
  // An item of thread t (a marker, a relation, metadata, a JIT method...)
  // in domain `domain_id` (0 for none, which fails a domain filter), named
  // `name` (`named` false: it has no name, which fails a name filter), at
  // `ticks`: every filter keeps it.
  bool KeepsItem(const ThreadRec& t, uint64_t domain_id, std::string_view name, uint64_t ticks,
                 bool named = true) {
    return !active_ || (ThreadOk(t) && DomainOk(domain_id) && (named || !has_name()) &&
                        NameOk(name) && TimeOk(ticks));
  }
  // A sync wait of thread t that began at `ticks`, on an object named by
  // string id `name_id` (0: never named, which fails a name filter): sync
  // objects have no domain, so a domain filter drops it.
  bool KeepsWait(const ThreadRec& t, uint64_t name_id, uint64_t ticks) {
    return !active_ || (!has_domain() && ThreadOk(t) && TimeOk(ticks) && NamedIdOk(name_id));
  }
  // A relation of thread t in domain `domain_id` at `ticks`: it has no
  // name (its type is not one), so it fails a --name filter.
  bool KeepsRelation(const ThreadRec& t, uint64_t domain_id, uint64_t ticks) {
    return KeepsItem(t, domain_id, "", ticks, /*named=*/false);
  }
  // A counter's sample on thread t, by the counter's name and domain (a
  // counter without a domain fails a domain filter, one without a name a
  // name filter).
  bool KeepsSample(const ThreadRec& t, const CounterSample& sample) {
    return !active_ || (ThreadOk(t) && TimeOk(sample.ticks) && CounterOk(*sample.counter));
  }
  // The same for the counter alone: its name and domain.
  bool CounterOk(const Counter& c) const {
    return (c.named || !has_name()) && NameInDomainOk(c.name, c.domain);
  }
  // An interval: its thread, its begin, its domain (a legacy event has
  // none, and fails a domain filter) and its name, `name()` (a
  // string_view) asked for only where the other filters keep it (one
  // without a name, IntervalHasName, fails a name filter).
  template <typename Name>
  bool KeepsInterval(const Interval& iv, Name&& name) {
    if (!active_) return true;
    if (!ThreadOk(*iv.thread) || !TimeOk(iv.begin)) return false;
    if (iv.kind == IntervalKind::kLegacyEvent ? has_domain() : !DomainOk(iv.domain)) return false;
    if (!has_name()) return true;
    return IntervalHasName(iv) && NameOk(name());
  }
  bool has_name() const { return spec_.name.has_value(); }
  bool has_domain() const { return spec_.domain.has_value(); }
  bool has_time() const { return spec_.from_ns || spec_.to_ns; }

 private:
  bool MatchThread(const ThreadRec& t) const;

  FilterSpec spec_;
  const TraceIndex& index_;
  bool active_;
  uint64_t from_ticks_ = 0;
  uint64_t to_ticks_ = ~uint64_t{0};
  U64Map<int8_t> thread_cache_;
  U64Map<int8_t> domain_cache_;
  U64Map<int8_t> name_cache_;
};

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_FILTER_H_
