// Runs LLVMFuzzerTestOneInput on every file of the committed corpus: the
// fuzz target as an ordinary Bazel test (and under --config=asan).

#include <dirent.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const std::string dir =
      std::string(srcdir != nullptr ? srcdir : ".") + "/ittcollector/tests/tools/fuzz/corpus";
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) {
    std::perror(dir.c_str());
    return 1;
  }
  int n = 0;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream f(dir + "/" + e->d_name, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    const std::string bytes = ss.str();
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    ++n;
  }
  closedir(d);
  std::printf("ran %d corpus inputs\n", n);
  return n > 0 ? 0 : 1;
}
