# workgate's C++ code is one static library per layer (src/<layer>/), each
# declaring the layers it may use. The build enforces the declaration:
#
#   - A layer's headers are reachable only through an include directory of
#     its own, ${CMAKE_BINARY_DIR}/layers/<layer>, which holds one link,
#     <layer> -> src/<layer>. A library sees its own directory and, through
#     PUBLIC linking, those of the layers it declares and their declared
#     layers in turn. `#include "report/terminal_report.h"` in src/model
#     therefore fails to compile: model declares no path up to report.
#   - The declarations are the transitive reduction of what the code uses:
#     each names only what cannot be reached through another. Deleting one
#     leaves the layer with an include it cannot find, or a symbol it cannot
#     link.
#
# tests/util/layering_test.cc reads the workgate_layer() calls in
# CMakeLists.txt and checks every include of every folder of src/ against
# them, and that the declarations are acyclic and reduced; ARCHITECTURE.md
# draws the same graph.

# workgate_layer(NAME [USES layer...] [LIBS target...])
#   NAME:  the folder src/NAME; the library is workgate_NAME.
#   USES:  the layers NAME includes directly that no other declared layer
#          already brings.
#   LIBS:  the Debian packages' targets NAME uses (PUBLIC: its headers may
#          include theirs).
function(workgate_layer name)
  cmake_parse_arguments(PARSE_ARGV 1 LAYER "" "" "USES;LIBS")
  set(dir ${CMAKE_CURRENT_SOURCE_DIR}/src/${name})
  file(GLOB sources CONFIGURE_DEPENDS ${dir}/*.cc)
  list(FILTER sources EXCLUDE REGEX "_fuzz\\.cc$")
  list(FILTER sources EXCLUDE REGEX "/src/cli/main\\.cc$")
  list(FILTER sources EXCLUDE REGEX "/src/machine/known_loop\\.cc$")
  set(target workgate_${name})
  add_library(${target} STATIC ${sources})
  workgate_unity(${target})
  set(include_root ${CMAKE_BINARY_DIR}/layers/${name})
  file(MAKE_DIRECTORY ${include_root})
  file(CREATE_LINK ${dir} ${include_root}/${name} SYMBOLIC)
  target_include_directories(${target} PUBLIC ${include_root})
  foreach(use IN LISTS LAYER_USES)
    if(NOT TARGET workgate_${use})
      message(FATAL_ERROR "layer ${name} uses ${use}, which is not declared before it")
    endif()
    target_link_libraries(${target} PUBLIC workgate_${use})
  endforeach()
  target_link_libraries(${target} PUBLIC ${LAYER_LIBS})
  if(WORKGATE_SANITIZE)
    # PUBLIC: whatever links a layer (workgate, the tests, the fuzzers) is
    # built and linked with the same runtime.
    target_compile_options(${target} PUBLIC ${WORKGATE_SANITIZE_COMPILE_FLAGS})
    target_link_options(${target} PUBLIC ${WORKGATE_SANITIZE_FLAGS})
    if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
      # With clang the layers' objects also carry libFuzzer's coverage, so
      # the fuzz targets (fuzz/) link these same libraries: one sanitized
      # build serves the sanitized test suite and the fuzzers. Linked without
      # libFuzzer (the workgate executable, the tests), the coverage hooks
      # are the sanitizer runtime's empty defaults.
      target_compile_options(${target} PRIVATE -fsanitize=fuzzer-no-link)
    endif()
  endif()
  set_property(GLOBAL APPEND PROPERTY WORKGATE_LAYERS ${target})
endfunction()
