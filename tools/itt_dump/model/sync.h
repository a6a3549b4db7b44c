// User-defined synchronisation objects (__itt_sync_*) and the waits on
// them: the one place that names sync objects and pairs sync_prepare with
// sync_acquired (a wait) or sync_cancel (a wait given up), per thread and
// object.
//
// Thread safety: none. Memory: one entry per object and per open wait.

#ifndef TOOLS_ITT_DUMP_MODEL_SYNC_H_
#define TOOLS_ITT_DUMP_MODEL_SYNC_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "format/schema.h"
#include "tools/itt_dump/model/flat_map.h"
#include "tools/itt_dump/model/trace_index.h"

namespace ittc {
namespace itt_dump {

struct SyncObject {
  uint64_t addr = 0;
  uint64_t type_id = 0;  // kDefString id of sync_create's objtype, 0 if none
  uint64_t name_id = 0;  // kDefString id of its name (objname or a rename)
};

// What one sync event did.
struct SyncChange {
  enum class Kind { kNamed, kPrepare, kAcquired, kCancel, kReleasing, kDestroy };
  Kind kind = Kind::kNamed;
  SyncObject* object = nullptr;  // valid as long as the tracker
  // kAcquired / kCancel that close a wait this thread prepared: its start.
  bool closes_wait = false;
  uint64_t wait_begin = 0;  // ticks of the sync_prepare
};

bool IsSyncKind(format::EventKind kind);

// What the exports call an object that has no name: "sync 0x" and its
// address as the trace set has it in `process` (ProcessTag).
std::string UnnamedSyncName(uint64_t addr, uint32_t process);

// The waits of one stretch of the trace (a piece: pieces.h), paired among
// themselves as SyncTracker pairs them: by thread and address, a prepare
// opens a wait that the next acquired or cancel closes. Only the first
// close of a (thread, address) in the stretch, with no prepare of the
// stretch before it, may close a wait begun before the stretch: it is
// left for SyncTracker::JoinWaits, which then leaves every (thread,
// address) the stretch touched as the stretch left it. Stretches join in
// the order of each thread's events.
//
// Thread safety: none (one stretch, on one thread, at a time).
class SyncWaitStretch {
 public:
  // A close left for the join.
  struct Close {
    uint32_t thread = 0;  // ThreadRec::index
    uint32_t process = 0;
    uint64_t addr = 0;
    uint64_t time = 0;
    bool acquired = false;  // else a cancel
    bool counted = true;    // false: the consumer counts nothing of it
  };
  void Clear();
  // A sync_prepare, sync_acquired or sync_cancel (false, nothing changes,
  // for other kinds): *change as SyncTracker::OnEvent gives it but for
  // `object` (null: the objects are the tracker's); a close whose wait
  // may have begun before the stretch has closes_wait false and sets
  // *outer (the join pairs it).
  bool OnEvent(const format::Event& e, const ThreadRec& t, SyncChange* change, bool* outer);
  // Those closes, in order.
  const std::vector<Close>& outer() const { return outer_; }
  // Marks the close OnEvent just left for the join (*outer) as one its
  // consumer does not count (a filter drops it): the join still pairs it.
  void UncountLastOuter() { outer_.back().counted = false; }
  // The addresses of the events it took, each once, in order.
  const std::vector<uint64_t>& addresses() const { return addresses_; }

 private:
  friend class SyncTracker;
  struct State {
    bool open = false;
    uint64_t begin = 0;
  };
  // By (ThreadRec::index, address).
  absl::flat_hash_map<std::pair<uint32_t, uint64_t>, State> touched_;
  // The entry of touched_ taken last (a thread mostly waits on one object
  // at a time), valid until the next insertion, which takes its place.
  std::pair<uint32_t, uint64_t> last_key_;
  State* last_ = nullptr;
  std::vector<Close> outer_;
  std::vector<uint64_t> addresses_;
  U64Map<bool> address_seen_;  // looked up once per new key of touched_
};

class SyncTracker {
 public:
  // Applies a sync_* event; false (and nothing changes) for other kinds.
  bool OnEvent(const format::Event& e, const ThreadRec& t, SyncChange* change);

  // Joins `stretch` (SyncWaitStretch): on_close(close, wait_begin) for
  // each of its outer closes, in order, that closes a wait begun before
  // it; then every (thread, address) it touched is left as it left it,
  // and every address it took has its object.
  template <typename OnClose>
  void JoinWaits(const SyncWaitStretch& stretch, OnClose&& on_close) {
    for (const SyncWaitStretch::Close& c : stretch.outer_) {
      auto it = waits_.find(std::make_pair(c.thread, c.addr));
      if (it == waits_.end()) continue;
      const uint64_t begin = it->second;
      waits_.erase(it);
      on_close(c, begin);
    }
    for (const auto& [key, state] : stretch.touched_) {
      if (state.open) {
        waits_[key] = state.begin;
      } else {
        waits_.erase(key);
      }
    }
    for (const uint64_t addr : stretch.addresses_) Object(addr);
  }

  // A wait no sync_acquired or sync_cancel closed (yet).
  struct OpenWait {
    uint32_t thread = 0;  // ThreadRec::index
    uint64_t addr = 0;
    uint64_t begin = 0;  // ticks of the sync_prepare
  };
  // The waits open now, by begin, then thread, then address (the
  // exports end those still open at the trace's end there).
  std::vector<OpenWait> OpenWaits() const;

  // The object at `addr` (made on first sight).
  SyncObject* Object(uint64_t addr);
  const U64Map<SyncObject>& objects() const { return objects_; }

 private:
  U64Map<SyncObject> objects_;
  // Open waits: (thread index, address) -> ticks of the prepare.
  absl::flat_hash_map<std::pair<uint32_t, uint64_t>, uint64_t> waits_;
};

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_MODEL_SYNC_H_
