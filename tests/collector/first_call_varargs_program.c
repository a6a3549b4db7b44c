/* Its first recording call is a formatted_metadata_add with 24 ints and 10
 * doubles past the format (22 of them on the stack): the call that loads
 * the collector, whose arguments the static part must pass on whole. */
#include <ittnotify.h>

int main(void) {
  __itt_domain *d = __itt_domain_create("first");
  __itt_string_handle *fmt = __itt_string_handle_create(
      "%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d "
      "%.1f %.1f %.1f %.1f %.1f %.1f %.1f %.1f %.1f %.1f %s");
  __itt_formatted_metadata_add(d, fmt, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17,
                               18, 19, 20, 21, 22, 23, 24, 0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5,
                               8.5, 9.5, "tail");
  __itt_formatted_metadata_add_overlapped(d, __itt_null, fmt, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
                                          13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 0.5, 1.5,
                                          2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5, "tail");
  return 0;
}
