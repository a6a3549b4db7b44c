#include "tools/itt_dump/model/jit_methods.h"

#include <algorithm>
#include <string_view>

namespace ittc {
namespace itt_dump {

using format::EventKind;
using F = format::Field;

void JitMethods::EraseRegions(uint32_t process, Method* m) {
  for (const uint64_t start : m->starts) code_.erase({process, start});
  m->starts.clear();
}

const JitMethods::Method* JitMethods::OnEvent(const format::Event& e, const ThreadRec& t) {
  switch (e.kind) {
    case EventKind::kJitMethodUpdateV2: {
      const uint64_t addr = e.Get(F::kAddress);
      auto it = code_.upper_bound({t.process, addr});
      if (it == code_.begin()) return nullptr;
      --it;
      if (it->first.first != t.process || addr >= it->second.end) return nullptr;
      const auto m = methods_.find(it->second.key);
      return m != methods_.end() ? &m->second : nullptr;
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
  if (e.kind == EventKind::kJitMethodUnload) {
    if (it == methods_.end()) return nullptr;
    EraseRegions(t.process, &it->second);
    unloaded_ = std::move(it->second);
    methods_.erase(it);
    return &unloaded_;
  }
  const bool update = e.kind == EventKind::kJitMethodUpdate;
  const bool known = it != methods_.end();
  if (!known) it = methods_.try_emplace(key).first;
  Method& m = it->second;
  const std::string_view name = e.Has(F::kMethodName) ? e.GetBytes(F::kMethodName) : "";
  // A load names a method it first declares; an update renames it when it
  // gives a name (without one, its code moved and it keeps its name).
  if (update ? !name.empty() : !known) m.name = std::string(name);
  if (update) EraseRegions(t.process, &m);
  const uint64_t start = e.Get(F::kAddress);
  const uint64_t end = start + e.Get(F::kSize);
  if (end > start) {
    Region& region = code_[{t.process, start}];  // new: end 0
    if (region.end == 0 || region.key != key) {
      // The region was another method's (its code reused): it is this one's.
      if (region.end != 0) {
        auto other = methods_.find(region.key);
        if (other != methods_.end()) {
          std::vector<uint64_t>& starts = other->second.starts;
          starts.erase(std::remove(starts.begin(), starts.end(), start), starts.end());
        }
      }
      region.key = key;
      m.starts.push_back(start);
    }
    region.end = end;
  }
  return &m;
}

}  // namespace itt_dump
}  // namespace ittc
