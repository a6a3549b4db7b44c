// The trace file, written only by the flusher thread.
//
// The host program may close every descriptor (as daemons do) and reuse our
// descriptor number for a file of its own. Before each write the descriptor
// is checked to still be our file (same device and inode); if it is not,
// the file is reopened by path in append mode, and if that fails collection
// stops. A tiny window remains between the check and the write; closing it
// would need a kernel primitive that does not exist.
//
// Thread safety: not thread-safe; owned by the flusher (and by the session
// before the flusher starts or after it stopped).

#ifndef COLLECTOR_INTERNAL_OUTPUT_FILE_H_
#define COLLECTOR_INTERNAL_OUTPUT_FILE_H_

#include <sys/types.h>

#include <cstddef>
#include <string>

namespace ittc::collector_internal {

class OutputFile {
 public:
  OutputFile() = default;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Creates or truncates `path`. On failure logs one line and returns false.
  bool Open(const std::string& path);

  // Writes all of [data, data + size). On failure logs one line (once) and
  // returns false; the caller stops writing.
  bool Write(const void* data, size_t size);

  void Close();

  // In a fork child: forgets the parent's descriptor without touching the
  // file (closing our copy of the descriptor does not affect the parent).
  void AbandonInChild();

  const std::string& path() const { return path_; }

 private:
  bool StillOurs() const;
  bool Reopen();

  int fd_ = -1;
  dev_t dev_ = 0;
  ino_t ino_ = 0;
  std::string path_;
};

// Creates `dir` and its missing parents (mode 0755), as `mkdir -p` does.
// Returns true if `dir` is a directory afterwards; otherwise logs one line.
// Another process creating the same directory at the same time (the ranks
// of one job) is not an error.
bool MakeDirectories(const std::string& dir);

}  // namespace ittc::collector_internal

#endif  // COLLECTOR_INTERNAL_OUTPUT_FILE_H_
