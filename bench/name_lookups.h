// Names looked up before every task, as PyTorch's emit_itt and OpenCV's
// tracing do: __itt_string_handle_create (or __itt_domain_create) of a name
// created before, with 300 and with 3000 distinct names, alone and followed
// by a task begin + end, beside a task begin alone and a task begin + end
// measured the same way in the same process.
//
// Each runs through our static part and, given a shared library built from
// Intel's ittapi static part (--intel_static=PATH; how to build one:
// docs/BENCHMARKS.md, "Names looked up before each task", which
// bench/make_report.py writes), through Intel's: its API pointers, read as
// its call macros read them. After its first call, either static part
// calls the collector's create directly; before it, each walks a list of
// its own under its mutex (Intel's is not ours to change).
// Registered as "BM_<what>/<names>/<static part>/<state>".

#ifndef BENCH_NAME_LOOKUPS_H_
#define BENCH_NAME_LOOKUPS_H_

#include <string>

namespace ittc::bench {

// REQUIRES: the ITT environment is set up (a collector named). Returns false
// (after saying why on stderr) when `intel_static` is not empty and cannot
// be used.
bool RegisterNameLookups(const std::string& state, const std::string& intel_static);

}  // namespace ittc::bench

#endif  // BENCH_NAME_LOOKUPS_H_
