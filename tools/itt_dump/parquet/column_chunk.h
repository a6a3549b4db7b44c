// One column chunk: a column's values of one row group as Parquet pages
// (apache/parquet-format, README "File format"): for a string column a
// dictionary page first, then data pages (version 1) of at most
// ChunkOptions::page_rows rows each, every page compressed with zstd;
// and the chunk's statistics (min, max, null and NaN counts) for the
// footer. Offsets in the file are the writer's (table_writer.h).
//
// Thread safety: any thread; it touches only its arguments.

#ifndef TOOLS_ITT_DUMP_PARQUET_COLUMN_CHUNK_H_
#define TOOLS_ITT_DUMP_PARQUET_COLUMN_CHUNK_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/itt_dump/parquet/column.h"

namespace ittc::parquet {

struct ChunkOptions {
  // Rows per data page: a reader decompresses a page at once, and skips
  // whole pages.
  size_t page_rows = size_t{1} << 16;
  int zstd_level = 1;
};

// The spec's Encoding values a chunk uses (parquet_subset.thrift).
enum class EncodingId : int { kPlain = 0, kRle = 3, kDeltaBinaryPacked = 5, kRleDictionary = 8 };

struct EncodedChunk {
  std::string bytes;            // the pages, each with its header
  size_t dictionary_bytes = 0;  // the dictionary page's, header included (0: none)
  int64_t num_values = 0;       // rows, nulls included
  int64_t uncompressed_bytes = 0;
  std::vector<EncodingId> encodings;
  // Statistics: min and max PLAIN-encoded (byte arrays without their
  // length), set when some value is neither null nor NaN.
  int64_t null_count = 0;
  int64_t nan_count = 0;  // kDouble only
  bool has_min_max = false;
  std::string min;
  std::string max;
};

// The chunk of `column`'s rows, each at the place `places` gives it
// (places[row], a permutation of the row numbers), or in their own order
// if `places` is empty. With places, the calling thread keeps a reordered
// copy of the column for its next chunk (column_chunk.cc, Reordered).
absl::StatusOr<EncodedChunk> EncodeColumnChunk(const Column& column,
                                               const std::vector<uint32_t>& places,
                                               const ChunkOptions& options);

}  // namespace ittc::parquet

#endif  // TOOLS_ITT_DUMP_PARQUET_COLUMN_CHUNK_H_
