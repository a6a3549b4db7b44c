#include "tools/itt_dump/parquet/export.h"

#include <errno.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <condition_variable>
#include <cstddef>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "tools/itt_dump/filter.h"
#include "tools/itt_dump/model/counters.h"
#include "tools/itt_dump/model/event_route.h"
#include "tools/itt_dump/model/flows.h"
#include "tools/itt_dump/model/heap.h"
#include "tools/itt_dump/model/intervals.h"
#include "tools/itt_dump/model/metadata.h"
#include "tools/itt_dump/model/pieces.h"
#include "tools/itt_dump/model/sync.h"
#include "tools/itt_dump/model/values.h"
#include "tools/itt_dump/parquet/table_writer.h"

namespace ittc::itt_dump {

using format::Event;
using format::EventKind;
using parquet::ColumnSpec;
using parquet::ColumnType;
using F = format::Field;

namespace {

constexpr ColumnType kInt = ColumnType::kInt64;
constexpr ColumnType kStr = ColumnType::kString;
constexpr ColumnType kReal = ColumnType::kDouble;
constexpr ColumnType kBool = ColumnType::kBool;
constexpr bool kNull = true;  // a nullable column

// The tables' order in ParquetTables().
enum Table { kSlice, kInstant, kCounter, kFlow, kHeap, kArgs, kThread, kProcess, kTableCount };

}  // namespace

const std::vector<ParquetTable>& ParquetTables() {
  static const std::vector<ParquetTable>* tables = new std::vector<ParquetTable>{
      {"slice",
       {{"id", kInt},
        {"ts", kInt, false, /*byte_aligned_deltas=*/true},
        {"dur", kInt},
        {"category", kStr},
        {"name", kStr},
        {"kind", kStr},
        {"depth", kInt},
        {"parent_id", kInt, kNull},
        {"utid", kInt},
        {"upid", kInt},
        {"open_at_end", kBool}}},
      {"instant",
       {{"id", kInt},
        {"ts", kInt, false, /*byte_aligned_deltas=*/true},
        {"category", kStr},
        {"name", kStr},
        {"kind", kStr},
        {"scope", kStr, kNull},
        {"utid", kInt},
        {"upid", kInt},
        {"address", kInt, kNull},
        {"size", kInt, kNull},
        {"method_id", kInt, kNull}}},
      {"counter",
       {{"id", kInt},
        {"ts", kInt, false, /*byte_aligned_deltas=*/true},
        {"track_id", kInt},
        {"name", kStr},
        {"category", kStr},
        {"value", kReal},
        {"utid", kInt},
        {"upid", kInt}}},
      {"flow",
       {{"id", kInt},
        {"ts", kInt},
        {"relation", kStr},
        {"head", kStr, kNull},
        {"tail", kStr},
        {"utid", kInt},
        {"upid", kInt},
        {"end_ts", kInt, kNull},
        {"end_utid", kInt, kNull}}},
      {"heap",
       {{"id", kInt},
        {"ts", kInt},
        {"kind", kStr},
        {"address", kInt},
        {"size", kInt},
        {"function", kStr},
        {"domain", kStr},
        {"utid", kInt},
        {"upid", kInt},
        {"slice_id", kInt, kNull},
        {"block", kInt, kNull},
        {"released_block", kInt, kNull}}},
      {"args",
       {{"slice_id", kInt, kNull},
        {"ts", kInt},
        {"scope", kStr},
        {"key", kStr},
        {"value_type", kStr},
        {"int_value", kInt, kNull},
        {"real_value", kReal, kNull},
        {"string_value", kStr, kNull},
        {"utid", kInt},
        {"upid", kInt}}},
      {"thread", {{"utid", kInt}, {"upid", kInt}, {"tid", kInt}, {"name", kStr}}},
      {"process",
       {{"upid", kInt},
        {"pid", kInt},
        {"ppid", kInt},
        {"name", kStr},
        {"executable", kStr},
        {"command_line", kStr},
        {"host", kStr},
        {"start_realtime_ns", kInt}}},
  };
  return *tables;
}

namespace {

// Appends one row's values in its table's column order, to a TableWriter
// or a RowBlock. Inlined: each value is a store or two, less than a call
// (which the compiler chose once five kinds of rows used it).
template <typename Target>
class Row {
 public:
  explicit Row(Target* w) : w_(w) {}
  [[gnu::always_inline]] Row& Int(int64_t v) {
    w_->column(i_++).AppendInt(v);
    return *this;
  }
  [[gnu::always_inline]] Row& Uint(uint64_t v) { return Int(static_cast<int64_t>(v)); }
  [[gnu::always_inline]] Row& Str(std::string_view v) {
    w_->column(i_++).AppendString(v);
    return *this;
  }
  // A string whose text only depends on `key` (nonzero): hashed once.
  template <typename Text>
  [[gnu::always_inline]] Row& Keyed(uint64_t key, Text&& text) {
    w_->column(i_++).AppendKeyedString(key, std::forward<Text>(text));
    return *this;
  }
  // A static text (a literal): keyed by its address.
  [[gnu::always_inline]] Row& Static(const char* text) {
    return Keyed(reinterpret_cast<uintptr_t>(text), [text] { return std::string_view(text); });
  }
  [[gnu::always_inline]] Row& Real(double v) {
    w_->column(i_++).AppendDouble(v);
    return *this;
  }
  [[gnu::always_inline]] Row& Bool(bool v) {
    w_->column(i_++).AppendBool(v);
    return *this;
  }
  [[gnu::always_inline]] Row& Null() {
    w_->column(i_++).AppendNull();
    return *this;
  }
  [[gnu::always_inline]] Row& OptInt(bool has, int64_t v) { return has ? Int(v) : Null(); }
  [[gnu::always_inline]] void End(uint64_t cluster = 0) { w_->EndRow(cluster); }

 private:
  Target* w_;
  size_t i_ = 0;
};

// A cluster key (TableWriter's EndRow) from the parts of a sequence's
// identity: equal parts, equal keys (a collision only joins two clusters).
uint64_t Mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h * 0xBF58476D1CE4E5B9ull;
}

const char* MarkerScope(uint64_t scope) {
  switch (static_cast<format::Scope>(scope)) {
    case format::Scope::kGlobal:
      return "global";
    case format::Scope::kTrackGroup:
      return "process";
    case format::Scope::kTask:
      return "task";
    default:
      // __itt_scope_track (__itt_marker_scope_thread), and the unknown
      // ones: the thread's, as chrome and perfetto place them.
      return "thread";
  }
}

// A directory and its parents, as mkdir -p.
absl::Status MakeDirs(const std::string& dir) {
  for (size_t at = 1; at <= dir.size(); ++at) {
    if (at != dir.size() && dir[at] != '/') continue;
    const std::string part = dir.substr(0, at);
    if (mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) {
      return absl::ErrnoToStatus(errno, absl::StrCat("cannot create ", part));
    }
  }
  struct stat st;
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return absl::FailedPreconditionError(absl::StrCat(dir, ": not a directory"));
  }
  return absl::OkStatus();
}

// The rows the pool's threads write (RowWriter), as the reading thread
// describes them: numbers, and texts as views of the index's strings, of
// the trackers' (which outlive the pass), of static texts, or of text the
// batch holding the row keeps (ParquetExporter::Keep).
struct SliceRow {
  const ThreadRec* thread = nullptr;
  uint64_t id = 0;
  uint64_t parent = 0;  // 0: none
  uint64_t begin = 0;   // ticks
  uint64_t end = 0;
  // Keys (nonzero) of texts that follow from them alone (Row::Keyed),
  // which the writer finds in the index (SliceKeys); the texts where a
  // key is 0.
  uint64_t category_key = 0;
  uint64_t name_key = 0;
  std::string_view category;
  std::string_view name;
  const char* kind = "";  // a literal (Row::Static)
  int64_t depth = 0;
  bool open_at_end = false;
};

struct InstantRow {
  const ThreadRec* thread = nullptr;
  uint64_t id = 0;
  uint64_t ticks = 0;
  std::string_view category;
  std::string_view name;
  const char* kind = "";        // a literal (Row::Static)
  const char* scope = nullptr;  // a literal, or null: none
  bool jit = false;             // then its address, size and method id
  uint64_t address = 0;
  uint64_t size = 0;
  uint64_t method_id = 0;
};

