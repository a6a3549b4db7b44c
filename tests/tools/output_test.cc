// RewrittenOutput and WriteOnce: a pass that writes again what an
// earlier pass began writes only what is past it, and notices when the two
// differ. ThreadedOutput: what it passes on is what it was given, in
// order, and a failing output stops it.

#include "tools/itt_dump/output.h"

#include <cstdint>
#include <optional>
#include <random>
#include <string>

#include "format/crc32c.h"
#include "gtest/gtest.h"
#include "tools/itt_dump/verb.h"

namespace ittc {
namespace itt_dump {
namespace testing {
namespace {

// What the first pass wrote of `text` (its first `n` bytes, in two writes).
WrittenPrefix FirstPass(const std::string& text, size_t n, std::string* out) {
  std::unique_ptr<Output> o = StringOutput(out);
  RewrittenOutput first(o.get(), WrittenPrefix(), /*keep_crc=*/true);
  first.Write(text.substr(0, n / 2));
  first.Flush();
  first.Write(text.substr(n / 2, n - n / 2));
  first.Finish();
  EXPECT_FALSE(first.mismatch());
  return first.written();
}

// The second pass writes `text` in writes of `step` bytes after the prefix.
std::string SecondPass(const std::string& text, const WrittenPrefix& prefix, size_t step,
                       bool* mismatch) {
  std::string out;
  std::unique_ptr<Output> o = StringOutput(&out);
  RewrittenOutput second(o.get(), prefix, /*keep_crc=*/false);
  for (size_t at = 0; at < text.size(); at += step) {
    second.Write(text.substr(at, step));
    second.Flush();  // each write on its own past the buffer
  }
  second.Finish();
  *mismatch = second.mismatch();
  return out;
}

TEST(RewrittenOutput, WritesOnlyWhatIsPastThePrefix) {
  const std::string text = "{\"traceEvents\":[\n{\"ph\":\"X\"},\n{\"ph\":\"i\"}]}";
  for (size_t n : {size_t{0}, size_t{1}, size_t{17}, text.size()}) {
    for (size_t step : {size_t{1}, size_t{5}, text.size()}) {
      std::string first;
      const WrittenPrefix prefix = FirstPass(text, n, &first);
      EXPECT_EQ(prefix.bytes, n);
      bool mismatch = true;
      const std::string rest = SecondPass(text, prefix, step, &mismatch);
      EXPECT_FALSE(mismatch) << n << " " << step;
      EXPECT_EQ(first + rest, text) << n << " " << step;
    }
  }
}

TEST(RewrittenOutput, APrefixWrittenOtherwiseStopsTheOutput) {
  const std::string text = "{\"traceEvents\":[\n{\"ph\":\"X\"},\n{\"ph\":\"i\"}]}";
  std::string first;
  const WrittenPrefix prefix = FirstPass(text, 20, &first);
  std::string other = text;
  other[7] = 'e';  // "traceevents"
  for (size_t step : {size_t{1}, size_t{3}, text.size()}) {
    bool mismatch = false;
    EXPECT_EQ(SecondPass(other, prefix, step, &mismatch), "") << step;
    EXPECT_TRUE(mismatch) << step;
  }
}

TEST(RewrittenOutput, ASecondPassShorterThanThePrefixIsAMismatch) {
  const std::string text = "{\"traceEvents\":[\n{\"ph\":\"X\"}]}";
  std::string first;
  const WrittenPrefix prefix = FirstPass(text, text.size(), &first);
  bool mismatch = false;
  EXPECT_EQ(SecondPass(text.substr(0, 10), prefix, 4, &mismatch), "");
  EXPECT_TRUE(mismatch);
}

// WriteOnce (verb.h): the next pass writes only what is past what the
// first wrote, and fails if it writes that part otherwise.
struct WriteOnceRun {
  absl::StatusOr<PassSummary> pass;
  std::string out;
  uint64_t rewritten = 0;
};
WriteOnceRun RunWriteOnce(const std::string& first, bool first_exact, const std::string& again) {
  WriteOnceRun run;
  std::unique_ptr<Output> o = StringOutput(&run.out);
  VerbContext ctx;
  ctx.out = o.get();
  run.pass = WriteOnce(
      ctx, "text",
      [&](const VerbContext& c) -> std::optional<PassSummary> {
        c.out->Write(first);
        if (!first_exact) return std::nullopt;
        PassSummary pass;
        pass.on_every_core = true;
        return pass;
      },
      [&](const VerbContext& c) -> absl::StatusOr<PassSummary> {
        c.out->Write(again);
        return PassSummary();
      },
      &run.rewritten);
  o->Flush();
  return run;
}

TEST(WriteOnce, AnExactFirstPassIsTheOutput) {
  const WriteOnceRun run = RunWriteOnce("hello world\n", true, "never");
  ASSERT_TRUE(run.pass.ok());
  EXPECT_TRUE(run.pass->on_every_core);
  EXPECT_EQ(run.out, "hello world\n");
  EXPECT_EQ(run.rewritten, 0u);
}

TEST(WriteOnce, TheNextPassWritesWhatIsPastTheFirst) {
  const WriteOnceRun run = RunWriteOnce("hello ", false, "hello world\n");
  ASSERT_TRUE(run.pass.ok()) << run.pass.status();
  EXPECT_FALSE(run.pass->on_every_core);
  EXPECT_EQ(run.out, "hello world\n");
  EXPECT_EQ(run.rewritten, 6u);
}

TEST(WriteOnce, ANextPassThatDisagreesFails) {
  for (const std::string& again : {std::string("jello world\n"), std::string("hel")}) {
    const WriteOnceRun run = RunWriteOnce("hello ", false, again);
    EXPECT_EQ(run.pass.status().code(), absl::StatusCode::kDataLoss) << again;
    EXPECT_NE(run.pass.status().message().find("the text is inconsistent"), std::string::npos);
    EXPECT_EQ(run.out, "hello ") << again;
  }
}

// Bytes whose every 8-byte group differs (a position), so that a dropped,
// repeated or reordered buffer shows.
std::string Numbered(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i / 8 * 2654435761u) >> (i % 8 * 4));
  return s;
}

// Writes `text` to `out` the ways a verb does (Put, Write of every size up
// to a few buffers, WriteUnbuffered, Flush between), pieces chosen by a
// fixed seed.
void WriteInPiecesOfEverySize(const std::string& text, Output* out) {
  std::mt19937_64 rng(7);
  size_t at = 0;
  while (at < text.size()) {
    const uint64_t pick = rng() % 100;
    size_t n = pick < 40   ? 1 + rng() % 64
               : pick < 80 ? 1 + rng() % (ThreadedOutput::kBufferBytes / 4)
               : pick < 95 ? 1 + rng() % (3 * ThreadedOutput::kBufferBytes)
                           : 1;
    n = std::min(n, text.size() - at);
    const std::string_view piece(text.data() + at, n);
    if (n == 1) {
      out->Put(piece[0]);
    } else if (pick % 10 == 0) {
      out->WriteUnbuffered(piece);
    } else {
      out->Write(piece);
    }
    if (pick == 50) out->Flush();
    at += n;
  }
}

TEST(ThreadedOutput, PassesOnEveryByteInOrder) {
  const std::string text = Numbered(9 * ThreadedOutput::kBufferBytes + 12345);
  std::string got;
  std::unique_ptr<Output> o = StringOutput(&got);
  {
    ThreadedOutput threaded(o.get());
    WriteInPiecesOfEverySize(text, &threaded);
    EXPECT_TRUE(threaded.Flush());
    EXPECT_EQ(got.size(), text.size());
    EXPECT_TRUE(got == text);
    threaded.Write("tail");  // the destructor writes what is left
  }
  EXPECT_TRUE(got == text + "tail");
}

TEST(ThreadedOutput, TheCrcOfARewrittenOutputIsTheBytes) {
  const std::string text = Numbered(5 * ThreadedOutput::kBufferBytes + 99);
  std::string got;
  std::unique_ptr<Output> o = StringOutput(&got);
  RewrittenOutput rewritten(o.get(), WrittenPrefix(), /*keep_crc=*/true);
  {
    ThreadedOutput threaded(&rewritten);
    WriteInPiecesOfEverySize(text, &threaded);
    threaded.Flush();
  }
  rewritten.Finish();
  EXPECT_EQ(rewritten.written().bytes, text.size());
  EXPECT_EQ(rewritten.written().crc, format::crc32c::Value(text.data(), text.size()));
  EXPECT_TRUE(got == text);
}

// Takes `limit` bytes, then fails (or breaks, as a closed pipe does).
class FailingOutput : public Output {
 public:
  FailingOutput(size_t limit, bool broken) : limit_(limit), broken_pipe_(broken) {}
  std::string got;

