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
    d.u.push_back(e.fields[i].u);
    d.ids.push_back(e.fields[i].id);
    // Only kBytes fields hold a view; the decoder leaves others' stale (they
    // may point into a previous chunk's freed payload).
    bool is_bytes = schema != nullptr && schema->fields[i].type == format::FieldType::kBytes;
    d.bytes.emplace_back(is_bytes ? std::string(e.fields[i].bytes) : std::string());
  }
  return d;
}

void CountingReporter::Corruption(uint64_t offset, uint64_t bytes, std::string_view reason) {
  ++corruptions;
  std::fprintf(stderr, "corruption at %llu (%llu bytes): %.*s\n",
               static_cast<unsigned long long>(offset), static_cast<unsigned long long>(bytes),
               static_cast<int>(reason.size()), reason.data());
}

void CountingReporter::Truncation(uint64_t, uint64_t, std::string_view) { ++truncations; }

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

absl::StatusOr<LoadedTrace> LoadTrace(const std::string& path, KeepEvents keep) {
  CountingReporter reporter;
  auto reader = format::TraceReader::Open(path, &reporter);
  if (!reader.ok()) return reader.status();
  LoadedTrace trace;
  trace.header = (*reader)->header();
  format::Chunk chunk;
  format::Event e;
  while ((*reader)->Next(&chunk)) {
    if (chunk.type == format::ChunkType::kEvents) {
      format::EventStreamDecoder dec;
      absl::Status s = dec.Reset(chunk.payload);
      if (!s.ok()) return s;
      while (dec.Next(&e)) {
        ++trace.event_counts[dec.thread_index()];
        bool task_pair =
            e.kind == format::EventKind::kTaskBegin || e.kind == format::EventKind::kTaskEnd;
        if (keep == KeepEvents::kAll || (keep == KeepEvents::kAllButTaskPairs && !task_pair)) {
          trace.events.push_back(CopyEvent(dec.thread_index(), e));
        }
      }
      if (!dec.status().ok()) return dec.status();
      continue;
    }
    format::RecordDecoder dec;
    dec.Reset(chunk.payload);
    while (dec.Next(&e)) {
      format::ThreadInfo info;
      format::ClockSync sync;
      format::LossRecord loss;
      if (format::FromRecord(e, &info)) {
        trace.threads[info.thread_index] = info;
        trace.thread_names[info.thread_index] = std::string(info.name);
      } else if (format::FromRecord(e, &sync)) {
        trace.syncs.push_back(sync);
      } else if (format::FromRecord(e, &loss)) {
        uint64_t& n = trace.losses[{loss.thread_index, static_cast<int>(loss.cause)}];
        n = std::max(n, loss.count);
      } else if (format::FromRecord(e, &trace.end)) {
        trace.has_end = true;
      } else {
        DecodedEvent d = CopyEvent(0, e);
        if (e.kind == format::EventKind::kDefString) trace.strings[d.U("id")] = d.Bytes("text");
        if (e.kind == format::EventKind::kDefDomain) trace.domains[d.U("id")] = d.Bytes("name");
        trace.definitions.push_back(std::move(d));
      }
    }
    if (!dec.status().ok()) return dec.status();
  }
  if (!(*reader)->status().ok()) return (*reader)->status();
  trace.stats = (*reader)->stats();
  trace.corruptions = reporter.corruptions;
  trace.truncations = reporter.truncations;
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
