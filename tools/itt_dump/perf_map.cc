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
  std::string line;
  absl::StatusOr<PassSummary> pass = ForEachEvent(ctx, [&](const Event& e, const ThreadRec&) {
    switch (e.kind) {
      case EventKind::kJitMethodLoad:
      case EventKind::kJitMethodLoadV2:
      case EventKind::kJitMethodLoadV3:
      case EventKind::kJitMethodUpdate:
        break;
      default:
        return;
    }
    const uint64_t size = e.Get(F::kSize);
    if (size == 0) return;  // no code: nothing for perf to name
    std::string_view name = e.GetBytes(F::kMethodName);
    line = absl::StrFormat("%x %x ", e.Get(F::kAddress), size);
    if (name.empty()) {
      absl::StrAppend(&line, "jit_method_", e.Get(F::kMethodId));
    } else {
      // perf's parser takes the rest of the line: no line breaks inside.
      for (char c : name) line.push_back(c == '\n' || c == '\r' ? ' ' : c);
    }
    line.push_back('\n');
    out->Write(line);
    ++*lines;
  });
  if (!pass.ok()) return pass.status();
  out->Flush();
  WarnMerge(ctx, *pass);
  return out->status();
}

}  // namespace ittc::itt_dump
