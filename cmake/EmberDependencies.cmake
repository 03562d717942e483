# Every dependency is a Debian package (see .ci/install-deps.sh); nothing is downloaded.
find_package(Threads REQUIRED)
find_package(fmt REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
if(EMBER_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
