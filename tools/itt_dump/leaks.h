// `itt-dump leaks`: heap blocks allocated and never freed by the end of the
// trace, from the heap hooks (__itt_heap_allocate_*, reallocate_*, free_*)
// paired by address in the model (model/heap.h).
//
// Each leak: address, size, heap function and its domain, the allocating
// thread, the time, and "where": the innermost task open on that thread
// when the block was allocated (model/intervals.h). Totals: leaked count
// and bytes, the peak of live bytes and its time, frees of unknown
// addresses (counted, never fatal) and allocations past the model's bound.
// A reallocation moves its block: the new address and size, the original
// allocation's thread, time and task.
//
// Filters select leaks by the allocating thread, the heap function's name
// (--name) and domain (--domain), and the allocation time; every heap call
// is paired whatever the filters, so a free outside the window still frees.
// The peak counts the blocks the filters select.

#ifndef TOOLS_ITT_DUMP_LEAKS_H_
#define TOOLS_ITT_DUMP_LEAKS_H_

#include "absl/status/status.h"
#include "tools/itt_dump/report.h"
#include "tools/itt_dump/verb.h"

namespace ittc::itt_dump {

struct LeaksOptions {
  ReportFormat format = ReportFormat::kTable;
  // One row per (heap function, task) with the count and bytes of its
  // leaks, largest first, instead of one row per leak.
  bool group = false;
};

absl::Status RunLeaks(const VerbContext& ctx, const LeaksOptions& options);

}  // namespace ittc::itt_dump

#endif  // TOOLS_ITT_DUMP_LEAKS_H_
