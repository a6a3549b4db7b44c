// The process-wide registry of everything calls refer to by handle: domains,
// string handles, counters, histograms, clock domains, heap functions and
// legacy events. One registry serves every static part in the process.
//
// Handles are interned by name and live until the process ends. Each handle
// struct's reserved `extra1` field holds the small integer id events carry,
// so the hot path maps a handle to its id with one load. Handles created by
// a static part before the collector loaded (or by one whose create call
// did not reach us) have extra1 == 0 and are adopted on first use.
//
// Every new id also appends a raw definition record (raw_record.h) to an
// append-only buffer; the flusher writes them to definitions chunks before
// the events that use them.
//
// Creating a domain or string handle whose name was created before looks
// the name up without a lock (name_table.h): programs that call
// __itt_string_handle_create before every task they begin pay a hash and a
// compare, not a lock and a map lookup.
//
// Thread safety: all methods lock mu_ except the inline id lookups, which
// read extra1 with acquire order, pairing with the release store made after
// the definition was appended under mu_, and the lookups of
// string_handles_ and domains_ (NameTable::Find), which pair with the
// release publication of NameTable::Insert, made under mu_ after the
// handle's id was published. So a thread that sees an id also sees
// (through the ring's release/acquire and the flusher's lock of mu_) the
// definition of it.

#ifndef COLLECTOR_INTERNAL_REGISTRY_H_
#define COLLECTOR_INTERNAL_REGISTRY_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "collector/internal/handle_ids.h"
#include "collector/internal/itt_types.h"
#include "collector/internal/name_table.h"
#include "collector/internal/raw_record.h"

namespace ittc::collector_internal {

// Parameters for converting one user clock domain's timestamps to ticks.
// Immutable once published; a reset publishes a new one.
struct ClockParams {
  uint64_t id;
  uint64_t frequency_hz;
  uint64_t clock_base;
  uint64_t ticks_at_base;
  double ticks_per_unit;
};

// What our heap-function handles point to (known by address:
// Registry::HeapFunctionId).
struct HeapFunction {
  uint32_t id;
  bool filtered_out;  // its domain is one ITTC_DOMAINS leaves out
};

// The string ids whose text matches ITTC_FLIGHT_MARKER: a marker that
// carries one makes the flight recorder write a dump. Ids are added under
// the registry's lock as strings are interned, before the id is published
// (a handle's extra1), so a marker that read its id (acquire) sees its bit.
// The marker's path asks on() first: one relaxed load when no pattern is
// set. Blocks of ids are allocated as needed and never freed.
class MarkerTriggerIds {
 public:
  bool on() const { return on_.load(std::memory_order_relaxed); }
  bool Contains(uint32_t id) const {
    if (id / kBitsPerBlock >= kBlocks) return false;
    const std::atomic<uint64_t>* block =
        blocks_[id / kBitsPerBlock].load(std::memory_order_acquire);
    return block != nullptr &&
           ((block[id % kBitsPerBlock / 64].load(std::memory_order_relaxed) >> (id % 64)) & 1) != 0;
  }
  // REQUIRES: the registry's lock.
  void Add(uint32_t id);
  void TurnOn() { on_.store(true, std::memory_order_relaxed); }

 private:
  static constexpr uint32_t kBitsPerBlock = 4096;
  static constexpr uint32_t kBlocks = 1024;
  std::atomic<bool> on_{false};
  std::atomic<std::atomic<uint64_t>*> blocks_[kBlocks] = {};
};
inline MarkerTriggerIds g_marker_triggers;

class Registry {
 public:
  // The registry; created on first use and never destroyed. After the
  // first use, one acquire load (std::call_once costs a TLS access and a
  // pthread_once on every call, a fifth of a name lookup).
  static Registry& Get() {
    // Pairs with the release store in GetSlow.
    Registry* r = instance_.load(std::memory_order_acquire);
    return __builtin_expect(r != nullptr, 1) ? *r : GetSlow();
  }

  // Applies the domain filter. REQUIRES: called once, before any domain.
  void SetDomainPatterns(std::vector<std::string> patterns);
  // Marks the strings whose text matches `pattern` (a glob), those interned
  // so far and later ones, in g_marker_triggers. REQUIRES: called once.
  void SetMarkerTriggerPattern(std::string pattern);

  // Domains ---------------------------------------------------------------
  // Any thread. A name created before costs a hash and a compare (no lock).
  __itt_domain* CreateDomain(const char* name);
  // Id of a domain struct we did not create; 0 if it has no name.
  uint32_t AdoptDomain(__itt_domain* domain);

