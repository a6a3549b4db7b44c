#include "tools/itt_dump/model/jit_methods.h"

#include <string_view>

namespace ittc {
namespace itt_dump {

using format::EventKind;
using F = format::Field;

const JitMethods::Method* JitMethods::OnEvent(const format::Event& e, const ThreadRec& t) {
  switch (e.kind) {
    case EventKind::kJitMethodUpdateV2: {
      const uint64_t addr = e.Get(F::kAddress);
      auto it = code_.upper_bound({t.process, addr});
      if (it == code_.begin()) return nullptr;
      --it;
      if (it->first.first != t.process) return nullptr;
      const auto m = methods_.find(it->second);
      return m != methods_.end() && addr < m->second.end ? &m->second : nullptr;
    }
    case EventKind::kJitMethodLoad:
    case EventKind::kJitMethodLoadV2:
    case EventKind::kJitMethodLoadV3:
    case EventKind::kJitInlineLoad:
    case EventKind::kJitMethodUpdate:
    case EventKind::kJitMethodUnload:
      break;
    default:
      return nullptr;
  }
  if (!e.Has(F::kMethodId)) return nullptr;
  const uint64_t key = Key(t.process, e.Get(F::kMethodId));
  auto it = methods_.find(key);
  if (it != methods_.end()) code_.erase({t.process, it->second.start});
  if (e.kind == EventKind::kJitMethodUnload) {
    if (it == methods_.end()) return nullptr;
    unloaded_ = std::move(it->second);
    methods_.erase(it);
    return &unloaded_;
  }
  const bool update = e.kind == EventKind::kJitMethodUpdate;
  if (it == methods_.end()) it = methods_.try_emplace(key).first;
  Method& m = it->second;
  // An update without a name (its code moved) keeps its method's.
  const std::string_view name = e.Has(F::kMethodName) ? e.GetBytes(F::kMethodName) : "";
  if (!name.empty() || !update) m.name = std::string(name);
  m.start = e.Get(F::kAddress);
  m.end = m.start + e.Get(F::kSize);
  if (m.end > m.start) code_[{t.process, m.start}] = key;
  return &m;
}

}  // namespace itt_dump
}  // namespace ittc
