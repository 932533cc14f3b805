/* lock_threads: four threads take one spin lock in turn, each yielding
 * while another holds it, and the program prints their total. Under
 * Valgrind the threads run one at a time, and which one runs after a
 * yield is the kernel's choice: how often each spins, and so the count,
 * changes from run to run. The hints' tests count it as an unstable
 * threaded workload. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

#define THREADS 4
#define ROUNDS 200

static atomic_int lock;
static long total;

static void* worker(void* arg) {
  long id = (long)arg;
  for (int i = 0; i < ROUNDS; ++i) {
    while (atomic_exchange(&lock, 1)) sched_yield();
    for (int k = 0; k < 50; ++k) total += (id + k) & 7;
    if (i % 16 == 0) sched_yield(); /* hand the lock's holder's turn away */
    atomic_store(&lock, 0);
  }
  return NULL;
}

int main(void) {
  pthread_t t[THREADS];
  for (long i = 0; i < THREADS; ++i) pthread_create(&t[i], NULL, worker, (void*)i);
  for (int i = 0; i < THREADS; ++i) pthread_join(t[i], NULL);
  printf("total %ld\n", total);
  return 0;
}
