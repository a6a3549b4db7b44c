// Encoding and decoding of the payload of one events chunk: the events of
// one thread, in the order they happened on it.
//
// Payload (FORMAT.md, "Events chunk"):
//   varint thread_index, varint base_time, varint event_count,
//   varint times_length, the time stream (times_length bytes: one zigzag
//   varint time delta per event), then the op stream up to the end (per
//   event: varint kind, [varint length if the kind is sized], fields).
// Times are kept apart from everything else because they are the one
// high-entropy part: separated, zstd codes them with their own Huffman
// table and finds long matches in the regular op stream.

#ifndef FORMAT_EVENT_STREAM_H_
#define FORMAT_EVENT_STREAM_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "format/schema.h"

namespace ittc {
namespace format {

// Upper bound of the bytes Append(event) adds to the payload, so a writer
// keeps a chunk within the format's limit by appending only while
//   encoder.payload_size() + MaxEncodedEventSize(e) <= kMaxChunkPayloadBytes
// (a single event larger than that cannot be recorded: "record too large").
// REQUIRES: FindSchema(event.kind) != nullptr.
size_t MaxEncodedEventSize(const Event& event);

// Builds one events-chunk payload. Used by the collector's flusher thread.
//
// Cost: Append does no allocation once the internal buffer has grown to the
// chunk size (the buffer is reused across Reset calls), and encodes fields
// with inline varint writes; see tests/format/format_bench.cc for figures.
//
// Thread safety: none; one encoder per thread.
class EventStreamEncoder {
 public:
  EventStreamEncoder();
  EventStreamEncoder(const EventStreamEncoder&) = delete;
  EventStreamEncoder& operator=(const EventStreamEncoder&) = delete;

  // Starts a new payload for thread `thread_index`. `base_time` is the time
  // the first event's delta is taken from; any value works, one close to
  // the first event's time is smallest.
  void Reset(uint32_t thread_index, uint64_t base_time);

  // Appends `event`. REQUIRES: FindSchema(event.kind) != nullptr; every kBytes
  // field's view is valid during the call. Times may go backwards.
  void Append(const Event& event);

  // The payload so far; valid until the next Reset or Append. The first
  // call after an Append assembles the payload (one copy of its bytes).
  std::string_view payload() const;
  // Bytes payload() would return, without assembling it.
  size_t payload_size() const;
  size_t event_count() const { return event_count_; }
  uint32_t thread_index() const { return thread_index_; }
  // True if memory ran out since the last Reset: an Append dropped its
  // event (or payload() returned an empty view). The encoder never throws
  // or aborts, since it runs inside the traced process; the caller counts
  // the events as lost and Resets.
  bool failed() const { return failed_; }

  ~EventStreamEncoder();

 private:
  // A growable byte buffer written through raw pointers.
  struct Buffer {
    char* data = nullptr;
    size_t size = 0;
    size_t capacity = 0;
    // Makes room for n more bytes; returns where they go, or nullptr if
    // memory ran out (the buffer is then unchanged).
    char* Reserve(size_t n) {
      if (capacity - size < n && !Grow(n)) return nullptr;
      return data + size;
    }
    bool Grow(size_t n);
    void Free();
  };

  Buffer times_;
  Buffer ops_;
  mutable Buffer out_;
  mutable bool assembled_ = false;
  mutable bool failed_ = false;
  size_t event_count_ = 0;
  uint64_t base_time_ = 0;
  uint64_t last_time_ = 0;
  uint32_t thread_index_ = 0;
};

// Reads the events of one events-chunk payload.
//
// Malformed input (a truncated field, an unknown unsized kind, a varint
// overflow, a bytes length past the end) ends the iteration with an error
// status; nothing is read outside the payload and nothing is allocated.
// Unknown sized kinds are skipped and counted.
//
// Thread safety: none; one decoder per thread.
class EventStreamDecoder {
 public:
  EventStreamDecoder() = default;

  // Starts decoding `payload`, which must stay valid while Next is called.
  // Fails if the payload's prefix (thread index, base time) is malformed.
  absl::Status Reset(std::string_view payload);

  // Decodes the next event into *event. Returns false at the end of the
  // payload or on error (then status() is not OK). The event's kBytes views
  // point into the payload.
  bool Next(Event* event);

  const absl::Status& status() const { return status_; }
  uint32_t thread_index() const { return thread_index_; }
  uint64_t base_time() const { return base_time_; }
  // The event count the payload declares (known after Reset).
  uint64_t event_count() const { return event_count_; }
  // Offset in the payload where the next event's ops start (or the bad
  // one's did).
  size_t offset() const { return static_cast<size_t>(pos_ - begin_); }
  size_t events_decoded() const { return events_decoded_; }
  size_t unknown_skipped() const { return unknown_skipped_; }

 private:
  bool Fail(const char* reason);

  const char* begin_ = nullptr;
  const char* pos_ = nullptr;    // op stream cursor
  const char* limit_ = nullptr;  // end of the op stream (of the payload)
  const char* tpos_ = nullptr;   // time stream cursor
  const char* tlimit_ = nullptr;
  uint64_t event_count_ = 0;
  uint64_t last_time_ = 0;
  uint64_t base_time_ = 0;
  uint32_t thread_index_ = 0;
  size_t events_decoded_ = 0;
  size_t unknown_skipped_ = 0;
  absl::Status status_;
};

// Field-block codec shared by events and records. Exposed for the record
// codec and tests; most code uses the classes above.
namespace internal {

// Writes the fields of `event` per `schema` at dst, kTime relative to
// `own_time`. REQUIRES: room for MaxEncodedEventSize(event) bytes.
char* EncodeFields(const KindSchema& schema, const Event& event, uint64_t own_time, char* dst);

// Reads schema->field_count fields from [p, limit) into *event, kTime
// relative to `own_time`. Returns the position after them or nullptr on
// malformed input (*reason says why).
const char* DecodeFields(const KindSchema& schema, const char* p, const char* limit,
                         uint64_t own_time, Event* event, const char** reason);

}  // namespace internal

}  // namespace format
}  // namespace ittc

#endif  // FORMAT_EVENT_STREAM_H_
