// Umbrella header of the trace format library (//format:format).
//
// Writers (the collector): FileHeader/EncodeFileHeader, EventStreamEncoder,
// RecordEncoder with ToRecord(), ChunkWriter.
// Readers (itt-dump): TraceReader with a Reporter, EventStreamDecoder,
// RecordDecoder with FromRecord(), FindSchema() for names.

#ifndef FORMAT_FORMAT_H_
#define FORMAT_FORMAT_H_

#include "format/chunk.h"
#include "format/chunk_writer.h"
#include "format/debug_string.h"
#include "format/event_stream.h"
#include "format/file_header.h"
#include "format/records.h"
#include "format/schema.h"
#include "format/trace_reader.h"

#endif  // FORMAT_FORMAT_H_
