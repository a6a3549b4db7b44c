#include "tools/itt_dump/filter.h"

#include <cstdint>
#include <cstdlib>

#include "absl/strings/numbers.h"

namespace ittc {
namespace itt_dump {

namespace {

// The offset of the character after the one at `i` in UTF-8 text `s`: past
// its continuation bytes (10xxxxxx). Bytes that are not UTF-8 are a
// character each.
size_t NextCharacter(std::string_view s, size_t i) {
  ++i;
  while (i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) ++i;
  return i;
}

}  // namespace

bool GlobMatch(std::string_view p, std::string_view s) {
  // Iterative matcher with one backtrack point for the last '*': linear
  // enough for names, never recursive. '?' and '*' take whole characters
  // (names are UTF-8), literal bytes match bytes.
  size_t pi = 0;
  size_t si = 0;
  size_t star = std::string_view::npos;
  size_t resume = 0;
  while (si < s.size()) {
    if (pi < p.size() && p[pi] == '?') {
      ++pi;
      si = NextCharacter(s, si);
    } else if (pi < p.size() && p[pi] == s[si]) {
      ++pi;
      ++si;
    } else if (pi < p.size() && p[pi] == '*') {
      star = pi++;
      resume = si;
    } else if (star != std::string_view::npos) {
      pi = star + 1;
      si = resume = NextCharacter(s, resume);
    } else {
      return false;
    }
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

bool Filter::HeapFunctionOk(uint64_t function) const {
  const HeapFunctionDef* def = index_.heap_functions.Find(function);
  return def != nullptr ? NameInDomainOk(def->name, def->domain_name) : NameInDomainOk("", "");
}

Filter::Filter(const FilterSpec& spec, const TraceIndex& index)
    : spec_(spec), index_(index), active_(!spec.empty()) {
  if (spec_.from_ns) from_ticks_ = index.clock.TicksAt(*spec_.from_ns);
  if (spec_.to_ns && *spec_.to_ns < INT64_MAX) {
    // The last tick still at or before `to`.
    const uint64_t after = index.clock.TicksAt(*spec_.to_ns + 1);
    to_ticks_ = after == 0 ? 0 : after - 1;
    if (*spec_.to_ns < (spec_.from_ns ? *spec_.from_ns : INT64_MIN)) {
      to_ticks_ = 0;
      from_ticks_ = 1;
    }
  }
}

bool Filter::MatchThread(const ThreadRec& t) const {
  uint64_t tid;
  if (absl::SimpleAtoi(*spec_.thread, &tid)) return t.tid == tid;
  return GlobMatch(*spec_.thread, t.name);
}

}  // namespace itt_dump
}  // namespace ittc