struct CounterRow {
  const ThreadRec* thread = nullptr;
  uint64_t id = 0;
  uint64_t ticks = 0;
  const Counter* counter = nullptr;  // its track, name and domain
  double value = 0;
};

struct HeapRow {
  const ThreadRec* thread = nullptr;
  uint64_t id = 0;
  uint64_t ticks = 0;
  const char* kind = "";  // a literal (Row::Static)
  uint64_t address = 0;
  uint64_t size = 0;
  std::string_view function;
  std::string_view domain;
  uint64_t slice_id = 0;  // the open task's, 0: none
  bool has_block = false;
  int64_t block = 0;
  bool has_released = false;
  int64_t released = 0;
};

struct ArgRow {
  const ThreadRec* thread = nullptr;
  uint64_t slice_id = 0;  // 0: of a scope
  uint64_t ticks = 0;
  const char* scope = "";  // a literal
  std::string_view key;
  std::string_view value;
  bool is_text = false;
  bool is_real = false;  // a float or double: real_value, even when integral
};

// The keys of a slice row's texts (SliceRow::category_key, name_key), and
// their texts, which the pool's threads find in the index.
// Ids too large to shift (damaged or made-up input) get 0: no key, text.
struct SliceKeys {
  static constexpr uint64_t kIdLimit = uint64_t{1} << 60;
  static uint64_t Category(uint64_t domain) { return domain < kIdLimit ? domain + 1 : 0; }
  static constexpr uint64_t kFrame = 1;
  static uint64_t Event(uint64_t event_id) { return event_id < kIdLimit ? event_id * 4 + 2 : 0; }
  static uint64_t String(uint64_t string_id) {
    return string_id < kIdLimit ? string_id * 4 + 3 : 0;
  }
  static std::string_view CategoryText(const TraceIndex& x, uint64_t key) {
    return x.Domain(key - 1);
  }
  static std::string_view NameText(const TraceIndex& x, uint64_t key) {
    if (key == kFrame) return "frame";
    if (key % 4 == 3) return x.String(key / 4);
    const std::string* name = x.event_names.Find(key / 4);  // keyed only if defined
    return name != nullptr ? std::string_view(*name) : std::string_view();
  }
};

// The row of interval iv, but its id, parent and depth (the pass's), or
// false where the filters drop it: the same on the reading thread and in
// a piece. A name without a key may be made up in *name (the caller keeps
// a copy). Sets every other field (a piece reuses one row).
bool SliceRowOf(const TraceIndex& x, Filter* filter, const Interval& iv, std::string* name,
                SliceRow* row) {
  if (!filter->KeepsInterval(iv, [&] { return IntervalNameView(x, iv, name); })) return false;
  row->thread = iv.thread;
  row->begin = iv.begin;
  row->end = iv.end;
  row->category_key = SliceKeys::Category(iv.domain);
  row->category = row->category_key == 0 ? x.Domain(iv.domain) : std::string_view();
  // Names that follow from a string or event id alone, and whose text is
  // the index's, by key; a name made up (in *name) as text.
  row->name_key = 0;
  if (iv.kind == IntervalKind::kFrame) {
    row->name_key = SliceKeys::kFrame;
  } else if (iv.kind == IntervalKind::kLegacyEvent) {
    if (x.event_names.Find(iv.event_id) != nullptr) row->name_key = SliceKeys::Event(iv.event_id);
  } else if (iv.name_id != 0 && iv.fn == 0) {
    row->name_key = SliceKeys::String(iv.name_id);
  }
  row->name = row->name_key == 0 ? IntervalNameView(x, iv, name) : std::string_view();
  row->kind = IntervalKindName(iv.kind);
  row->open_at_end = iv.open_at_end;
  return true;
}

// Slice ids: the thread's index in the high bits; below, an ordinal of the
// thread's tasks in the order they began, or of its other slices, and which
// of the two (the low bit). A task's follows from its thread's own events,
// so a piece numbers the tasks it begins from its thread's count before it;
// the other slices are numbered on the reading thread. A thread's slices of
// one name mostly have ids a fixed step apart.
constexpr int kSliceIdBits = 40;
uint64_t TaskSliceId(const ThreadRec& t, uint64_t ordinal) {
  return uint64_t{t.index} << kSliceIdBits | ordinal << 1;
}
uint64_t OtherSliceId(const ThreadRec& t, uint64_t ordinal) {
  return uint64_t{t.index} << kSliceIdBits | ordinal << 1 | 1;
}
uint64_t TaskOrdinal(uint64_t id) { return (id & ((uint64_t{1} << kSliceIdBits) - 1)) >> 1; }

// A piece's task (pieces.h) as its sink's output: the slice's numbers in
// the piece, its times, keys and depth in the piece, then the texts a
// batch must keep: the category and the name where they have no key, and
// the args (each key, value and whether it is text). The reading thread
// makes the row (ParquetExporter::AppendPieceTask).
class PieceTaskRecord {
 public:
  // Written field by field (Write): no padding.
  struct Task {
    uint64_t begin = 0;
    uint64_t end = 0;
    uint64_t category_key = 0;
    uint64_t name_key = 0;
    uint32_t number = 0;  // the piece's, from 1
    uint32_t parent = 0;  // the piece's number of the task around it, 0: none in the piece
    int32_t depth = 0;    // in the piece
    uint32_t args = 0;
  };
  static_assert(sizeof(Task) == 4 * sizeof(uint64_t) + 4 * sizeof(uint32_t));
  // `row`: SliceRowOf's.
  static void Write(const SliceRow& row, uint64_t number, uint64_t parent, int depth,
                    const std::vector<Arg>* args, TextBuffer* out) {
    // Field by field into the buffer: a Task made on the stack and copied
    // stalled the copy's wide loads on its narrow stores (store
    // forwarding), per task.
    char* p = out->Room(sizeof(Task));
    const auto arg_count = static_cast<uint32_t>(args != nullptr ? args->size() : 0);
    ITTC_PUT_FIELD(p, Task, begin, row.begin);
    ITTC_PUT_FIELD(p, Task, end, row.end);
    ITTC_PUT_FIELD(p, Task, category_key, row.category_key);
    ITTC_PUT_FIELD(p, Task, name_key, row.name_key);
    ITTC_PUT_FIELD(p, Task, number, static_cast<uint32_t>(number));
    ITTC_PUT_FIELD(p, Task, parent, static_cast<uint32_t>(parent));
    ITTC_PUT_FIELD(p, Task, depth, static_cast<int32_t>(depth));
    ITTC_PUT_FIELD(p, Task, args, arg_count);
    out->Advance(sizeof(Task));
    if (row.category_key == 0) PieceRecord::PutText(out, row.category);
    if (row.name_key == 0) PieceRecord::PutText(out, row.name);
    for (uint32_t i = 0; i < arg_count; ++i) PieceRecord::PutArg(out, (*args)[i]);
  }

  explicit PieceTaskRecord(std::string_view bytes) : in_(bytes) {
    in_.Get(&task_, sizeof task_);
    if (task_.category_key == 0) category_ = in_.Text();
    if (task_.name_key == 0) name_ = in_.Text();
  }
  const Task& task() const { return task_; }
  // The texts without a key.
  std::string_view category() const { return category_; }
  std::string_view name() const { return name_; }
  // The next arg. REQUIRES: fewer than task().args read.
  void NextArg(std::string_view* key, std::string_view* value, bool* is_text, bool* is_real) {
    in_.NextArg(key, value, is_text, is_real);
  }

 private:
  PieceRecord::Reader in_;
  Task task_;
  std::string_view category_;
  std::string_view name_;
};

// The tables whose rows are written a batch at a time, each by a thread of
// its own (ParquetExporter::TableRows), and a batch's rows of each, in that
// order: a vector per table (rows of one table follow each other in the
// file in the order they came; the tables are apart, so their rows need no
// common order).
constexpr Table kBatchedTables[] = {kSlice, kInstant, kCounter, kHeap, kArgs};
constexpr size_t kBatchedTableCount = std::size(kBatchedTables);

