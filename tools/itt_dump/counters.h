// Counter events as value changes, shared by stats, chrome and vtune-csv.
//
// A counter is identified by its kDefCounter id (counter_inc, counter_set_*)
// or, for the v3 API, by (domain id, name string id). Its value starts at 0;
// inc/dec events add or subtract (1 or their delta), set_value events
// replace it with the value read as the counter's type (values.h).
//
// Thread safety: pure functions.

#ifndef TOOLS_ITT_DUMP_COUNTERS_H_
#define TOOLS_ITT_DUMP_COUNTERS_H_

#include <cstdint>

#include "format/schema.h"

namespace ittc {
namespace itt_dump {

struct CounterChange {
  uint64_t key_kind = 0;  // 1: by counter id `a`; 2: v3, domain `a`, name `b`
  uint64_t a = 0;
  uint64_t b = 0;
  bool set = false;  // replaces the value; else adds `value`
  long double value = 0;
};

// Fills *c and returns true for the kinds that change a counter's value.
bool DecodeCounterChange(const format::Event& e, CounterChange* c);

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_COUNTERS_H_
