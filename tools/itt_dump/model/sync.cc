#include "tools/itt_dump/model/sync.h"

#include <algorithm>
#include <tuple>

#include "tools/itt_dump/model/trace_set.h"
#include "tools/itt_dump/model/values.h"

namespace ittc {
namespace itt_dump {

using format::EventKind;
using F = format::Field;

bool IsSyncKind(EventKind kind) {
  return kind >= EventKind::kSyncCreate && kind <= EventKind::kSyncReleasing;
}

std::string UnnamedSyncName(uint64_t addr, uint32_t process) {
  std::string name = "sync ";
  AppendHex(&name, UntagAddress(addr, process));
  return name;
}

SyncObject* SyncTracker::Object(uint64_t addr) {
  SyncObject& o = objects_[addr];
  o.addr = addr;
  return &o;
}

std::vector<SyncTracker::OpenWait> SyncTracker::OpenWaits() const {
  std::vector<OpenWait> open;
  open.reserve(waits_.size());
  for (const auto& [key, begin] : waits_) open.push_back({key.first, key.second, begin});
  std::sort(open.begin(), open.end(), [](const OpenWait& a, const OpenWait& b) {
    return std::tie(a.begin, a.thread, a.addr) < std::tie(b.begin, b.thread, b.addr);
  });
  return open;
}

bool SyncTracker::OnEvent(const format::Event& e, const ThreadRec& t, SyncChange* c) {
  if (!IsSyncKind(e.kind)) return false;
  *c = SyncChange();
  c->object = Object(e.Get(F::kAddr));
  const auto key = std::make_pair(t.index, c->object->addr);
  switch (e.kind) {
    case EventKind::kSyncCreate:
      c->object->type_id = e.Get(F::kObjtype);
      c->object->name_id = e.Get(F::kObjname);
      return true;
    case EventKind::kSyncRename:
      c->object->name_id = e.Get(F::kName);
      return true;
    case EventKind::kSyncPrepare:
      c->kind = SyncChange::Kind::kPrepare;
      waits_[key] = e.time;
      return true;
    case EventKind::kSyncAcquired:
    case EventKind::kSyncCancel: {
      c->kind = e.kind == EventKind::kSyncAcquired ? SyncChange::Kind::kAcquired
                                                   : SyncChange::Kind::kCancel;
      auto it = waits_.find(key);
      if (it != waits_.end()) {
        c->closes_wait = true;
        c->wait_begin = it->second;
        waits_.erase(it);
      }
      return true;
    }
    case EventKind::kSyncReleasing:
      c->kind = SyncChange::Kind::kReleasing;
      return true;
    default:  // kSyncDestroy
      c->kind = SyncChange::Kind::kDestroy;
      return true;
  }
}

void SyncWaitStretch::Clear() {
  touched_.clear();
  last_ = nullptr;
  outer_.clear();
  addresses_.clear();
  address_seen_.clear();
}

bool SyncWaitStretch::OnEvent(const format::Event& e, const ThreadRec& t, SyncChange* c,
                              bool* outer) {
  *outer = false;
  if (e.kind != EventKind::kSyncPrepare && e.kind != EventKind::kSyncAcquired &&
      e.kind != EventKind::kSyncCancel) {
    return false;
  }
  *c = SyncChange();
  const uint64_t addr = e.Get(F::kAddr);
  const auto key = std::make_pair(t.index, addr);
  bool first = false;
  if (last_ == nullptr || last_key_ != key) {
    auto [it, inserted] = touched_.try_emplace(key);
    first = inserted;
    if (first) {
      bool& seen = address_seen_[addr];
      if (!seen) addresses_.push_back(addr);
      seen = true;
    }
    last_key_ = key;
    last_ = &it->second;  // (an insertion moves the others: only the last is kept)
  }
  State& s = *last_;
  if (e.kind == EventKind::kSyncPrepare) {
    c->kind = SyncChange::Kind::kPrepare;
    s.open = true;
    s.begin = e.time;
    return true;
  }
  c->kind =
      e.kind == EventKind::kSyncAcquired ? SyncChange::Kind::kAcquired : SyncChange::Kind::kCancel;
  if (first) {
    // What SyncTracker has open for the key: the join knows.
    outer_.push_back({t.index, t.process, addr, e.time, e.kind == EventKind::kSyncAcquired});
    *outer = true;
  } else if (s.open) {
    c->closes_wait = true;
    c->wait_begin = s.begin;
  }
  s.open = false;
  return true;
}

}  // namespace itt_dump
}  // namespace ittc
