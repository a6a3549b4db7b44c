// Helpers of the Perfetto export tests: protoc's text rendering of a trace
// (against perfetto_subset.proto, a data dependency of each test), counting
// in that text, and the outer framing of compressed packet blocks.

#ifndef TESTS_TOOLS_PERFETTO_PERFETTO_TEST_UTIL_H_
#define TESTS_TOOLS_PERFETTO_PERFETTO_TEST_UTIL_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ittc::testing {

// A path under the test's temporary directory.
std::string PerfettoTempPath(const std::string& name);

// Runs `protoc --decode=perfetto.protos.Trace` (or --encode) on `input`;
// returns its output, and in *ok whether it exited 0.
std::string DecodeWithProtoc(const std::string& trace, bool* ok);
std::string EncodeWithProtoc(const std::string& text, bool* ok);

// Occurrences of `needle` in `text`.
int CountOf(const std::string& text, const std::string& needle);

// The compressed payloads of a trace whose every packet is one compressed
// block in TracePacket field `field` (50 zlib, 133 zstd). Adds a gtest
// failure on any other framing.
std::vector<std::string_view> CompressedBlocks(std::string_view trace, uint32_t field);

}  // namespace ittc::testing

#endif  // TESTS_TOOLS_PERFETTO_PERFETTO_TEST_UTIL_H_
