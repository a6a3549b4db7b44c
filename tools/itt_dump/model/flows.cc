#include "tools/itt_dump/model/flows.h"

namespace ittc::itt_dump {
namespace {

uint64_t IdHash(const format::Id& id) {
  uint64_t h = id.d1 * 0x9E3779B97F4A7C15ull;
  h ^= (id.d2 + 0x632BE59BD9B4E019ull) * 0xBF58476D1CE4E5B9ull;
  h ^= (id.d3 + 0x8CB92BA72F3D8DD7ull) * 0x94D049BB133111EBull;
  return h;
}

}  // namespace

void FlowTracker::OnTaskBegin(const format::Id& id, const ThreadRec& thread, uint64_t ticks,
                              std::vector<End>* ends) {
  if (id == format::Id{}) return;
  if (tasks_by_id_.size() >= kMaxRememberedTasks) tasks_by_id_.clear();
  Remembered& r = tasks_by_id_[IdHash(id)];
  r.id = id;
  r.thread = &thread;
  r.ticks = ticks;
  for (size_t i = 0; i < pending_.size();) {
    if (pending_[i].tail == id) {
      ends->push_back({pending_[i].flow, &thread, ticks});
      pending_[i] = pending_.back();
      pending_.pop_back();
    } else {
      ++i;
    }
  }
}

uint64_t FlowTracker::OnRelation(const format::Id& tail, std::vector<End>* ends) {
  const uint64_t flow = next_flow_++;
  const Remembered* r = tasks_by_id_.Find(IdHash(tail));
  if (r != nullptr && r->id == tail) {
    ends->push_back({flow, r->thread, r->ticks});
  } else if (pending_.size() < kMaxPendingFlows) {
    pending_.push_back({tail, flow});
  } else {
    ++dropped_;
  }
  return flow;
}

}  // namespace ittc::itt_dump
