// The headers compile as C++17 with -Wall -Wextra -Werror, with the API on
// and with INTEL_NO_ITTNOTIFY_API (linked without the static part), and
// with INTEL_NO_MACRO_BODY the _ptr names are constant 0.
#include <cstdio>

#define INTEL_ITTNOTIFY_API_PRIVATE
#include <ittnotify.h>
#include <jitprofiling.h>

#include "tests/stub/all_calls.inc"

int main() {
  int result = CallEveryApi();
  if (result != 55) {
    std::fprintf(stderr, "CallEveryApi returned %d, want 55\n", result);
    return 1;
  }
#ifdef INTEL_NO_ITTNOTIFY_API
  static_assert(__itt_task_begin_ptr == 0, "no-API pointers are 0");
  static_assert(__itt_formatted_metadata_add_ptr == 0, "no-API pointers are 0");
#endif
  std::printf("ok\n");
  return 0;
}
