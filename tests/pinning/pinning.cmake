# The subjects of the pinning tests (pinning_test.cc): programs whose work
# depends on a source of time or entropy that vgcount pins inside the
# counter (tools/vgcount), each of which the shim cannot reach.
# Included from tests/CMakeLists.txt: the programs land in build/tests/
# beside the other test programs, and the test binary learns from
# WORKGATE_PIN_*_BUILT which were built.
set(WORKGATE_PIN_DIR ${CMAKE_CURRENT_SOURCE_DIR}/pinning/testdata)

# Any Linux: the time system calls, getrandom(2) and the random devices.
set(WORKGATE_PIN_SUBJECTS pin_getrandom pin_clock pin_urandom)
# The CPU's own sources of time and entropy, read by instructions.
if(CMAKE_SYSTEM_PROCESSOR STREQUAL "x86_64")
  list(APPEND WORKGATE_PIN_SUBJECTS pin_tsc pin_rdrand pin_rdseed)
  target_compile_definitions(workgate_tests PRIVATE WORKGATE_PIN_X86_BUILT=1)
endif()
foreach(subject ${WORKGATE_PIN_SUBJECTS})
  add_executable(${subject} ${WORKGATE_PIN_DIR}/${subject}.c)
  # -O1, as the other test programs of known work: loops kept as written.
  target_compile_options(${subject} PRIVATE -O1)
endforeach()

# A static binary: glibc's own clock_gettime and getrandom, out of the
# shim's reach (no dynamic loader to preload it). Built where a static link
# works: Debian's libc6-dev (build-essential, which ci/setup installs) has
# libc.a; a toolchain without one leaves it out, and the test says so.
include(CheckCSourceCompiles)
set(CMAKE_REQUIRED_LINK_OPTIONS -static)
check_c_source_compiles("
#include <sys/random.h>
#include <time.h>
int main(void) {
  struct timespec ts;
  char b[8];
  return clock_gettime(CLOCK_MONOTONIC, &ts) + (int)getrandom(b, sizeof b, 0);
}" WORKGATE_STATIC_LINK_WORKS)
unset(CMAKE_REQUIRED_LINK_OPTIONS)
if(WORKGATE_STATIC_LINK_WORKS)
  add_executable(pin_static ${WORKGATE_PIN_DIR}/pin_static.c)
  target_compile_options(pin_static PRIVATE -O1)
  target_link_options(pin_static PRIVATE -static)
  list(APPEND WORKGATE_PIN_SUBJECTS pin_static)
  target_compile_definitions(workgate_tests PRIVATE WORKGATE_PIN_STATIC_BUILT=1)
else()
  message(STATUS "pin_static: not built (no static C library: Debian's libc6-dev has one)")
endif()
set_target_properties(${WORKGATE_PIN_SUBJECTS} PROPERTIES
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
add_dependencies(workgate_tests ${WORKGATE_PIN_SUBJECTS})

# A Go program (Go reads the clock without glibc, and its runtime executes
# RDTSCP where CPUID offers it), built where CMake finds `go` (Debian's
# golang-go, which ci/setup installs). The build needs no network and
# leaves nothing outside the build tree: its caches, GOPATH and HOME are
# under pin_go.d/, the module has no requirements and GOPROXY is off, no
# VCS stamp (git) and no cgo. Not when cross-compiling: `go build` would
# make a program for the host.
find_program(WORKGATE_GO go)
if(WORKGATE_GO AND NOT CMAKE_CROSSCOMPILING)
  set(pin_go_home ${CMAKE_CURRENT_BINARY_DIR}/pin_go.d)
  add_custom_command(
    OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/pin_go
    COMMAND ${CMAKE_COMMAND} -E env HOME=${pin_go_home} GOPATH=${pin_go_home}/gopath
            GOCACHE=${pin_go_home}/cache GOENV=off GOFLAGS=-mod=mod GOPROXY=off GOWORK=off
            GOTOOLCHAIN=local CGO_ENABLED=0
            ${WORKGATE_GO} build -buildvcs=false -trimpath
            -o ${CMAKE_CURRENT_BINARY_DIR}/pin_go .
    WORKING_DIRECTORY ${WORKGATE_PIN_DIR}/pin_go
    DEPENDS ${WORKGATE_PIN_DIR}/pin_go/main.go ${WORKGATE_PIN_DIR}/pin_go/go.mod
    COMMENT "Building the Go pinning subject pin_go"
    VERBATIM)
  add_custom_target(pin_go DEPENDS ${CMAKE_CURRENT_BINARY_DIR}/pin_go)
  add_dependencies(workgate_tests pin_go)
  target_compile_definitions(workgate_tests PRIVATE WORKGATE_PIN_GO_BUILT=1)
else()
  message(STATUS "pin_go: not built (no go: Debian's golang-go; ci/setup installs it)")
endif()
