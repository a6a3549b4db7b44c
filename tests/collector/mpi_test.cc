// A real MPI job: Debian's Open MPI runs four ranks of a program built with
// mpicc against our static part; ITTC_OUTPUT=dir/ gives one trace per
// rank, named and labelled by the rank Open MPI set; itt-dump's model reads
// the four as one run. No timing is asserted: ranks run as the busy
// machine schedules them. What the merged timeline must show is causal:
// no rank leaves a collective before the last rank entered it.

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/collector/trace_loader.h"
#include "tools/itt_dump/model/intervals.h"
#include "tools/itt_dump/model/trace_set.h"

namespace ittc::testing {
namespace {

constexpr int kRanks = 4;

// `name` found on PATH (posix_spawn does not search), or "". The directory
// is canonical: mpirun derives its installation prefix from its own path,
// and /bin (a link to /usr/bin on merged-/usr systems) would give "/".
std::string FindOnPath(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    char real[PATH_MAX];
    if (dir.empty() || realpath(dir.c_str(), real) == nullptr) continue;
    std::string candidate = std::string(real) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

std::vector<std::string> IttFiles(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return names;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n.size() > 4 && n.compare(n.size() - 4, 4, ".itt") == 0) names.push_back(n);
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

TEST(Mpi, FourRanksWriteOneTraceEachWithTheirRank) {
  const std::string mpirun = FindOnPath("mpirun");
  ASSERT_FALSE(mpirun.empty()) << "mpirun not found: tools/setup.sh installs openmpi-bin";
  const std::string dir = MakeTempDir("mpi");
  const std::string out = dir + "/traces/";
  const std::string lib = Runfile("collector/libittcollector.so");
  int status = RunProgram({mpirun, "--allow-run-as-root", "--oversubscribe", "-np",
                           std::to_string(kRanks), "-x", "INTEL_LIBITTNOTIFY64=" + lib, "-x",
                           "ITTC_OUTPUT=" + out, Runfile("tests/collector/mpi_program")},
                          {}, dir + "/stdout.txt", dir + "/stderr.txt");
  std::ifstream err(dir + "/stderr.txt");
  std::stringstream err_text;
  err_text << err.rdbuf();
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "mpirun status " << status << "\n"
                                                             << err_text.str();

  const std::vector<std::string> files = IttFiles(out);
  ASSERT_EQ(files.size(), static_cast<size_t>(kRanks));
  std::set<uint32_t> pids;
  for (int rank = 0; rank < kRanks; ++rank) {
    SCOPED_TRACE(files[rank]);
    // Sorted by rank: the rank is the name's first field.
    char prefix[16];
    std::snprintf(prefix, sizeof prefix, "r%06d-p", rank);
    EXPECT_EQ(files[rank].rfind(prefix, 0), 0u);
    auto t = LoadTrace(out + files[rank]);
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(t->header.rank, rank);
    EXPECT_TRUE(t->has_end);
    EXPECT_EQ(t->corruptions, 0);
    pids.insert(t->header.pid);
    // Every rank recorded its five steps of three tasks, collectives included.
    int allreduce = 0;
    size_t begins = 0;
    for (const DecodedEvent* b : t->OfKind(format::EventKind::kTaskBegin)) {
      ++begins;
      if (t->strings.at(b->U("name")) == "allreduce") ++allreduce;
    }
    EXPECT_EQ(begins, 15u);
    EXPECT_EQ(allreduce, 5);
    EXPECT_EQ(t->OfKind(format::EventKind::kTaskEnd).size(), 15u);
  }
  EXPECT_EQ(pids.size(), static_cast<size_t>(kRanks));

  // The merged timeline. Rank r started its trace after rank r - 1 had
  // started its own (a message orders them) and 30 ms later, so lining the
  // traces up by their starts would put rank 3's barrier exits 90 ms or
  // more before rank 0 entered; the shared TSC does not.
  std::vector<itt_dump::TraceSource> sources;
  for (const std::string& f : files) sources.push_back(itt_dump::TraceSource::File(out + f));
  const itt_dump::TraceSet set = itt_dump::TraceSet::Open(std::move(sources), {});
  ASSERT_EQ(set.files().size(), static_cast<size_t>(kRanks));
  EXPECT_EQ(set.alignment(), itt_dump::TimeAlignment::kSharedTsc);
  EXPECT_GT(set.files()[3].index->header.start_ticks, set.files()[0].index->header.start_ticks);
  struct Collect : itt_dump::IntervalListener {
    const itt_dump::TraceSet* set = nullptr;
    // (task name, step) -> per rank (begin, end)
    std::map<std::pair<std::string, int>, std::map<int64_t, std::pair<uint64_t, uint64_t>>> calls;
    std::map<std::pair<std::string, int64_t>, int> steps;  // (name, rank) -> seen
    int tasks = 0;
    void OnInterval(const itt_dump::Interval& iv) override {
      ++tasks;
      const std::string name = itt_dump::IntervalName(set->index(), iv);
      const int64_t rank = set->FileOf(*iv.thread).index->header.rank;
      const int step = steps[{name, rank}]++;
      calls[{name, step}][rank] = {iv.begin, iv.end};
    }
  } collect;
  collect.set = &set;
  itt_dump::IntervalTracker tracker(set.index(), &collect);
  itt_dump::TraceSetMerger merger(set, {});
  const format::Event* e;
  const itt_dump::ThreadRec* t;
  uint64_t last = 0;
  while (merger.Next(&e, &t)) {
    EXPECT_GE(e->time, last);  // one time order over the ranks
    last = e->time;
    tracker.OnEvent(*e, *t);
  }
  tracker.Finish(last);
  EXPECT_EQ(collect.tasks, kRanks * 15);  // every rank's tasks
  int collectives = 0;
  for (const auto& [key, ranks] : collect.calls) {
    if (key.first == "compute") continue;
    ASSERT_EQ(ranks.size(), static_cast<size_t>(kRanks)) << key.first << " " << key.second;
    uint64_t last_entry = 0;
    uint64_t first_exit = ~uint64_t{0};
    for (const auto& [rank, span] : ranks) {
      last_entry = std::max(last_entry, span.first);
      first_exit = std::min(first_exit, span.second);
    }
    EXPECT_GE(first_exit, last_entry)
        << key.first << " step " << key.second << ": a rank left before the last one entered";
    ++collectives;
  }
  EXPECT_EQ(collectives, 10);
}

}  // namespace
}  // namespace ittc::testing
