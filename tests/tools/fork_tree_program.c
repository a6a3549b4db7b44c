/* A fork tree for the multi-process tests: the parent runs task "parent",
 * forks two children that each run task "child"; the first child forks a
 * grandchild that runs task "grandchild". Each waits for its children,
 * then the parent runs task "parent_end". Recorded with ITTC_OUTPUT=DIR/,
 * each process writes its own trace into DIR. */
#include <ittnotify.h>
#include <sys/wait.h>
#include <unistd.h>

static void work(__itt_domain* d, const char* name) {
  __itt_task_begin(d, __itt_null, __itt_null, __itt_string_handle_create(name));
  volatile long x = 0;
  for (long i = 0; i < 100000; ++i) x += i;
  __itt_task_end(d);
}

static int wait_all(pid_t a, pid_t b) {
  int ok = 1;
  int status = 0;
  if (a > 0 && (waitpid(a, &status, 0) != a || !WIFEXITED(status) || WEXITSTATUS(status) != 0)) {
    ok = 0;
  }
  if (b > 0 && (waitpid(b, &status, 0) != b || !WIFEXITED(status) || WEXITSTATUS(status) != 0)) {
    ok = 0;
  }
  return ok ? 0 : 1;
}

int main(void) {
  __itt_domain* d = __itt_domain_create("tree");
  work(d, "parent");
  const pid_t first = fork();
  if (first < 0) return 2;
  if (first == 0) {
    work(d, "child");
    const pid_t grandchild = fork();
    if (grandchild < 0) return 2;
    if (grandchild == 0) {
      work(d, "grandchild");
      return 0;
    }
    return wait_all(grandchild, 0);
  }
  const pid_t second = fork();
  if (second < 0) return 2;
  if (second == 0) {
    work(d, "child");
    return 0;
  }
  const int status = wait_all(first, second);
  work(d, "parent_end");
  return status;
}