// A batch's rows of one table: slots made once and reused by the batches
// that follow, so that a row handed over is not zeroed first (a rep stos
// per row, on the reading thread) where its maker sets every field.
template <typename T>
class BatchTable {
 public:
  // The next row: as the last batch left it (Add), or zeroed (AddZeroed).
  T& Add() {
    if (size_ == slots_.size()) slots_.resize(std::max<size_t>(64, 2 * slots_.size()));
    return slots_[size_++];
  }
  T& AddZeroed() { return Add() = T(); }
  // Takes back the row added last.
  void DropLast() { --size_; }
  void clear() { size_ = 0; }
  const T* begin() const { return slots_.data(); }
  const T* end() const { return slots_.data() + size_; }

 private:
  std::vector<T> slots_;
  size_t size_ = 0;
};
using BatchRows = std::tuple<BatchTable<SliceRow>, BatchTable<InstantRow>, BatchTable<CounterRow>,
                             BatchTable<HeapRow>, BatchTable<ArgRow>>;
static_assert(std::tuple_size_v<BatchRows> == kBatchedTableCount);

// Writes the rows: each thread that writes them has its own (a clock keeps
// caches).
class RowWriter {
 public:
  explicit RowWriter(const TraceIndex& x) : x_(x), clock_(x.clock) {}

  template <typename Target>
  void Write(Target* w, const SliceRow& s) {
    Row r(w);
    r.Uint(s.id).Int(Ns(s.begin)).Int(clock_.DurationNs(s.begin, s.end));
    if (s.category_key != 0) {
      r.Keyed(s.category_key, [&] { return SliceKeys::CategoryText(x_, s.category_key); });
    } else {
      r.Str(s.category);
    }
    if (s.name_key != 0) {
      r.Keyed(s.name_key, [&] { return SliceKeys::NameText(x_, s.name_key); });
    } else {
      r.Str(s.name);
    }
    r.Static(s.kind).Int(s.depth).OptInt(s.parent != 0, static_cast<int64_t>(s.parent));
    r.Uint(s.thread->index).Uint(s.thread->process).Bool(s.open_at_end);
    // A thread's slices of one kind and name together.
    uint64_t cluster =
        Mix(Mix(s.thread->index, reinterpret_cast<uintptr_t>(s.kind)), s.category_key);
    cluster = Mix(cluster, s.name_key != 0 ? s.name_key : std::hash<std::string_view>()(s.name));
    r.End(cluster);
  }

  template <typename Target>
  void Write(Target* w, const InstantRow& s) {
    Row r(w);
    r.Uint(s.id).Int(Ns(s.ticks)).Str(s.category).Str(s.name).Static(s.kind);
    if (s.scope != nullptr) {
      r.Static(s.scope);
    } else {
      r.Null();
    }
    r.Uint(s.thread->index).Uint(s.thread->process);
    if (s.jit) {
      r.Uint(s.address).Uint(s.size).Uint(s.method_id);
    } else {
      r.Null().Null().Null();
    }
    r.End();
  }

  template <typename Target>
  void Write(Target* w, const CounterRow& s) {
    const Counter& c = *s.counter;
    // A counter's name and domain are set once, when the tracker makes it.
    Row(w)
        .Uint(s.id)
        .Int(Ns(s.ticks))
        .Uint(c.index)
        .Keyed(c.index + 1, [&] { return std::string_view(c.name); })
        .Keyed(c.index + 1, [&] { return std::string_view(c.domain); })
        .Real(s.value)
        .Uint(s.thread->index)
        .Uint(s.thread->process)
        .End();
  }

  template <typename Target>
  void Write(Target* w, const HeapRow& s) {
    Row(w)
        .Uint(s.id)
        .Int(Ns(s.ticks))
        .Static(s.kind)
        .Uint(s.address)
        .Uint(s.size)
        .Str(s.function)
        .Str(s.domain)
        .Uint(s.thread->index)
        .Uint(s.thread->process)
        .OptInt(s.slice_id != 0, static_cast<int64_t>(s.slice_id))
        .OptInt(s.has_block, s.block)
        .OptInt(s.has_released, s.released)
        .End();
  }

  template <typename Target>
  void Write(Target* w, const ArgRow& s) {
    Row r(w);
    r.OptInt(s.slice_id != 0, static_cast<int64_t>(s.slice_id)).Int(Ns(s.ticks)).Static(s.scope);
    r.Str(s.key);
    int64_t i = 0;
    uint64_t u = 0;
    double d = 0;
    const absl::string_view value(s.value.data(), s.value.size());  // absl's may not be std's
    if (!s.is_text && !s.is_real && absl::SimpleAtoi(value, &i)) {
      r.Static("int").Int(i).Null().Null();
    } else if (!s.is_text && !s.is_real && absl::SimpleAtoi(value, &u)) {
      // A u64 past INT64_MAX: its two's complement, as addresses are
      // (docs/ITT_DUMP.md says how a query gets it back).
      r.Static("int").Int(static_cast<int64_t>(u)).Null().Null();
    } else if (!s.is_text && !value.empty() && value.front() != '[' &&
               absl::SimpleAtod(value, &d)) {
      r.Static("real").Null().Real(d).Null();
    } else {
      r.Static(s.is_text ? "string" : "array").Null().Null().Str(s.value);
    }
    r.Uint(s.thread->index).Uint(s.thread->process).End();
  }

 private:
  int64_t Ns(uint64_t ticks) { return clock_.SinceStartNs(ticks); }

  const TraceIndex& x_;
  Clock clock_;
};

// The numbers (ids) of a thread's open tasks, by depth: tasks nest, so a
// task begun at depth d ends those deeper.
class OpenTasks {
 public:
  // Task `number` begins at `depth`; `kept`: the filters keep its slice.
  void Begin(int depth, uint64_t number, bool kept) {
    numbers_.resize(static_cast<size_t>(depth));
    kept_.resize(static_cast<size_t>(depth));
    const uint64_t around = KeptAt(depth - 1);
    numbers_.push_back(number);
    kept_.push_back(kept ? number : around);
  }
  // The number of the task at `depth`, 0 if none.
  uint64_t At(int depth) const { return Get(numbers_, depth); }
  // The number of the innermost task at `depth` or around it whose slice
  // the filters keep, 0 if none: what a row names as its parent or task,
  // so that it never names a slice the dataset does not have.
  uint64_t KeptAt(int depth) const { return Get(kept_, depth); }
  void Clear() {
    numbers_.clear();
    kept_.clear();
  }

 private:
  static uint64_t Get(const std::vector<uint64_t>& v, int depth) {
    return depth >= 0 && static_cast<size_t>(depth) < v.size() ? v[static_cast<size_t>(depth)] : 0;
  }
  std::vector<uint64_t> numbers_;
  std::vector<uint64_t> kept_;  // by depth: KeptAt
};

// Sync and heap calls: their rows name the task open around them (the
// calls the pieces drop make no rows).
bool ReadsOpenTask(EventKind kind) {
  return (IsSyncKind(kind) || IsHeapChangeKind(kind)) && !ExportsNothingOf(kind);
}

// A piece's simple tasks as slice rows (pieces.h), each an output of its
// own at its end's place, where the reading thread adds it to the batch.
// The piece numbers every task it begins (paired or not: OnBegin) from 1;
// the reading thread gives the sink its thread's count of tasks before the
// piece (set_base), and takes the numbers of the tasks whose begins the
// piece forwarded in order (NextForwardedBegin).
class ParquetSink final : public PieceSink {
 public:
  ParquetSink(const TraceIndex& x, const Filter& filter) : x_(x), filter_(filter) {}

  IntervalTracker::PiecePairing pairing() const override {
    IntervalTracker::PiecePairing p;
    p.frames = false;          // slices of their own (not tasks) numbered on the reading thread
    p.tasks_with_ids = false;  // relations follow task ids
    p.args = true;             // a task's args: rows after its slice's
    p.reads_open_task = &ReadsOpenTask;
    return p;
  }
  bool wants_begins() const override { return true; }
  // Counted, nothing kept: what the reading thread writes nothing for and
  // keeps nothing of.
  bool Ignores(EventKind kind) const override { return ExportsNothingOf(kind); }
  void OnBegin(const Interval& iv) override {
    // Only tasks begin in a piece (frames are not its).
    iv.listener_word = ++begins_;
    open_.Begin(iv.depth, iv.listener_word,
                filter_.KeepsInterval(iv, [&] { return IntervalNameView(x_, iv, &name_); }));
    kept_around_.push_back(open_.KeptAt(iv.depth));
  }
  void OnInterval(const Interval& iv) override {
    // A member (a SliceRow made here was zeroed whole, a rep stos per task).
    SliceRow& row = row_;
    if (!SliceRowOf(x_, &filter_, iv, &name_, &row)) return;
    BeginOutput();
    PieceTaskRecord::Write(row, iv.listener_word, open_.KeptAt(iv.depth - 1), iv.depth, iv.args,
                           &output_buffer());
    EndOutput(/*keep=*/true);
  }
  void Clear() override {
    begins_ = 0;
    open_.Clear();
    kept_around_.clear();
    base_ = 0;
    next_forwarded_ = 0;
    next_open_task_ = 0;
  }

