// `itt-dump verify`: checks every chunk (framing, checksums, sequence,
// decompression) and every event and record (decoding), prints each problem
// with its byte offset and reason, then one summary line; the exit status
// says what was found:
//
//   0  a clean, complete trace (every chunk intact, an end record)
//   1  truncated: the file ends inside a chunk or its header, or there is
//      no end record (the writer did not close the trace), and nothing worse
//   2  corrupt: damaged bytes, malformed payloads, missing or duplicated
//      chunks, a damaged file header
//   3  not a trace (wrong magic, or an empty file)
//   4  cannot be read (I/O error, unsupported format version)
//
// Warnings (references to undefined ids, a thread's time going backwards)
// are printed but do not change the status.

#ifndef TOOLS_ITT_DUMP_VERIFY_H_
#define TOOLS_ITT_DUMP_VERIFY_H_

#include <cstdint>
#include <string>

#include "tools/itt_dump/model/trace_index.h"
#include "tools/itt_dump/model/trace_set.h"
#include "tools/itt_dump/verb.h"

namespace ittc {
namespace itt_dump {

enum VerifyStatus {
  kVerifyClean = 0,
  kVerifyTruncated = 1,
  kVerifyCorrupt = 2,
  kVerifyNotATrace = 3,
  kVerifyUnreadable = 4,
};

// The status for a file the index pass could not open.
VerifyStatus StatusForFailure(OpenFailure failure);

// The warnings `verify` prints for one file's events: the first 20 lines
// and how many there are in all. Taken from the index pass's checks
// (TraceIndex::checks) unless `own_pass`, or they found an undefined
// reference (or more distinct ones than they keep): a pass of its own then
// places them event by event. Both give
// the same text for the same file (tests/tools/verify_test.cc).
struct EventWarnings {
  std::string text;
  uint64_t count = 0;
};
EventWarnings CheckEvents(const TraceFile& file, bool own_pass, Progress* progress);

// Prints problems, warnings and the summary; returns the exit status.
// REQUIRES: ctx.index built with check_events.
int RunVerify(const VerbContext& ctx);

// For a file whose header could not be read: prints the summary line and
// returns the status.
int VerifyOpenFailure(const VerbContext& ctx, const IndexResult& result);

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_VERIFY_H_
