// Row 7: the program takes the trace's descriptor away, as daemons do.
// Modes:
//   close_all   close every descriptor above 2, then open a file of its own
//               on the trace's old descriptor number
//   dup2        dup2() its own file over the trace's descriptor
//   close_move  close every descriptor, rename the trace file away (so it
//               cannot be reopened by path), open its own file on the number
// In every mode it then keeps recording. Its own file ("victim", given on
// the command line) holds one line that must never change.
// Handshakes with the test: it prints "recorded before" and waits for the
// file <handshake dir>/go-steal (the test creates it once the trace holds
// those events), then after the switch prints "recorded after" and waits
// for <handshake dir>/go-finish (once the collector has reacted).
// usage: descriptors_program <mode> <trace path> <victim path> <handshake dir>

#include <fcntl.h>
#include <ittnotify.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace {

__itt_domain* g_domain;
__itt_string_handle* g_name;

void Record(int pairs) {
  for (int k = 0; k < pairs; ++k) {
    __itt_task_begin(g_domain, __itt_null, __itt_null, g_name);
    __itt_task_end(g_domain);
  }
}

// The descriptor whose /proc/self/fd link names `path`, or -1.
int FindDescriptor(const std::string& path) {
  for (int fd = 0; fd < 1024; ++fd) {
    char link[64], target[PATH_MAX];
    std::snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof(target) - 1);
    if (n <= 0) continue;
    target[n] = '\0';
    if (path == target) return fd;
  }
  return -1;
}

// Says `what` on stdout, then waits until the test creates `go`; the test
// kills us if that never happens.
void Handshake(const char* what, const std::string& go) {
  std::fprintf(stdout, "%s\n", what);
  std::fflush(stdout);
  struct stat st;
  while (stat(go.c_str(), &st) != 0) usleep(1000);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) return 2;
  const std::string mode = argv[1];
  const std::string trace = argv[2];
  const char* victim = argv[3];
  const std::string handshake_dir = argv[4];
  g_domain = __itt_domain_create("reliability.descriptors");
  g_name = __itt_string_handle_create("before");
  Record(1000);
  Handshake("recorded before", handshake_dir + "/go-steal");
  int trace_fd = FindDescriptor(trace);
  if (trace_fd < 0) {
    std::fprintf(stdout, "no trace descriptor\n");
    return 3;
  }
  if (mode == "close_all" || mode == "close_move") {
    for (int fd = 3; fd < 1024; ++fd) close(fd);
  }
  if (mode == "close_move") {
    if (rename(trace.c_str(), (trace + ".moved").c_str()) != 0) return 4;
  }
  int own = open(victim, O_WRONLY | O_APPEND);
  if (own < 0) return 5;
  if (own != trace_fd) {
    if (dup2(own, trace_fd) != trace_fd) return 6;
    close(own);
  }
  g_name = __itt_string_handle_create("after");
  Record(1000);
  Handshake("recorded after", handshake_dir + "/go-finish");
  Record(1000);
  std::fprintf(stdout, "took descriptor %d\n", trace_fd);
  return 0;
}
