/* ITTC_DOMAINS and ITTC_START_PAUSED, seen from the program: prints each
 * domain's flags after creation, records tasks on two domains, resumes,
 * and records again. */
#include <ittnotify.h>
#include <stdio.h>

int main(void) {
  __itt_domain* keep = __itt_domain_create("keep.me");
  __itt_domain* drop = __itt_domain_create("drop.me");
  __itt_string_handle* before = __itt_string_handle_create("before_resume");
  __itt_string_handle* after = __itt_string_handle_create("after_resume");
  __itt_task_begin(keep, __itt_null, __itt_null, before);
  __itt_task_end(keep);
  __itt_resume();
  printf("%d %d\n", keep->flags, drop->flags);
  __itt_task_begin(keep, __itt_null, __itt_null, after);
  __itt_task_end(keep);
  __itt_task_begin(drop, __itt_null, __itt_null, after);
  __itt_task_end(drop);
  return 0;
}
