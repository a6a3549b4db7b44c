// A small direct-mapped cache of what a verb formats or looks up again and
// again while it prints: a trace names a few domains, strings and threads,
// and `text` and `chrome` print them on every line. Keyed by what
// determines the value; a key that maps to a taken slot replaces it.
//
// Thread safety: none.

#ifndef TOOLS_ITT_DUMP_MODEL_SMALL_CACHE_H_
#define TOOLS_ITT_DUMP_MODEL_SMALL_CACHE_H_

#include <array>
#include <cstddef>

namespace ittc {
namespace itt_dump {

template <typename Key, typename Value, size_t kSize = 64>
class SmallCache {
 public:
  // The value for `key` (whose slot is hash % kSize); on a miss fill(&value)
  // makes it first. The reference stays valid until the next Get() of a
  // key in the same slot.
  template <typename Fill>
  Value& Get(const Key& key, size_t hash, Fill fill) {
    Entry& e = entries_[hash % kSize];
    if (__builtin_expect(!e.valid || !(e.key == key), 0)) {
      e.valid = true;
      e.key = key;
      fill(&e.value);
    }
    return e.value;
  }

 private:
  struct Entry {
    bool valid = false;
    Key key{};
    Value value{};
  };
  std::array<Entry, kSize> entries_;
};

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_MODEL_SMALL_CACHE_H_
