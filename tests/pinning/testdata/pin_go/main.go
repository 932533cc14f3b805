// pin_go: a Go program that sizes its work from the clock, as Go benchmarks
// do: rounds of work until time.Since(start) says pinGoDeadline has passed,
// at most pinGoMaxRounds, then extra work from the bits of the last reading,
// as tests/pinning/testdata/pin_work.h does for the C subjects. Go reads the
// clock through the vDSO (or the system call), never through glibc, and its
// runtime reads the TSC with RDTSCP where CPUID offers it: only the counter
// can pin what it sees, and only a Valgrind that hides RDTSCP runs it.
package main

import (
	"fmt"
	"time"
)

const (
	pinGoDeadline        = time.Millisecond
	pinGoMaxRounds       = 256
	pinGoRoundIterations = 2000
	pinGoBaseIterations  = 100000
	pinGoExtraRange      = 500000
)

var pinGoSink uint64

// splitmix64's finaliser: every input bit moves every output bit.
func pinGoMix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// n iterations of a linear congruential step.
func pinGoWork(n int) {
	x := pinGoSink
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	pinGoSink = x
}

func main() {
	start := time.Now()
	rounds := 0
	for rounds < pinGoMaxRounds && time.Since(start) < pinGoDeadline {
		pinGoWork(pinGoRoundIterations)
		rounds++
	}
	extra := pinGoBaseIterations + int(pinGoMix(uint64(time.Now().UnixNano()))%pinGoExtraRange)
	pinGoWork(extra)
	fmt.Printf("iterations: %d\n", rounds*pinGoRoundIterations+extra)
}
