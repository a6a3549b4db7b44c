// Prints FORMAT.md's generated kind table (see schema_doc_test.cc).
#include <cstdio>

#include "tests/format/schema_doc.h"

int main() {
  std::fputs(ittc::format::testing::KindTableMarkdown().c_str(), stdout);
  return 0;
}
