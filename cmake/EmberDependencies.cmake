# Every dependency is a Debian package (see .ci/install-deps.sh); nothing is downloaded.
find_package(Threads REQUIRED)
find_package(fmt REQUIRED)
# ember.toml (engine/core/config.cpp). Debian's libtomlplusplus-dev ships a CMake package whose
# target, tomlplusplus::tomlplusplus, is the compiled shared library.
find_package(tomlplusplus REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
if(EMBER_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(EMBER_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()
