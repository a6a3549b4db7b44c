#include "tools/itt_dump/model/trace_set.h"

namespace ittc {
namespace itt_dump {

TraceSet TraceSet::Open(std::vector<TraceSource> sources, const IndexOptions& options) {
  TraceSet set;
  for (TraceSource& source : sources) {
    IndexResult r = BuildIndex(source, options);
    if (r.index == nullptr) {
      set.failures_.push_back({source.name(), r.failure, r.status});
      continue;
    }
    set.files_.push_back({std::move(source), std::move(r.index)});
  }
  return set;
}

TraceSetMerger::TraceSetMerger(const TraceSet& set, const MergeOptions& options) : set_(set) {
  for (size_t i = 0; i < set.files().size(); ++i) {
    const TraceFile& f = set.files()[i];
    absl::StatusOr<std::unique_ptr<format::TraceReader>> reader = OpenForPass(f.source);
    if (!reader.ok()) {
      errors_.emplace_back(i, reader.status());
      continue;
    }
    Input in;
    in.file = i;
    in.reader = std::move(*reader);
    in.merger = std::make_unique<EventMerger>(*f.index, in.reader.get(), options);
    if (in.merger->Next(&in.head, &in.thread)) inputs_.push_back(std::move(in));
  }
}

TraceSetMerger::~TraceSetMerger() = default;

bool TraceSetMerger::Next(const format::Event** event, const ThreadRec** thread, size_t* file) {
  if (last_ >= 0) {
    Input& in = inputs_[static_cast<size_t>(last_)];
    if (!in.merger->Next(&in.head, &in.thread)) {
      inputs_.erase(inputs_.begin() + last_);
    }
    last_ = -1;
  }
  if (inputs_.empty()) return false;
  // Few files: a linear scan for the earliest head (a heap when issue 14
  // brings many).
  size_t best = 0;
  auto time_of = [&](const Input& in) {
    return static_cast<int64_t>(in.head->time) + set_.TickOffset(in.file);
  };
  for (size_t i = 1; i < inputs_.size(); ++i) {
    if (time_of(inputs_[i]) < time_of(inputs_[best])) best = i;
  }
  last_ = static_cast<int>(best);
  *event = inputs_[best].head;
  *thread = inputs_[best].thread;
  *file = inputs_[best].file;
  return true;
}

}  // namespace itt_dump
}  // namespace ittc
