#include "tools/itt_dump/parquet/table_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "tools/itt_dump/parquet/parquet_subset_types.h"
#include "tools/itt_dump/parquet/thrift_compact.h"

namespace ittc::parquet {

namespace pt = ::ittc::parquet::thrift;

namespace {

constexpr char kMagic[] = "PAR1";

pt::Type::type PhysicalType(ColumnType type) {
  switch (type) {
    case ColumnType::kInt64:
      return pt::Type::INT64;
    case ColumnType::kDouble:
      return pt::Type::DOUBLE;
    case ColumnType::kBool:
      return pt::Type::BOOLEAN;
    case ColumnType::kString:
      return pt::Type::BYTE_ARRAY;
  }
  return pt::Type::INT64;
}

// Each row's place (EncodeColumnChunk's `places`) grouped by cluster key:
// each cluster's rows in order (by `by`'s values if not null, else as they
// came), the clusters in the order of their first rows (a counting sort).
std::vector<uint32_t> ClusterPlaces(const std::vector<uint64_t>& clusters, const Column* by) {
  absl::flat_hash_map<uint64_t, uint32_t> index;
  std::vector<uint32_t> cluster_of(clusters.size());
  std::vector<uint32_t> counts;
  uint64_t last_key = 0;
  uint32_t last = 0;
  for (size_t r = 0; r < clusters.size(); ++r) {
    const uint64_t key = clusters[r];
    if (r == 0 || key != last_key) {
      auto [it, added] = index.try_emplace(key, static_cast<uint32_t>(counts.size()));
      if (added) counts.push_back(0);
      last_key = key;
      last = it->second;
    }
    cluster_of[r] = last;
    ++counts[last];
  }
  std::vector<uint32_t> start(counts.size());
  uint32_t at = 0;
  for (size_t c = 0; c < counts.size(); ++c) {
    start[c] = at;
    at += counts[c];
  }
  std::vector<uint32_t> places(clusters.size());
  std::vector<uint32_t> next = start;
  for (size_t r = 0; r < clusters.size(); ++r) places[r] = next[cluster_of[r]]++;
  if (by == nullptr) return places;
  // The clusters whose rows came out of `by`'s order (rows come as they
  // end; a cluster's rarely overlap): their rows sorted, stably.
  const std::vector<int64_t>& v = by->ints();
  std::vector<uint8_t> unsorted(counts.size(), 0);
  std::vector<int64_t> last_value(counts.size());
  bool any = false;
  for (size_t r = 0; r < clusters.size(); ++r) {
    const uint32_t c = cluster_of[r];
    // A row at its cluster's start is the cluster's first.
    if (places[r] != start[c] && v[r] < last_value[c]) {
      unsorted[c] = 1;
      any = true;
    }
    last_value[c] = v[r];
  }
  if (!any) return places;
  // By place, the rows of the unsorted clusters.
  std::vector<uint32_t> rows(clusters.size());
  for (size_t r = 0; r < clusters.size(); ++r) {
    if (unsorted[cluster_of[r]] != 0) rows[places[r]] = static_cast<uint32_t>(r);
  }
  const auto less = [&v](uint32_t a, uint32_t b) { return v[a] < v[b]; };
  for (size_t c = 0; c < counts.size(); ++c) {
    if (unsorted[c] == 0) continue;
    const auto first = rows.begin() + start[c];
    const auto last = first + counts[c];
    std::stable_sort(first, last, less);
    for (auto it = first; it != last; ++it) places[*it] = static_cast<uint32_t>(it - rows.begin());
  }
  return places;
}

}  // namespace

EncoderPool::EncoderPool(int threads) {
  for (int i = 0; i < threads; ++i) {
    threads_.emplace_back([this] {
      pthread_setname_np(pthread_self(), "itt-dump-pq");  // for profilers and the benchmark
      Run();
    });
  }
}

EncoderPool::~EncoderPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void EncoderPool::Submit(std::function<void()> job, bool first) {
  if (threads_.empty()) {
    job();
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (first) {
      jobs_.push_front(std::move(job));
    } else {
      jobs_.push_back(std::move(job));
    }
  }
  cv_.notify_one();
}

void EncoderPool::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
    if (jobs_.empty()) return;  // stopping, and nothing left
    std::function<void()> job = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    job();
    lock.lock();
  }
}

