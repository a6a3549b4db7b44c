#include "collector/internal/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "collector/internal/log.h"

namespace ittc::collector_internal {
namespace {

// Descriptors below this are the ones programs most often close or dup2
// over (0-2 and the next few); moving ours up makes a clash less likely.
constexpr int kMinDescriptor = 100;

int MoveUp(int fd) {
  int high = fcntl(fd, F_DUPFD_CLOEXEC, kMinDescriptor);
  if (high < 0) return fd;
  close(fd);
  return high;
}

}  // namespace

bool OutputFile::Open(const std::string& path) {
  path_ = path;
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    LogWarning("cannot create trace file %s: %s; collection is off", path.c_str(),
               std::strerror(errno));
    return false;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    LogWarning("trace path %s is not a regular file; collection is off", path.c_str());
    close(fd);
    return false;
  }
  fd_ = MoveUp(fd);
  dev_ = st.st_dev;
  ino_ = st.st_ino;
  return true;
}

bool OutputFile::StillOurs() const {
  struct stat st;
  return fstat(fd_, &st) == 0 && st.st_dev == dev_ && st.st_ino == ino_;
}

bool OutputFile::Reopen() {
  // Our descriptor number now belongs to someone else (or to nobody): do not
  // close it, just stop using it.
  int fd = open(path_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_dev != dev_ || st.st_ino != ino_) {
    close(fd);
    return false;
  }
  fd_ = MoveUp(fd);
  return true;
}

bool OutputFile::Write(const void* data, size_t size) {
  if (fd_ < 0) return false;
  if (!StillOurs()) {
    if (!Reopen()) {
      LogWarning(
          "the program closed or replaced the trace file's descriptor and %s cannot be "
          "reopened; collection stops",
          path_.c_str());
      fd_ = -1;
      return false;
    }
    static int once = 0;
    LogWarningOnce(&once, "the program closed or replaced the trace file's descriptor; reopened %s",
                   path_.c_str());
  }
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = write(fd_, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      LogWarning("writing trace file %s failed: %s; collection stops", path_.c_str(),
                 std::strerror(errno));
      return false;
    }
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

void OutputFile::Close() {
  if (fd_ >= 0 && StillOurs()) close(fd_);
  fd_ = -1;
}

void OutputFile::AbandonInChild() {
  if (fd_ >= 0 && StillOurs()) close(fd_);
  fd_ = -1;
}

bool MakeDirectories(const std::string& dir) {
  std::string prefix;
  prefix.reserve(dir.size());
  for (size_t i = 0; i <= dir.size(); ++i) {
    if (i == dir.size() || dir[i] == '/') {
      // EEXIST covers both an existing directory and a race with another
      // process; the final stat below tells them from a file in the way.
      if (!prefix.empty() && mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) {
        LogWarning("cannot create directory %s: %s; collection is off", prefix.c_str(),
                   std::strerror(errno));
        return false;
      }
    }
    if (i < dir.size()) prefix += dir[i];
  }
  struct stat st;
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    LogWarning("trace directory %s is not a directory; collection is off", dir.c_str());
    return false;
  }
  return true;
}

}  // namespace ittc::collector_internal
