// Writes one Parquet file (apache/parquet-format, README "File format"):
// "PAR1", the row groups' column chunks (column_chunk.h), the footer
// (FileMetaData in Thrift's compact protocol: schema, row groups with each
// chunk's offsets and statistics, the order min and max follow), its
// 4-byte length and "PAR1".
//
// Rows are appended column by column (column(i).Append*, then EndRow).
// Every WriterOptions::row_group_rows rows make a row group, whose columns
// go to an EncoderPool to be encoded and compressed, one job per column;
// the producer writes the finished groups in order as it goes on. The
// file is written under a temporary name beside `path` (".NAME.tmp",
// which dataset readers skip) and renamed to `path` by Close: a file cut
// short never looks whole.
//
// Thread safety: a TableWriter is used by one thread; the pool's threads
// touch only the row groups handed to them (their columns and results,
// published under mu_). EncoderPool: Submit from any thread.
//
// Memory: the row group being filled plus at most max_groups_in_flight
// waiting to be encoded or written (each about row_group_rows times the
// row's size in memory); with `cluster`, each pool thread keeps one
// column of a row group reordered (EncodeColumnChunk).

#ifndef TOOLS_ITT_DUMP_PARQUET_TABLE_WRITER_H_
#define TOOLS_ITT_DUMP_PARQUET_TABLE_WRITER_H_

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tools/itt_dump/parquet/column.h"
#include "tools/itt_dump/parquet/column_chunk.h"

namespace ittc::parquet {

// Threads that run jobs (column chunks to encode) for any number of
// writers.
class EncoderPool {
 public:
  // `threads` 0 runs each job in Submit, on the caller's thread.
  explicit EncoderPool(int threads);
  // Runs the jobs still queued, then joins the threads.
  ~EncoderPool();
  EncoderPool(const EncoderPool&) = delete;
  EncoderPool& operator=(const EncoderPool&) = delete;

  // Queues `job`; `first` puts it before the jobs queued (one that the
  // caller will wait for soon).
  void Submit(std::function<void()> job, bool first = false);
  int threads() const { return static_cast<int>(threads_.size()); }

 private:
  void Run();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;  // guarded by mu_
  bool stopping_ = false;                   // guarded by mu_
  std::vector<std::thread> threads_;
};

struct WriterOptions {
  // Rows per row group: the unit a reader scans in parallel and skips by
  // its statistics.
  size_t row_group_rows = size_t{1} << 19;
  ChunkOptions chunk;
  // Row groups encoded or waiting to be written at once, at least 1.
  size_t max_groups_in_flight = 3;
  // Rows of a row group with the same cluster key (EndRow) are written
  // together, each cluster's in the order they came, the clusters in the
  // order of their first rows. A table whose rows interleave several
  // sequences (threads, task names) then has each one's times and ids
  // consecutive, which the delta encoding and zstd store in a few bits.
  // Clustering takes a hash lookup per row, on the pool's threads.
  bool cluster = false;
  // With `cluster`: the column (a required kInt64) each cluster's rows
  // are ordered by, or -1 to keep them in the order they came. Rows that
  // came in another order (intervals come as they end) then have their
  // times in order again.
  int cluster_order_column = -1;
  // The footer's key_value_metadata.
  std::vector<std::pair<std::string, std::string>> metadata;
  // The footer's created_by.
  std::string created_by = "itt-dump (ittcollector)";
};

// Rows gathered apart from a TableWriter (TableWriter::NewBlock), on
// another thread maybe, then handed back whole as a row group of their own
// (TableWriter::AddBlock). Thread safety: none; one thread at a time.
class RowBlock {
 public:
  // The current row's column i, as TableWriter::column.
  Column& column(size_t i) { return columns_[i]; }
  // Ends the row, as TableWriter::EndRow.
  void EndRow(uint64_t cluster = 0) {
    clusters_.push_back(cluster);
    ++rows_;
  }
  size_t rows() const { return rows_; }

