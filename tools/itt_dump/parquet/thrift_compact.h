// Parquet's page headers and footer in Thrift's compact protocol, through
// Apache Thrift (Debian's libthrift-dev) and the structs thrift-compiler
// generates from parquet_subset.thrift.
//
// Thread safety: any thread (each call has its own buffer).

#ifndef TOOLS_ITT_DUMP_PARQUET_THRIFT_COMPACT_H_
#define TOOLS_ITT_DUMP_PARQUET_THRIFT_COMPACT_H_

#include <cstdint>
#include <memory>
#include <string>

#include "thrift/protocol/TCompactProtocol.h"
#include "thrift/transport/TBufferTransports.h"

namespace ittc::parquet {

// Appends `message` (a generated struct) in the compact protocol.
template <typename Message>
void AppendCompact(const Message& message, std::string* out) {
  auto buffer = std::make_shared<apache::thrift::transport::TMemoryBuffer>();
  apache::thrift::protocol::TCompactProtocolT<apache::thrift::transport::TMemoryBuffer> protocol(
      buffer);
  message.write(&protocol);
  uint8_t* bytes = nullptr;
  uint32_t size = 0;
  buffer->getBuffer(&bytes, &size);
  out->append(reinterpret_cast<const char*>(bytes), size);
}

// Reads `message` from the compact protocol bytes at `data`; returns the
// bytes it took. Throws Thrift's exceptions on malformed input (for tests).
template <typename Message>
uint32_t ReadCompact(const std::string& data, size_t offset, Message* message) {
  auto buffer = std::make_shared<apache::thrift::transport::TMemoryBuffer>(
      reinterpret_cast<uint8_t*>(const_cast<char*>(data.data() + offset)),
      static_cast<uint32_t>(data.size() - offset));
  apache::thrift::protocol::TCompactProtocolT<apache::thrift::transport::TMemoryBuffer> protocol(
      buffer);
  return message->read(&protocol);
}

}  // namespace ittc::parquet

#endif  // TOOLS_ITT_DUMP_PARQUET_THRIFT_COMPACT_H_