  // The tasks the piece began.
  uint64_t begins() const { return begins_; }
  // On the reading thread: the thread's tasks before the piece.
  void set_base(uint64_t base) { base_ = base; }
  uint64_t base() const { return base_; }
  // On the reading thread: the number of the next task whose begin the
  // piece forwarded (its `begin_words`).
  uint64_t NextForwardedBegin(const Piece& piece) {
    return next_forwarded_ < piece.begin_words.size() ? piece.begin_words[next_forwarded_++] : 0;
  }
  // On the reading thread: for the next sync or heap call the piece
  // forwarded, the number of the task open around it that the piece pairs
  // and the filters keep (OpenTasks::KeptAt; 0: the whole trace's tracker
  // has that task).
  uint64_t NextOpenTask(const Piece& piece) {
    const uint64_t number = next_open_task_ < piece.open_task_words.size()
                                ? piece.open_task_words[next_open_task_++]
                                : 0;
    return number != 0 ? kept_around_[number - 1] : 0;
  }

 private:
  const TraceIndex& x_;
  Filter filter_;
  std::string name_;
  SliceRow row_;  // OnInterval's
  uint64_t begins_ = 0;
  OpenTasks open_;  // the piece's numbers
  // By number - 1: the innermost task at or around it the filters keep.
  std::vector<uint64_t> kept_around_;
  uint64_t base_ = 0;
  size_t next_forwarded_ = 0;
  size_t next_open_task_ = 0;
};

class ParquetExporter : public IntervalListener {
 public:
  ParquetExporter(const VerbContext& ctx, parquet::EncoderPool* pool)
      : ctx_(ctx),
        x_(*ctx.index),
        filter_(ctx.filter, x_),
        tracker_(x_, this),
        counters_(x_),
        pool_(pool) {
    tracker_.set_report_begins(true);
  }

  ~ParquetExporter();
  absl::Status Open(const ParquetOptions& options);
  void Begin();
  void OnEvent(const Event& e, const ThreadRec& t);
  absl::Status End(uint64_t end_ticks);

  void OnBegin(const Interval& iv) override;
  void OnInterval(const Interval& iv) override;

  // The pass on every core (pieces.h): the pieces pair their simple tasks
  // and make their rows, which this thread adds where the serial pass
  // would. nullopt where it cannot be exact, or once it cannot go on
  // exactly: then what this exporter wrote is to be dropped (the writers
  // drop their temporary files unclosed) and the serial pass run instead.
  // REQUIRES: at most PieceMerger::kManyFiles files (RunParquet).
  std::optional<PassSummary> PassOnEveryCore();
  // What FeedEntry gives the whole trace's tracker (parquet has no child
  // times).
  void AddChildTicks(const ThreadRec&, uint64_t) {}
  void OnOpen(const Interval& iv, const ThreadRec& t) { tracker_.OnOpen(iv, t); }
  void OnCut(const ThreadRec& t, uint64_t ticks) { tracker_.CutThread(t, ticks); }
  // What OnEvent does with a frame_begin or frame_end of a null id, for
  // one that FeedEntry gives it so (its pieces pair no frames).
  void OnKeptFrame(const KeptFrame& frame, const ThreadRec& t) { tracker_.OnFrame(frame, t); }

 private:
  // A piece's task (ParquetSink's output) at its place: its numbers made
  // its thread's, and its depth the whole trace's.
  void AppendPieceTask(const PieceMerger::Item& item);
  using Writers = std::vector<std::unique_ptr<parquet::TableWriter>>;

  parquet::TableWriter* W(Table table, uint32_t process) {
    return partitions_[partitioned_ ? process : 0][table].get();
  }
  int64_t Ns(uint64_t ticks) const { return x_.clock.SinceStartNs(ticks); }
  // The slice of interval iv (its depth iv.depth), with its args.
  void WriteInterval(const Interval& iv, uint64_t id, uint64_t parent);
  // Hands a row to the batch being filled, in two steps: a row of the
  // batch to set in place (one made on the stack and copied stalled the
  // copy's wide loads on the narrow stores that set it: store
  // forwarding, per row), then its count (RowAdded). Its views must
  // outlive the pass, or be of Keep's copies.
  template <typename T>
  T& NewRow() {
    return std::get<BatchTable<T>>(filling_->rows).AddZeroed();
  }
  // The same, not zeroed: the caller sets every field.
  template <typename T>
  T& NewRowToSet() {
    return std::get<BatchTable<T>>(filling_->rows).Add();
  }
  // Takes back the row NewRow<T> made last (not counted yet).
  template <typename T>
  void DropRow() {
    std::get<BatchTable<T>>(filling_->rows).DropLast();
  }
  void RowAdded() {
    if (++filling_->count == batch_rows_) SubmitBatch(/*all=*/false);
  }
  // A copy of `text` that the batch being filled keeps, for the next row
  // handed to it (NewRow).
  std::string_view Keep(std::string_view text) { return filling_->texts.emplace_back(text); }
  // The ids of the tasks open on thread t, by depth (what OnBegin saw).
  OpenTasks& OpenIds(const ThreadRec& t) {
    if (open_ids_.size() <= t.index) open_ids_.resize(t.index + 1);
    return open_ids_[t.index];
  }
  // The slice id of the task open innermost on t now, or 0.
  uint64_t OpenTaskId(const ThreadRec& t) {
    if (piece_task_ != 0) return piece_task_;
    const Interval* task = tracker_.InnermostTask(t);
    return task != nullptr ? OpenIds(t).KeptAt(task->depth) : 0;
  }
  // An args row; `value` is kept (Keep), `key` must outlive the pass.
  void Args(uint64_t slice_id, const ThreadRec& t, uint64_t ticks, const char* scope,
            std::string_view key, std::string_view value, bool is_text, bool is_real);
  // An instant row; `category` and `name` must outlive the pass (or be
  // kept: Keep).
  void Instant(const ThreadRec& t, uint64_t ticks, std::string_view category, std::string_view name,
               const char* kind, const char* scope, const Event* jit);
  void OnCounter(const CounterSample& sample, const ThreadRec& t);
  void OnSync(const Event& e, const ThreadRec& t);
  // A slice row of a wait on `object` (kind "wait" or "cancelled_wait")
  // whose start had task `parent` around it (its slice id, or 0), if the
  // filter keeps it.
  void WaitRow(const ThreadRec& t, const SyncObject& object, uint64_t begin, uint64_t end,
               const char* kind, bool open_at_end, uint64_t parent);
  // Rows of the waits still open at the end of the trace, which end there.
  void EndOpenWaits(uint64_t end_ticks);
  void OnHeap(const Event& e, const ThreadRec& t);
  void OnRelation(const Event& e, const ThreadRec& t);
  // DispatchByRoute's handlers (model/event_route.h), with those around.
  friend void itt_dump::DispatchByRoute<ParquetExporter>(const Event& e, const ThreadRec& t,
                                                         CounterTracker* counters,
                                                         ParquetExporter* x);
  void OnIntervalEvent(const Event& e, const ThreadRec& t);
  void OnTaskBegin(const Event& e, const ThreadRec& t);
  void OnMarker(const Event& e, const ThreadRec& t);
  void OnScopedMetadata(const Event& e, const ThreadRec& t);
  void OnJit(const Event& e, const ThreadRec& t);
  void WriteFlowEnds();
  void Fail(absl::Status s) {
    if (status_.ok()) status_ = std::move(s);
  }