// A row group handed to the pool: its columns (the jobs read them) and
// their chunks (each job writes its own slot, then counts down `left`
// under the writer's mu_, which publishes the slot to the producer).
struct TableWriter::Group {
  std::vector<Column> columns;
  std::vector<uint64_t> clusters;
  std::vector<uint32_t> places;  // each row's place in the order written (clustered)
  std::vector<absl::StatusOr<EncodedChunk>> chunks;
  size_t left = 0;
  uint64_t rows = 0;
};

// What the footer says of a chunk once it is in the file.
struct TableWriter::ChunkMeta {
  int64_t offset = 0;  // of its first page
  int64_t data_offset = 0;
  bool dictionary = false;
  int64_t compressed = 0;
  EncodedChunk stats;  // without its bytes
};

absl::StatusOr<std::unique_ptr<TableWriter>> TableWriter::Create(std::string path,
                                                                 std::vector<ColumnSpec> schema,
                                                                 const WriterOptions& options,
                                                                 EncoderPool* pool) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  std::string temp = absl::StrCat(dir, ".", base, ".tmp");
  const int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return absl::ErrnoToStatus(errno, absl::StrCat("cannot create ", temp));
  std::unique_ptr<TableWriter> w(
      new TableWriter(std::move(path), std::move(temp), fd, std::move(schema), options, pool));
  w->Write(kMagic);
  return w;
}

TableWriter::TableWriter(std::string path, std::string temp_path, int fd,
                         std::vector<ColumnSpec> schema, const WriterOptions& options,
                         EncoderPool* pool)
    : path_(std::move(path)),
      temp_path_(std::move(temp_path)),
      fd_(fd),
      schema_(std::move(schema)),
      options_(options),
      pool_(pool) {
  for (const ColumnSpec& c : schema_) columns_.emplace_back(c);
}

TableWriter::~TableWriter() {
  {
    // The pool's jobs point into the groups.
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] {
      for (const auto& g : groups_) {
        if (g->left != 0) return false;
      }
      return true;
    });
  }
  if (fd_ >= 0) close(fd_);
  if (!closed_) unlink(temp_path_.c_str());
}

void TableWriter::Write(const std::string& bytes) {
  if (!status_.ok()) return;
  const char* p = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      Fail(absl::ErrnoToStatus(n < 0 ? errno : EIO, absl::StrCat("cannot write ", temp_path_)));
      return;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  offset_ += bytes.size();
}

TableWriter::Spare TableWriter::TakeSpare() {
  Spare spare;
  if (!spare_.empty()) {
    spare = std::move(spare_.back());
    spare_.pop_back();
  } else {
    for (const ColumnSpec& c : schema_) spare.columns.emplace_back(c);
    // A table that filled a row group fills the next ones too: their room
    // at once, instead of growing each column by copies.
    if (rows_ > 0) {
      for (Column& c : spare.columns) c.Reserve(options_.row_group_rows);
    }
  }
  return spare;
}

void TableWriter::GiveBack(std::vector<Column> columns, std::vector<uint64_t> clusters) {
  for (Column& c : columns) c.Clear();
  clusters.clear();
  spare_.push_back({std::move(columns), std::move(clusters)});
}

RowBlock TableWriter::NewBlock() {
  Spare spare = TakeSpare();
  RowBlock block;
  block.columns_ = std::move(spare.columns);
  block.clusters_ = std::move(spare.clusters);
  return block;
}