  // Strings ---------------------------------------------------------------
  // Any thread. A name created before costs a hash and a compare (no lock).
  __itt_string_handle* CreateStringHandle(const char* name);
  uint32_t AdoptStringHandle(__itt_string_handle* handle);
  // Id of a plain string (sync names, thread names, module paths...). A text
  // longer than kMaxRawBytesField is cut and marked (api_util.h StringField).
  uint32_t InternString(std::string_view text);
  // Text of string `id`, or empty. For the flusher (thread names).
  std::string StringText(uint32_t id);

  // Counters --------------------------------------------------------------
  // `domain` may be null (then domain_name names it), `domain_name` too.
  __itt_counter_info_t* CreateCounter(const char* name, const char* domain_name,
                                      const __itt_domain* domain, int type);
  uint32_t AdoptCounter(__itt_counter_info_t* counter);

  // Histograms ------------------------------------------------------------
  __itt_histogram* CreateHistogram(const __itt_domain* domain, const char* name,
                                   __itt_metadata_type x_type, __itt_metadata_type y_type);
  uint32_t AdoptHistogram(__itt_histogram* histogram);

  // Tracks ----------------------------------------------------------------
  // The group of a name and type, and the track of a group, name and type:
  // made and defined (def_track_group, def_track) on first use, the same
  // object after. A null name is none; a null group too. Null for a group
  // we did not make.
  __itt_track_group* CreateTrackGroup(__itt_string_handle* name, int type);
  __itt_track* CreateTrack(__itt_track_group* group, __itt_string_handle* name, int type);
  // The id of a group or track we made (def_track_group, def_track), else
  // 0; never reads the pointer. Any thread, lock-free.
  uint32_t TrackGroupId(const __itt_track_group* group) const {
    return track_group_ids_.Find(group);
  }
  uint32_t TrackId(const __itt_track* track) const { return track_ids_.Find(track); }

  // Clock domains ---------------------------------------------------------
  __itt_clock_domain* CreateClockDomain(__itt_get_clock_info_fn fn, void* fn_data);
  // Calls every clock domain's callback again and publishes new parameters.
  void ResetClockDomains();

  // Heap functions and legacy events --------------------------------------
  __itt_heap_function CreateHeapFunction(const char* name, const char* domain_name);
  // 0 for a null or foreign handle, found by address (HandleIds): a
  // garbage pointer is never read.
  uint32_t HeapFunctionId(__itt_heap_function h) const { return heap_function_ids_.Find(h); }
  // REQUIRES: HeapFunctionId(h) != 0. Whether its calls record nothing
  // (ITTC_DOMAINS leaves its domain out).
  static bool HeapFunctionFilteredOut(__itt_heap_function h) {
    return static_cast<const HeapFunction*>(h)->filtered_out;
  }
  int CreateEvent(const char* name, int length);
  bool IsEvent(int event) const {
    return event > 0 &&
           static_cast<uint32_t>(event) <= event_count_.load(std::memory_order_acquire);
  }

  // Static parts ----------------------------------------------------------
  // Adopts the objects a static part created before it loaded us.
  // REQUIRES: the static part holds its own mutex (it calls __itt_api_init so).
  void AdoptStaticPart(__itt_global* global);

  // Collection control ----------------------------------------------------
  // Sets every known domain's flags: enabled by the filter && recording.
  void SetRecording(bool recording);

  // Definitions -----------------------------------------------------------
  // Appends the raw definition records made since *cursor to *out and
  // advances *cursor. A cursor of 0 replays them all (a new trace file).
  void CollectDefinitions(size_t* cursor, std::string* out);

  // fork(): hold the lock across fork so the child's copy is consistent.
  void LockForFork() { mu_.lock(); }
  void UnlockAfterFork() { mu_.unlock(); }

 private:
  Registry() = default;
  static Registry& GetSlow();

  static inline std::atomic<Registry*> instance_{nullptr};

  struct DomainEntry {
    __itt_domain* domain;
    bool enabled;
  };