  const VerbContext& ctx_;
  const TraceIndex& x_;
  Filter filter_;
  IntervalTracker tracker_;
  CounterTracker counters_;
  FlowTracker flows_;
  SyncTracker sync_;
  // By (thread index, address): the slice id of the task around each open
  // wait's start (OnSync), for its row's parent.
  absl::flat_hash_map<std::pair<uint32_t, uint64_t>, uint64_t> wait_parents_;
  HeapTracker heap_;
  parquet::EncoderPool* pool_;
  bool partitioned_ = false;
  std::vector<Writers> partitions_;
  std::vector<OpenTasks> open_ids_;  // by thread index
  // The rows of the tables that get many (kBatchedTables), written a
  // batch at a time while this thread goes on describing the next: each
  // table's by a thread of its own (TableRows), so that the tables are
  // written at once, on as many cores (with an encoder pool of no threads,
  // by this thread as it hands each batch over). A table's rows of the
  // batches go in order into a block per partition, which becomes a row
  // group once it holds row_group_rows, as the writer's own rows would:
  // the files are the same on any number of threads.
  struct Batch {
    BatchRows rows;
    size_t count = 0;               // of all its rows
    std::deque<std::string> texts;  // the texts it keeps (Keep)
    size_t tables_written = 0;      // guarded by batch_mu_
  };
  // Readies a batch written for reuse.
  static void ClearBatch(Batch* batch) {
    std::apply([](auto&... rows) { (rows.clear(), ...); }, batch->rows);
    batch->count = 0;
    batch->texts.clear();
    batch->tables_written = 0;
  }
  // By partition, one of each batched table's.
  template <typename T>
  using PerTable = std::array<T, kBatchedTableCount>;
  size_t batch_rows_ = 0;  // ParquetOptions::batch_rows
  // Batches handed over and not written yet, at most: past them this
  // thread waits.
  static constexpr size_t kBatchesAhead = 2;
  // Hands filling_ over to be written, and adds the blocks filled so far
  // to the tables; with `all`, waits until every batch is written.
  void SubmitBatch(bool all);
  // Adds the blocks the batches filled so far to the tables, in order.
  void AddFullBlocks();
  // Table b's thread (TableRows): writes its rows of the batches handed
  // over, in order, until the exporter goes.
  void WriteRowsOf(size_t b);
  // Table b's rows of `batch` (not holding batch_mu_), or with b =
  // kBatchedTableCount every table's.
  template <size_t... B>
  void WriteTables(size_t b, const Batch& batch, std::index_sequence<B...>) {
    ((b == B || b == kBatchedTableCount ? WriteTable<B>(std::get<B>(batch.rows)) : void()), ...);
  }
  template <size_t B, typename T>
  void WriteTable(const BatchTable<T>& rows) {
    for (const T& row : rows) {
      const size_t p = partitioned_ ? row.thread->process : 0;
      parquet::RowBlock& block = blocks_[p][B];
      table_rows_[B].writer->Write(&block, row);
      if (block.rows() == row_group_rows_) {
        std::lock_guard<std::mutex> lock(batch_mu_);
        full_[p][B].push_back(std::move(block));
        block = std::move(spare_blocks_[p][B].back());
        spare_blocks_[p][B].pop_back();
      }
    }
  }
  std::unique_ptr<Batch> filling_;
  // A batched table's writer: its thread (none without encoder threads),
  // and how many of batches_ (from the front) it has written.
  struct TableRows {
    std::unique_ptr<RowWriter> writer;  // its thread's
    size_t written = 0;                 // guarded by batch_mu_
    std::thread thread;
  };
  std::array<TableRows, kBatchedTableCount> table_rows_;
  size_t row_group_rows_ = 0;
  std::mutex batch_mu_;
  std::condition_variable batch_cv_;
  // Guarded by batch_mu_: the batches handed over and not written by every
  // table yet, in order (they are done in order: each table writes them
  // in order), and whether the tables' threads are to end once they have
  // written them; written ones to reuse; by partition and table, the
  // block being filled and the blocks filled (in order) and empty ones for
  // the table's thread to take.
  std::deque<std::unique_ptr<Batch>> batches_;
  bool stopping_ = false;
  std::vector<std::unique_ptr<Batch>> spare_batches_;
  std::vector<PerTable<parquet::RowBlock>> blocks_;
  std::vector<PerTable<std::vector<parquet::RowBlock>>> full_;
  std::vector<PerTable<std::vector<parquet::RowBlock>>> spare_blocks_;
  // The next slice id of thread t's that are not tasks (TaskSliceId).
  uint64_t NextOtherId(const ThreadRec& t) { return OtherSliceId(t, ++Count(&other_counts_, t)); }
  static uint64_t& Count(std::vector<uint64_t>* counts, const ThreadRec& t) {
    if (counts->size() <= t.index) counts->resize(t.index + 1);
    return (*counts)[t.index];
  }
  // By thread index: the tasks begun so far (on every core: of the pieces
  // read), and the other slices.
  std::vector<uint64_t> task_counts_;
  std::vector<uint64_t> other_counts_;
  // On every core: the piece of the entry fed now.
  const Piece* piece_ = nullptr;
  const char* const task_kind_ = IntervalKindName(IntervalKind::kTask);  // SliceRow::kind
  // On every core, at a sync or heap call: the slice id of the task the
  // piece paired around it, which the whole trace's tracker does not have
  // (0: none).
  uint64_t piece_task_ = 0;
  std::string begin_name_;  // OnBegin's scratch (IntervalNameView)
  uint64_t next_instant_ = 0;
  uint64_t next_counter_ = 0;
  uint64_t next_heap_ = 0;
  // Relations waiting for their tail task to begin, by flow id.
  struct Relation {
    uint64_t ticks = 0;
    const char* relation = "";
    bool has_head = false;
    format::Id head;
    format::Id tail;
    const ThreadRec* thread = nullptr;
  };
  absl::flat_hash_map<uint64_t, Relation> relations_;
  std::string name_;  // IntervalNameView's storage
  std::vector<FlowTracker::End> flow_ends_;
  absl::Status status_;
};

absl::Status ParquetExporter::Open(const ParquetOptions& options) {
  const TraceSet& set = *ctx_.set;
  // A partition per process: with several traces, or one with a rank
  // (ranks converted apart combine in one directory).
  bool ranks = true;
  std::vector<int64_t> seen;
  for (const TraceFile& f : set.files()) {
    const int64_t r = f.index->header.rank;
    if (r == format::kNoRank || std::find(seen.begin(), seen.end(), r) != seen.end()) ranks = false;
    seen.push_back(r);
  }
  partitioned_ = set.files().size() > 1 || ranks;
  for (TableRows& t : table_rows_) t.writer = std::make_unique<RowWriter>(x_);
  row_group_rows_ = std::max<size_t>(1, options.row_group_rows);
  batch_rows_ = std::max<size_t>(1, options.batch_rows);
  filling_ = std::make_unique<Batch>();
  const size_t parts = partitioned_ ? set.files().size() : 1;
  parquet::WriterOptions wo;
  wo.row_group_rows = options.row_group_rows;
  wo.max_groups_in_flight = static_cast<size_t>(std::max(1, pool_->threads())) + 1;
  for (size_t p = 0; p < parts; ++p) {
    std::string partition;
    if (partitioned_) {
      const TraceFile& f = set.files()[p];
      partition = ranks ? absl::StrCat("/rank=", f.index->header.rank)
                        : absl::StrCat("/pid=", f.display_pid);
    }
    Writers writers;
    for (const ParquetTable& table : ParquetTables()) {
      const std::string dir = absl::StrCat(options.dir, "/", table.name, partition);
      if (absl::Status s = MakeDirs(dir); !s.ok()) return s;
      wo.metadata = {{"itt-dump.table", table.name}};
      // A thread's slices of one name together: their times, durations
      // and ids follow each other closely.
      wo.cluster = &table == &ParquetTables()[kSlice];
      wo.cluster_order_column = wo.cluster ? 1 : -1;  // ts
      absl::StatusOr<std::unique_ptr<parquet::TableWriter>> w =
          parquet::TableWriter::Create(dir + "/part-0.parquet", table.columns, wo, pool_);
      if (!w.ok()) return w.status();
      writers.push_back(std::move(*w));
    }
    partitions_.push_back(std::move(writers));
  }
  for (Writers& writers : partitions_) {
    PerTable<parquet::RowBlock>& blocks = blocks_.emplace_back();
    for (size_t b = 0; b < kBatchedTableCount; ++b) {
      blocks[b] = writers[kBatchedTables[b]]->NewBlock();
    }
  }
  full_.resize(partitions_.size());
  spare_blocks_.resize(partitions_.size());
  if (pool_->threads() > 0) {
    for (size_t b = 0; b < kBatchedTableCount; ++b) {
      table_rows_[b].thread = std::thread([this, b] {
        // One thread's work at a time per table (the benchmark counts the
        // largest as serial).
        pthread_setname_np(pthread_self(), "itt-dump-rows");
        WriteRowsOf(b);
      });
    }
  }
  return absl::OkStatus();
}

