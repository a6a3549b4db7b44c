#include "tools/itt_dump/perf_map.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/itt_dump/model/jit_methods.h"

namespace ittc::itt_dump {

using format::Event;
using format::EventKind;
using F = format::Field;

std::string PerfMapFileName(const TraceIndex& index) {
  return absl::StrCat("perf-", index.header.pid, ".map");
}

absl::Status RunPerfMap(const VerbContext& ctx, OutputFactory* files) {
  // One map per process: perf looks for the pid it recorded.
  const std::vector<TraceFile>& traces = ctx.set->files();
  std::vector<std::unique_ptr<Output>> outs(traces.size());
  std::vector<uint64_t> lines(traces.size(), 0);
  std::vector<std::string> names;
  for (size_t i = 0; i < traces.size(); ++i) {
    const std::string name = PerfMapFileName(*traces[i].index);
    if (std::find(names.begin(), names.end(), name) != names.end()) {
      // Same pid on two hosts: perf runs on one host, keep the first.
      WarnFile(ctx, i, absl::StrCat("another trace has the same pid: ", name, " not written"));
      continue;
    }
    names.push_back(name);
    absl::StatusOr<std::unique_ptr<Output>> f = files->Create(name);
    if (!f.ok()) return f.status();
    outs[i] = std::move(*f);
  }
  // The methods so far: an update without a name (the method's code
  // moved) takes its method's.
  JitMethods methods;
  std::string line;
  absl::StatusOr<PassSummary> pass = ForEachEvent(
      ctx,
      [&](const Event& e, const ThreadRec& t) {
        if (!IsJitKind(e.kind)) return;
        const JitMethods::Method* method = methods.OnEvent(e, t);
        switch (e.kind) {
          case EventKind::kJitMethodLoad:
          case EventKind::kJitMethodLoadV2:
          case EventKind::kJitMethodLoadV3:
          case EventKind::kJitMethodUpdate:
            break;
          default:
            return;
        }
        Output* out = outs[t.process].get();
        if (out == nullptr) return;
        const uint64_t size = e.Get(F::kSize);
        if (size == 0) return;  // no code: nothing for perf to name
        const std::string_view name = method != nullptr ? std::string_view(method->name) : "";
        line = absl::StrFormat("%x %x ", e.Get(F::kAddress), size);
        if (name.empty()) {
          absl::StrAppend(&line, "jit_method_", e.Get(F::kMethodId));
        } else {
          // perf's parser takes the rest of the line: no line breaks inside.
          for (char c : name) line.push_back(c == '\n' || c == '\r' ? ' ' : c);
        }
        line.push_back('\n');
        out->Write(line);
        ++lines[t.process];
      },
      [](const ThreadRec&, uint64_t) {});  // (JIT methods pair by id, not by thread)
  if (!pass.ok()) return pass.status();
  const absl::Status cut = WarnMerge(ctx, *pass);
  for (size_t i = 0; i < outs.size(); ++i) {
    if (outs[i] == nullptr) continue;
    outs[i]->Flush();
    if (!outs[i]->status().ok()) return outs[i]->status();
    if (lines[i] == 0) WarnFile(ctx, i, "no JIT method loads: the map is empty");
  }
  return cut;
}

}  // namespace ittc::itt_dump