  // REQUIRES: mu_ held.
  uint32_t InternStringLocked(std::string_view text);
  uint32_t DomainIdForNameLocked(const char* name, __itt_domain** canonical);
  void TrackDomainLocked(__itt_domain* domain, uint32_t id);
  // Give a counter or histogram struct (ours or a static part's) its id,
  // append its definition and publish the id in extra1.
  uint32_t DefineCounterLocked(__itt_counter_info_t* counter);
  uint32_t DefineHistogramLocked(__itt_histogram* histogram, uint32_t domain_id);
  bool FilterAccepts(const char* name) const;
  // Whether ITTC_DOMAINS leaves out domain `domain_id` (0: none, never).
  bool DomainFilteredOutLocked(uint32_t domain_id) const {
    return domain_id != 0 && !domain_enabled_[domain_id - 1];
  }
  template <typename... Args>
  void AppendDefinitionLocked(format::EventKind kind, const Args&... args) {
    size_t size = RawRecordSize(0, 0, args...);
    size_t at = definitions_.size();
    definitions_.resize(at + size);
    WriteRawRecord(reinterpret_cast<uint8_t*>(&definitions_[at]), size, kind, 0, 0, args...);
  }

  std::mutex mu_;
  std::vector<std::string> patterns_;
  std::string marker_pattern_;  // empty: no marker triggers
  bool recording_ = true;

  std::unordered_map<std::string, uint32_t> string_ids_;
  std::vector<std::string_view> string_texts_;  // by id - 1; views into string_ids_ keys
  NameTable string_handles_;                    // name -> __itt_string_handle*; inserts under mu_

  std::unordered_map<std::string, uint32_t> domain_ids_;
  std::vector<__itt_domain*> canonical_domains_;  // by id - 1
  NameTable domains_;                 // name -> its canonical __itt_domain*; inserts under mu_
  std::vector<bool> domain_enabled_;  // by id - 1
  std::vector<DomainEntry> domain_structs_;  // every struct whose flags we own

  std::unordered_map<std::string, __itt_counter_info_t*> counters_;
  uint32_t counter_count_ = 0;
  std::unordered_map<std::string, __itt_histogram*> histograms_;
  uint32_t histogram_count_ = 0;
  std::unordered_map<std::string, __itt_track_group*> track_groups_;
  std::unordered_map<std::string, __itt_track*> tracks_;
  HandleIds track_group_ids_;  // inserts under mu_
  HandleIds track_ids_;
  HandleIds heap_function_ids_;  // inserts under mu_
  std::vector<__itt_clock_domain*> clock_domains_;
  std::unordered_map<std::string, HeapFunction*> heap_functions_;
  std::unordered_map<std::string, int> events_;
  std::atomic<uint32_t> event_count_{0};

  std::string definitions_;
};

// Hot-path id lookups: one acquire load of the handle's extra1.
inline uint32_t DomainId(const __itt_domain* d) {
  int id = __atomic_load_n(&d->extra1, __ATOMIC_ACQUIRE);
  if (__builtin_expect(id > 0, 1)) return static_cast<uint32_t>(id);
  return Registry::Get().AdoptDomain(const_cast<__itt_domain*>(d));
}

inline uint32_t StringId(const __itt_string_handle* h) {
  if (h == nullptr) return 0;
  int id = __atomic_load_n(&h->extra1, __ATOMIC_ACQUIRE);
  if (__builtin_expect(id > 0, 1)) return static_cast<uint32_t>(id);
  return Registry::Get().AdoptStringHandle(const_cast<__itt_string_handle*>(h));
}

inline uint32_t CounterId(const __itt_counter_info_t* c) {
  int id = __atomic_load_n(&c->extra1, __ATOMIC_ACQUIRE);
  if (__builtin_expect(id > 0, 1)) return static_cast<uint32_t>(id);
  return Registry::Get().AdoptCounter(const_cast<__itt_counter_info_t*>(c));
}

inline uint32_t HistogramId(const __itt_histogram* h) {
  int id = __atomic_load_n(&h->extra1, __ATOMIC_ACQUIRE);
  if (__builtin_expect(id > 0, 1)) return static_cast<uint32_t>(id);
  return Registry::Get().AdoptHistogram(const_cast<__itt_histogram*>(h));
}

// A counter's or histogram's extra2 when ITTC_DOMAINS leaves its domain
// out: its calls record nothing. Set before its id is published (the
// release store of extra1), so it is read after CounterId or HistogramId.
inline void* const kFilteredOutMark = reinterpret_cast<void*>(uintptr_t{1});
template <typename T>
inline bool FilteredOut(const T* counter_or_histogram) {
  return __atomic_load_n(&counter_or_histogram->extra2, __ATOMIC_RELAXED) == kFilteredOutMark;
}

// The conversion parameters of a clock domain we created, or nullptr.
inline const ClockParams* ClockParamsOf(const __itt_clock_domain* cd) {
  return static_cast<const ClockParams*>(__atomic_load_n(&cd->extra2, __ATOMIC_ACQUIRE));
}

}  // namespace ittc::collector_internal

#endif  // COLLECTOR_INTERNAL_REGISTRY_H_