 protected:
  void WriteRaw(const char* p, size_t n) override {
    const size_t take = std::min(n, limit_ - got.size());
    got.append(p, take);
    if (take == n) return;
    if (broken_pipe_) {
      SetState(true, status());
    } else {
      SetState(broken(), absl::DataLossError("disk full"));
    }
  }

 private:
  size_t limit_;
  bool broken_pipe_;
};

TEST(ThreadedOutput, AFailingOutputStopsIt) {
  const std::string text = Numbered(12 * ThreadedOutput::kBufferBytes);
  for (bool broken : {false, true}) {
    FailingOutput failing(3 * ThreadedOutput::kBufferBytes + 7, broken);
    ThreadedOutput threaded(&failing);
    size_t at = 0;
    // Written a buffer at a time until the failure shows: within the
    // buffers in use of the failing write.
    while (at < text.size() && threaded.good()) {
      threaded.Write(std::string_view(text.data() + at, 4096));
      at += 4096;
    }
    EXPECT_FALSE(threaded.Flush()) << broken;
    EXPECT_EQ(threaded.broken(), broken);
    EXPECT_EQ(threaded.status().ok(), broken) << threaded.status();
    EXPECT_LE(at, 3 * ThreadedOutput::kBufferBytes + 7 +
                      (ThreadedOutput::kBuffers + 1) * ThreadedOutput::kBufferBytes);
    EXPECT_TRUE(failing.got == text.substr(0, failing.got.size()));
    EXPECT_EQ(failing.got.size(), 3 * ThreadedOutput::kBufferBytes + 7);
  }
}

TEST(WriteOnce, PassesOnEveryCoreWriteThroughAThreadOfTheOutput) {
  const std::string text = Numbered(3 * ThreadedOutput::kBufferBytes + 5);
  for (bool parallel : {false, true}) {
    for (bool first_exact : {false, true}) {
      std::string out;
      std::unique_ptr<Output> o = StringOutput(&out);
      VerbContext ctx;
      ctx.out = o.get();
      ctx.parallel = parallel;
      uint64_t rewritten = 0;
      absl::StatusOr<PassSummary> pass = WriteOnce(
          ctx, "text",
          [&](const VerbContext& c) -> std::optional<PassSummary> {
            EXPECT_EQ(dynamic_cast<ThreadedOutput*>(c.out) != nullptr, parallel);
            WriteInPiecesOfEverySize(text.substr(0, first_exact ? text.size() : 1500000), c.out);
            if (!first_exact) return std::nullopt;
            return PassSummary();
          },
          [&](const VerbContext& c) -> absl::StatusOr<PassSummary> {
            WriteInPiecesOfEverySize(text, c.out);
            return PassSummary();
          },
          &rewritten);
      ASSERT_TRUE(pass.ok()) << pass.status();
      o->Flush();
      EXPECT_TRUE(out == text) << parallel << first_exact;
      EXPECT_EQ(rewritten, first_exact ? 0u : 1500000u);
    }
  }
}

}  // namespace
}  // namespace testing
}  // namespace itt_dump
}  // namespace ittc
