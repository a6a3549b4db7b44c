// The collection session of this process: starting it on the first call,
// pause/resume/detach, the end of the process, and fork().
//
// States: not started -> running -> off (detached, shut down at exit, or a
// failed write). A fork child starts again, lazily, with its own file.
// Pausing is a flag on top of "running".
//
// Thread safety: every transition takes the session mutex. The hot path
// never does: it reads g_recording (thread_state.h), which the session sets
// to kGateOpen when running && !paused && !failed, else kGateClosed, after
// each transition (kGateSlow before the start and in a fork child).

#ifndef COLLECTOR_INTERNAL_SESSION_H_
#define COLLECTOR_INTERNAL_SESSION_H_

#include "collector/internal/settings.h"

namespace ittc::collector_internal {

// Starts the session if it has not started (or must restart in a fork
// child). Returns true if the session is running (it may be paused).
// Any thread; idempotent; cheap once started (one relaxed load).
bool SessionStartIfNeeded();

// True if the session has started and is not off (it may be paused).
// One relaxed load; does not start the session.
bool SessionRunning();

// The settings the session started with. REQUIRES: SessionStartIfNeeded()
// returned true at least once in this process.
const Settings& SessionSettings();

// __itt_pause/__itt_resume/__itt_detach.
void SessionPause();
void SessionResume();
void SessionDetach();
// __itt_pause_scoped/__itt_resume_scoped: recorded with their scope (the
// __itt_collection_scope bits); only a scope with the host's bit pauses or
// resumes recording (the collector records no other scope's work).
void SessionPauseScoped(uint32_t scope);
void SessionResumeScoped(uint32_t scope);

// The running trace's flushers, or nullptr: for the test hooks. Any
// thread; the pointer stays valid until the session stops.
class Flusher;
Flusher* SessionFlushersForTest();

// Called by the flusher when a write failed: collection stops for good.
// Takes no session lock (the session may be waiting for the flusher).
void OnFlusherFailed();

}  // namespace ittc::collector_internal

#endif  // COLLECTOR_INTERNAL_SESSION_H_
