// The two compilations of call_bodies.inc.

#ifndef BENCH_CALLS_H_
#define BENCH_CALLS_H_

#include <string>

namespace ittc::bench {

// Creates the handles (domain "bench", ...) and registers every call group
// as "BM_<group>/<state>". REQUIRES: the ITT environment is set up.
void RegisterLiveCalls(const std::string& state, bool with_burst);
void RegisterCompiledOutCalls(const std::string& state);

}  // namespace ittc::bench

#endif  // BENCH_CALLS_H_