void TableWriter::AddBlock(RowBlock block) {
  if (block.rows_ == 0) {
    GiveBack(std::move(block.columns_), std::move(block.clusters_));
    return;
  }
  if (!options_.cluster) block.clusters_.clear();
  Seal(std::move(block.columns_), std::move(block.clusters_), block.rows_);
  WriteGroups(/*all=*/false);
}

void TableWriter::SealRowGroup() {
  if (group_rows_ == 0) return;
  const size_t rows = group_rows_;
  group_rows_ = 0;
  Spare next = TakeSpare();
  std::vector<Column> columns = std::exchange(columns_, std::move(next.columns));
  std::vector<uint64_t> clusters = std::exchange(clusters_, std::move(next.clusters));
  Seal(std::move(columns), std::move(clusters), rows);
  WriteGroups(/*all=*/false);
}

void TableWriter::Seal(std::vector<Column> columns, std::vector<uint64_t> clusters, size_t rows) {
  auto group = std::make_unique<Group>();
  group->rows = rows;
  rows_ += rows;
  group->columns = std::move(columns);
  group->clusters = std::move(clusters);
  const size_t n = group->columns.size();
  group->chunks.resize(n, absl::UnknownError("not encoded"));
  group->left = n;
  Group* g = group.get();
  {
    std::lock_guard<std::mutex> lock(mu_);
    groups_.push_back(std::move(group));
  }
  auto encode = [this, g, n] {
    for (size_t i = 0; i < n; ++i) {
      pool_->Submit([this, g, i] {
        absl::StatusOr<EncodedChunk> chunk =
            EncodeColumnChunk(g->columns[i], g->places, options_.chunk);
        std::lock_guard<std::mutex> lock(mu_);
        g->chunks[i] = std::move(chunk);
        if (--g->left == 0) cv_.notify_all();
      });
    }
  };
  if (options_.cluster) {
    // The places first (one job), then the columns in that order.
    const int by = options_.cluster_order_column;
    pool_->Submit([g, encode, by] {
      g->places =
          ClusterPlaces(g->clusters, by >= 0 ? &g->columns[static_cast<size_t>(by)] : nullptr);
      encode();
    });
  } else {
    encode();
  }
}

void TableWriter::WriteGroups(bool all) {
  const size_t max_in_flight = std::max<size_t>(1, options_.max_groups_in_flight);
  for (;;) {
    std::unique_ptr<Group> front;
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (groups_.empty()) return;
      const bool must_wait = all || groups_.size() > max_in_flight;
      if (groups_.front()->left != 0) {
        if (!must_wait) return;
        cv_.wait(lock, [this] { return groups_.front()->left == 0; });
      }
      front = std::move(groups_.front());
      groups_.pop_front();
    }
    WriteGroup(front.get());
    GiveBack(std::move(front->columns), std::move(front->clusters));
  }
}

void TableWriter::WriteGroup(Group* group) {
  std::vector<ChunkMeta> metas;
  for (absl::StatusOr<EncodedChunk>& chunk : group->chunks) {
    if (!chunk.ok()) {
      Fail(chunk.status());
      return;
    }
    ChunkMeta m;
    m.offset = static_cast<int64_t>(offset_);
    m.dictionary = chunk->dictionary_bytes != 0;
    m.data_offset = m.offset + static_cast<int64_t>(chunk->dictionary_bytes);
    m.compressed = static_cast<int64_t>(chunk->bytes.size());
    Write(chunk->bytes);
    chunk->bytes.clear();
    chunk->bytes.shrink_to_fit();
    m.stats = std::move(*chunk);
    metas.push_back(std::move(m));
  }
  written_.push_back(std::move(metas));
  written_rows_.push_back(group->rows);
}

