#include "tools/itt_dump/perf_map.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace ittc::itt_dump {

using format::Event;
using format::EventKind;
using F = format::Field;

std::string PerfMapFileName(const TraceIndex& index) {
  return absl::StrCat("perf-", index.header.pid, ".map");
}

absl::Status RunPerfMap(const VerbContext& ctx, Output* out, uint64_t* lines) {
  *lines = 0;
  absl::StatusOr<std::unique_ptr<format::TraceReader>> reader = OpenForPass(*ctx.source);
  if (!reader.ok()) return reader.status();
  EventMerger merger(*ctx.index, reader->get(), ctx.merge);
  const Event* e;
  const ThreadRec* t;
  std::string line;
  while (merger.Next(&e, &t)) {
    switch (e->kind) {
      case EventKind::kJitMethodLoad:
      case EventKind::kJitMethodLoadV2:
      case EventKind::kJitMethodLoadV3:
      case EventKind::kJitMethodUpdate:
        break;
      default:
        continue;
    }
    const uint64_t size = e->Get(F::kSize);
    if (size == 0) continue;  // no code: nothing for perf to name
    std::string_view name = e->GetBytes(F::kMethodName);
    line = absl::StrFormat("%x %x ", e->Get(F::kAddress), size);
    if (name.empty()) {
      absl::StrAppend(&line, "jit_method_", e->Get(F::kMethodId));
    } else {
      // perf's parser takes the rest of the line: no line breaks inside.
      for (char c : name) line.push_back(c == '\n' || c == '\r' ? ' ' : c);
    }
    line.push_back('\n');
    out->Write(line);
    ++*lines;
  }
  out->Flush();
  WarnMerge(ctx, merger);
  return out->status();
}

}  // namespace ittc::itt_dump
