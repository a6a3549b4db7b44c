// The globs of names that both sides read the same way: the collector's
// ITTC_DOMAINS and ITTC_MARKERS patterns, itt-dump's --thread, --domain and
// --name filters. '*' matches any run of characters, '?' one character
// (names are UTF-8: one to four bytes), every other byte itself; a pattern
// without '*' or '?' is an exact match.
//
// Thread safety: pure. Allocates nothing (the collector calls it while it
// registers names).

#ifndef FORMAT_GLOB_H_
#define FORMAT_GLOB_H_

#include <string_view>

namespace ittc {
namespace format {

// True if `text` matches the glob `pattern`. Linear in practice: one
// backtrack point, the last '*'.
bool GlobMatch(std::string_view pattern, std::string_view text);

}  // namespace format
}  // namespace ittc

#endif  // FORMAT_GLOB_H_
