/* One counter name in one domain created with three types once the
 * collector is loaded (a task first): three counters, each set through its
 * own handle with a value of its type. Exits 0, or 3 if two types gave one
 * handle or one type gave two. */
#include <ittnotify.h>
#include <stdint.h>

int main(void) {
  __itt_domain* d = __itt_domain_create("dom");
  __itt_string_handle* task = __itt_string_handle_create("work");
  __itt_task_begin(d, __itt_null, __itt_null, task); /* starts the session */
  __itt_task_end(d);
  __itt_counter plain = __itt_counter_create("load", "dom");
  __itt_counter as_double = __itt_counter_create_typed("load", "dom", __itt_metadata_double);
  __itt_counter as_float = __itt_counter_create_v3(d, "load", __itt_metadata_float);
  if (plain == NULL || as_double == NULL || as_float == NULL || plain == as_double ||
      plain == as_float || as_double == as_float ||
      __itt_counter_create_typed("load", "dom", __itt_metadata_double) != as_double) {
    return 3;
  }
  uint64_t count = 7;
  double ratio = 0.75;
  float level = 2.5f;
  __itt_counter_set_value(plain, &count);
  __itt_counter_set_value(as_double, &ratio);
  __itt_counter_set_value(as_float, &level);
  return 0;
}