void ParquetExporter::Begin() {
  const TraceSet& set = *ctx_.set;
  const int64_t origin = x_.clock.RealtimeNs(x_.header.start_ticks);
  for (size_t p = 0; p < set.files().size(); ++p) {
    const TraceFile& f = set.files()[p];
    const format::FileHeader& h = f.index->header;
    std::string command = absl::StrReplaceAll(h.command_line, {{std::string(1, '\0'), " "}});
    while (!command.empty() && command.back() == ' ') command.pop_back();
    Row(W(kProcess, static_cast<uint32_t>(p)))
        .Uint(p)
        .Uint(f.display_pid)
        .Uint(h.ppid)
        .Str(f.label)
        .Str(h.executable_path)
        .Str(command)
        .Str(h.host_name)
        .Int(origin)
        .End();
  }
  for (const auto& [index, t] : x_.threads.entries()) {
    Row(W(kThread, t.process)).Uint(t.index).Uint(t.process).Uint(t.tid).Str(t.name).End();
  }
}

void ParquetExporter::OnBegin(const Interval& iv) {
  const ThreadRec& t = *iv.thread;
  if (iv.kind != IntervalKind::kTask) {
    iv.listener_word = NextOtherId(t);
    return;
  }
  uint64_t ordinal;
  if (piece_ == nullptr) {
    ordinal = ++Count(&task_counts_, t);
  } else {
    // On every core: a task a piece began, opened here (the piece's number
    // of it) or forwarded.
    auto* sink = static_cast<ParquetSink*>(piece_->sink.get());
    const uint64_t opened = tracker_.opened_word();
    ordinal = sink->base() + (opened != 0 ? opened : sink->NextForwardedBegin(*piece_));
  }
  OpenIds(t).Begin(iv.depth, TaskSliceId(t, ordinal), filter_.KeepsInterval(iv, [&] {
    return IntervalNameView(x_, iv, &begin_name_);
  }));
}

void ParquetExporter::OnInterval(const Interval& iv) {
  uint64_t id = iv.listener_word;
  uint64_t parent = 0;
  if (iv.kind == IntervalKind::kTask) {
    const OpenTasks& ids = OpenIds(*iv.thread);
    id = ids.At(iv.depth);
    parent = ids.KeptAt(iv.depth - 1);
  }
  if (id == 0) id = NextOtherId(*iv.thread);  // a frame_submit: complete at once
  WriteInterval(iv, id, parent);
}

std::optional<PassSummary> ParquetExporter::PassOnEveryCore() {
  PassSummary pass;
  const Filter filter(ctx_.filter, x_);  // for the sinks to copy (it keeps caches)
  PieceMerger merger(
      *ctx_.set,
      [&]() -> std::unique_ptr<PieceSink> { return std::make_unique<ParquetSink>(x_, filter); },
      ctx_.merge,
      [&](const Piece& piece) {
        CountPiece(piece, &pass);
        auto* sink = static_cast<ParquetSink*>(piece.sink.get());
        uint64_t& tasks = Count(&task_counts_, *piece.thread);
        sink->set_base(tasks);
        tasks += sink->begins();
      });
  if (!merger.exact()) return std::nullopt;
  DrainPieces(
      ctx_, &merger, this, &pass, [this](const PieceMerger::Item& item) { AppendPieceTask(item); },
      [](const Event&, const PieceMerger::Item&) { return true; },
      [this](const PieceMerger::Item& item) { piece_ = item.piece; });
  piece_ = nullptr;
  if (!merger.exact()) return std::nullopt;
  pass.on_every_core = true;
  return pass;
}

void ParquetExporter::AppendPieceTask(const PieceMerger::Item& item) {
  const ThreadRec& t = *item.thread;
  const uint64_t base = static_cast<const ParquetSink*>(item.piece->sink.get())->base();
  const std::string_view bytes = item.piece->OutputAt(*item.entry);
  // The records that follow, which a worker wrote: the next items are
  // mostly the same piece's (5% of this thread's time on the frames trace).
  __builtin_prefetch(bytes.data() + 256);
  PieceTaskRecord record(bytes);
  const PieceTaskRecord::Task& task = record.task();
  // The tasks open here that began before the piece: those the piece began
  // and the whole trace's tracker has open here are all around this one.
  const Interval* inner = tracker_.InnermostTask(t);
  int before = inner != nullptr ? inner->depth + 1 : 0;
  const OpenTasks& ids = OpenIds(t);
  while (before > 0 && TaskOrdinal(ids.At(before - 1)) > base) --before;
  const uint64_t id = TaskSliceId(t, base + task.number);
  // Made in the batch: a copy through the stack cost a store-forwarding
  // stall per row. Every field is set.
  SliceRow& row = NewRowToSet<SliceRow>();
  row.thread = &t;
  row.id = id;
  row.parent = task.parent != 0 ? TaskSliceId(t, base + task.parent) : OpenTaskId(t);
  row.begin = task.begin;
  row.end = task.end;
  row.category_key = task.category_key;
  row.name_key = task.name_key;
  row.category = task.category_key == 0 ? Keep(record.category()) : std::string_view();
  row.name = task.name_key == 0 ? Keep(record.name()) : std::string_view();
  row.kind = task_kind_;
  row.depth = task.depth + before;
  row.open_at_end = false;
  // (The batch may go with the row: what follows needs none of it.)
  RowAdded();
  for (uint32_t i = 0; i < task.args; ++i) {
    std::string_view key;
    std::string_view value;
    bool is_text = false;
    bool is_real = false;
    record.NextArg(&key, &value, &is_text, &is_real);
    Args(id, t, task.begin, "task", Keep(key), value, is_text, is_real);
  }
}

ParquetExporter::~ParquetExporter() {
  // The tables' threads write what is left, then end.
  {
    std::lock_guard<std::mutex> lock(batch_mu_);
    stopping_ = true;
  }
  batch_cv_.notify_all();
  for (TableRows& t : table_rows_) {
    if (t.thread.joinable()) t.thread.join();
  }
}

void ParquetExporter::SubmitBatch(bool all) {
  AddFullBlocks();
  // Empty blocks for every batch that can be out at once to fill, made
  // before this one goes (the writers are this thread's). Rows out at once
  // fill at most one block more than they hold whole.
  const size_t need = (kBatchesAhead + 1) * batch_rows_ / row_group_rows_ + 1;
  std::vector<PerTable<size_t>> missing(spare_blocks_.size());
  {
    std::lock_guard<std::mutex> lock(batch_mu_);
    for (size_t p = 0; p < missing.size(); ++p) {
      for (size_t b = 0; b < kBatchedTableCount; ++b) {
        missing[p][b] = need - std::min(need, spare_blocks_[p][b].size());
      }
    }
  }
  std::vector<PerTable<std::vector<parquet::RowBlock>>> empty(missing.size());
  for (size_t p = 0; p < missing.size(); ++p) {
    for (size_t b = 0; b < kBatchedTableCount; ++b) {
      for (size_t i = 0; i < missing[p][b]; ++i) {
        empty[p][b].push_back(partitions_[p][kBatchedTables[b]]->NewBlock());
      }
    }
  }
  const bool threads = table_rows_[0].thread.joinable();
  {
    std::lock_guard<std::mutex> lock(batch_mu_);
    for (size_t p = 0; p < empty.size(); ++p) {
      for (size_t b = 0; b < kBatchedTableCount; ++b) {
        for (parquet::RowBlock& block : empty[p][b]) {
          spare_blocks_[p][b].push_back(std::move(block));
        }
      }
    }
    if (filling_->count != 0 && threads) batches_.push_back(std::move(filling_));
  }
  if (!threads) {
    // No threads: every table's rows now.
    WriteTables(kBatchedTableCount, *filling_, std::make_index_sequence<kBatchedTableCount>());
    ClearBatch(filling_.get());
  } else {
    batch_cv_.notify_all();
    std::unique_lock<std::mutex> lock(batch_mu_);
    batch_cv_.wait(lock, [this, all] { return batches_.size() <= (all ? 0 : kBatchesAhead); });
    if (filling_ == nullptr && !spare_batches_.empty()) {
      filling_ = std::move(spare_batches_.back());
      spare_batches_.pop_back();
    }
  }
  if (filling_ == nullptr) filling_ = std::make_unique<Batch>();
  if (all) AddFullBlocks();  // what the last batches filled
}

