// Relations (__itt_relation_add*) as flows between tasks, shared by the
// exports that draw arrows (chrome, perfetto).
//
// A relation names a tail task by its __itt_id. The flow starts at the
// relation and ends where the tail task begins: at once when that task has
// already begun (its begin is remembered by id), or later when a task with
// that id begins. Relations whose tail never begins stay unresolved.
//
// Bounds: at most kMaxRememberedTasks task begins are remembered (the table
// is cleared when it fills, so very old tails are forgotten) and at most
// kMaxPendingFlows relations wait for their tail; past that a relation's
// flow is dropped and counted.
//
// Thread safety: none.

#ifndef TOOLS_ITT_DUMP_MODEL_FLOWS_H_
#define TOOLS_ITT_DUMP_MODEL_FLOWS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "format/schema.h"
#include "tools/itt_dump/model/flat_map.h"
#include "tools/itt_dump/model/trace_index.h"

namespace ittc::itt_dump {

class FlowTracker {
 public:
  static constexpr size_t kMaxRememberedTasks = size_t{1} << 20;
  static constexpr size_t kMaxPendingFlows = size_t{1} << 16;

  // Where a flow ends: the tail task's begin.
  struct End {
    uint64_t flow = 0;
    const ThreadRec* thread = nullptr;
    uint64_t ticks = 0;
  };

  // A task with `id` began on `thread` at `ticks`. Appends to *ends the
  // flows that were waiting for it. Null ids are ignored.
  void OnTaskBegin(const format::Id& id, const ThreadRec& thread, uint64_t ticks,
                   std::vector<End>* ends);

  // A relation whose tail is `tail`: returns its flow id (1, 2, ...). If the
  // tail task already began, appends that end to *ends.
  uint64_t OnRelation(const format::Id& tail, std::vector<End>* ends);

  // Relations whose flow has no end (yet), dropped ones included.
  uint64_t unresolved() const { return pending_.size() + dropped_; }

 private:
  struct Remembered {
    format::Id id;
    const ThreadRec* thread = nullptr;
    uint64_t ticks = 0;
  };
  struct Pending {
    format::Id tail;
    uint64_t flow = 0;
  };

  U64Map<Remembered> tasks_by_id_;  // by IdHash
  std::vector<Pending> pending_;
  uint64_t next_flow_ = 1;
  uint64_t dropped_ = 0;
};

}  // namespace ittc::itt_dump

#endif  // TOOLS_ITT_DUMP_MODEL_FLOWS_H_
