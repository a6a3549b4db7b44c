// Reference floors measured in the same process as the ITT calls, so that
// every figure can be given as a ratio to them:
//   BM_Floor_Rdtsc            one RDTSC (the clock every recorded event reads)
//   BM_Floor_IndirectCall     a call through a pointer to an empty function,
//                             the pointer read as the call macros read it
//   BM_Floor_FlagsCheck       `if (domain->flags)` on a disabled domain: the
//                             whole cost of a paused call, by design
//   BM_Floor_CallRdtscStore   an indirect call to a function that reads
//                             RDTSC and stores 16 bytes into a buffer: the
//                             least any recording design through the ITT
//                             function pointers can do
// Each is registered as "BM_Floor_<name>/<state>".

#ifndef BENCH_FLOORS_H_
#define BENCH_FLOORS_H_

#include <string>

namespace ittc::bench {

void RegisterFloors(const std::string& state);

}  // namespace ittc::bench

#endif  // BENCH_FLOORS_H_
