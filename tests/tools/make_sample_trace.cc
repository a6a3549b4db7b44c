// Writes a sample trace to a file: for manual runs of itt-dump and for
// regenerating the fuzz seed corpus.
//   make_sample_trace sample OUT.itt
//   make_sample_trace names OUT.itt (legacy events of several names, ids too large to key)
//   make_sample_trace realloc OUT.itt (a reallocation onto a block never freed)
//   make_sample_trace waits OUT.itt (waits acquired, cancelled, open at the end)
//   make_sample_trace synthetic OUT.itt THREADS EVENTS_PER_THREAD
//   make_sample_trace frames OUT.itt THREADS FRAMES_PER_THREAD
//     (the benchmark's big trace: 4 2000000 is 64 M events)
//   make_sample_trace mixed OUT.itt THREADS FRAMES_PER_THREAD
//     (the benchmark's mixed trace: 4 1000000 is 62.5 M events)
//   make_sample_trace run DIR FILES FRAMES_PER_THREAD [THREADS]
//     FILES frame traces of THREADS threads (default 1) each (ranks 0..,
//     one boot of one host) in DIR, as an MPI job's ITTC_OUTPUT=DIR/ would
//     hold them (64 125000 is 64 files of 1 M events)

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "tests/tools/sample_traces.h"
#include "tests/tools/trace_builder.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(
        stderr,
        "usage: %s sample|names|metadata|realloc|waits|synthetic|frames|mixed OUT [THREADS "
        "EVENTS|FRAMES]\n",
        argv[0]);
    return 64;
  }
  std::string bytes;
  if (std::strcmp(argv[1], "run") == 0 && argc >= 5 && argc <= 7) {
    const int files = std::atoi(argv[3]);
    const unsigned long long frames = std::strtoull(argv[4], nullptr, 10);
    const int threads = argc >= 6 ? std::atoi(argv[5]) : 1;
    // "other-ids": the odd ranks number their names from 2.
    const bool other_ids = argc == 7 && std::strcmp(argv[6], "other-ids") == 0;
    for (const auto& [name, trace] :
         ittc::itt_dump::testing::RunTraces(files, frames, threads, other_ids)) {
      const std::string path = std::string(argv[2]) + "/" + name;
      FILE* f = std::fopen(path.c_str(), "wb");
      if (f == nullptr || std::fwrite(trace.data(), 1, trace.size(), f) != trace.size() ||
          std::fclose(f) != 0) {
        std::perror(path.c_str());
        return 1;
      }
    }
    return 0;
  }
  if (std::strcmp(argv[1], "sample") == 0) {
    bytes = ittc::itt_dump::testing::SampleTrace();
  } else if (std::strcmp(argv[1], "names") == 0) {
    bytes = ittc::itt_dump::testing::NamesTrace();
  } else if (std::strcmp(argv[1], "metadata") == 0) {
    bytes = ittc::itt_dump::testing::MetadataTypesTrace();
  } else if (std::strcmp(argv[1], "realloc") == 0) {
    bytes = ittc::itt_dump::testing::ReallocTrace();
  } else if (std::strcmp(argv[1], "waits") == 0) {
    bytes = ittc::itt_dump::testing::WaitsTrace();
  } else if (std::strcmp(argv[1], "frames") == 0) {
    const int threads = argc > 3 ? std::atoi(argv[3]) : 4;
    const unsigned long long frames = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 2000000;
    bytes = ittc::itt_dump::testing::FrameTrace(threads, frames);
  } else if (std::strcmp(argv[1], "mixed") == 0) {
    const int threads = argc > 3 ? std::atoi(argv[3]) : 4;
    const unsigned long long frames = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 1000000;
    bytes = ittc::itt_dump::testing::MixedTrace(threads, frames);
  } else {
    const int threads = argc > 3 ? std::atoi(argv[3]) : 4;
    const unsigned long long events = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 1000000;
    bytes = ittc::itt_dump::testing::SyntheticTrace(threads, events, 65536);
  }
  FILE* f = std::fopen(argv[2], "wb");
  if (f == nullptr || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size() ||
      std::fclose(f) != 0) {
    std::perror(argv[2]);
    return 1;
  }
  return 0;
}
