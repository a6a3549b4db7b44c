// The globs the collector (ITTC_DOMAINS, ITTC_MARKERS) and itt-dump's
// filters share: '*' any run, '?' one UTF-8 character, other bytes
// themselves.

#include "format/glob.h"

#include "gtest/gtest.h"

namespace ittc::format {
namespace {

TEST(GlobMatch, StarsQuestionMarksAndLiterals) {
  EXPECT_TRUE(GlobMatch("tbb*", "tbb.scheduler"));
  EXPECT_TRUE(GlobMatch("w*", "work"));
  EXPECT_TRUE(GlobMatch("*", ""));
  EXPECT_TRUE(GlobMatch("*o*", "io"));
  EXPECT_TRUE(GlobMatch("a?c", "abc"));
  EXPECT_TRUE(GlobMatch("*.render.*", "app.render.pass"));
  EXPECT_TRUE(GlobMatch("work", "work"));
  EXPECT_TRUE(GlobMatch("", ""));
  EXPECT_FALSE(GlobMatch("work", "worker"));
  EXPECT_FALSE(GlobMatch("a?c", "ac"));
  EXPECT_FALSE(GlobMatch("?", ""));
  EXPECT_FALSE(GlobMatch("", "a"));
  EXPECT_FALSE(GlobMatch("tbb*", "omp"));
  EXPECT_FALSE(GlobMatch("*x", "abc"));
  EXPECT_FALSE(GlobMatch("*.render", "app.render.pass"));
}

// Names are UTF-8: '?' is one character, however many bytes it takes, and
// '*' never stops inside one.
TEST(GlobMatch, QuestionMarkIsOneCharacterOfUtf8) {
  EXPECT_TRUE(GlobMatch("caf?", "caf\xc3\xa9"));  // é: 2 bytes
  EXPECT_FALSE(GlobMatch("caf??", "caf\xc3\xa9"));
  EXPECT_TRUE(GlobMatch("?", "\xe6\xbc\xa2"));        // 漢: 3 bytes
  EXPECT_TRUE(GlobMatch("??", "\xf0\x9f\x98\x80!"));  // an emoji: 4
  EXPECT_TRUE(GlobMatch("*?x", "\xc3\xa9\xc3\xa9x"));
  EXPECT_FALSE(GlobMatch("*???x", "\xc3\xa9\xc3\xa9x"));
  EXPECT_TRUE(GlobMatch("*\xc3\xa9", "a\xc3\xa9"));  // a literal
  EXPECT_TRUE(GlobMatch("?", "\xff"));               // a byte that is not UTF-8: one
}

}  // namespace
}  // namespace ittc::format
