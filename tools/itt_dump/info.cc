#include "tools/itt_dump/info.h"

#include <algorithm>
#include <array>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "tools/itt_dump/model/values.h"

namespace ittc {
namespace itt_dump {

std::string FormatCommandLine(std::string_view cmd) {
  while (!cmd.empty() && cmd.back() == '\0') cmd.remove_suffix(1);
  std::string out;
  bool first = true;
  for (absl::string_view w : absl::StrSplit(absl::string_view(cmd.data(), cmd.size()), '\0')) {
    const std::string_view word(w.data(), w.size());
    if (!first) out.push_back(' ');
    first = false;
    const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
             std::string_view("-_./=:,+@%").find(c) != std::string_view::npos;
    });
    if (plain) {
      out.append(word.data(), word.size());
    } else {
      AppendQuoted(&out, word);
    }
  }
  return out;
}

absl::Status RunInfo(const VerbContext& ctx) {
  const TraceIndex& x = *ctx.index;
  const format::FileHeader& h = x.header;
  std::string o;
  absl::StrAppend(&o, "file      ", x.name, " (", x.file_bytes, " bytes, format ", h.version_major,
                  ".", h.version_minor, ")\n");
  absl::StrAppend(&o, "process   pid ", h.pid, ", ppid ", h.ppid, "\n");
  o.append("exe       ");
  AppendQuoted(&o, h.executable_path);
  o.append("\ncommand   ");
  o.append(FormatCommandLine(h.command_line));
  o.append("\nhost      ");
  AppendQuoted(&o, h.host_name);
  if (h.rank != format::kNoRank) absl::StrAppend(&o, "\nrank      ", h.rank);
  if (h.boot_id != std::array<uint8_t, 16>{}) {
    absl::StrAppend(&o, "\nboot id   ", format::BootIdString(h.boot_id));
  }
  o.append("\nwriter    ");
  AppendQuoted(&o, h.writer);
  if (h.flags & format::kHeaderFlagTruncated) {
    o.append(" (header strings truncated)");
  }
  o.append("\nstart     ");
  AppendUtc(&o, h.start_realtime_ns);
  absl::StrAppend(&o, "\ntimebase  ", format::TimebaseName(h.timebase), " at ", h.timebase_hz,
                  " Hz, ", x.sync_points.size(), " clock sync points\n");
  const uint64_t end_ticks = TraceEndTicks(x, x.max_event_ticks);
  o.append("duration  ");
  AppendSeconds(&o, std::max<int64_t>(0, x.clock.SinceStartNs(end_ticks)));
  absl::StrAppend(&o, " s\nthreads   ", x.threads.size(), "\n");
  for (const auto& [index, t] : x.threads.entries()) {
    absl::StrAppend(&o, "  tid ", t.tid, " ");
    AppendQuoted(&o, t.name);
    absl::StrAppend(&o, " (index ", t.index, "): ", t.events, " events");
    if (t.ignored) o.append(", ignored");
    if (!t.has_info) o.append(", no thread info");
    o.push_back('\n');
  }
  absl::StrAppend(&o, "total     ", x.events, " events\n");

  // Losses, sorted by thread index then cause.
  std::vector<std::pair<uint64_t, uint64_t>> losses;
  for (const auto& [key, n] : x.losses.entries()) {
    if (n != 0) losses.emplace_back(key, n);
  }
  std::sort(losses.begin(), losses.end());
  if (losses.empty()) {
    o.append("losses    none\n");
  } else {
    uint64_t total = 0;
    for (const auto& l : losses) total += l.second;
    absl::StrAppend(&o, "losses    ", total, " events dropped\n");
    for (const auto& [key, n] : losses) {
      const uint32_t ti = static_cast<uint32_t>(key >> 8);
      const ThreadRec* t = x.Thread(ti);
      absl::StrAppend(&o, "  tid ", t != nullptr ? t->tid : 0, " (index ", ti, "): ", n, " ",
                      format::LossCauseName(key & 0xff), "\n");
    }
  }
  if (x.problems.empty()) {
    o.append("damage    none\n");
  } else {
    absl::StrAppend(&o, "damage    ", x.problems.size() + x.problems_dropped, " problems, ",
                    x.reader_stats.corrupt_bytes, " corrupt bytes, ",
                    x.reader_stats.truncated_bytes, " truncated bytes\n");
    for (const Problem& p : x.problems) {
      absl::StrAppend(&o, "  ", p.kind == Problem::Kind::kCorrupt ? "corrupt" : "truncated",
                      " at offset ", p.offset, " (", p.bytes, " bytes): ", p.reason, "\n");
    }
    if (x.problems_dropped != 0) {
      absl::StrAppend(&o, "  ", x.problems_dropped, " more not shown\n");
    }
  }
  if (x.has_end) {
    absl::StrAppend(&o, "end       clean (", x.end.events_recorded, " recorded, ",
                    x.end.events_dropped, " dropped, ", x.end.chunk_count, " chunks)\n");
  } else {
    o.append("end       missing: the trace did not end cleanly\n");
  }
  ctx.out->Write(o);
  ctx.out->Flush();
  return absl::OkStatus();
}

}  // namespace itt_dump
}  // namespace ittc
