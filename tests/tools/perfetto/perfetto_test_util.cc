#include "tests/tools/perfetto/perfetto_test_util.h"

#include <stdlib.h>

#include <fstream>
#include <sstream>

#include "gtest/gtest.h"

namespace ittc::testing {
namespace {

std::string RunProtoc(const std::string& mode, const std::string& input, bool binary_output,
                      bool* ok) {
  const std::string in = PerfettoTempPath("protoc_in");
  const std::string out = PerfettoTempPath("protoc_out");
  std::ofstream(in, std::ios::binary) << input;
  const char* srcdir = getenv("TEST_SRCDIR");
  const std::string dir =
      std::string(srcdir != nullptr ? srcdir : ".") + "/ittcollector/tests/tools/perfetto";
  const std::string cmd = "protoc --proto_path=" + dir + " --" + mode +
                          "=perfetto.protos.Trace perfetto_subset.proto < " + in + " > " + out +
                          (binary_output ? "" : " 2>&1");
  *ok = system(cmd.c_str()) == 0;
  std::stringstream text;
  text << std::ifstream(out, std::ios::binary).rdbuf();
  return text.str();
}

}  // namespace

std::string PerfettoTempPath(const std::string& name) {
  const char* dir = getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

std::string DecodeWithProtoc(const std::string& trace, bool* ok) {
  return RunProtoc("decode", trace, false, ok);
}

std::string EncodeWithProtoc(const std::string& text, bool* ok) {
  return RunProtoc("encode", text, true, ok);
}

int CountOf(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

std::vector<std::string_view> CompressedBlocks(std::string_view trace, uint32_t field) {
  std::vector<std::string_view> blocks;
  size_t at = 0;
  auto varint = [&](size_t* p) {
    uint64_t v = 0;
    for (int shift = 0; *p < trace.size(); shift += 7) {
      const uint8_t byte = static_cast<uint8_t>(trace[(*p)++]);
      v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) break;
    }
    return v;
  };
  while (at < trace.size()) {
    EXPECT_EQ(static_cast<uint8_t>(trace[at]), 0x0a);  // Trace.packet
    ++at;
    const size_t packet_end = at + varint(&at);
    EXPECT_EQ(varint(&at), (uint64_t{field} << 3) | 2);
    const size_t n = varint(&at);
    EXPECT_EQ(at + n, packet_end);
    if (at + n > trace.size()) break;
    blocks.push_back(trace.substr(at, n));
    at = packet_end;
  }
  return blocks;
}

}  // namespace ittc::testing
