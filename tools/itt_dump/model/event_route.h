// Which part of the model an exporter hands each event to: the one list of
// event kinds by route that chrome, perfetto and parquet share, so that a
// kind added to the format is routed the same way in every export.

#ifndef TOOLS_ITT_DUMP_MODEL_EVENT_ROUTE_H_
#define TOOLS_ITT_DUMP_MODEL_EVENT_ROUTE_H_

#include <cstdint>

#include "format/format.h"
#include "tools/itt_dump/model/counters.h"
#include "tools/itt_dump/model/heap.h"
#include "tools/itt_dump/model/sync.h"

namespace ittc::itt_dump {

enum class EventRoute : uint8_t {
  // The IntervalTracker alone: task ends, regions, frames, metadata of a
  // task (an arg of its interval) and every kind not named below.
  kInterval,
  // A task begin: the IntervalTracker, and FlowTracker::OnTaskBegin (a
  // relation's tail may be this task).
  kTaskBegin,
  kMarker,
  kRelation,
  // Metadata of a scope other than a task: an item of its own.
  kScopedMetadata,
  kJit,
  // May change a counter (CounterTracker::OnEvent); if it does not, the
  // IntervalTracker's.
  kCounter,
  kSync,  // SyncTracker
  kHeap,  // HeapTracker
};

inline EventRoute RouteOf(const format::Event& e) {
  using format::EventKind;
  switch (e.kind) {
    case EventKind::kTaskBegin:
    case EventKind::kTaskBeginFn:
    case EventKind::kTaskBeginOverlapped:
    case EventKind::kTaskBeginEx:
    case EventKind::kTaskBeginFnEx:
    case EventKind::kTaskBeginOverlappedEx:
      return EventRoute::kTaskBegin;
    case EventKind::kTaskEnd:
    case EventKind::kTaskEndEx:
    case EventKind::kTaskEndOverlapped:
    case EventKind::kTaskEndOverlappedEx:
    case EventKind::kRegionBegin:
    case EventKind::kRegionEnd:
    case EventKind::kFrameBegin:
    case EventKind::kFrameEnd:
    case EventKind::kFrameSubmit:
      return EventRoute::kInterval;
    case EventKind::kMarker:
    case EventKind::kMarkerEx:
      return EventRoute::kMarker;
    case EventKind::kRelationAdd:
    case EventKind::kRelationAddToCurrent:
    case EventKind::kRelationAddEx:
    case EventKind::kRelationAddToCurrentEx:
      return EventRoute::kRelation;
    case EventKind::kMetadataAddWithScope:
    case EventKind::kMetadataStrAddWithScope:
      return e.Get(format::Field::kScope) == static_cast<uint64_t>(format::Scope::kTask)
                 ? EventRoute::kInterval
                 : EventRoute::kScopedMetadata;
    case EventKind::kJitMethodLoad:
    case EventKind::kJitMethodLoadV2:
    case EventKind::kJitMethodLoadV3:
    case EventKind::kJitInlineLoad:
      return EventRoute::kJit;
    default:
      if (MayChangeCounter(e.kind)) return EventRoute::kCounter;
      if (IsSyncKind(e.kind)) return EventRoute::kSync;
      if (IsHeapChangeKind(e.kind)) return EventRoute::kHeap;
      return EventRoute::kInterval;
  }
}

// Whether the exporters that route events this way write nothing for an
// event of `kind` and keep nothing of it: a heap call's begin (HeapTracker
// takes a call at its end, and the interval tracker has no use for it), a
// sync object's release or destruction (SyncTracker only makes the
// object's entry, which the next call on the object makes the same; what
// the exports write of sync objects is their waits). A pass on every core
// drops them in the pieces (PieceSink::Ignores).
inline bool ExportsNothingOf(format::EventKind kind) {
  using format::EventKind;
  switch (kind) {
    case EventKind::kHeapAllocateBegin:
    case EventKind::kHeapFreeBegin:
    case EventKind::kHeapReallocateBegin:
    case EventKind::kSyncReleasing:
    case EventKind::kSyncDestroy:
      return true;
    default:
      return false;
  }
}

// Hands `e` of thread `t` to the handler of its route on `x`, an exporter
// with these members (each taking (const format::Event&, const ThreadRec&)
// but OnCounter, which takes the sample): OnIntervalEvent, OnTaskBegin,
// OnMarker, OnRelation, OnScopedMetadata, OnJit, OnCounter(const
// CounterSample&, const ThreadRec&), OnSync, OnHeap. A counter event that
// changes no counter goes to OnIntervalEvent (the interval tracker's).
template <typename Exporter>
void DispatchByRoute(const format::Event& e, const ThreadRec& t, CounterTracker* counters,
                     Exporter* x) {
  switch (RouteOf(e)) {
    case EventRoute::kInterval:
      break;
    case EventRoute::kTaskBegin:
      x->OnTaskBegin(e, t);
      return;
    case EventRoute::kMarker:
      x->OnMarker(e, t);
      return;
    case EventRoute::kRelation:
      x->OnRelation(e, t);
      return;
    case EventRoute::kScopedMetadata:
      x->OnScopedMetadata(e, t);
      return;
    case EventRoute::kJit:
      x->OnJit(e, t);
      return;
    case EventRoute::kCounter: {
      CounterSample sample;
      if (counters->OnEvent(e, t, &sample)) {
        x->OnCounter(sample, t);
        return;
      }
      break;
    }
    case EventRoute::kSync:
      x->OnSync(e, t);
      return;
    case EventRoute::kHeap:
      x->OnHeap(e, t);
      return;
  }
  x->OnIntervalEvent(e, t);
}

}  // namespace ittc::itt_dump

#endif  // TOOLS_ITT_DUMP_MODEL_EVENT_ROUTE_H_
