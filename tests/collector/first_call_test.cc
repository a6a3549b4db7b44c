// The call that loads the collector is a variadic one with many arguments
// on the stack (first_call_varargs_program.c): the trace holds its text
// rendered from every one of them, as it does for the same call later.

#include <sys/wait.h>

#include <string>

#include "gtest/gtest.h"
#include "tests/collector/trace_loader.h"

namespace ittc::testing {
namespace {

TEST(FirstCall, AFormattedMetadataCallThatLoadsTheCollectorKeepsEveryArgument) {
  const std::string dir = MakeTempDir("first_call");
  const std::string path = dir + "/first.itt";
  const int status = RunProgram(
      {Runfile("tests/collector/first_call_varargs_program")},
      {"INTEL_LIBITTNOTIFY64=" + Runfile("collector/libittcollector.so"), "ITTC_OUTPUT=" + path},
      dir + "/stdout.txt");
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  auto trace = LoadTrace(path);
  ASSERT_TRUE(trace.ok()) << trace.status();
  const std::string want =
      "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 "
      "0.5 1.5 2.5 3.5 4.5 5.5 6.5 7.5 8.5 9.5 tail";
  const auto first = trace->OfKind(format::EventKind::kFormattedMetadataAdd);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0]->Bytes("text"), want);
  const auto second = trace->OfKind(format::EventKind::kFormattedMetadataAddOverlapped);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0]->Bytes("text"), want);
}

}  // namespace
}  // namespace ittc::testing