void ParquetExporter::AddFullBlocks() {
  std::vector<PerTable<std::vector<parquet::RowBlock>>> full(full_.size());
  {
    std::lock_guard<std::mutex> lock(batch_mu_);
    full.swap(full_);
    full_.resize(full.size());
  }
  for (size_t p = 0; p < full.size(); ++p) {
    for (size_t b = 0; b < kBatchedTableCount; ++b) {
      for (parquet::RowBlock& block : full[p][b]) {
        partitions_[p][kBatchedTables[b]]->AddBlock(std::move(block));
      }
    }
  }
}

void ParquetExporter::WriteRowsOf(size_t b) {
  TableRows& table = table_rows_[b];
  std::unique_lock<std::mutex> lock(batch_mu_);
  for (;;) {
    batch_cv_.wait(lock, [&] { return stopping_ || table.written < batches_.size(); });
    if (table.written == batches_.size()) return;  // stopping, all written
    Batch* batch = batches_[table.written].get();
    lock.unlock();
    WriteTables(b, *batch, std::make_index_sequence<kBatchedTableCount>());
    lock.lock();
    ++table.written;
    if (++batch->tables_written < kBatchedTableCount) continue;
    // Every table has written it, and so every batch before it: it is the
    // front one, and goes.
    std::unique_ptr<Batch> done = std::move(batches_.front());
    batches_.pop_front();
    for (TableRows& t : table_rows_) --t.written;
    ClearBatch(done.get());
    spare_batches_.push_back(std::move(done));
    lock.unlock();
    batch_cv_.notify_all();
    lock.lock();
  }
}

void ParquetExporter::WriteInterval(const Interval& iv, uint64_t id, uint64_t parent) {
  // Made in the batch, as AppendPieceTask's rows; SliceRowOf and the
  // lines below set every field.
  SliceRow& row = NewRowToSet<SliceRow>();
  if (!SliceRowOf(x_, &filter_, iv, &name_, &row)) {
    DropRow<SliceRow>();
    return;
  }
  row.id = id;
  row.parent = parent;
  row.depth = iv.kind == IntervalKind::kTask ? iv.depth : 0;
  // (A name without a key may be made up in name_.)
  if (row.name_key == 0) row.name = Keep(row.name);
  RowAdded();
  if (iv.args != nullptr) {
    for (const Arg& a : *iv.args) {
      Args(id, *iv.thread, iv.begin, "task", Keep(a.key), a.value, a.is_text, a.is_real);
    }
  }
}

void ParquetExporter::Args(uint64_t slice_id, const ThreadRec& t, uint64_t ticks, const char* scope,
                           std::string_view key, std::string_view value, bool is_text,
                           bool is_real) {
  ArgRow& row = NewRow<ArgRow>();
  row.thread = &t;
  row.slice_id = slice_id;
  row.ticks = ticks;
  row.scope = scope;
  row.key = key;
  row.value = Keep(value);
  row.is_text = is_text;
  row.is_real = is_real;
  RowAdded();
}

void ParquetExporter::Instant(const ThreadRec& t, uint64_t ticks, std::string_view category,
                              std::string_view name, const char* kind, const char* scope,
                              const Event* jit) {
  InstantRow& row = NewRow<InstantRow>();
  row.thread = &t;
  row.id = ++next_instant_;
  row.ticks = ticks;
  row.category = category;
  row.name = name;
  row.kind = kind;
  row.scope = scope;
  if (jit != nullptr) {
    row.jit = true;
    row.address = jit->Get(F::kAddress);
    row.size = jit->Get(F::kSize);
    row.method_id = jit->Get(F::kMethodId);
  }
  RowAdded();
}

void ParquetExporter::OnCounter(const CounterSample& sample, const ThreadRec& t) {
  if (!filter_.KeepsSample(t, sample)) return;
  CounterRow& row = NewRow<CounterRow>();
  row.thread = &t;
  row.id = ++next_counter_;
  row.ticks = sample.ticks;
  row.counter = sample.counter;
  row.value = static_cast<double>(sample.counter->value);
  RowAdded();
}

void ParquetExporter::OnSync(const Event& e, const ThreadRec& t) {
  SyncChange c;
  if (!sync_.OnEvent(e, t, &c)) return;
  const std::pair<uint32_t, uint64_t> key(t.index, e.Get(F::kAddr));
  if (c.kind == SyncChange::Kind::kPrepare) {
    // A wait's parent is the task around its start (the latest prepare's,
    // as the wait's begin is).
    wait_parents_[key] = OpenTaskId(t);
    return;
  }
  if (!c.closes_wait) return;
  if (c.kind != SyncChange::Kind::kAcquired && c.kind != SyncChange::Kind::kCancel) return;
  uint64_t parent = 0;
  if (auto it = wait_parents_.find(key); it != wait_parents_.end()) {
    parent = it->second;
    wait_parents_.erase(it);
  }
  WaitRow(t, *c.object, c.wait_begin, e.time,
          c.kind == SyncChange::Kind::kAcquired ? "wait" : "cancelled_wait",
          /*open_at_end=*/false, parent);
}

void ParquetExporter::WaitRow(const ThreadRec& t, const SyncObject& object, uint64_t begin,
                              uint64_t end, const char* kind, bool open_at_end, uint64_t parent) {
  const std::string_view name = x_.String(object.name_id);
  if (!filter_.KeepsWait(t, object.name_id, begin)) return;
  const std::string_view type = x_.String(object.type_id);
  SliceRow& row = NewRow<SliceRow>();
  row.thread = &t;
  row.id = NextOtherId(t);
  row.parent = parent;
  row.begin = begin;
  row.end = end;
  row.category = type.empty() ? std::string_view("sync") : type;
  row.name = name.empty() ? Keep(UnnamedSyncName(object.addr, t.process)) : name;
  row.kind = kind;
  row.open_at_end = open_at_end;
  RowAdded();
}

void ParquetExporter::EndOpenWaits(uint64_t end_ticks) {
  for (const SyncTracker::OpenWait& w : sync_.OpenWaits()) {
    const ThreadRec* t = x_.threads.Find(w.thread);
    if (t == nullptr) continue;
    auto parent = wait_parents_.find(std::make_pair(w.thread, w.addr));
    WaitRow(*t, *sync_.Object(w.addr), w.begin, std::max(end_ticks, w.begin), "wait",
            /*open_at_end=*/true, parent != wait_parents_.end() ? parent->second : 0);
  }
}

void ParquetExporter::OnHeap(const Event& e, const ThreadRec& t) {
  const uint64_t fn = e.Get(F::kFunction);
  // Every call is paired (a block freed by a call the filters drop is
  // freed, and the blocks keep their numbers), the kept ones get rows.
  HeapChange c;
  if (!heap_.OnEvent(e, t, &c)) return;
  if (filter_.active() &&
      (!filter_.ThreadOk(t) || !filter_.TimeOk(e.time) || !filter_.HeapFunctionOk(fn))) {
    return;
  }
  const HeapFunctionDef* def = x_.heap_functions.Find(fn);
  const std::string_view domain =
      def != nullptr ? std::string_view(def->domain_name) : std::string_view();
  const char* kind = c.kind == HeapChange::Kind::kAllocate ? "alloc"
                     : c.kind == HeapChange::Kind::kFree   ? "free"
                                                           : "realloc";
  const uint64_t addr =
      c.kind == HeapChange::Kind::kReallocate ? e.Get(F::kNewAddr) : e.Get(F::kAddr);
  const uint64_t size =
      c.kind == HeapChange::Kind::kFree ? (c.released ? c.released_block.size : 0) : c.size;
  const uint64_t task = OpenTaskId(t);
  // A free of an address some allocation replaced: that block ends here.
  const Allocation* released = c.released   ? &c.released_block
                               : c.replaced ? &c.replaced_block
                                            : nullptr;
  const std::string_view function =
      def != nullptr ? std::string_view(def->name) : std::string_view("heap");
  // A row of this call's (made in the batch, as AppendPieceTask's rows),
  // for the caller to fill in: its kind and block.
  const auto call_row = [&](const char* row_kind, uint64_t address, uint64_t bytes) -> HeapRow& {
    HeapRow& row = NewRow<HeapRow>();
    row.thread = &t;
    row.id = ++next_heap_;
    row.ticks = e.time;
    row.kind = row_kind;
    row.address = UntagAddress(address, t.process);
    row.size = bytes;
    row.function = function;
    row.domain = domain;
    row.slice_id = task;
    return row;
  };
  HeapRow& row = call_row(kind, addr, size);
  row.has_block = c.allocated;
  row.block = static_cast<int64_t>(c.allocated_block.serial);
  row.has_released = released != nullptr;
  row.released = released != nullptr ? static_cast<int64_t>(released->serial) : 0;
  RowAdded();
  // A reallocation that found its old block and replaced another at the
  // new address ends two: the second gets a row of its own.
  if (c.released && c.replaced) {
    HeapRow& replaced = call_row("replaced", c.replaced_block.addr, c.replaced_block.size);
    replaced.has_released = true;
    replaced.released = static_cast<int64_t>(c.replaced_block.serial);
    RowAdded();
  }
}

