// The JIT methods of a set's processes as their events declare them
// (iJIT_NotifyEvent): per process, each method id's name and code, so that
// an event that names none gets its method's: an update or unload without
// a name by method id, a jit_method_update_v2 (no id) by the method whose
// code holds its address. Every load of one method id adds a region of
// code to that method, whose name is its first (jitprofiling.h: the
// regions reported under one id are one method's, named by the first
// notification); an update moves the method's code (its regions become
// the update's one) and renames it only when it gives a name.
// The one place stats (its --name filter) and perf-map name JIT code.
//
// Thread safety: none. Memory: one entry per method loaded and not
// unloaded.

#ifndef TOOLS_ITT_DUMP_MODEL_JIT_METHODS_H_
#define TOOLS_ITT_DUMP_MODEL_JIT_METHODS_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "format/format.h"
#include "tools/itt_dump/model/trace_index.h"

namespace ittc {
namespace itt_dump {

// Whether `kind` is one of iJIT_NotifyEvent's (jit_*).
inline bool IsJitKind(format::EventKind kind) {
  return kind >= format::EventKind::kJitMethodLoad && kind <= format::EventKind::kJitShutdown;
}

class JitMethods {
 public:
  struct Method {
    std::string name;              // "" where no event of it named it
    std::vector<uint64_t> starts;  // of its regions of code, in code_
  };

  // Follows JIT event `e` of thread `t`. Returns the method it is of, as
  // it is after the event (an unload's: as it was; valid until the next
  // call), or null: not a JIT event of a method (a shutdown), or an update
  // or unload of a method no load declared, or an update_v2 at an address
  // no method's code holds.
  const Method* OnEvent(const format::Event& e, const ThreadRec& t);

 private:
  // Method ids are 32 bits, and each process numbers its own.
  static uint64_t Key(uint32_t process, uint64_t method_id) {
    return uint64_t{process} << 32 | (method_id & 0xFFFFFFFFu);
  }
  absl::flat_hash_map<uint64_t, Method> methods_;  // by Key
  // (process, start of a region) -> the region's method (Key) and end.
  struct Region {
    uint64_t key = 0;
    uint64_t end = 0;
  };
  std::map<std::pair<uint32_t, uint64_t>, Region> code_;
  // Takes `m`'s regions out of code_.
  void EraseRegions(uint32_t process, Method* m);
  Method unloaded_;  // the last unload's method
};

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_MODEL_JIT_METHODS_H_
