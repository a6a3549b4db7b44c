#include "tools/itt_dump/model/counters.h"

#include "absl/strings/str_cat.h"
#include "tools/itt_dump/model/values.h"

namespace ittc {
namespace itt_dump {

using format::EventKind;
using F = format::Field;

bool DecodeCounterChange(const format::Event& e, CounterChange* c) {
  c->set = false;
  c->b = 0;
  switch (e.kind) {
    case EventKind::kCounterInc:
    case EventKind::kCounterIncDelta:
    case EventKind::kCounterDec:
    case EventKind::kCounterDecDelta:
    case EventKind::kCounterIncV3:
    case EventKind::kCounterIncDeltaV3:
    case EventKind::kCounterDecV3:
    case EventKind::kCounterDecDeltaV3: {
      if (e.Has(F::kCounter)) {
        c->key_kind = 1;
        c->a = e.Get(F::kCounter);
      } else {
        c->key_kind = 2;
        c->a = e.Get(F::kDomain);
        c->b = e.Get(F::kName);
      }
      c->value = e.Has(F::kDelta) ? static_cast<long double>(e.Get(F::kDelta)) : 1;
      const bool dec = e.kind == EventKind::kCounterDec || e.kind == EventKind::kCounterDecDelta ||
                       e.kind == EventKind::kCounterDecV3 ||
                       e.kind == EventKind::kCounterDecDeltaV3;
      if (dec) c->value = -c->value;
      return true;
    }
    case EventKind::kCounterSetValue:
    case EventKind::kCounterSetValueV3:
    case EventKind::kCounterSetValueEx:
      c->key_kind = 1;
      c->a = e.Get(F::kCounter);
      c->set = true;
      c->value = CounterValue(e.Get(F::kType), e.Get(F::kValue));
      return true;
    default:
      return false;
  }
}

void V3CounterKeys::Resolve(CounterChange* c, uint32_t process) {
  if (c->key_kind != 2) return;
  if (index_ == nullptr) {
    c->key_kind = 2 + uint64_t{process};
    return;
  }
  const auto [it, added] = ids_.try_emplace(std::make_tuple(process, c->a, c->b), 0);
  if (added) {
    const std::string_view name = index_->String(c->b);
    uint64_t found = 0;
    int matches = 0;
    for (const auto& [id, def] : index_->counters.entries()) {
      if (def.process == process && def.domain == c->a && def.domain != 0 && def.name == name) {
        found = id;
        ++matches;
      }
    }
    if (matches == 1) it->second = found;
  }
  if (it->second == 0) {
    c->key_kind = 2 + uint64_t{process};
    return;
  }
  c->key_kind = 1;
  c->a = it->second;
  c->b = 0;
}

namespace {

uint64_t Mix(uint64_t a, uint64_t b) {
  uint64_t x = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull);
  x ^= x >> 29;
  return x * 0xBF58476D1CE4E5B9ull;
}

}  // namespace

Counter* CounterTracker::Find(const CounterChange& c) {
  // Mostly the counter of the last change (a program samples a few
  // counters, often one again and again).
  if (last_ != nullptr && last_->key_kind == c.key_kind && last_->a == c.a && last_->b == c.b) {
    return last_;
  }
  last_ = FindByKey(c);
  return last_;
}

Counter* CounterTracker::FindByKey(const CounterChange& c) {
  const uint64_t h = Mix(Mix(c.key_kind, c.a), c.b);
  Counter*& slot = by_hash_[h];
  if (slot != nullptr && slot->key_kind == c.key_kind && slot->a == c.a && slot->b == c.b) {
    return slot;
  }
  const auto key = std::make_tuple(c.key_kind, c.a, c.b);
  auto it = exact_.find(key);
  if (it != exact_.end()) return it->second;
  auto counter = std::make_unique<Counter>();
  counter->index = counters_.size();
  counter->key_kind = c.key_kind;
  counter->a = c.a;
  counter->b = c.b;
  if (c.key_kind == 1) {
    const CounterDef* d = index_.counters.Find(c.a);
    if (d != nullptr) {
      counter->name = d->name;
      counter->domain = d->domain_name;
      counter->type = d->type;
    } else {
      counter->name = absl::StrCat("counter#", c.a);
    }
  } else {
    counter->domain = std::string(index_.Domain(c.a));
    counter->name = std::string(index_.String(c.b));
    counter->named = c.b != 0;
  }
  Counter* r = counter.get();
  counters_.push_back(std::move(counter));
  exact_[key] = r;
  if (slot == nullptr) slot = r;
  return r;
}

bool CounterTracker::OnEvent(const format::Event& e, const ThreadRec& t, CounterSample* sample) {
  CounterChange c;
  if (!DecodeCounterChange(e, &c)) return false;
  keys_.Resolve(&c, t.process);
  Apply(c, format::EffectiveTime(e), sample);
  return true;
}

void CounterTracker::Apply(const CounterChange& c, uint64_t ticks, CounterSample* sample) {
  Counter* counter = Find(c);
  counter->value = c.set ? c.value : counter->value + c.value;
  if (c.set) counter->ever_set = true;
  sample->counter = counter;
  sample->ticks = ticks;
  sample->set = c.set;
}

void CounterStretch::Clear() {
  counters_.clear();
  deferred_.clear();
}

bool CounterStretch::OnEvent(const format::Event& e, const ThreadRec& t, CounterChange* c,
                             bool* known, long double* value) {
  if (!DecodeCounterChange(e, c)) return false;
  keys_.Resolve(c, t.process);
  State& s = counters_[std::make_tuple(c->key_kind, c->a, c->b)];
  if (c->set) {
    s.known = true;
    s.value = c->value;
  } else if (s.known) {
    s.value = s.value + c->value;  // as CounterTracker adds
  }
  *known = s.known;
  *value = s.value;
  if (!s.known) deferred_.push_back({*c, format::EffectiveTime(e), &t});
  return true;
}

}  // namespace itt_dump
}  // namespace ittc
