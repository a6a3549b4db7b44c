// NameTable: the registry's names (string handles, domains) mapped to the
// objects made for them, looked up without a lock. Programs such as
// PyTorch's emit_itt and OpenCV's tracing call __itt_string_handle_create
// before every range they begin, so a name created before must cost about
// what a task begin costs: a hash, a load or two and a compare.
//
// An open-addressing table of pointers to entries, keyed by a hash of the
// name and compared by content. Entries are never moved or freed while the
// process lives; a table half full is replaced by one twice its size, and the
// old one is left allocated for the readers that may still be inside it
// (all the tables a name table ever had take at most twice its last one).
//
// Thread safety:
//   Find       any thread, at any time, concurrently with Insert: no lock,
//              no allocation, no system call. A Find racing with the Insert
//              of the same name may miss it; the caller then takes its lock
//              and looks again.
//   Insert     one thread at a time: REQUIRES the owner's lock.
//   table_     written by Insert (release), read by Find (acquire): a Find
//              that loads a table sees its slots as they were published.
//   slots      each written once, by Insert, from null to an entry
//              (release); read by Find (acquire, pairing with that store),
//              so a Find that sees an entry sees its text and value.

#ifndef COLLECTOR_INTERNAL_NAME_TABLE_H_
#define COLLECTOR_INTERNAL_NAME_TABLE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace ittc::collector_internal {

class NameTable {
 public:
  NameTable() = default;
  // Frees the entries and every table (a registry's table lives as long as
  // the process; tests make short-lived ones). REQUIRES: no Find running.
  ~NameTable();
  NameTable(const NameTable&) = delete;
  NameTable& operator=(const NameTable&) = delete;

  // The hash Find and Insert take: of the name's `size` bytes, read eight
  // at a time (the last word overlapping the one before it), each word
  // multiplied in, and the result finished with MurmurHash3's 64-bit mixer
  // so that its low bits (the slot) depend on every byte.
  static uint64_t Hash(const char* text, size_t size) {
    uint64_t h = (size + 1) * kMul;
    size_t i = 0;
    for (; i + 8 < size; i += 8) h = Step(h, Load8(text + i));
    if (size >= 8) {
      h = Step(h, Load8(text + size - 8));
    } else if (size >= 4) {
      h = Step(h, Load4(text) | uint64_t{Load4(text + size - 4)} << 32);
    } else if (size > 0) {
      const auto byte = [text](size_t k) { return uint64_t{static_cast<unsigned char>(text[k])}; };
      h = Step(h, byte(0) | byte(size / 2) << 8 | byte(size - 1) << 16);
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 33);
  }

  // The value inserted for the `size` bytes at `text` (whose Hash is
  // `hash`), or nullptr. Any thread; see "Thread safety".
  void* Find(const char* text, size_t size, uint64_t hash) const {
    // Pairs with the release store of table_ in Insert.
    const Table* table = table_.load(std::memory_order_acquire);
    if (table == nullptr) return nullptr;
    for (size_t i = hash & table->mask;; i = (i + 1) & table->mask) {
      // Pairs with the release store that published the entry in Insert.
      const Entry* e = table->slots()[i].load(std::memory_order_acquire);
      if (e == nullptr) return nullptr;  // a table is never full (kMaxLoadPercent)
      if (e->hash == hash && e->size == size && SameBytes(e->text(), text, size)) {
        return e->value;
      }
    }
  }

  // Publishes `value` (not null) for `name`, whose Hash is `hash`; the
  // name is copied. False when memory ran out (the name then stays out of
  // the table: later lookups take the caller's slow path).
  // REQUIRES: the owner's lock held; `name` not in the table.
  bool Insert(std::string_view name, uint64_t hash, void* value);

 private:
  // Followed in memory by its text: `size` bytes and a NUL.
  struct Entry {
    uint64_t hash;
    void* value;
    size_t size;
    const char* text() const { return reinterpret_cast<const char*>(this + 1); }
  };
  // Followed in memory by its mask + 1 slots (a power of two of them).
  struct Table {
    size_t mask;
    const Table* previous;  // the table this one replaced: kept, and reachable for leak checkers
    std::atomic<const Entry*>* slots() {
      return reinterpret_cast<std::atomic<const Entry*>*>(this + 1);
    }
    const std::atomic<const Entry*>* slots() const {
      return reinterpret_cast<const std::atomic<const Entry*>*>(this + 1);
    }
  };

  static constexpr uint64_t kMul = 0x9e3779b97f4a7c15ull;  // 2^64 / golden ratio
  // memcmp(a, b, size) == 0, inline: names are short, and a library call
  // was a tenth of a lookup.
  static bool SameBytes(const char* a, const char* b, size_t size) {
    if (size >= 8) {
      for (size_t i = 0; i + 8 < size; i += 8) {
        if (Load8(a + i) != Load8(b + i)) return false;
      }
      return Load8(a + size - 8) == Load8(b + size - 8);
    }
    if (size >= 4) return Load4(a) == Load4(b) && Load4(a + size - 4) == Load4(b + size - 4);
    for (size_t i = 0; i < size; ++i) {
      if (a[i] != b[i]) return false;
    }
    return true;
  }
  static uint64_t Step(uint64_t h, uint64_t word) {
    h = (h ^ word) * kMul;
    return h ^ (h >> 32);
  }
  static uint64_t Load8(const char* p) {
    uint64_t w;
    std::memcpy(&w, p, sizeof(w));
    return w;
  }
  static uint32_t Load4(const char* p) {
    uint32_t w;
    std::memcpy(&w, p, sizeof(w));
    return w;
  }

  // Slots a first table has; it grows past kMaxLoad.
  static constexpr size_t kFirstSlots = 256;
  // At most half the slots are used, so a miss ends at an empty slot after
  // a probe or two.
  static constexpr size_t kMaxLoadPercent = 50;

  // A table of `slots` slots holding every entry of `from` (may be null).
  // Null when memory ran out. REQUIRES: the owner's lock.
  static Table* NewTable(size_t slots, const Table* from);
  // Stores `e` in the first empty slot of its probe sequence (release).
  static void Place(Table* table, const Entry* e);

  std::atomic<Table*> table_{nullptr};
  size_t count_ = 0;  // entries; under the owner's lock
};

}  // namespace ittc::collector_internal

#endif  // COLLECTOR_INTERNAL_NAME_TABLE_H_
