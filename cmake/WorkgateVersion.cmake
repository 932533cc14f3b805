# workgate's version names the commit it is built from: `git describe
# --always --dirty`, evaluated at every build rather than only at configure
# time, so a binary built after a commit or an edit says so. The header is
# written only when its text changes (configure_file leaves an output whose
# content is unchanged alone), so an unchanged tree recompiles nothing.
#
# Two uses:
#   include(cmake/WorkgateVersion.cmake), before project(): sets
#       WORKGATE_PROJECT_VERSION, the one place the version number is written
#       (the root project and the fuzz project both take it from here); then
#       workgate_version_header(TARGET OUTPUT)
#       adds the target TARGET that keeps the header OUTPUT current (it runs
#       this file as a script at every build) and writes OUTPUT once now, so
#       a fresh build directory has it before the first build.
#   cmake -DSOURCE_DIR=... -DPROJECT_VERSION=... -DINPUT=... -DOUTPUT=... -P WorkgateVersion.cmake
#       writes OUTPUT from INPUT (src/version.h.in).
#
# Without git metadata (a source tarball, or a tree unpacked inside another
# repository) the version is the project version, and the header says that it
# names no commit.

# Sets `out_version` and `out_detail` for the tree at `source_dir`.
function(workgate_describe source_dir project_version out_version out_detail)
  set(version "")
  find_program(WORKGATE_GIT git)
  if(WORKGATE_GIT)
    # Only the tree's own repository: a tarball unpacked inside another
    # checkout would otherwise name that checkout's commit.
    execute_process(COMMAND ${WORKGATE_GIT} -C ${source_dir} rev-parse --show-toplevel
      OUTPUT_VARIABLE top RESULT_VARIABLE top_rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    get_filename_component(source_real "${source_dir}" REALPATH)
    if(top_rc EQUAL 0)
      get_filename_component(top_real "${top}" REALPATH)
    endif()
    if(top_rc EQUAL 0 AND top_real STREQUAL source_real)
      execute_process(COMMAND ${WORKGATE_GIT} -C ${source_dir} describe --always --dirty
        OUTPUT_VARIABLE version RESULT_VARIABLE describe_rc
        OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      if(NOT describe_rc EQUAL 0)
        set(version "")
      endif()
    endif()
  endif()
  if(version STREQUAL "")
    set(${out_version} "${project_version}" PARENT_SCOPE)
    set(${out_detail}
      "project version ${project_version}; built without git metadata, so it names no commit"
      PARENT_SCOPE)
  else()
    set(${out_version} "${version}" PARENT_SCOPE)
    set(${out_detail} "project version ${project_version}" PARENT_SCOPE)
  endif()
endfunction()

function(workgate_write_version_header source_dir project_version input output)
  workgate_describe(${source_dir} ${project_version} WORKGATE_VERSION WORKGATE_VERSION_DETAIL)
  set(PROJECT_VERSION ${project_version})
  configure_file(${input} ${output} @ONLY)
endfunction()

if(CMAKE_SCRIPT_MODE_FILE)
  workgate_write_version_header(${SOURCE_DIR} ${PROJECT_VERSION} ${INPUT} ${OUTPUT})
  return()
endif()

set(WORKGATE_PROJECT_VERSION 0.1.0)
set(WORKGATE_VERSION_SCRIPT ${CMAKE_CURRENT_LIST_FILE})
get_filename_component(WORKGATE_VERSION_ROOT ${CMAKE_CURRENT_LIST_DIR}/.. ABSOLUTE)

function(workgate_version_header target output)
  set(input ${WORKGATE_VERSION_ROOT}/src/version.h.in)
  workgate_write_version_header(
    ${WORKGATE_VERSION_ROOT} ${WORKGATE_PROJECT_VERSION} ${input} ${output})
  add_custom_target(${target}
    COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${WORKGATE_VERSION_ROOT}
            -DPROJECT_VERSION=${WORKGATE_PROJECT_VERSION} -DINPUT=${input} -DOUTPUT=${output}
            -P ${WORKGATE_VERSION_SCRIPT}
    BYPRODUCTS ${output}
    COMMENT "Checking the version (git describe)"
    VERBATIM)
endfunction()
