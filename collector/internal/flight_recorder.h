// The flight recorder (ITTC_FLIGHT_MB): the triggers that make it write
// what its store holds (flight_store.h), and the dump files.
//
// Triggers:
//   - the trigger signal (ITTC_FLIGHT_SIGNAL, SIGUSR2 by default): its
//     handler posts a request;
//   - a marker whose name matches ITTC_FLIGHT_MARKER: the call posts a
//     request (OnMarker);
//   - a fatal signal (kFlightFatalSignals, unless ITTC_FLIGHT_FATAL=0): its
//     handler writes the dump itself, with async-signal-safe calls only,
//     then restores the signal's default action and lets it go on;
//   - __itt_detach and the end of the process: the session writes the last
//     dump once the flusher has stopped (Finish).
// Handlers are installed only on signals whose disposition is the default
// when the session starts: a handler of the program's own keeps the signal.
//
// The dumper thread serves posted requests: it asks the flusher for a full
// round (Flusher::RequestFullRound), so that the dump holds what the rings
// held at the trigger, waits for it (kFlightRoundWaitMs at most), then
// writes the dump. Triggers that come while it writes are answered by one
// more dump after it, whose flight_dump record counts them (`triggers`).
// A fatal signal waits for a dump in progress (kFlightFatalWaitMs at most)
// before writing its own.
//
// Dump n of a process whose trace would be P goes to P with its ".itt"
// suffix (if any) replaced by ".flight-<n>.itt", written under that name
// plus ".tmp" and renamed once complete: a file with the final name is
// always whole.
//
// Thread safety: Start, Finish and AbandonInChild are called under the
// session lock. OnMarker and the signal handlers may run on any thread at
// any time; they read g_recorder (acquire, pairing with the release in
// Start) and post through atomics and a futex.

#ifndef COLLECTOR_INTERNAL_FLIGHT_RECORDER_H_
#define COLLECTOR_INTERNAL_FLIGHT_RECORDER_H_

#include <cstdint>
#include <string>

#include "collector/internal/flight_store.h"
#include "collector/internal/registry.h"
#include "collector/internal/settings.h"
#include "format/records.h"

namespace ittc::collector_internal {

// The longest a trigger waits for the flusher's full round before the dump
// is written without what that round would have added.
inline constexpr uint32_t kFlightRoundWaitMs = 1000;
// The longest a fatal signal's handler waits for a dump in progress (and
// the flusher inside the store) before giving up its own dump.
inline constexpr uint32_t kFlightFatalWaitMs = 5000;

// The name of dump `n` of a trace whose path is `trace_path`.
std::string FlightDumpPath(const std::string& trace_path, uint64_t n);

namespace flight {

// Starts the recorder of a session whose flusher keeps its chunks in
// `store` (which must live as long as the process); `trace_path` is the
// expanded ITTC_OUTPUT. Installs the signal handlers (once per process)
// and starts the dumper thread. False if the thread cannot start (logged).
bool Start(const Settings& settings, FlightStore* store, const std::string& trace_path);

// The last dump, for `reason` (kDetach or kExit), once the flusher has
// stopped: stops the dumper thread (letting it finish the dump it is
// writing, within `timeout_ms`), then writes the dump, which also answers
// the triggers still waiting. Afterwards no trigger writes anything.
void Finish(format::FlightReason reason, uint32_t timeout_ms);

// In a fork child: the parent's dumper thread does not exist here and its
// dumps are the parent's; forget them. The child's own session, if it
// starts, brings its own store and recorder.
void AbandonInChild();

// __itt_marker and __itt_marker_ex: posts a request if `name` (a string id)
// matches ITTC_FLIGHT_MARKER. Inline: one relaxed load when no pattern is
// set. `ticks`: the marker's time.
void PostMarker(uint32_t name, uint64_t ticks);
inline void OnMarker(uint32_t name, uint64_t ticks) {
  if (__builtin_expect(g_marker_triggers.on(), 0) && g_marker_triggers.Contains(name)) {
    PostMarker(name, ticks);
  }
}

}  // namespace flight
}  // namespace ittc::collector_internal

#endif  // COLLECTOR_INTERNAL_FLIGHT_RECORDER_H_
