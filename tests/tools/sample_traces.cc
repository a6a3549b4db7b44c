#include "tests/tools/sample_traces.h"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <string>
#include <vector>

#include "tests/tools/trace_builder.h"

namespace ittc {
namespace itt_dump {
namespace testing {

using format::EventKind;
using format::FieldValue;

std::string ReallocTrace() {
  TraceBuilder b(TestHeader());
  b.String(1, "work").Domain(1, "app");
  b.HeapFunction(1, "malloc", "libc").HeapFunction(2, "realloc", "libc");
  b.HeapFunction(3, "free", "libc");
  b.Thread(0, 101, "main").SyncAt(1000);
  const auto allocate = [](uint64_t t, uint64_t addr, uint64_t size) {
    return std::vector<format::Event>{
        Ev(EventKind::kHeapAllocateBegin, t,
           {{F::kFunction, U(1)}, {F::kSize, U(size)}, {F::kInitialized, U(0)}}),
        Ev(EventKind::kHeapAllocateEnd, t + 10,
           {{F::kFunction, U(1)},
            {F::kAddr, U(addr)},
            {F::kSize, U(size)},
            {F::kInitialized, U(0)}}),
    };
  };
  std::vector<format::Event> events;
  events.push_back(Ev(EventKind::kTaskBegin, 1100, {{F::kDomain, U(1)}, {F::kName, U(1)}}));
  for (const format::Event& e : allocate(1200, 0xa000, 64)) events.push_back(e);
  for (const format::Event& e : allocate(1300, 0xb000, 32)) events.push_back(e);
  // 0xb000 moves to 0xa000, whose block was never freed (a free the
  // collector lost): the reallocation ends both.
  events.push_back(Ev(EventKind::kHeapReallocateBegin, 1400,
                      {{F::kFunction, U(2)},
                       {F::kAddr, U(0xb000)},
                       {F::kNewSize, U(128)},
                       {F::kInitialized, U(0)}}));
  events.push_back(Ev(EventKind::kHeapReallocateEnd, 1410,
                      {{F::kFunction, U(2)},
                       {F::kAddr, U(0xb000)},
                       {F::kNewAddr, U(0xa000)},
                       {F::kNewSize, U(128)},
                       {F::kInitialized, U(0)}}));
  // free(NULL): a call that frees nothing, at address 0 in every process.
  events.push_back(Ev(EventKind::kHeapFreeBegin, 1450, {{F::kFunction, U(3)}, {F::kAddr, U(0)}}));
  events.push_back(Ev(EventKind::kHeapFreeEnd, 1460, {{F::kFunction, U(3)}, {F::kAddr, U(0)}}));
  events.push_back(Ev(EventKind::kTaskEnd, 1500, {{F::kDomain, U(1)}}));
  b.Events(0, events);
  b.End(1600);
  return b.bytes();
}

std::string WaitsTrace() {
  TraceBuilder b(TestHeader());
  b.String(1, "work").String(2, "queue_lock").String(3, "std::mutex").Domain(1, "app");
  b.Thread(0, 101, "main").SyncAt(1000);
  const auto lock = [](EventKind kind, uint64_t t) { return Ev(kind, t, {{F::kAddr, U(0x1000)}}); };
  b.Events(
      0,
      {Ev(EventKind::kTaskBegin, 1100, {{F::kDomain, U(1)}, {F::kName, U(1)}}),
       Ev(EventKind::kSyncCreate, 1150,
          {{F::kAddr, U(0x1000)}, {F::kObjtype, U(3)}, {F::kObjname, U(2)}, {F::kAttribute, U(0)}}),
       lock(EventKind::kSyncPrepare, 1200), lock(EventKind::kSyncAcquired, 1300),
       lock(EventKind::kSyncReleasing, 1350), lock(EventKind::kSyncPrepare, 1400),
       lock(EventKind::kSyncCancel, 1450), lock(EventKind::kSyncPrepare, 1500),
       Ev(EventKind::kTaskEnd, 1900, {{F::kDomain, U(1)}})});
  b.End(2000);
  return b.bytes();
}

std::string MetadataTypesTrace() {
  TraceBuilder b(TestHeader());
  b.String(1, "work").Domain(1, "app");
  const std::vector<std::string> keys = {"whole_double", "half_double", "float",        "u64_max",
                                         "u64_big",      "s64",         "global_double"};
  for (size_t i = 0; i < keys.size(); ++i) b.String(10 + i, keys[i]);
  b.Thread(0, 101, "main").SyncAt(1000);
  const auto bytes_of = [](auto v) {
    return std::string(reinterpret_cast<const char*>(&v), sizeof v);
  };
  using T = format::MetadataType;
  const std::vector<std::pair<T, std::string>> values = {{T::kDouble, bytes_of(2.0)},
                                                         {T::kDouble, bytes_of(2.5)},
                                                         {T::kFloat, bytes_of(4.0f)},
                                                         {T::kU64, bytes_of(~uint64_t{0})},
                                                         {T::kU64, bytes_of(uint64_t{1} << 63)},
                                                         {T::kS64, bytes_of(int64_t{-3})}};
  std::vector<format::Event> events;
  events.push_back(Ev(EventKind::kTaskBegin, 1100, {{F::kDomain, U(1)}, {F::kName, U(1)}}));
  for (size_t i = 0; i < values.size(); ++i) {
    events.push_back(Ev(EventKind::kMetadataAdd, 1200 + i,
                        {{F::kDomain, U(1)},
                         {F::kKey, U(10 + i)},
                         {F::kType, U(static_cast<uint64_t>(values[i].first))},
                         {F::kCount, U(1)},
                         {F::kData, B(values[i].second)}}));
  }
  events.push_back(Ev(EventKind::kTaskEnd, 1300, {{F::kDomain, U(1)}}));
  events.push_back(Ev(EventKind::kMetadataAddWithScope, 1400,
                      {{F::kDomain, U(1)},
                       {F::kScope, U(static_cast<uint64_t>(format::Scope::kGlobal))},
                       {F::kKey, U(16)},
                       {F::kType, U(static_cast<uint64_t>(T::kDouble))},
                       {F::kCount, U(1)},
                       {F::kData, B(bytes_of(8.0))}}));
  b.Events(0, events);
  b.End(1600);
  return b.bytes();
}

std::string NamesTrace() {
  constexpr uint64_t kFar = uint64_t{1} << 62;
  TraceBuilder b(TestHeader());
  b.String(1, "step").String(kFar, "far").Domain(1, "app").Domain(kFar, "distant");
  b.EventName(1, "load").EventName(2, "store");
  b.Thread(0, 101, "main").SyncAt(1000);
  std::vector<format::Event> events;
  uint64_t t = 1100;
  for (int i = 0; i < 6; ++i) {
    const uint64_t event = 1 + static_cast<uint64_t>(i % 3);  // 3: no name
    events.push_back(Ev(EventKind::kTaskBegin, t, {{F::kDomain, U(1)}, {F::kName, U(1)}}));
    events.push_back(Ev(EventKind::kEventStart, t + 10, {{F::kEvent, U(event)}}));
    events.push_back(Ev(EventKind::kEventEnd, t + 20 + 10 * event, {{F::kEvent, U(event)}}));
    events.push_back(Ev(EventKind::kTaskEnd, t + 80, {{F::kDomain, U(1)}}));
    t += 100;
  }
  events.push_back(Ev(EventKind::kTaskBegin, t, {{F::kDomain, U(kFar)}, {F::kName, U(kFar)}}));
  events.push_back(Ev(EventKind::kTaskEnd, t + 50, {{F::kDomain, U(kFar)}}));
  b.Events(0, events);
  b.End(t + 100);
  return b.bytes();
}

std::string SampleTrace(format::EventStreamEncoder::FieldCoding coding) {
  static const std::string kU64_42("\x2a\0\0\0\0\0\0\0", 8);
  TraceBuilder b(TestHeader(), /*compress=*/true, coding);
  b.String(1, "main_loop")
      .String(2, "work")
      .String(3, "io")
      .String(4, "tick")
      .String(5, "bytes")
      .String(6, "queue_lock")
      .String(7, "std::mutex")
      .String(8, "overlap")
      .Domain(1, "app")
      .Domain(2, "render")
      .Counter(1, "queue_depth", "app", 1, format::MetadataType::kU64)
      .Counter(2, "temperature", "app", 1, format::MetadataType::kDouble)
      .HeapFunction(1, "malloc", "libc")
      .EventName(1, "legacy")
      .ClockDomain(1, 1000, 0, 1000);
  b.Thread(0, 101, "main").Thread(1, 102, "worker").SyncAt(1000);
  b.Events(
      0,
      {
          Ev(EventKind::kTaskBegin, 1100, {{F::kDomain, U(1)}, {F::kName, U(1)}}),
          Ev(EventKind::kTaskBegin, 1200, {{F::kDomain, U(1)}, {F::kId, I(7)}, {F::kName, U(2)}}),
          Ev(EventKind::kMetadataAdd, 1250,
             {{F::kDomain, U(1)},
              {F::kKey, U(5)},
              {F::kType, U(1)},
              {F::kCount, U(1)},
              {F::kData, B(kU64_42)}}),
          Ev(EventKind::kMarker, 1300, {{F::kDomain, U(1)}, {F::kName, U(4)}, {F::kScope, U(1)}}),
          Ev(EventKind::kTaskEnd, 1400, {{F::kDomain, U(1)}}),
          Ev(EventKind::kCounterInc, 1500, {{F::kCounter, U(1)}}),
          Ev(EventKind::kCounterIncDelta, 1600, {{F::kCounter, U(1)}, {F::kDelta, U(5)}}),
          Ev(EventKind::kTaskBegin, 1700, {{F::kDomain, U(1)}, {F::kName, U(2)}}),
          Ev(EventKind::kTaskEnd, 1800, {{F::kDomain, U(1)}}),
          Ev(EventKind::kFrameBegin, 1900, {{F::kDomain, U(2)}}),
          Ev(EventKind::kFrameEnd, 2900, {{F::kDomain, U(2)}}),
          Ev(EventKind::kTaskEnd, 3000, {{F::kDomain, U(1)}}),
      });
  b.Events(1,
           {
               Ev(EventKind::kTaskBeginOverlapped, 1150,
                  {{F::kDomain, U(1)}, {F::kId, I(9)}, {F::kName, U(8)}}),
               Ev(EventKind::kSyncCreate, 1350,
                  {{F::kAddr, U(0x1000)},
                   {F::kObjtype, U(7)},
                   {F::kObjname, U(6)},
                   {F::kAttribute, U(0)}}),
               Ev(EventKind::kSyncPrepare, 1360, {{F::kAddr, U(0x1000)}}),
               Ev(EventKind::kSyncAcquired, 1460, {{F::kAddr, U(0x1000)}}),
               Ev(EventKind::kSyncReleasing, 1560, {{F::kAddr, U(0x1000)}}),
               Ev(EventKind::kHeapAllocateBegin, 1600,
                  {{F::kFunction, U(1)}, {F::kSize, U(64)}, {F::kInitialized, U(0)}}),
               Ev(EventKind::kHeapAllocateEnd, 1610,
                  {{F::kFunction, U(1)},
                   {F::kAddr, U(0xa000)},
                   {F::kSize, U(64)},
                   {F::kInitialized, U(0)}}),
               Ev(EventKind::kCounterSetValue, 1700,
                  {{F::kCounter, U(2)}, {F::kType, U(8)}, {F::kValue, D(21.5)}}),
               Ev(EventKind::kTaskEndOverlapped, 2050, {{F::kDomain, U(1)}, {F::kId, I(9)}}),
               Ev(EventKind::kHeapFreeBegin, 2100, {{F::kFunction, U(1)}, {F::kAddr, U(0xa000)}}),
               Ev(EventKind::kHeapFreeEnd, 2110, {{F::kFunction, U(1)}, {F::kAddr, U(0xa000)}}),
               Ev(EventKind::kTaskEnd, 2200, {{F::kDomain, U(1)}}),
               Ev(EventKind::kTaskBegin, 2300, {{F::kDomain, U(2)}, {F::kName, U(3)}}),
           });
  b.Loss(1, format::LossCause::kBufferFull, 3);
  b.Events(0, {
                  Ev(EventKind::kFrameSubmit, 3100,
                     {{F::kDomain, U(2)}, {F::kBegin, T(3100)}, {F::kEnd, T(3600)}}),
                  Ev(EventKind::kEventStart, 3200, {{F::kEvent, U(1)}}),
                  Ev(EventKind::kEventEnd, 3300, {{F::kEvent, U(1)}}),
                  Ev(EventKind::kJitMethodLoad, 3400,
                     {{F::kMethodId, U(5)},
                      {F::kMethodName, B("jitted_fn")},
                      {F::kAddress, U(0x7000)},
                      {F::kSize, U(256)},
                      {F::kClassFile, B("")},
                      {F::kSourceFile, B("a.cpp")},
                      {F::kLineTable, B("")}}),
                  Ev(EventKind::kCounterDec, 3500, {{F::kCounter, U(1)}}),
                  Ev(EventKind::kTaskBeginEx, 3650,
                     {{F::kDomain, U(1)},
                      {F::kClockDomain, U(1)},
                      {F::kUserTimestamp, U(77)},
                      {F::kTimestamp, T(3700)},
                      {F::kName, U(2)}}),
                  Ev(EventKind::kTaskEndEx, 3760,
                     {{F::kDomain, U(1)},
                      {F::kClockDomain, U(1)},
                      {F::kUserTimestamp, U(88)},
                      {F::kTimestamp, T(3750)}}),
              });
  b.SyncAt(4000).End(4000);
  return b.bytes();
}

std::string SyntheticTrace(int threads, uint64_t events_per_thread, uint64_t events_per_chunk,
                           bool compress) {
  TraceBuilder b(TestHeader(), compress);
  b.String(1, "outer").String(2, "inner").Domain(1, "bench");
  for (int t = 0; t < threads; ++t) {
    b.Thread(static_cast<uint32_t>(t), 1000 + static_cast<uint64_t>(t), "thread");
  }
  b.SyncAt(1000);
  std::vector<uint64_t> time(static_cast<size_t>(threads), 1000);
  std::vector<uint64_t> done(static_cast<size_t>(threads), 0);
  std::vector<format::Event> chunk;
  bool more = true;
  while (more) {
    more = false;
    for (int t = 0; t < threads; ++t) {
      const size_t ti = static_cast<size_t>(t);
      if (done[ti] >= events_per_thread) continue;
      chunk.clear();
      // Pattern of four: begin outer, begin inner, end, end.
      while (chunk.size() < events_per_chunk && done[ti] < events_per_thread) {
        const uint64_t k = done[ti] % 4;
        time[ti] += 37 + (done[ti] * 7919) % 101;
        if (k == 0 || k == 1) {
          chunk.push_back(
              Ev(EventKind::kTaskBegin, time[ti], {{F::kDomain, U(1)}, {F::kName, U(k + 1)}}));
        } else {
          chunk.push_back(Ev(EventKind::kTaskEnd, time[ti], {{F::kDomain, U(1)}}));
        }
        ++done[ti];
      }
      b.Events(static_cast<uint32_t>(t), chunk);
      if (done[ti] < events_per_thread) more = true;
    }
  }
  uint64_t end = 0;
  for (uint64_t t : time) end = std::max(end, t);
  b.SyncAt(end + 1).End(end + 1);
  return b.bytes();
}

std::string FrameTrace(int threads, uint64_t frames_per_thread, uint64_t events_per_chunk,
                       bool compress, const format::FileHeader* header, uint64_t id_offset) {
  TraceBuilder b(header != nullptr ? *header : TestHeader(), compress);
  const uint64_t o = id_offset;
  b.String(1 + o, "frame_work")
      .String(2 + o, "update")
      .String(3 + o, "render")
      .String(4 + o, "checkpoint");
  b.Domain(1 + o, "app").Domain(2 + o, "frames");
  b.Counter(1, "queue_depth", "app", 1, format::MetadataType::kU64);
  for (int t = 0; t < threads; ++t) {
    b.Thread(static_cast<uint32_t>(t), 2000 + static_cast<uint64_t>(t), "worker");
  }
  b.SyncAt(1000);
  const size_t n = static_cast<size_t>(threads);
  std::vector<uint64_t> time(n, 1000);
  std::vector<uint64_t> frame(n, 0);
  std::vector<uint64_t> rng(n);
  for (size_t ti = 0; ti < n; ++ti) rng[ti] = ti * 1000003;
  std::vector<format::Event> chunk;
  bool more = true;
  while (more) {
    more = false;
    for (size_t ti = 0; ti < n; ++ti) {
      chunk.clear();
      while (chunk.size() + 10 <= events_per_chunk && frame[ti] < frames_per_thread) {
        uint64_t& now = time[ti];
        const uint64_t f = frame[ti]++;
        // Durations jitter like real ones (a splitmix64 stream): the times
        // are the one high-entropy part of a trace.
        auto at = [&](uint64_t step) {
          uint64_t z = (rng[ti] += 0x9E3779B97F4A7C15ull);
          z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
          z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
          return now += step + ((z ^ (z >> 31)) % (step / 16 + 1));
        };
        chunk.push_back(Ev(EventKind::kFrameBegin, at(50), {{F::kDomain, U(2 + o)}}));
        chunk.push_back(
            Ev(EventKind::kTaskBegin, at(20), {{F::kDomain, U(1 + o)}, {F::kName, U(1 + o)}}));
        chunk.push_back(
            Ev(EventKind::kTaskBegin, at(30), {{F::kDomain, U(1 + o)}, {F::kName, U(2 + o)}}));
        chunk.push_back(Ev(EventKind::kTaskEnd, at(400), {{F::kDomain, U(1 + o)}}));
        chunk.push_back(
            Ev(EventKind::kTaskBegin, at(30), {{F::kDomain, U(1 + o)}, {F::kName, U(3 + o)}}));
        chunk.push_back(Ev(EventKind::kTaskEnd, at(900), {{F::kDomain, U(1 + o)}}));
        chunk.push_back(Ev(EventKind::kTaskEnd, at(20), {{F::kDomain, U(1 + o)}}));
        if (f % 64 == 0) {
          chunk.push_back(Ev(EventKind::kCounterSetValue, at(10),
                             {{F::kCounter, U(1)},
                              {F::kType, U(static_cast<uint64_t>(format::MetadataType::kU64))},
                              {F::kValue, U(f % 1000)}}));
          chunk.push_back(Ev(EventKind::kMarker, at(10),
                             {{F::kDomain, U(1 + o)},
                              {F::kName, U(4 + o)},
                              {F::kScope, U(static_cast<uint64_t>(format::Scope::kTrack))}}));
        }
        chunk.push_back(Ev(EventKind::kFrameEnd, at(10), {{F::kDomain, U(2 + o)}}));
      }
      if (!chunk.empty()) b.Events(static_cast<uint32_t>(ti), chunk);
      if (frame[ti] < frames_per_thread) more = true;
    }
  }
  const uint64_t end = *std::max_element(time.begin(), time.end()) + 1;
  b.SyncAt(end).End(end);
  return b.bytes();
}

std::string MixedTrace(int threads, uint64_t frames_per_thread, uint64_t events_per_chunk) {
  TraceBuilder b(TestHeader(), /*compress=*/true);
  b.String(1, "frame_work")
      .String(2, "update")
      .String(3, "render")
      .String(4, "checkpoint")
      .String(5, "bytes")
      .String(6, "lock")
      .String(7, "std::mutex");
  b.Domain(1, "app").Domain(2, "frames").Domain(3, "gpu");
  b.Counter(1, "queue_depth", "app", 1, format::MetadataType::kU64);
  b.Counter(2, "allocs", "app", 1, format::MetadataType::kU64);
  b.HeapFunction(1, "malloc", "libc");
  for (int t = 0; t < threads; ++t) {
    b.Thread(static_cast<uint32_t>(t), 3000 + static_cast<uint64_t>(t), t == 0 ? "main" : "worker");
  }
  b.SyncAt(1000);
  constexpr uint64_t kLocks = 4;
  constexpr uint64_t kLockBase = 0x5000;
  const size_t n = static_cast<size_t>(threads);
  std::vector<uint64_t> time(n, 1000);
  std::vector<uint64_t> frame(n, 0);
  std::vector<uint64_t> rng(n);
  for (size_t ti = 0; ti < n; ++ti) rng[ti] = ti * 7000003 + 1;
  std::vector<format::Event> chunk;
  // The metadata values of the chunk being built (an event's bytes field
  // points into it until the chunk is written).
  std::deque<std::string> values;
  // Flush rounds as the collector's: each thread's events up to the round's
  // end time go out together (the threads run at different rates), in
  // chunks of at most events_per_chunk.
  constexpr uint64_t kRoundTicks = 4000000;
  uint64_t round_end = 1000;
  bool more = true;
  while (more) {
    more = false;
    round_end += kRoundTicks;
    for (size_t ti = 0; ti < n; ++ti) {
      uint64_t& now = time[ti];
      // Durations jitter like real ones (a splitmix64 stream).
      auto at = [&](uint64_t step) {
        uint64_t z = (rng[ti] += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return now += step + ((z ^ (z >> 31)) % (step / 16 + 1));
      };
      chunk.clear();
      values.clear();
      if (ti == 0 && frame[ti] == 0) {
        for (uint64_t l = 0; l < kLocks; ++l) {
          chunk.push_back(Ev(EventKind::kSyncCreate, at(10),
                             {{F::kAddr, U(kLockBase + 64 * l)},
                              {F::kObjtype, U(7)},
                              {F::kObjname, U(6)},
                              {F::kAttribute, U(0)}}));
        }
      }
      while (now < round_end && frame[ti] < frames_per_thread) {
        if (chunk.size() + 20 > events_per_chunk) {
          b.Events(static_cast<uint32_t>(ti), chunk);
          chunk.clear();
          values.clear();
        }
        const uint64_t f = frame[ti]++;
        const uint64_t lock = kLockBase + 64 * ((f + ti) % kLocks);
        const uint64_t block = 0x10000000 * (ti + 1) + 64 * (f % 1024);
        const uint64_t size = 32 + 16 * (f % 7);
        std::string& value = values.emplace_back(8, '\0');
        for (int i = 0; i < 8; ++i)
          value[static_cast<size_t>(i)] = static_cast<char>((f * 40) >> (8 * i));
        if (ti == 0) chunk.push_back(Ev(EventKind::kFrameBegin, at(50), {{F::kDomain, U(2)}}));
        chunk.push_back(Ev(EventKind::kTaskBegin, at(20), {{F::kDomain, U(1)}, {F::kName, U(1)}}));
        chunk.push_back(Ev(EventKind::kMetadataAdd, at(5),
                           {{F::kDomain, U(1)},
                            {F::kKey, U(5)},
                            {F::kType, U(static_cast<uint64_t>(format::MetadataType::kU64))},
                            {F::kCount, U(1)},
                            {F::kData, B(value)}}));
        chunk.push_back(Ev(EventKind::kTaskBegin, at(30), {{F::kDomain, U(1)}, {F::kName, U(2)}}));
        chunk.push_back(Ev(EventKind::kCounterSetValue, at(10),
                           {{F::kCounter, U(1)},
                            {F::kType, U(static_cast<uint64_t>(format::MetadataType::kU64))},
                            {F::kValue, U(f % 1000)}}));
        chunk.push_back(Ev(EventKind::kSyncPrepare, at(20), {{F::kAddr, U(lock)}}));
        chunk.push_back(Ev(EventKind::kSyncAcquired, at(60), {{F::kAddr, U(lock)}}));
        chunk.push_back(Ev(EventKind::kSyncReleasing, at(100), {{F::kAddr, U(lock)}}));
        chunk.push_back(Ev(EventKind::kHeapAllocateBegin, at(20),
                           {{F::kFunction, U(1)}, {F::kSize, U(size)}, {F::kInitialized, U(0)}}));
        chunk.push_back(Ev(EventKind::kHeapAllocateEnd, at(40),
                           {{F::kFunction, U(1)},
                            {F::kAddr, U(block)},
                            {F::kSize, U(size)},
                            {F::kInitialized, U(0)}}));
        chunk.push_back(Ev(EventKind::kTaskEnd, at(300), {{F::kDomain, U(1)}}));
        chunk.push_back(Ev(EventKind::kTaskBegin, at(30), {{F::kDomain, U(3)}, {F::kName, U(3)}}));
        chunk.push_back(
            Ev(EventKind::kHeapFreeBegin, at(600), {{F::kFunction, U(1)}, {F::kAddr, U(block)}}));
        chunk.push_back(
            Ev(EventKind::kHeapFreeEnd, at(30), {{F::kFunction, U(1)}, {F::kAddr, U(block)}}));
        chunk.push_back(Ev(EventKind::kTaskEnd, at(20), {{F::kDomain, U(3)}}));
        if (f % 16 == 0) {
          chunk.push_back(Ev(EventKind::kMarker, at(10),
                             {{F::kDomain, U(1)},
                              {F::kName, U(4)},
                              {F::kScope, U(static_cast<uint64_t>(format::Scope::kTask))}}));
          chunk.push_back(Ev(EventKind::kCounterInc, at(10), {{F::kCounter, U(2)}}));
        }
        chunk.push_back(Ev(EventKind::kTaskEnd, at(20), {{F::kDomain, U(1)}}));
        if (ti == 0) chunk.push_back(Ev(EventKind::kFrameEnd, at(10), {{F::kDomain, U(2)}}));
      }
      if (!chunk.empty()) b.Events(static_cast<uint32_t>(ti), chunk);
      if (frame[ti] < frames_per_thread) more = true;
    }
  }
  const uint64_t end = *std::max_element(time.begin(), time.end()) + 1;
  b.SyncAt(end).End(end);
  return b.bytes();
}

std::vector<std::pair<std::string, std::string>> RunTraces(int files, uint64_t frames_per_thread,
                                                           int threads, bool other_ids) {
  std::vector<std::pair<std::string, std::string>> out;
  for (int i = 0; i < files; ++i) {
    format::FileHeader h = TestHeader();
    h.pid = 10000 + static_cast<uint32_t>(i);
    h.rank = i;
    h.boot_id[0] = 0x42;
    char name[64];
    std::snprintf(name, sizeof name, "r%06d-p%07u-frames.itt", i, h.pid);
    out.emplace_back(name, FrameTrace(threads, frames_per_thread, 65536, true, &h,
                                      other_ids ? static_cast<uint64_t>(i % 2) : 0));
  }
  return out;
}

}  // namespace testing
}  // namespace itt_dump
}  // namespace ittc
