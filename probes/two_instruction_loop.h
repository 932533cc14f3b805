/* The loop every known-work program of workgate is built on: exactly two
 * user-space instructions per iteration (decrement and set flags, branch if
 * not zero) on every supported architecture, in assembly so no compiler can
 * change it. C and C++. */
#ifndef WORKGATE_PROBES_TWO_INSTRUCTION_LOOP_H_
#define WORKGATE_PROBES_TWO_INSTRUCTION_LOOP_H_

#define TWO_INSTRUCTION_LOOP_PER_ITERATION 2

/* Runs the loop n times (not at all for 0). */
static inline void two_instruction_loop(unsigned long n) {
  if (n == 0) return;
#if defined(__x86_64__)
  __asm__ volatile("1: dec %0\n\tjnz 1b\n" : "+r"(n) : : "cc");
#elif defined(__aarch64__)
  __asm__ volatile("1: subs %0, %0, #1\n\tb.ne 1b\n" : "+r"(n) : : "cc");
#else
#error "two_instruction_loop: add the two-instruction loop for this architecture"
#endif
}

#endif /* WORKGATE_PROBES_TWO_INSTRUCTION_LOOP_H_ */
