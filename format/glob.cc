#include "format/glob.h"

#include <cstddef>

namespace ittc {
namespace format {

namespace {

// The offset of the character after the one at `i` in UTF-8 text `s`: past
// its continuation bytes (10xxxxxx). Bytes that are not UTF-8 are a
// character each.
size_t NextCharacter(std::string_view s, size_t i) {
  ++i;
  while (i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) ++i;
  return i;
}

}  // namespace

bool GlobMatch(std::string_view p, std::string_view s) {
  size_t pi = 0;
  size_t si = 0;
  size_t star = std::string_view::npos;
  size_t resume = 0;
  while (si < s.size()) {
    if (pi < p.size() && p[pi] == '?') {
      ++pi;
      si = NextCharacter(s, si);
    } else if (pi < p.size() && p[pi] == s[si]) {
      ++pi;
      ++si;
    } else if (pi < p.size() && p[pi] == '*') {
      star = pi++;
      resume = si;
    } else if (star != std::string_view::npos) {
      pi = star + 1;
      si = resume = NextCharacter(s, resume);
    } else {
      return false;
    }
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

}  // namespace format
}  // namespace ittc
