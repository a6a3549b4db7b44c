#include "collector/internal/registry.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "collector/internal/api_util.h"
#include "collector/internal/settings.h"
#include "collector/internal/timebase.h"
#include "format/glob.h"

namespace ittc::collector_internal {
namespace {

using format::EventKind;

alignas(Registry) unsigned char g_registry_storage[sizeof(Registry)];
std::once_flag g_registry_once;

// A name as the registry keeps it: at most kMaxRawBytesField bytes, a longer
// one cut and marked like every other string (api_util.h). Slow path only.
std::string Cap(const char* s) { return StringFieldText(StringField(s, -1)); }

RawBytes AsBytes(std::string_view s) { return RawBytes{s.data(), s.size()}; }

// Key of a counter or heap function: domain and name can hold any byte but
// NUL, so NUL separates them.
std::string PairKey(std::string_view a, std::string_view b) {
  std::string key(a);
  key.push_back('\0');
  key.append(b);
  return key;
}

// The object `table` holds for `name`, looked up without a lock, or
// nullptr (then the caller looks again under the lock). A name longer than
// a string field is cut before the table holds it, so only the slow path
// finds its object.
void* FindName(const NameTable& table, const char* name) {
  const size_t size = strnlen(name, kMaxRawBytesField + 1);
  if (size > kMaxRawBytesField) return nullptr;
  return table.Find(name, size, NameTable::Hash(name, size));
}

char* Dup(std::string_view s) {
  char* p = static_cast<char*>(std::malloc(s.size() + 1));
  if (p == nullptr) return nullptr;
  std::memcpy(p, s.data(), s.size());
  p[s.size()] = '\0';
  return p;
}

}  // namespace

Registry& Registry::GetSlow() {
  // Constructed in static storage and never destroyed: no destructor runs
  // at exit while other threads may still be calling in.
  std::call_once(g_registry_once, [] {
    // Pairs with the acquire load in Get.
    instance_.store(new (g_registry_storage) Registry(), std::memory_order_release);
  });
  return *instance_.load(std::memory_order_acquire);
}

void Registry::SetDomainPatterns(std::vector<std::string> patterns) {
  std::lock_guard<std::mutex> lock(mu_);
  patterns_ = std::move(patterns);
}

void Registry::SetMarkerTriggerPattern(std::string pattern) {
  if (pattern.empty()) return;
  std::lock_guard<std::mutex> lock(mu_);
  marker_pattern_ = std::move(pattern);
  for (size_t i = 0; i < string_texts_.size(); ++i) {
    if (format::GlobMatch(marker_pattern_, string_texts_[i])) {
      g_marker_triggers.Add(static_cast<uint32_t>(i + 1));
    }
  }
  g_marker_triggers.TurnOn();
}

void MarkerTriggerIds::Add(uint32_t id) {
  if (id / kBitsPerBlock >= kBlocks) return;
  std::atomic<std::atomic<uint64_t>*>& slot = blocks_[id / kBitsPerBlock];
  std::atomic<uint64_t>* block = slot.load(std::memory_order_relaxed);
  if (block == nullptr) {
    block = new (std::nothrow) std::atomic<uint64_t>[kBitsPerBlock / 64]();
    if (block == nullptr) return;
    // Pairs with the acquire load in Contains().
    slot.store(block, std::memory_order_release);
  }
  std::atomic<uint64_t>& word = block[id % kBitsPerBlock / 64];
  word.store(word.load(std::memory_order_relaxed) | uint64_t{1} << (id % 64),
             std::memory_order_relaxed);
}

bool Registry::FilterAccepts(const char* name) const {
  if (patterns_.empty()) return true;
  for (const std::string& p : patterns_) {
    if (format::GlobMatch(p, name)) return true;
  }
  return false;
}

uint32_t Registry::InternStringLocked(std::string_view text) {
  auto it = string_ids_.find(std::string(text));
  if (it != string_ids_.end()) return it->second;
  uint32_t id = static_cast<uint32_t>(string_texts_.size() + 1);
  auto inserted = string_ids_.emplace(std::string(text), id).first;
  string_texts_.push_back(inserted->first);
  AppendDefinitionLocked(EventKind::kDefString, uint64_t{id}, AsBytes(inserted->first));
  if (!marker_pattern_.empty() && format::GlobMatch(marker_pattern_, inserted->first)) {
    g_marker_triggers.Add(id);
  }
  return id;
}

uint32_t Registry::InternString(std::string_view text) {
  const RawBytes capped = StringField(text.data(), static_cast<long>(text.size()));
  std::string_view view(static_cast<const char*>(capped.data), capped.size);
  // A copy only for a cut string, which needs its mark appended.
  std::string cut;
  if (capped.tail_size != 0) view = cut = StringFieldText(capped);
  std::lock_guard<std::mutex> lock(mu_);
  return InternStringLocked(view);
}

std::string Registry::StringText(uint32_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  if (id == 0 || id > string_texts_.size()) return {};
  return std::string(string_texts_[id - 1]);
}

__itt_string_handle* Registry::CreateStringHandle(const char* name) {
  if (name == nullptr) return nullptr;
  if (void* h = FindName(string_handles_, name)) return static_cast<__itt_string_handle*>(h);
  const std::string text = Cap(name);
  const uint64_t hash = NameTable::Hash(text.data(), text.size());
  std::lock_guard<std::mutex> lock(mu_);
  if (void* h = string_handles_.Find(text.data(), text.size(), hash)) {
    return static_cast<__itt_string_handle*>(h);
  }
  uint32_t id = InternStringLocked(text);
  auto* h = new (std::nothrow) __itt_string_handle();
  if (h == nullptr) return nullptr;
  h->strA = Dup(text);
  h->strW = nullptr;
  h->extra2 = nullptr;
  h->next = nullptr;
  // Pairs with the acquire load in StringId().
  __atomic_store_n(&h->extra1, static_cast<int>(id), __ATOMIC_RELEASE);
  if (!string_handles_.Insert(text, hash, h)) {
    // Out of memory. A handle the table does not hold would be a second
    // handle of its name at the next create: none is better.
    std::free(const_cast<char*>(h->strA));
    delete h;
    return nullptr;
  }
  return h;
}

uint32_t Registry::AdoptStringHandle(__itt_string_handle* handle) {
  if (handle->strA == nullptr) return 0;
  std::lock_guard<std::mutex> lock(mu_);
  uint32_t id = InternStringLocked(Cap(handle->strA));
  __atomic_store_n(&handle->extra1, static_cast<int>(id), __ATOMIC_RELEASE);
  return id;
}

void Registry::TrackDomainLocked(__itt_domain* domain, uint32_t id) {
  bool enabled = domain_enabled_[id - 1];
  domain_structs_.push_back(DomainEntry{domain, enabled});
  __atomic_store_n(&domain->flags, enabled && recording_ ? 1 : 0, __ATOMIC_RELAXED);
  // Pairs with the acquire load in DomainId().
  __atomic_store_n(&domain->extra1, static_cast<int>(id), __ATOMIC_RELEASE);
}

uint32_t Registry::DomainIdForNameLocked(const char* name, __itt_domain** canonical) {
  std::string text = Cap(name);
  auto it = domain_ids_.find(std::string(text));
  if (it != domain_ids_.end()) {
    *canonical = canonical_domains_[it->second - 1];
    return it->second;
  }
  uint32_t id = static_cast<uint32_t>(canonical_domains_.size() + 1);
  domain_ids_.emplace(std::string(text), id);
  canonical_domains_.push_back(nullptr);
  domain_enabled_.push_back(FilterAccepts(std::string(text).c_str()));
  AppendDefinitionLocked(EventKind::kDefDomain, uint64_t{id}, AsBytes(text));
  *canonical = nullptr;
  return id;
}

__itt_domain* Registry::CreateDomain(const char* name) {
  if (name == nullptr) return nullptr;
  if (void* d = FindName(domains_, name)) return static_cast<__itt_domain*>(d);
  std::lock_guard<std::mutex> lock(mu_);
  __itt_domain* canonical;
  uint32_t id = DomainIdForNameLocked(name, &canonical);
  if (canonical != nullptr) return canonical;
  auto* d = new (std::nothrow) __itt_domain();
  if (d == nullptr) return nullptr;
  const std::string text = Cap(name);
  d->nameA = Dup(text);
  d->nameW = nullptr;
  d->extra2 = nullptr;
  d->next = nullptr;
  canonical_domains_[id - 1] = d;
  TrackDomainLocked(d, id);
  // Out of memory, the name stays out of the table; canonical_domains_
  // still answers it, under the lock.
  domains_.Insert(text, NameTable::Hash(text.data(), text.size()), d);
  return d;
}

uint32_t Registry::AdoptDomain(__itt_domain* domain) {
  if (domain->nameA == nullptr) return 0;
  std::lock_guard<std::mutex> lock(mu_);
  int existing = __atomic_load_n(&domain->extra1, __ATOMIC_ACQUIRE);
  if (existing > 0) return static_cast<uint32_t>(existing);
  __itt_domain* canonical;
  uint32_t id = DomainIdForNameLocked(domain->nameA, &canonical);
  TrackDomainLocked(domain, id);
  return id;
}

__itt_counter_info_t* Registry::CreateCounter(const char* name, const char* domain_name,
                                              const __itt_domain* domain, int type) {
  if (name == nullptr) return nullptr;
  std::string dom_text = domain != nullptr ? Cap(domain->nameA) : Cap(domain_name);
  std::string name_text = Cap(name);
  std::lock_guard<std::mutex> lock(mu_);
  // A counter is its domain, name and type, as the static parts find one
  // (a second type of one name is a counter of its own: its values are
  // read as its type).
  std::string key = PairKey(dom_text, name_text);
  key.push_back('\0');
  key.append(std::to_string(type));
  auto it = counters_.find(key);
  if (it != counters_.end()) return it->second;
  auto* c = new (std::nothrow) __itt_counter_info_t();
  if (c == nullptr) return nullptr;
  c->nameA = Dup(name_text);
  c->domainA = Dup(dom_text);
  c->type = type;
  DefineCounterLocked(c);
  counters_.emplace(std::move(key), c);
  return c;
}

uint32_t Registry::AdoptCounter(__itt_counter_info_t* counter) {
  if (counter->nameA == nullptr) return 0;
  std::lock_guard<std::mutex> lock(mu_);
  int existing = __atomic_load_n(&counter->extra1, __ATOMIC_ACQUIRE);
  if (existing > 0) return static_cast<uint32_t>(existing);
  return DefineCounterLocked(counter);
}

uint32_t Registry::DefineCounterLocked(__itt_counter_info_t* counter) {
  std::string dom_text = Cap(counter->domainA);
  uint32_t id = ++counter_count_;
  __itt_domain* canonical;
  uint32_t domain_id = dom_text.empty() ? 0 : DomainIdForNameLocked(counter->domainA, &canonical);
  AppendDefinitionLocked(EventKind::kDefCounter, uint64_t{id}, AsBytes(Cap(counter->nameA)),
                         AsBytes(dom_text), uint64_t{domain_id},
                         static_cast<uint64_t>(counter->type));
  if (DomainFilteredOutLocked(domain_id)) counter->extra2 = kFilteredOutMark;
  // Pairs with the acquire load in CounterId().
  __atomic_store_n(&counter->extra1, static_cast<int>(id), __ATOMIC_RELEASE);
  return id;
}

__itt_histogram* Registry::CreateHistogram(const __itt_domain* domain, const char* name,
                                           __itt_metadata_type x_type, __itt_metadata_type y_type) {
  if (domain == nullptr || name == nullptr) return nullptr;
  uint32_t domain_id = DomainId(domain);
  std::string name_text = Cap(name);
  std::lock_guard<std::mutex> lock(mu_);
  std::string key = PairKey(std::to_string(domain_id), name_text);
  auto it = histograms_.find(key);
  if (it != histograms_.end()) return it->second;
  auto* h = new (std::nothrow) __itt_histogram();
  if (h == nullptr) return nullptr;
  h->domain = domain;
  h->nameA = Dup(name_text);
  h->x_type = x_type;
  h->y_type = y_type;
  DefineHistogramLocked(h, domain_id);
  histograms_.emplace(std::move(key), h);
  return h;
}

uint32_t Registry::AdoptHistogram(__itt_histogram* histogram) {
  if (histogram->nameA == nullptr || histogram->domain == nullptr) return 0;
  uint32_t domain_id = DomainId(histogram->domain);
  std::lock_guard<std::mutex> lock(mu_);
  int existing = __atomic_load_n(&histogram->extra1, __ATOMIC_ACQUIRE);
  if (existing > 0) return static_cast<uint32_t>(existing);
  return DefineHistogramLocked(histogram, domain_id);
}

uint32_t Registry::DefineHistogramLocked(__itt_histogram* histogram, uint32_t domain_id) {
  uint32_t id = ++histogram_count_;
  AppendDefinitionLocked(EventKind::kDefHistogram, uint64_t{id}, uint64_t{domain_id},
                         AsBytes(Cap(histogram->nameA)), EnumBits(histogram->x_type),
                         EnumBits(histogram->y_type));
  if (DomainFilteredOutLocked(domain_id)) histogram->extra2 = kFilteredOutMark;
  // Pairs with the acquire load in HistogramId().
  __atomic_store_n(&histogram->extra1, static_cast<int>(id), __ATOMIC_RELEASE);
  return id;
}

__itt_track_group* Registry::CreateTrackGroup(__itt_string_handle* name, int type) {
  const uint32_t name_id = name != nullptr ? StringId(name) : 0;
  std::lock_guard<std::mutex> lock(mu_);
  std::string key = PairKey(std::to_string(name_id), std::to_string(type));
  auto it = track_groups_.find(key);
  if (it != track_groups_.end()) return it->second;
  auto* g = new (std::nothrow) __itt_track_group();
  if (g == nullptr) return nullptr;
  g->name = name;
  g->tgtype = static_cast<__itt_track_group_type>(type);
  const uint32_t id = static_cast<uint32_t>(track_groups_.size() + 1);
  if (!track_group_ids_.Insert(g, id)) {
    delete g;
    return nullptr;
  }
  g->extra1 = static_cast<int>(id);
  AppendDefinitionLocked(EventKind::kDefTrackGroup, uint64_t{id}, uint64_t{name_id},
                         static_cast<uint64_t>(type));
  track_groups_.emplace(std::move(key), g);
  return g;
}

__itt_track* Registry::CreateTrack(__itt_track_group* group, __itt_string_handle* name, int type) {
  const uint32_t group_id = TrackGroupId(group);
  if (group != nullptr && group_id == 0) return nullptr;
  const uint32_t name_id = name != nullptr ? StringId(name) : 0;
  std::lock_guard<std::mutex> lock(mu_);
  std::string key =
      PairKey(std::to_string(group_id), PairKey(std::to_string(name_id), std::to_string(type)));
  auto it = tracks_.find(key);
  if (it != tracks_.end()) return it->second;
  const uint32_t id = static_cast<uint32_t>(tracks_.size() + 1);
  auto* t = new (std::nothrow) __itt_track();
  if (t == nullptr) return nullptr;
  if (!track_ids_.Insert(t, id)) {
    delete t;
    return nullptr;
  }
  t->extra1 = static_cast<int>(id);
  t->name = name;
  t->group = group;
  t->ttype = static_cast<__itt_track_type>(type);
  // The group's tracks, in the order they were made (under mu_).
  if (group != nullptr) {
    __itt_track** last = &group->track;
    while (*last != nullptr) last = &(*last)->next;
    *last = t;
  }
  AppendDefinitionLocked(EventKind::kDefTrack, uint64_t{id}, uint64_t{group_id}, uint64_t{name_id},
                         static_cast<uint64_t>(type));
  tracks_.emplace(std::move(key), t);
  return t;
}

namespace {

// Asks the user clock for its frequency and current value, and pairs that
// value with the trace clock read around the call.
ClockParams* MeasureClock(__itt_clock_domain* cd, uint64_t id) {
  __itt_clock_info info{};
  uint64_t before = ReadTicks();
  cd->fn(&info, cd->fn_data);
  uint64_t after = ReadTicks();
  cd->info = info;
  if (info.clock_freq == 0) return nullptr;
  auto* p = new (std::nothrow) ClockParams();
  if (p == nullptr) return nullptr;
  p->id = id;
  p->frequency_hz = info.clock_freq;
  p->clock_base = info.clock_base;
  p->ticks_at_base = before + (after - before) / 2;
  p->ticks_per_unit = static_cast<double>(g_timebase.hz) / static_cast<double>(info.clock_freq);
  return p;
}

}  // namespace

__itt_clock_domain* Registry::CreateClockDomain(__itt_get_clock_info_fn fn, void* fn_data) {
  if (fn == nullptr) return nullptr;
  auto* cd = new (std::nothrow) __itt_clock_domain();
  if (cd == nullptr) return nullptr;
  cd->fn = fn;
  cd->fn_data = fn_data;
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t id = clock_domains_.size() + 1;
  ClockParams* p = MeasureClock(cd, id);
  if (p == nullptr) {
    delete cd;
    return nullptr;
  }
  AppendDefinitionLocked(EventKind::kDefClockDomain, id, p->frequency_hz, p->clock_base,
                         p->ticks_at_base);
  cd->extra1 = static_cast<int>(id);
  // Pairs with the acquire load in ClockParamsOf().
  __atomic_store_n(&cd->extra2, static_cast<void*>(p), __ATOMIC_RELEASE);
  clock_domains_.push_back(cd);
  return cd;
}

void Registry::ResetClockDomains() {
  std::lock_guard<std::mutex> lock(mu_);
  for (__itt_clock_domain* cd : clock_domains_) {
    ClockParams* p = MeasureClock(cd, static_cast<uint64_t>(cd->extra1));
    if (p == nullptr) continue;
    AppendDefinitionLocked(EventKind::kDefClockDomain, p->id, p->frequency_hz, p->clock_base,
                           p->ticks_at_base);
    // The old parameters stay allocated: a racing call may still read them.
    __atomic_store_n(&cd->extra2, static_cast<void*>(p), __ATOMIC_RELEASE);
  }
}

__itt_heap_function Registry::CreateHeapFunction(const char* name, const char* domain_name) {
  if (name == nullptr) return nullptr;
  std::string name_text = Cap(name);
  std::string dom_text = Cap(domain_name);
  std::lock_guard<std::mutex> lock(mu_);
  std::string key = PairKey(dom_text, name_text);
  auto it = heap_functions_.find(key);
  if (it != heap_functions_.end()) return it->second;
  auto* f = new (std::nothrow) HeapFunction{0, false};
  if (f == nullptr) return nullptr;
  f->id = static_cast<uint32_t>(heap_functions_.size() + 1);
  f->filtered_out = !dom_text.empty() && !FilterAccepts(dom_text.c_str());
  if (!heap_function_ids_.Insert(f, f->id)) {
    delete f;
    return nullptr;
  }
  AppendDefinitionLocked(EventKind::kDefHeapFunction, uint64_t{f->id}, AsBytes(name_text),
                         AsBytes(dom_text));
  heap_functions_.emplace(std::move(key), f);
  return f;
}

int Registry::CreateEvent(const char* name, int length) {
  if (name == nullptr) return 0;
  size_t n = length > 0 ? static_cast<size_t>(length) : strnlen(name, kMaxRawBytesField);
  if (n > kMaxRawBytesField) n = kMaxRawBytesField;
  std::string text(name, strnlen(name, n));
  std::lock_guard<std::mutex> lock(mu_);
  auto it = events_.find(text);
  if (it != events_.end()) return it->second;
  int id = static_cast<int>(events_.size() + 1);
  AppendDefinitionLocked(EventKind::kDefEvent, static_cast<uint64_t>(id), AsBytes(text));
  events_.emplace(std::move(text), id);
  // Pairs with the acquire load in IsEvent().
  event_count_.store(static_cast<uint32_t>(id), std::memory_order_release);
  return id;
}

void Registry::AdoptStaticPart(__itt_global* global) {
  // Domains and string handles are on every static part's lists; the other
  // lists are adopted lazily from the handles themselves (their fields are
  // not present in every version of __itt_global; see itt_static_abi.h).
  for (__itt_domain* d = global->domain_list; d != nullptr; d = d->next) {
    if (d->nameA != nullptr && __atomic_load_n(&d->extra1, __ATOMIC_ACQUIRE) <= 0) AdoptDomain(d);
  }
  for (__itt_string_handle* h = global->string_list; h != nullptr; h = h->next) {
    if (h->strA != nullptr && __atomic_load_n(&h->extra1, __ATOMIC_ACQUIRE) <= 0) {
      AdoptStringHandle(h);
    }
  }
  if (ITTC_ABI_HAS_COUNTER_LIST(global)) {
    for (__itt_counter_info_t* c = global->counter_list; c != nullptr; c = c->next) {
      if (c->nameA != nullptr && __atomic_load_n(&c->extra1, __ATOMIC_ACQUIRE) <= 0) {
        AdoptCounter(c);
      }
    }
  }
  if (ITTC_ABI_HAS_HISTOGRAM_LIST(global)) {
    for (__itt_histogram* h = global->histogram_list; h != nullptr; h = h->next) {
      if (h->nameA != nullptr && __atomic_load_n(&h->extra1, __ATOMIC_ACQUIRE) <= 0) {
        AdoptHistogram(h);
      }
    }
  }
}

void Registry::SetRecording(bool recording) {
  std::lock_guard<std::mutex> lock(mu_);
  recording_ = recording;
  for (const DomainEntry& e : domain_structs_) {
    __atomic_store_n(&e.domain->flags, e.enabled && recording ? 1 : 0, __ATOMIC_RELAXED);
  }
}

void Registry::CollectDefinitions(size_t* cursor, std::string* out) {
  std::lock_guard<std::mutex> lock(mu_);
  if (*cursor < definitions_.size()) {
    out->append(definitions_, *cursor, std::string::npos);
    *cursor = definitions_.size();
  }
}

}  // namespace ittc::collector_internal