 private:
  friend class TableWriter;
  std::vector<Column> columns_;
  std::vector<uint64_t> clusters_;
  size_t rows_ = 0;
};

class TableWriter {
 public:
  // Creates the temporary file of `path`. `pool` must outlive the writer.
  static absl::StatusOr<std::unique_ptr<TableWriter>> Create(std::string path,
                                                             std::vector<ColumnSpec> schema,
                                                             const WriterOptions& options,
                                                             EncoderPool* pool);
  // Waits for its row groups in the pool; removes the temporary file
  // unless Close succeeded.
  ~TableWriter();
  TableWriter(const TableWriter&) = delete;
  TableWriter& operator=(const TableWriter&) = delete;

  const std::vector<ColumnSpec>& schema() const { return schema_; }
  // The current row's column i. REQUIRES: i < schema().size().
  Column& column(size_t i) { return columns_[i]; }
  // Ends the row: every column has had one value (or null) appended.
  // With WriterOptions::cluster, `cluster` says which rows go together.
  void EndRow(uint64_t cluster = 0) {
    if (options_.cluster) clusters_.push_back(cluster);
    if (++group_rows_ == options_.row_group_rows) SealRowGroup();
  }

  // An empty block of this table's columns (reusing the memory of groups
  // written).
  RowBlock NewBlock();
  // The rows of `block` (from NewBlock, filled since) as a row group of
  // their own, after the groups sealed so far (nothing with no rows).
  void AddBlock(RowBlock block);

  // Writes what is left and the footer, then renames the file to its
  // path. The first error of the writer (I/O, encoding), with the path.
  absl::Status Close();

  const std::string& path() const { return path_; }
  uint64_t rows() const { return rows_ + group_rows_; }
  // Bytes written so far (the file's size after Close).
  uint64_t bytes() const { return offset_; }

 private:
  struct Group;
  struct ChunkMeta;

  TableWriter(std::string path, std::string temp_path, int fd, std::vector<ColumnSpec> schema,
              const WriterOptions& options, EncoderPool* pool);
  // Hands the current row group to the pool (nothing with no rows).
  void SealRowGroup();
  // Hands `rows` rows in `columns` (and their cluster keys) to the pool as
  // the next row group.
  void Seal(std::vector<Column> columns, std::vector<uint64_t> clusters, size_t rows);
  // Emptied columns and cluster keys to fill, kept for reuse (their
  // memory) or new.
  struct Spare {
    std::vector<Column> columns;
    std::vector<uint64_t> clusters;
  };
  Spare TakeSpare();
  // Empties them and keeps them for TakeSpare.
  void GiveBack(std::vector<Column> columns, std::vector<uint64_t> clusters);
  // Writes the finished groups at the front; with `all`, waits for every
  // one. Waits anyway while more than max_groups_in_flight are out.
  void WriteGroups(bool all);
  void WriteGroup(Group* group);
  void Write(const std::string& bytes);
  void Fail(absl::Status status) {
    if (status_.ok()) status_ = std::move(status);
  }

  const std::string path_;
  const std::string temp_path_;
  int fd_;
  const std::vector<ColumnSpec> schema_;
  const WriterOptions options_;
  EncoderPool* const pool_;
  std::vector<Column> columns_;
  std::vector<uint64_t> clusters_;  // the current group's, with options_.cluster
  size_t group_rows_ = 0;
  uint64_t rows_ = 0;  // in sealed groups
  uint64_t offset_ = 0;
  absl::Status status_;
  bool closed_ = false;
  std::vector<Spare> spare_;
  std::mutex mu_;
  std::condition_variable cv_;
  // Sealed groups in row order; a group's results and `left` are guarded
  // by mu_ while it is in the pool.
  std::deque<std::unique_ptr<Group>> groups_;
  std::vector<std::vector<ChunkMeta>> written_;  // per row group written
  std::vector<uint64_t> written_rows_;
};

}  // namespace ittc::parquet

#endif  // TOOLS_ITT_DUMP_PARQUET_TABLE_WRITER_H_
