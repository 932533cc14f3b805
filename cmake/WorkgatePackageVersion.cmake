# Included by cpack (CPACK_PROJECT_CONFIG_FILE, cmake/WorkgatePackage.cmake):
# the package version names the commit the build was made from, read from the
# version header that build wrote. At a release tag (v<version>), or for a tree
# without git, it is the project version; otherwise <version>+git<describe>,
# with each character a Debian version does not allow written as '.'
# (0.1.0+git228c51b.dirty). Last comes the release it was built for
# (WorkgatePackage.cmake): 0.1.0+git228c51b+deb12.
file(STRINGS "${CPACK_WORKGATE_VERSION_HEADER}" workgate_version_line
  REGEX "^#define WORKGATE_VERSION \"")
if(NOT workgate_version_line)
  message(FATAL_ERROR "no WORKGATE_VERSION in ${CPACK_WORKGATE_VERSION_HEADER}: build first")
endif()
string(REGEX REPLACE "^#define WORKGATE_VERSION \"(.*)\"$" "\\1" workgate_describe
  "${workgate_version_line}")
if(NOT workgate_describe STREQUAL CPACK_PACKAGE_VERSION AND
   NOT workgate_describe STREQUAL "v${CPACK_PACKAGE_VERSION}")
  string(REGEX REPLACE "[^A-Za-z0-9.+~]" "." workgate_suffix "${workgate_describe}")
  set(CPACK_PACKAGE_VERSION "${CPACK_PACKAGE_VERSION}+git${workgate_suffix}")
endif()
string(REGEX REPLACE "[^A-Za-z0-9.+~]" "." workgate_release "${CPACK_WORKGATE_RELEASE_SUFFIX}")
set(CPACK_PACKAGE_VERSION "${CPACK_PACKAGE_VERSION}${workgate_release}")
