# The Debian package: `cpack -G DEB` in the build directory, after a build,
# packs what `cmake --install` installs (the layout in the root
# CMakeLists.txt) under /usr. ci/package-test builds it and installs it with
# apt into a fresh root of the release it was built on.
#
# A .deb fits the release it was built on only: its dependencies are that
# release's library packages (libfmt9 on Debian 12, libfmt10 on 13) and its
# exact valgrind. Its version therefore ends with the release,
# +deb12, +deb13 or +ubuntu24.04, from /etc/os-release.
#
# Dependencies:
# - shared libraries: found by dpkg-shlibdeps from the ELF files packed
#   (workgate, the clock shim, known_loop);
# - valgrind, where vgcount is built: exactly the Debian version it was built
#   against. The tool carries its own static copy of that package's coregrind
#   and VEX (libcoregrind-*.a ships in the valgrind package) and runs under
#   that package's launcher, with its vgpreload_core and suppressions, which
#   the installed valgrind-lib/ links to; another version is another core, so
#   apt must not pair them. Upgrading valgrind means rebuilding this package,
#   as it means rebuilding the build tree. Without vgcount, valgrind is only
#   recommended: perf alone can count. vgcount built against a Valgrind
#   installed from source has no package to name.

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME workgate)
set(CPACK_PACKAGE_VENDOR "the workgate authors")
set(WORKGATE_PACKAGE_MAINTAINER "workgate maintainers <workgate@localhost>" CACHE STRING
    "The Maintainer field of the Debian package")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${WORKGATE_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "gate pull requests on the work they add, counted in retired instructions")
set(CPACK_PACKAGE_DESCRIPTION
    "workgate counts the user-space instructions a workload retires, once for a baseline build \
and once for a candidate build of the same program, and reports the exact difference. It counts \
with perf where the PMU counts, or with Valgrind: callgrind, or its own tool vgcount.")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# workgate_<version>_<arch>.deb, the name Debian tools expect.
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# The installed files without debug information (60 MB of it in workgate).
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)

# Whether the Valgrind vgcount is built against is Debian's package (its
# valgrind.pc is the package's) or one installed from source, which no
# package provides: Debian's valgrind, installed or not, is another one.
set(WORKGATE_VGCOUNT_FROM_SOURCE OFF)
if(TARGET vgcount_tool AND NOT VGCOUNT_VALGRIND_ROOT)
  execute_process(COMMAND dpkg-query -S ${WORKGATE_VGCOUNT_VALGRIND_PC}
    RESULT_VARIABLE valgrind_pc_owner OUTPUT_QUIET ERROR_QUIET)
  if(NOT valgrind_pc_owner EQUAL 0)
    set(WORKGATE_VGCOUNT_FROM_SOURCE ON)
  endif()
endif()
if(WORKGATE_VGCOUNT_FROM_SOURCE)
  message(STATUS "package: vgcount is built against the Valgrind of "
                 "${WORKGATE_VGCOUNT_VALGRIND_PC}, which belongs to no installed Debian "
                 "package; the .deb names no valgrind, and its vgcount runs only where that "
                 "Valgrind is installed")
elseif(TARGET vgcount_tool)
  execute_process(COMMAND dpkg-query -W -f=\${Version} valgrind
    OUTPUT_VARIABLE WORKGATE_VALGRIND_DEB_VERSION RESULT_VARIABLE valgrind_query
    ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(valgrind_query EQUAL 0 AND WORKGATE_VALGRIND_DEB_VERSION)
    set(CPACK_DEBIAN_PACKAGE_DEPENDS "valgrind (= ${WORKGATE_VALGRIND_DEB_VERSION})")
  else()
    # Valgrind from elsewhere: the package cannot name the one vgcount needs.
    message(STATUS "package: no Debian valgrind package installed; the .deb depends on "
                   "valgrind (>= ${WORKGATE_VGCOUNT_VALGRIND_VERSION}) only")
    set(CPACK_DEBIAN_PACKAGE_DEPENDS "valgrind (>= ${WORKGATE_VGCOUNT_VALGRIND_VERSION})")
  endif()
else()
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS valgrind)
endif()

# The release's suffix of the package version (read by
# WorkgatePackageVersion.cmake when cpack runs).
set(CPACK_WORKGATE_RELEASE_SUFFIX "")
if(EXISTS /etc/os-release)
  file(STRINGS /etc/os-release workgate_os_release REGEX "^(ID|VERSION_ID)=")
  set(workgate_os_id "")
  set(workgate_os_version "")
  foreach(line ${workgate_os_release})
    string(REGEX REPLACE "^[A-Z_]+=\"?([^\"]*)\"?$" "\\1" value "${line}")
    if(line MATCHES "^ID=")
      set(workgate_os_id "${value}")
    else()
      set(workgate_os_version "${value}")
    endif()
  endforeach()
  if(workgate_os_id STREQUAL "debian" AND workgate_os_version)
    set(CPACK_WORKGATE_RELEASE_SUFFIX "+deb${workgate_os_version}")
  elseif(workgate_os_id AND workgate_os_version)
    set(CPACK_WORKGATE_RELEASE_SUFFIX "+${workgate_os_id}${workgate_os_version}")
  endif()
endif()

# The package version names the commit, as `workgate --version` does, so it is
# read from the version header the build wrote (cmake/WorkgateVersion.cmake)
# when cpack runs, not when CMake configures.
set(CPACK_WORKGATE_VERSION_HEADER ${CMAKE_BINARY_DIR}/generated/version.h)
set(CPACK_PROJECT_CONFIG_FILE ${CMAKE_CURRENT_LIST_DIR}/WorkgatePackageVersion.cmake)
include(CPack)