absl::Status TableWriter::Close() {
  SealRowGroup();
  WriteGroups(/*all=*/true);
  if (!status_.ok()) return status_;

  pt::FileMetaData meta;
  meta.version = 1;
  pt::SchemaElement root;
  root.name = "schema";
  root.__set_num_children(static_cast<int32_t>(schema_.size()));
  meta.schema.push_back(root);
  for (const ColumnSpec& c : schema_) {
    pt::SchemaElement e;
    e.name = c.name;
    e.__set_type(PhysicalType(c.type));
    e.__set_repetition_type(c.optional ? pt::FieldRepetitionType::OPTIONAL
                                       : pt::FieldRepetitionType::REQUIRED);
    if (c.type == ColumnType::kString) {
      e.__set_converted_type(pt::ConvertedType::UTF8);
      pt::LogicalType logical;
      logical.__set_STRING(pt::StringType());
      e.__set_logicalType(logical);
    }
    meta.schema.push_back(e);
    pt::ColumnOrder order;
    order.__set_TYPE_ORDER(pt::TypeDefinedOrder());
    meta.column_orders.push_back(order);
  }
  meta.__isset.column_orders = true;
  int64_t total_rows = 0;
  for (size_t g = 0; g < written_.size(); ++g) {
    pt::RowGroup rg;
    rg.num_rows = static_cast<int64_t>(written_rows_[g]);
    total_rows += rg.num_rows;
    int64_t uncompressed = 0;
    int64_t compressed = 0;
    for (size_t c = 0; c < written_[g].size(); ++c) {
      const ChunkMeta& m = written_[g][c];
      pt::ColumnMetaData cm;
      cm.type = PhysicalType(schema_[c].type);
      for (const EncodingId e : m.stats.encodings) {
        cm.encodings.push_back(static_cast<pt::Encoding::type>(e));
      }
      cm.path_in_schema = {schema_[c].name};
      cm.codec = pt::CompressionCodec::ZSTD;
      cm.num_values = m.stats.num_values;
      cm.total_uncompressed_size = m.stats.uncompressed_bytes;
      cm.total_compressed_size = m.compressed;
      cm.data_page_offset = m.data_offset;
      if (m.dictionary) cm.__set_dictionary_page_offset(m.offset);
      pt::Statistics st;
      st.__set_null_count(m.stats.null_count);
      if (schema_[c].type == ColumnType::kDouble) st.__set_nan_count(m.stats.nan_count);
      if (m.stats.has_min_max) {
        st.__set_min_value(m.stats.min);
        st.__set_max_value(m.stats.max);
      }
      cm.__set_statistics(st);
      pt::ColumnChunk cc;
      cc.file_offset = 0;  // no metadata outside the footer
      cc.__set_meta_data(cm);
      rg.columns.push_back(cc);
      uncompressed += m.stats.uncompressed_bytes;
      compressed += m.compressed;
    }
    rg.total_byte_size = uncompressed;
    rg.__set_total_compressed_size(compressed);
    rg.__set_file_offset(written_[g].empty() ? 0 : written_[g][0].offset);
    rg.__set_ordinal(static_cast<int16_t>(g));
    meta.row_groups.push_back(rg);
  }
  meta.num_rows = total_rows;
  for (const auto& [key, value] : options_.metadata) {
    pt::KeyValue kv;
    kv.key = key;
    kv.__set_value(value);
    meta.key_value_metadata.push_back(kv);
  }
  if (!options_.metadata.empty()) meta.__isset.key_value_metadata = true;
  meta.__set_created_by(options_.created_by);

  std::string footer;
  AppendCompact(meta, &footer);
  const auto size = static_cast<uint32_t>(footer.size());
  for (int b = 0; b < 4; ++b) footer.push_back(static_cast<char>(size >> (8 * b)));
  footer.append(kMagic);
  Write(footer);
  if (!status_.ok()) return status_;
  const int fd = fd_;
  fd_ = -1;
  if (close(fd) != 0) return absl::ErrnoToStatus(errno, absl::StrCat("cannot write ", temp_path_));
  if (rename(temp_path_.c_str(), path_.c_str()) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot rename ", temp_path_, " to ", path_));
  }
  closed_ = true;
  return absl::OkStatus();
}

}  // namespace ittc::parquet
