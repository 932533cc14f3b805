/* omp_threads: an OpenMP parallel region whose threads (OMP_NUM_THREADS of
 * them) take one spin lock in turn, yielding while another holds it. Under
 * Valgrind, which runs one thread at a time, which thread runs after a
 * yield is the kernel's choice, so how often each spins, and the count,
 * changes from run to run: an unstable threaded workload whose program is
 * an OpenMP one, and which OMP_NUM_THREADS=1 makes stable, as the hints'
 * tests check. */
#include <omp.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_int lock;

int main(void) {
  long total = 0;
#pragma omp parallel
  {
    const int id = omp_get_thread_num();
    for (int i = 0; i < 200; ++i) {
      while (atomic_exchange(&lock, 1)) sched_yield();
      for (int k = 0; k < 50; ++k) total += (id + k) & 7;
      if (i % 16 == 0) sched_yield();
      atomic_store(&lock, 0);
    }
  }
  printf("total %ld\n", total);
  return 0;
}
