#include "tests/collector/trace_loader.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "tools/itt_dump/model/trace_index.h"

extern char** environ;

namespace ittc::testing {
namespace {

int FieldIndex(format::EventKind kind, const char* field) {
  const format::KindSchema* s = format::FindSchema(kind);
  int i = s != nullptr ? format::FindField(*s, field) : -1;
  if (i < 0) {
    std::fprintf(stderr, "no field %s in kind %d\n", field, static_cast<int>(kind));
    std::abort();
  }
  return i;
}

}  // namespace

DecodedEvent CopyEvent(uint32_t thread, const format::Event& e) {
  DecodedEvent d;
  d.thread = thread;
  d.kind = e.kind;
  d.time = e.time;
  const format::KindSchema* schema = format::FindSchema(e.kind);
  for (int i = 0; i < e.field_count; ++i) {
    // The members share storage: only the one of the field's type is
    // meaningful (the others read as 0 / null / empty here).
    const format::FieldType type =
        schema != nullptr ? schema->fields[i].type : format::FieldType::kUint;
    const bool is_id = type == format::FieldType::kId;
    const bool is_bytes = type == format::FieldType::kBytes;
    d.u.push_back(is_id || is_bytes ? 0 : e.fields[i].u);
    d.ids.push_back(is_id ? e.fields[i].id : format::Id{});
    d.bytes.emplace_back(is_bytes ? std::string(e.fields[i].bytes) : std::string());
  }
  return d;
}

uint64_t DecodedEvent::U(const char* field) const { return u[FieldIndex(kind, field)]; }
const format::Id& DecodedEvent::IdOf(const char* field) const {
  return ids[FieldIndex(kind, field)];
}
const std::string& DecodedEvent::Bytes(const char* field) const {
  return bytes[FieldIndex(kind, field)];
}

std::vector<const DecodedEvent*> LoadedTrace::OfKind(format::EventKind kind) const {
  std::vector<const DecodedEvent*> out;
  for (const DecodedEvent& e : events) {
    if (e.kind == kind) out.push_back(&e);
  }
  return out;
}

uint64_t LoadedTrace::TotalLoss() const {
  uint64_t total = 0;
  for (const auto& [key, n] : losses) total += n;
  return total;
}

double LoadedTrace::TicksToNs(uint64_t ticks) const {
  return static_cast<double>(ticks) * 1e9 / static_cast<double>(header.timebase_hz);
}

namespace {

// Copies what LoadTrace keeps out of the model's index pass.
class Loader : public itt_dump::IndexVisitor {
 public:
  Loader(LoadedTrace* trace, KeepEvents keep) : trace_(trace), keep_(keep) {}

  void OnEvent(const format::Event& e, const itt_dump::ThreadRec& thread) override {
    const bool task_pair =
        e.kind == format::EventKind::kTaskBegin || e.kind == format::EventKind::kTaskEnd;
    if (keep_ == KeepEvents::kAll || (keep_ == KeepEvents::kAllButTaskPairs && !task_pair)) {
      trace_->events.push_back(CopyEvent(thread.index, e));
    }
  }
  void OnRecord(const format::Chunk& chunk, const format::Event& r) override {
    if (chunk.type != format::ChunkType::kDefinitions) return;
    trace_->definitions.push_back(CopyEvent(0, r));
  }

 private:
  LoadedTrace* trace_;
  KeepEvents keep_;
};

}  // namespace

absl::StatusOr<LoadedTrace> LoadTrace(const std::string& path, KeepEvents keep) {
  LoadedTrace trace;
  Loader loader(&trace, keep);
  itt_dump::IndexOptions options;
  options.visitor = &loader;
  itt_dump::IndexResult r = itt_dump::BuildIndex(itt_dump::TraceSource::File(path), options);
  if (r.index == nullptr) return r.status;
  const itt_dump::TraceIndex& x = *r.index;
  // A payload that does not decode is a collector bug the tests must see.
  if (x.malformed_payloads != 0) return absl::DataLossError(x.first_malformed_payload);
  for (const itt_dump::Problem& p : x.problems) {
    if (p.kind == itt_dump::Problem::Kind::kCorrupt) {
      std::fprintf(stderr, "corruption at %llu (%llu bytes): %s\n",
                   static_cast<unsigned long long>(p.offset),
                   static_cast<unsigned long long>(p.bytes), p.reason.c_str());
    }
  }
  trace.header = x.header;
  for (const auto& [id, text] : x.strings.entries()) trace.strings[id] = text;
  for (const auto& [id, name] : x.domains.entries()) trace.domains[id] = name;
  for (const auto& [index, t] : x.threads.entries()) {
    if (t.events != 0) trace.event_counts[index] = t.events;
    if (!t.has_info) continue;
    trace.thread_names[index] = t.name;
    format::ThreadInfo& info = trace.threads[index];
    info.thread_index = index;
    info.tid = t.tid;
    info.ignored = t.ignored;
  }
  // Views into the trace's own copies of the names.
  for (auto& [index, info] : trace.threads) info.name = trace.thread_names[index];
  for (const auto& [key, n] : x.losses.entries()) {
    trace.losses[{static_cast<uint32_t>(key >> 8), static_cast<int>(key & 0xff)}] = n;
  }
  trace.syncs = x.sync_points;
  trace.has_end = x.has_end;
  trace.end = x.end;
  trace.has_flight = x.has_flight;
  trace.flight = x.flight;
  trace.stats = x.reader_stats;
  trace.corruptions = static_cast<int>(x.reader_stats.corrupt_regions);
  trace.truncations = x.reader_stats.truncated ? 1 : 0;
  return trace;
}

std::string Runfile(const std::string& workspace_path) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  std::string base = srcdir != nullptr ? srcdir : ".";
  return base + "/ittcollector/" + workspace_path;
}

std::string MakeTempDir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string dir = std::string(tmp != nullptr ? tmp : "/tmp") + "/" + name;
  std::string cmd = "rm -rf '" + dir + "' && mkdir -p '" + dir + "'";
  if (std::system(cmd.c_str()) != 0) std::abort();
  return dir;
}

int RunProgram(const std::vector<std::string>& argv, const std::vector<std::string>& env,
               const std::string& stdout_path, const std::string& stderr_path) {
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) env_strings.emplace_back(*e);
  for (const std::string& kv : env) env_strings.push_back(kv);
  std::vector<char*> envp;
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = argv;
  std::vector<char*> argp;
  for (std::string& s : args) argp.push_back(s.data());
  argp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (!stdout_path.empty()) {
    posix_spawn_file_actions_addopen(&actions, 1, stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
  }
  if (!stderr_path.empty()) {
    posix_spawn_file_actions_addopen(&actions, 2, stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
  }
  pid_t pid;
  int rc = posix_spawn(&pid, argp[0], &actions, nullptr, argp.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return status;
}

}  // namespace ittc::testing
