/* A candidate build whose profile names as many call edges as it likes:
 * 1,200 functions, each calling the first N of them through one table, so
 * that a run makes N * N distinct (caller, callee) edges with a handful of
 * instructions each. What workgate keeps of such a profile for an
 * explanation, and so its memory, must not grow with N.
 *
 *   hostile_calls [N]   N in 1..1200 (default 1200); prints "score: 1"
 */
#include <stdio.h>
#include <stdlib.h>

#define MOST_FUNCTIONS 1200

typedef void (*Function)(int depth);

static int calling;                    /* N */
static Function table[MOST_FUNCTIONS]; /* f1000 .. f2199 */
static volatile int last;

/* The call is in each function itself, not in a helper: the edge is then
 * (f_j, f_i), not (f_j, helper) and (helper, f_i). Each body differs (its
 * own number), so that no compiler folds the functions into one. */
#define DEFINE(n)                                            \
  __attribute__((noinline)) static void f##n(int depth) {    \
    last = n;                                                \
    if (depth > 0) {                                         \
      for (int i = 0; i < calling; ++i) table[i](depth - 1); \
    }                                                        \
  }
#define ADDRESS(n) f##n,

#define X10(m, p) m(p##0) m(p##1) m(p##2) m(p##3) m(p##4) m(p##5) m(p##6) m(p##7) m(p##8) m(p##9)
#define X100(m, p)                                                                           \
  X10(m, p##0)                                                                               \
  X10(m, p##1)                                                                               \
  X10(m, p##2) X10(m, p##3) X10(m, p##4) X10(m, p##5) X10(m, p##6) X10(m, p##7) X10(m, p##8) \
      X10(m, p##9)
#define X1200(m)                                                                                  \
  X100(m, 10)                                                                                     \
  X100(m, 11)                                                                                     \
  X100(m, 12) X100(m, 13) X100(m, 14) X100(m, 15) X100(m, 16) X100(m, 17) X100(m, 18) X100(m, 19) \
      X100(m, 20) X100(m, 21)

X1200(DEFINE)

static const Function all[MOST_FUNCTIONS] = {X1200(ADDRESS)};

int main(int argc, char** argv) {
  calling = argc > 1 ? atoi(argv[1]) : MOST_FUNCTIONS;
  if (calling < 1 || calling > MOST_FUNCTIONS) return 2;
  for (int i = 0; i < MOST_FUNCTIONS; ++i) table[i] = all[i];
  for (int j = 0; j < calling; ++j) table[j](1);
  printf("score: 1\n");
  return 0;
}
