#include "collector/internal/name_table.h"

#include <cstdlib>
#include <new>

namespace ittc::collector_internal {

NameTable::Table* NameTable::NewTable(size_t slots, const Table* from) {
  using Slot = std::atomic<const Entry*>;
  static_assert(alignof(Slot) <= alignof(Table) && sizeof(Table) % alignof(Slot) == 0);
  void* memory = std::malloc(sizeof(Table) + slots * sizeof(Slot));
  if (memory == nullptr) return nullptr;
  auto* table = new (memory) Table{slots - 1, from};
  for (size_t i = 0; i < slots; ++i) new (&table->slots()[i]) Slot(nullptr);
  if (from != nullptr) {
    for (size_t i = 0; i <= from->mask; ++i) {
      // Relaxed: slots are written only under the lock our caller holds.
      if (const Entry* e = from->slots()[i].load(std::memory_order_relaxed)) Place(table, e);
    }
  }
  return table;
}

void NameTable::Place(Table* table, const Entry* e) {
  size_t i = e->hash & table->mask;
  // Relaxed: slots are written only under the lock our caller holds.
  while (table->slots()[i].load(std::memory_order_relaxed) != nullptr) i = (i + 1) & table->mask;
  // Pairs with the acquire load of the slot in Find.
  table->slots()[i].store(e, std::memory_order_release);
}

NameTable::~NameTable() {
  const Table* table = table_.load(std::memory_order_relaxed);
  if (table == nullptr) return;
  // The newest table holds every entry; the older ones hold some of them.
  for (size_t i = 0; i <= table->mask; ++i) {
    std::free(const_cast<Entry*>(table->slots()[i].load(std::memory_order_relaxed)));
  }
  while (table != nullptr) {
    const Table* previous = table->previous;
    std::free(const_cast<Table*>(table));
    table = previous;
  }
}

bool NameTable::Insert(std::string_view name, uint64_t hash, void* value) {
  Table* table = table_.load(std::memory_order_relaxed);  // only Insert writes it
  const size_t slots = table == nullptr ? 0 : table->mask + 1;
  if ((count_ + 1) * 100 > slots * kMaxLoadPercent) {
    // The old table stays allocated: a Find may still be probing it. A
    // Find there misses the names inserted from now on and takes the
    // caller's slow path, which finds them in this one.
    Table* bigger = NewTable(slots == 0 ? kFirstSlots : 2 * slots, table);
    if (bigger == nullptr) return false;
    // Pairs with the acquire load of table_ in Find: the entries placed
    // into `bigger` are visible to a Find that loads it.
    table_.store(bigger, std::memory_order_release);
    table = bigger;
  }
  void* memory = std::malloc(sizeof(Entry) + name.size() + 1);
  if (memory == nullptr) return false;
  auto* e = new (memory) Entry{hash, value, name.size()};
  char* text = reinterpret_cast<char*>(e + 1);
  std::memcpy(text, name.data(), name.size());
  text[name.size()] = '\0';
  Place(table, e);
  ++count_;
  return true;
}

}  // namespace ittc::collector_internal
