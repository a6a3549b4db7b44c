#include "format/chunk.h"

namespace ittc {
namespace format {

const char* ChunkTypeName(uint16_t type) {
  switch (static_cast<ChunkType>(type)) {
    case ChunkType::kEvents:
      return "events";
    case ChunkType::kDefinitions:
      return "definitions";
    case ChunkType::kThreadInfo:
      return "thread_info";
    case ChunkType::kClockSync:
      return "clock_sync";
    case ChunkType::kLoss:
      return "loss";
    case ChunkType::kEnd:
      return "end";
  }
  return "unknown";
}

}  // namespace format
}  // namespace ittc
