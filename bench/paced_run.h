// One measured recording session in a child process: the collector is set
// up from flags, one producer thread (or several, sharing the rate) emits
// task begin/end pairs at a target rate for a fixed time, then the trace is
// closed (__itt_detach) and read back. The child prints one line
//   RESULT emitted=N recorded=N dropped=N seconds=S producer_cpu_ns=N
//          flusher_cpu_ns=N file_bytes=N flusher_wait_ns=N producer_wait_ns=N
//          event_chunks=N event_payload_bytes=N flusher_nice=N
//          flusher_compress_ns=N flusher_write_ns=N flushers=N
//          flusher_cpu_each_ns=N,N,... drain_seconds=S
// which the parent benchmark (threads_bench, flusher_bench) turns into
// counters. A child per run because settings (ring size, zstd level) are
// read once per process, and so that every run starts with an empty ring.
//
// Flusher CPU time is the process's CPU time minus the producers' while
// producing and the main thread's detach call: it includes the flusher's
// exit, which thread-local readings would miss, and also the few tens of
// microseconds of starting and joining extra producers. Producer CPU and
// waits are summed over producers.

#ifndef BENCH_PACED_RUN_H_
#define BENCH_PACED_RUN_H_

#include <cstdint>
#include <string>
#include <vector>

namespace ittc::bench {

struct PacedRunConfig {
  double rate_mps = 0;       // target events per second / 1e6; 0 = as fast as possible
  double seconds = 1.0;      // producing time
  int ring_kb = 0;           // ITTC_RING_KB, 0 = the collector's default
  int zstd_level = 0;        // ITTC_ZSTD_LEVEL, 0 = the collector's default
  bool block = false;        // ITTC_OVERFLOW=block
  int producers = 1;         // threads sharing the rate, each with its own ring
  std::string flusher_nice;  // ITTC_FLUSHER_NICE, "" = the collector's default
  std::string flushers;      // ITTC_FLUSHERS, "" = the collector's default
  // Drain mode when nonzero: with the flushers held, each producer emits
  // this many pairs (rate_mps and seconds unused); then the flushers are
  // released, and the run measures how long they take to empty every ring.
  uint64_t drain_pairs = 0;
};

struct PacedRunResult {
  bool ok = false;
  uint64_t emitted = 0;
  uint64_t recorded = 0;  // events in the trace (end record)
  uint64_t dropped = 0;   // drops in the end record
  double seconds = 0;     // wall time of producing
  uint64_t producer_cpu_ns = 0;
  uint64_t flusher_cpu_ns = 0;
  uint64_t file_bytes = 0;
  uint64_t event_chunks = 0;
  uint64_t event_payload_bytes = 0;  // before compression
  // Time the flusher / the producer spent runnable but waiting for a CPU
  // (schedstat) while producing: other processes on this shared machine.
  uint64_t flusher_wait_ns = 0;
  uint64_t producer_wait_ns = 0;
  // The flusher thread's nice value at the end of producing (what
  // ITTC_FLUSHER_NICE, or its default, gave it on this machine).
  int flusher_nice = 0;
  // Of flusher_cpu_ns, the time the flusher spent compressing and framing
  // events chunks, and writing the file (the collector's own count, read
  // through its test hook after the trace was closed).
  uint64_t flusher_compress_ns = 0;
  uint64_t flusher_write_ns = 0;
  // Flusher threads running at the end of producing, and each one's CPU
  // time until then (flusher 0 first; the hook's reading, without the
  // last round at detach).
  int flushers = 0;
  std::vector<uint64_t> flusher_cpu_each_ns;
  // Drain mode: wall time from the release of the flushers until every
  // ring was empty.
  double drain_seconds = 0;
};

// Parent side: runs this binary as a child with `config` and parses its
// RESULT line.
PacedRunResult RunPacedChild(const PacedRunConfig& config);

// Child side: if argv holds --paced_child, runs the session and returns
// true (main then exits with *exit_code); otherwise returns false.
bool MaybeRunPacedChild(int argc, char** argv, int* exit_code);

}  // namespace ittc::bench

#endif  // BENCH_PACED_RUN_H_
