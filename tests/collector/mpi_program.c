/* An MPI job's rank: tasks around compute and around two collectives
 * (MPI_Barrier, MPI_Allreduce), recorded through our static part. Prints
 * the allreduce result, which every rank must agree on. Rank r makes its
 * first ITT call (which starts its trace) after rank r - 1 has made its own
 * and told it so, and 30 ms later: the ranks' traces start in rank order,
 * whatever the machine's load, and apart. */
#define _POSIX_C_SOURCE 200809L /* nanosleep under -std=c11 */
#include <ittnotify.h>
#include <mpi.h>
#include <stdio.h>
#include <time.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int token = 0;
  if (rank > 0) {
    MPI_Recv(&token, 1, MPI_INT, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    struct timespec delay = {0, 30000000L};
    nanosleep(&delay, NULL);
  }
  __itt_domain* d = __itt_domain_create("mpi.job");
  __itt_string_handle* compute = __itt_string_handle_create("compute");
  __itt_string_handle* barrier = __itt_string_handle_create("barrier");
  __itt_string_handle* allreduce = __itt_string_handle_create("allreduce");
  long sum = 0;
  for (int step = 0; step < 5; ++step) {
    __itt_task_begin(d, __itt_null, __itt_null, compute);
    if (step == 0 && rank + 1 < size) MPI_Send(&token, 1, MPI_INT, rank + 1, 0, MPI_COMM_WORLD);
    volatile long x = 0;
    for (long i = 0; i < 100000L * (rank + 1); ++i) x += i;
    __itt_task_end(d);
    __itt_task_begin(d, __itt_null, __itt_null, barrier);
    MPI_Barrier(MPI_COMM_WORLD);
    __itt_task_end(d);
    long mine = rank + step, total = 0;
    __itt_task_begin(d, __itt_null, __itt_null, allreduce);
    MPI_Allreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    __itt_task_end(d);
    sum += total;
  }
  printf("rank %d of %d: %ld\n", rank, size, sum);
  MPI_Finalize();
  return 0;
}
