#include "tools/itt_dump/info.h"

#include <string.h>

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

namespace {

// A flight recorder's dump: which one, why, and the time it covers.
void FlightInfo(const TraceIndex& x, std::string* out) {
  const format::FlightDump& f = x.flight;
  std::string& o = *out;
  absl::StrAppend(&o, "flight    dump ", f.dump, " of the flight recorder, written on ",
                  format::FlightReasonName(static_cast<uint64_t>(f.reason)));
  if (f.signal != 0) {
    const char* abbrev = sigabbrev_np(static_cast<int>(f.signal));
    absl::StrAppend(&o, " ", f.signal);
    if (abbrev != nullptr) absl::StrAppend(&o, " (SIG", abbrev, ")");
  }
  if (f.reason == format::FlightReason::kMarker) {
    o.append(" ");
    AppendQuoted(&o, x.String(f.name));
  }
  if (f.triggers > 1) {
    // The first dump has none before it: its others came before it began.
    absl::StrAppend(
        &o, "; answers ", f.triggers, " triggers (", f.triggers - 1,
        f.dump > 1 ? " came while the dump before was written)" : " more came before it began)");
  }
  const int64_t begin = x.clock.SinceStartNs(f.window_begin);
  const int64_t end = x.clock.SinceStartNs(f.window_end);
  o.append("\nwindow    ");
  AppendSeconds(&o, begin);
  o.append(" s to ");
  AppendSeconds(&o, end);
  o.append(" s after the start (");
  AppendSeconds(&o, std::max<int64_t>(0, end - begin));
  o.append(" s), from ");
  AppendUtc(&o, x.clock.RealtimeNs(f.window_begin));
  o.append("\n");
}

// The report of one file.
void FileInfo(const TraceIndex& x, std::string* out) {
  const format::FileHeader& h = x.header;
  std::string& o = *out;
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
                    // (A malformed payload's chunk passed its checksums.)
                    x.reader_stats.corrupt_bytes + x.malformed_bytes, " corrupt bytes, ",
                    x.reader_stats.truncated_bytes, " truncated bytes\n");
    for (const Problem& p : x.problems) {
      absl::StrAppend(&o, "  ", p.kind == Problem::Kind::kCorrupt ? "corrupt" : "truncated",
                      " at offset ", p.offset, " (", p.bytes, " bytes): ", p.reason, "\n");
    }
    if (x.problems_dropped != 0) {
      absl::StrAppend(&o, "  ", x.problems_dropped, " more not shown\n");
    }
  }
  if (x.has_flight) FlightInfo(x, &o);
  if (x.has_end) {
    absl::StrAppend(&o, "end       clean (", x.end.events_recorded, " recorded, ",
                    x.end.events_dropped, " dropped, ", x.end.chunk_count, " chunks)\n");
  } else {
    o.append("end       missing: the trace did not end cleanly\n");
  }
}

// What the files of a set add up to, and how their clocks were lined up.
void SetInfo(const TraceSet& set, std::string* out) {
  std::string& o = *out;
  const TraceIndex& m = set.index();
  absl::StrAppend(&o, "set       ", set.files().size(), " traces");
  if (!set.failures().empty()) absl::StrAppend(&o, ", ", set.failures().size(), " unreadable");
  o.append("\n");
  for (const TraceFile& f : set.files()) {
    absl::StrAppend(&o, "  ", f.tag, "  pid ", f.index->header.pid, ", ppid ", f.index->header.ppid,
                    ": ", f.label, ": ", f.index->events, " events  ", f.index->name, "\n");
  }
  for (const TraceSet::Failure& f : set.failures()) {
    absl::StrAppend(&o, "  unreadable  ", f.name, ": ", f.Reason(), "\n");
  }
  o.append("time      ");
  if (set.alignment() == TimeAlignment::kOneFile) {
    o.append("one trace: its own timebase\n");
  } else if (set.alignment() == TimeAlignment::kSharedTsc) {
    o.append("one boot of one host: the traces share the timebase (");
    o.append(m.header.boot_id != std::array<uint8_t, 16>{} ? "boot id " : "");
    absl::StrAppend(&o, format::BootIdString(m.header.boot_id), ")\n");
  } else {
    absl::StrAppend(&o, set.groups(),
                    " hosts or boots aligned by wall clock; their wall clocks moved up to ");
    AppendSeconds(&o, set.wall_uncertainty_ns());
    o.append(
        " s against their monotonic clocks, and the hosts' own clock offset (NTP, PTP) adds "
        "an error the traces cannot show\n");
  }
  const uint64_t end_ticks = TraceEndTicks(m, m.max_event_ticks);
  o.append("duration  ");
  AppendSeconds(&o, std::max<int64_t>(0, m.clock.SinceStartNs(end_ticks)));
  absl::StrAppend(&o, " s\nthreads   ", m.threads.size(), "\ntotal     ", m.events, " events\n");
  uint64_t lost = 0;
  for (const auto& [key, n] : m.losses.entries()) lost += n;
  if (lost == 0) {
    o.append("losses    none\n");
  } else {
    absl::StrAppend(&o, "losses    ", lost, " events dropped\n");
  }
  size_t damaged = 0, unended = 0;
  for (const TraceFile& f : set.files()) {
    if (!f.index->problems.empty()) ++damaged;
    if (!f.index->has_end) ++unended;
  }
  if (damaged == 0) {
    o.append("damage    none\n");
  } else {
    absl::StrAppend(&o, "damage    in ", damaged, " of ", set.files().size(), " traces\n");
  }
  if (unended == 0) {
    o.append("end       clean in every trace\n");
  } else {
    absl::StrAppend(&o, "end       missing in ", unended, " of ", set.files().size(), " traces\n");
  }
}

}  // namespace

absl::Status RunInfo(const VerbContext& ctx) {
  std::string o;
  const std::vector<TraceFile>& files = ctx.set->files();
  for (size_t i = 0; i < files.size(); ++i) {
    if (i != 0) o.append("\n");
    FileInfo(*files[i].index, &o);
  }
  if (files.size() > 1 || !ctx.set->failures().empty()) {
    o.append("\n");
    SetInfo(*ctx.set, &o);
  }
  ctx.out->Write(o);
  ctx.out->Flush();
  return absl::OkStatus();
}

}  // namespace itt_dump
}  // namespace ittc
