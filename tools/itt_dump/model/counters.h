// Counters: the one place that knows which counter an event changes and
// what its value becomes. stats, chrome and vtune-csv read counter samples
// from here.
//
// A counter is identified by its kDefCounter id (counter_inc*,
// counter_set_value*) or, for the v3 API, by (domain id, name string id).
// Its value starts at 0; inc/dec events add or subtract (1 or their delta),
// set_value events replace it with the value read as the counter's type
// (values.h).
//
// Thread safety: none. Memory: one entry per distinct counter.

#ifndef TOOLS_ITT_DUMP_MODEL_COUNTERS_H_
#define TOOLS_ITT_DUMP_MODEL_COUNTERS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "format/schema.h"
#include "tools/itt_dump/model/flat_map.h"
#include "tools/itt_dump/model/trace_index.h"

namespace ittc {
namespace itt_dump {

// Which counter an event changes, and how.
struct CounterChange {
  // 1: by counter id `a`; 2 + P: v3, by domain `a` and name `b`, in the
  // process P of a set (ThreadRec::process: each process counts its own;
  // DecodeCounterChange gives 2, V3CounterKeys::Resolve adds P).
  uint64_t key_kind = 0;
  uint64_t a = 0;
  uint64_t b = 0;
  bool set = false;  // replaces the value; else adds `value`
  long double value = 0;
};

// Fills *c and returns true for the kinds that change a counter's value.
bool DecodeCounterChange(const format::Event& e, CounterChange* c);

// The counters of `index` that changes by (domain, name) are of: a v3
// counter (__itt_counter_create_v3) takes __itt_counter_set_value_v3 by its
// id, and __itt_counter_inc_v3 and the others by its domain and name. One
// counter the change's process made with that domain and name is the
// counter of both (each process of a set has its own); with none, or
// several, the change keeps its domain and name, as its process's.
//
// Thread safety: none (each tracker and stretch has its own).
class V3CounterKeys {
 public:
  explicit V3CounterKeys(const TraceIndex* index = nullptr) : index_(index) {}
  // Where `c`, a change by process `process` (ThreadRec::process), is by
  // (domain, name): makes it by the id of the one counter of that process
  // that is of it, else by (domain, name) in that process (key_kind).
  void Resolve(CounterChange* c, uint32_t process);

 private:
  const TraceIndex* index_;
  // (process, domain, name) -> id, 0: none
  std::map<std::tuple<uint32_t, uint64_t, uint64_t>, uint64_t> ids_;
};

// Whether `kind` may change a counter's value: one compare, so consumers
// ask it before calling into the tracker for every event.
inline bool MayChangeCounter(format::EventKind kind) {
  return kind >= format::EventKind::kCounterInc && kind <= format::EventKind::kCounterSetValueEx;
}

struct Counter {
  size_t index = 0;  // order of first change in the trace: 0, 1, ...
  uint64_t key_kind = 0;
  uint64_t a = 0;
  uint64_t b = 0;
  std::string name;    // "counter#N" for an undefined id; may be "" (v3)
  bool named = true;   // false: a v3 counter of a null name (no string)
  std::string domain;  // "" if none
  uint64_t type = 0;   // MetadataType of a defined counter, else 0
  long double value = 0;
  bool ever_set = false;  // some set_value event changed it
};

// One change of one counter, as the tracker applied it.
struct CounterSample {
  Counter* counter = nullptr;  // valid as long as the tracker
  uint64_t ticks = 0;          // when (the timestamp of *_ex kinds)
  bool set = false;            // a set_value event (an instantaneous value)
};

// The counter changes of one stretch of the trace (PieceMerger's
// stretches): a counter's value is known from the stretch's first
// set_value of it on (the stretch applies the later changes itself, as
// CounterTracker does), while its changes before that add to a value of
// before the stretch: they are kept, in order, for CounterTracker::
// JoinStretch to apply.
//
// Thread safety: none (one stretch, on one thread, at a time).
class CounterStretch {
 public:
  // A change kept for the join.
  struct Deferred {
    CounterChange change;
    uint64_t ticks = 0;
    const ThreadRec* thread = nullptr;
  };
  // What the stretch knows of a counter: its value after the stretch, if
  // it set it.
  struct Known {
    uint64_t key_kind = 0;
    uint64_t a = 0;
    uint64_t b = 0;
    long double value = 0;
  };
  // Changes by (domain, name) resolved as the tracker resolves them (the
  // set's index; must outlive the stretch).
  void set_index(const TraceIndex* index) { keys_ = V3CounterKeys(index); }
  void Clear();
  // If `e` changes a counter: true, with *change its change, and
  // *known whether the stretch knows the value after it (in *value).
  bool OnEvent(const format::Event& e, const ThreadRec& t, CounterChange* change, bool* known,
               long double* value);
  const std::vector<Deferred>& deferred() const { return deferred_; }

 private:
  friend class CounterTracker;
  struct State {
    bool known = false;
    long double value = 0;
  };
  std::map<std::tuple<uint64_t, uint64_t, uint64_t>, State> counters_;
  std::vector<Deferred> deferred_;
  V3CounterKeys keys_;
};

class CounterTracker {
 public:
  // `index` must outlive the tracker.
  explicit CounterTracker(const TraceIndex& index) : index_(index), keys_(&index) {}

  // If `e` changes a counter: applies the change (sample->counter->value is
  // the new value) and returns true. Cost: one hash lookup.
  bool OnEvent(const format::Event& e, const ThreadRec& t, CounterSample* sample);

  // Joins `stretch` (CounterStretch): applies its deferred changes in
  // order, each as OnEvent would, with on_sample(sample, thread); then
  // each counter the stretch set takes the value the stretch left it with.
  template <typename OnSample>
  void JoinStretch(const CounterStretch& stretch, OnSample&& on_sample) {
    for (const CounterStretch::Deferred& d : stretch.deferred_) {
      CounterSample sample;
      Apply(d.change, d.ticks, &sample);
      on_sample(sample, *d.thread);
    }
    for (const auto& [key, state] : stretch.counters_) {
      if (!state.known) continue;
      CounterChange c;
      std::tie(c.key_kind, c.a, c.b) = key;
      Counter* counter = Find(c);
      counter->value = state.value;
      counter->ever_set = true;
    }
  }
  // The counter a change is of (made on its first change, in order).
  Counter* Find(const CounterChange& c);
  Counter* FindByKey(const CounterChange& c);  // Find, past its last counter

  // Every counter seen so far, in order of first change.
  const std::vector<std::unique_ptr<Counter>>& counters() const { return counters_; }

 private:
  // Applies `c` at `ticks`, as OnEvent.
  void Apply(const CounterChange& c, uint64_t ticks, CounterSample* sample);

  const TraceIndex& index_;
  V3CounterKeys keys_;
  U64Map<Counter*> by_hash_;
  std::map<std::tuple<uint64_t, uint64_t, uint64_t>, Counter*> exact_;
  std::vector<std::unique_ptr<Counter>> counters_;
  Counter* last_ = nullptr;  // Find's last
};

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_MODEL_COUNTERS_H_
