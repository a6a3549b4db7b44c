// RewrittenOutput and WriteOnce: a pass that writes again what an
// earlier pass began writes only what is past it, and notices when the two
// differ.

#include "tools/itt_dump/output.h"

#include <optional>
#include <string>

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

}  // namespace
}  // namespace testing
}  // namespace itt_dump
}  // namespace ittc
