// Row 10: invalid arguments to every API function (NULL domain, NULL or
// foreign handles, NULL names, unmatched begin/end, end on another domain,
// negative or huge sizes, NULL JIT data, JIT method id 0): no crash, no
// overread; each call is ignored or recorded, rejected ones are counted as
// "invalid argument", and recording works afterwards.

#include <string>

#include "gtest/gtest.h"
#include "tests/reliability/fault_util.h"

namespace ittc::testing {
namespace {

// The calls a trace counts as invalid arguments, over its threads.
uint64_t InvalidArguments(const LoadedTrace& trace) {
  uint64_t invalid = 0;
  for (const auto& [key, n] : trace.losses) {
    if (key.second == static_cast<int>(format::LossCause::kInvalidArgument)) invalid += n;
  }
  return invalid;
}

TEST(InvalidArgs, NoCrashRejectedCallsCountedRecordingContinues) {
  std::string dir = MakeTempDir("invalid_args");
  std::string trace_path = dir + "/invalid.itt";
  ExitInfo exit = RunFor({Runfile("tests/reliability/invalid_args_program")},
                         CollectorEnv(trace_path), dir + "/out", dir + "/err", 60);
  ASSERT_TRUE(ExitedCleanly(exit)) << Describe(exit) << "\n" << ReadFileOrEmpty(dir + "/err");
  EXPECT_EQ(ReadFileOrEmpty(dir + "/out"), "done\n");
  EXPECT_TRUE(CollectorLines(dir + "/err").empty()) << ReadFileOrEmpty(dir + "/err");

  auto loaded = LoadTrace(trace_path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const LoadedTrace& trace = *loaded;
  EXPECT_TRUE(trace.has_end);
  EXPECT_EQ(trace.corruptions, 0);
  EXPECT_EQ(trace.truncations, 0);
  const uint64_t invalid = InvalidArguments(trace);
  // Dozens of calls above cannot be recorded (NULL domain, NULL data, id 0,
  // sizes beyond any record...); each must be counted.
  EXPECT_GE(invalid, 40u);
  EXPECT_EQ(trace.end.events_dropped, trace.TotalLoss());

  // Every recorded event refers only to defined strings and domains.
  for (const DecodedEvent& e : trace.events) {
    const format::KindSchema* schema = format::FindSchema(e.kind);
    ASSERT_NE(schema, nullptr);
    for (int i = 0; i < schema->field_count; ++i) {
      std::string field = schema->fields[i].name;
      if (field == "domain" && e.u[i] != 0) {
        EXPECT_TRUE(trace.domains.count(e.u[i])) << schema->name << " domain " << e.u[i];
      }
    }
  }
  // The last, valid call was recorded.
  bool still_recording = false;
  for (const DecodedEvent* e : trace.OfKind(format::EventKind::kTaskBegin)) {
    if (trace.strings.count(e->U("name")) && trace.strings.at(e->U("name")) == "still-recording") {
      still_recording = true;
    }
  }
  EXPECT_TRUE(still_recording);
}

// Malformed JIT events (NULL data, method id 0) reach our collector through
// our static part, which drops them only for a foreign agent: each of the 9
// is counted.
TEST(InvalidArgs, MalformedJitEventsAreCountedThroughOurStaticPart) {
  std::string dir = MakeTempDir("invalid_jit");
  std::string trace_path = dir + "/invalid_jit.itt";
  ExitInfo exit = RunFor({Runfile("tests/reliability/invalid_args_program"), "jit"},
                         CollectorEnv(trace_path), dir + "/out", dir + "/err", 60);
  ASSERT_TRUE(ExitedCleanly(exit)) << Describe(exit) << "\n" << ReadFileOrEmpty(dir + "/err");
  EXPECT_EQ(ReadFileOrEmpty(dir + "/out"), "done\n");
  auto loaded = LoadTrace(trace_path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const uint64_t invalid = InvalidArguments(*loaded);
  EXPECT_EQ(invalid, 9u);
}

// __itt_sync_rename with a NULL name is counted and records nothing: the
// object keeps its name.
TEST(InvalidArgs, ASyncRenameToNoNameIsCountedAndKeepsTheName) {
  std::string dir = MakeTempDir("invalid_rename");
  std::string trace_path = dir + "/invalid_rename.itt";
  ExitInfo exit = RunFor({Runfile("tests/reliability/invalid_args_program"), "rename"},
                         CollectorEnv(trace_path), dir + "/out", dir + "/err", 60);
  ASSERT_TRUE(ExitedCleanly(exit)) << Describe(exit) << "\n" << ReadFileOrEmpty(dir + "/err");
  auto loaded = LoadTrace(trace_path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const uint64_t invalid = InvalidArguments(*loaded);
  EXPECT_EQ(invalid, 1u);
  EXPECT_TRUE(loaded->OfKind(format::EventKind::kSyncRename).empty());
  EXPECT_EQ(loaded->OfKind(format::EventKind::kSyncCreate).size(), 1u);
}

}  // namespace
}  // namespace ittc::testing
