#include "machine/known_loop.h"

#include "two_instruction_loop.h"

namespace workgate {

const int kKnownLoopInstructionsPerIteration = TWO_INSTRUCTION_LOOP_PER_ITERATION;

void RunKnownLoop(unsigned long n) { two_instruction_loop(n); }

}  // namespace workgate
