// Test helpers: run a program under the collector, and load a whole trace
// into memory with every string resolved, so tests can assert on it.
// Whole-file loading is fine for test traces; itt-dump streams instead.
// LoadTrace is a thin user of the trace model's index pass
// (tools/itt_dump/model/trace_index.h): one reading path for tools, tests
// and benchmarks.

#ifndef TESTS_COLLECTOR_TRACE_LOADER_H_
#define TESTS_COLLECTOR_TRACE_LOADER_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "format/format.h"

namespace ittc::testing {

// One decoded event with its variable-length fields copied out.
struct DecodedEvent {
  uint32_t thread = 0;
  format::EventKind kind = format::EventKind::kInvalid;
  uint64_t time = 0;
  // Each field's value in the member of its type, the others 0 / null /
  // empty.
  std::vector<uint64_t> u;         // FieldValue::u
  std::vector<format::Id> ids;     // FieldValue::id
  std::vector<std::string> bytes;  // FieldValue::bytes

  // Field by schema name; the test fails loudly (abort) on a wrong name.
  uint64_t U(const char* field) const;
  const format::Id& IdOf(const char* field) const;
  const std::string& Bytes(const char* field) const;
};

struct LoadedTrace {
  format::FileHeader header;
  std::map<uint64_t, std::string> strings;         // def_string
  std::map<uint64_t, std::string> domains;         // def_domain
  std::vector<DecodedEvent> definitions;           // every kDef* record, in order
  std::map<uint32_t, format::ThreadInfo> threads;  // latest per index; name copied below
  std::map<uint32_t, std::string> thread_names;
  std::vector<DecodedEvent> events;                     // file order (per-thread order kept)
  std::map<uint32_t, uint64_t> event_counts;            // per thread, always filled
  std::map<std::pair<uint32_t, int>, uint64_t> losses;  // (thread, cause) -> max count
  std::vector<format::ClockSync> syncs;
  bool has_end = false;
  format::EndRecord end;
  bool has_flight = false;  // a flight recorder's dump
  format::FlightDump flight;
  format::ReaderStats stats;
  int corruptions = 0;
  int truncations = 0;

  std::vector<const DecodedEvent*> OfKind(format::EventKind kind) const;
  uint64_t TotalLoss() const;
  // Ticks to nanoseconds with the header frequency.
  double TicksToNs(uint64_t ticks) const;
};

// Which events LoadTrace copies into `events`; event_counts and everything
// else are loaded either way. Traces too large to hold in memory keep none,
// or all but the task begin/end pairs that make up their bulk.
enum class KeepEvents { kAll, kNone, kAllButTaskPairs };

absl::StatusOr<LoadedTrace> LoadTrace(const std::string& path, KeepEvents keep = KeepEvents::kAll);

// Copies `e` (decoded on `thread`) out of the decoder's payload.
DecodedEvent CopyEvent(uint32_t thread, const format::Event& e);

// Absolute path of a runfile given its workspace-relative path.
std::string Runfile(const std::string& workspace_path);

// A fresh, empty directory under TEST_TMPDIR.
std::string MakeTempDir(const std::string& name);

// Runs `argv` with extra environment `env` (NAME=VALUE), waits for it, and
// returns its wait status (-1 if it could not be started). Output of the
// child goes to the given file (or is inherited if empty).
int RunProgram(const std::vector<std::string>& argv, const std::vector<std::string>& env,
               const std::string& stdout_path = "", const std::string& stderr_path = "");

}  // namespace ittc::testing

#endif  // TESTS_COLLECTOR_TRACE_LOADER_H_
