// User-defined synchronisation objects (__itt_sync_*) and the waits on
// them: the one place that names sync objects and pairs sync_prepare with
// sync_acquired (a wait) or sync_cancel (a wait given up), per thread and
// object.
//
// Thread safety: none. Memory: one entry per object and per open wait.

#ifndef TOOLS_ITT_DUMP_MODEL_SYNC_H_
#define TOOLS_ITT_DUMP_MODEL_SYNC_H_

#include <cstdint>
#include <map>
#include <utility>

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

class SyncTracker {
 public:
  // Applies a sync_* event; false (and nothing changes) for other kinds.
  bool OnEvent(const format::Event& e, const ThreadRec& t, SyncChange* change);

  // The object at `addr` (made on first sight).
  SyncObject* Object(uint64_t addr);
  const U64Map<SyncObject>& objects() const { return objects_; }

 private:
  U64Map<SyncObject> objects_;
  // Open waits: (thread index, address) -> ticks of the prepare.
  std::map<std::pair<uint32_t, uint64_t>, uint64_t> waits_;
};

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_MODEL_SYNC_H_
