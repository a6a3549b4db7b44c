// A progress line on stderr ("itt-dump: trace.itt: pass 2/2 43%") for runs
// longer than a second, only when stderr is a terminal, so pipes and logs
// never see it. The line is erased when the run ends.
//
// Thread safety: none.

#ifndef TOOLS_ITT_DUMP_MODEL_PROGRESS_H_
#define TOOLS_ITT_DUMP_MODEL_PROGRESS_H_

#include <cstdint>
#include <string>

namespace ittc {
namespace itt_dump {

class Progress {
 public:
  // `enabled` false makes every call a no-op (tests, the fuzz target).
  // `total` is the amount of work of the first pass (bytes of the file).
  Progress(std::string name, uint64_t total, bool enabled);
  ~Progress();

  // Starts pass `pass` of `passes`, whose work is `total` units (the index
  // pass counts bytes; later passes count chunks, since a compressed file is
  // read far ahead of the events it holds).
  void SetPass(int pass, int passes, uint64_t total) {
    pass_ = pass;
    passes_ = passes;
    total_ = total;
  }
  // Cheap: reads the clock once every 64 calls.
  void Update(uint64_t done) {
    if (!enabled_ || (++calls_ & 63) != 0) return;
    Print(done);
  }
  void Done();

  // True if stderr is a terminal.
  static bool StderrIsTerminal();

 private:
  void Print(uint64_t bytes_done);

  std::string name_;
  uint64_t total_;
  bool enabled_;
  bool shown_ = false;
  uint64_t calls_ = 0;
  int64_t start_ns_ = 0;
  int64_t last_ns_ = 0;
  int pass_ = 1;
  int passes_ = 1;
};

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_MODEL_PROGRESS_H_