void ParquetExporter::WriteFlowEnds() {
  for (const FlowTracker::End& end : flow_ends_) {
    auto it = relations_.find(end.flow);
    if (it == relations_.end()) continue;
    const Relation& r = it->second;
    Row row(W(kFlow, r.thread->process));
    row.Uint(end.flow).Int(Ns(r.ticks)).Str(r.relation);
    if (r.has_head) {
      row.Str(IdText(r.head));
    } else {
      row.Null();
    }
    row.Str(IdText(r.tail))
        .Uint(r.thread->index)
        .Uint(r.thread->process)
        .Int(Ns(end.ticks))
        .Uint(end.thread->index)
        .End();
    relations_.erase(it);
  }
  flow_ends_.clear();
}

void ParquetExporter::OnRelation(const Event& e, const ThreadRec& t) {
  const uint64_t ticks = format::EffectiveTime(e);
  const char* relation = RelationName(e.Get(F::kRelation));
  if (!filter_.KeepsRelation(t, e.Get(F::kDomain), ticks)) return;
  Relation r;
  r.ticks = ticks;
  r.relation = relation;
  r.has_head = e.Has(F::kHead);
  if (r.has_head) r.head = e.GetId(F::kHead);
  r.tail = e.GetId(F::kTail);
  // Ids as the process wrote them.
  r.head = UntagId(r.head, t.process);
  r.tail = UntagId(r.tail, t.process);
  r.thread = &t;
  relations_[flows_.OnRelation(e.GetId(F::kTail), &flow_ends_)] = r;
  WriteFlowEnds();
}

void ParquetExporter::OnEvent(const Event& e, const ThreadRec& t) {
  if (piece_ != nullptr && ReadsOpenTask(e.kind)) {
    auto* sink = static_cast<ParquetSink*>(piece_->sink.get());
    const uint64_t task = sink->NextOpenTask(*piece_);
    piece_task_ = task != 0 ? TaskSliceId(t, sink->base() + task) : 0;
  }
  DispatchByRoute(e, t, &counters_, this);
  piece_task_ = 0;
}

void ParquetExporter::OnTaskBegin(const Event& e, const ThreadRec& t) {
  tracker_.OnEvent(e, t);
  flows_.OnTaskBegin(e.GetId(F::kId), t, format::EffectiveTime(e), &flow_ends_);
  if (!flow_ends_.empty()) WriteFlowEnds();
}

void ParquetExporter::OnMarker(const Event& e, const ThreadRec& t) {
  const uint64_t ticks = format::EffectiveTime(e);
  const std::string_view name = x_.String(e.Get(F::kName));
  if (!filter_.KeepsItem(t, e.Get(F::kDomain), name, ticks, /*named=*/e.Get(F::kName) != 0)) {
    return;
  }
  Instant(t, ticks, x_.Domain(e.Get(F::kDomain)), name, "marker", MarkerScope(e.Get(F::kScope)),
          nullptr);
}

void ParquetExporter::OnScopedMetadata(const Event& e, const ThreadRec& t) {
  const MetadataValue m = DecodeMetadata(x_, e);
  if (!filter_.KeepsItem(t, e.Get(F::kDomain), m.key, e.time)) return;
  Args(0, t, e.time, MarkerScope(e.Get(F::kScope)), m.key, m.value, m.is_text, m.is_real);
}

void ParquetExporter::OnJit(const Event& e, const ThreadRec& t) {
  const std::string_view name = e.GetBytes(F::kMethodName);
  // A method without a name fails a --name filter (Filters), as in stats.
  if (!filter_.KeepsItem(t, 0, name, e.time, /*named=*/!name.empty())) return;
  // The name is in the event's payload, which the merge reuses: kept.
  Instant(t, e.time, "jit", Keep(name),
          e.kind == EventKind::kJitInlineLoad ? "jit_inline_load" : "jit_method_load", nullptr, &e);
}

void ParquetExporter::OnIntervalEvent(const Event& e, const ThreadRec& t) {
  tracker_.OnEvent(e, t);
}

absl::Status ParquetExporter::End(uint64_t end_ticks) {
  // (Before the tracker ends the tasks: a wait's parent is the task open
  // on its thread, as at a close.)
  EndOpenWaits(end_ticks);
  tracker_.Finish(end_ticks);
  // Relations whose tail never began: no end.
  std::vector<std::pair<uint64_t, Relation>> left(relations_.begin(), relations_.end());
  std::sort(left.begin(), left.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [flow, r] : left) {
    Row row(W(kFlow, r.thread->process));
    row.Uint(flow).Int(Ns(r.ticks)).Str(r.relation);
    if (r.has_head) {
      row.Str(IdText(r.head));
    } else {
      row.Null();
    }
    row.Str(IdText(r.tail)).Uint(r.thread->index).Uint(r.thread->process).Null().Null().End();
  }
  const Unbalanced& u = tracker_.unbalanced();
  WarnUnbalanced(ctx_, u);
  SubmitBatch(/*all=*/true);
  for (size_t p = 0; p < blocks_.size(); ++p) {
    for (size_t b = 0; b < kBatchedTableCount; ++b) {
      partitions_[p][kBatchedTables[b]]->AddBlock(std::move(blocks_[p][b]));
    }
  }
  for (Writers& writers : partitions_) {
    for (std::unique_ptr<parquet::TableWriter>& w : writers) {
      if (absl::Status s = w->Close(); !s.ok()) Fail(s);
    }
  }
  return status_;
}

}  // namespace

absl::Status RunParquet(const VerbContext& ctx, const ParquetOptions& options,
                        bool* on_every_core) {
  if (on_every_core != nullptr) *on_every_core = false;
  int threads = options.encoder_threads;
  if (threads < 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  parquet::EncoderPool pool(threads);
  std::unique_ptr<ParquetExporter> exporter;
  const auto start = [&]() {
    exporter = std::make_unique<ParquetExporter>(ctx, &pool);  // (drops the one before)
    absl::Status s = exporter->Open(options);
    if (s.ok()) exporter->Begin();
    return s;
  };
  const auto finish = [&](const PassSummary& pass) {
    // An input cut while it was read leaves no table named as if whole.
    if (absl::Status cut = WarnMerge(ctx, pass); !cut.ok()) return cut;
    return exporter->End(TraceEndTicks(*ctx.index, pass.last_ticks));
  };
  // (With more files the verbs that write take the serial pass: WriteInPieces.)
  if (ctx.parallel && ctx.set->files().size() <= PieceMerger::kManyFiles) {
    if (absl::Status s = start(); !s.ok()) return s;
    if (std::optional<PassSummary> pass = exporter->PassOnEveryCore()) {
      if (on_every_core != nullptr) *on_every_core = true;
      return finish(*pass);
    }
  }
  if (absl::Status s = start(); !s.ok()) return s;
  absl::StatusOr<PassSummary> pass = ForEachEvent(
      ctx, [&](const Event& e, const ThreadRec& t) { exporter->OnEvent(e, t); },
      [&](const ThreadRec& t, uint64_t ticks) { exporter->OnCut(t, ticks); });
  if (!pass.ok()) return pass.status();
  return finish(*pass);
}

}  // namespace ittc::itt_dump
