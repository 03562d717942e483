# Every dependency is a Debian package (see .ci/install-deps.sh); nothing is downloaded.
find_package(Threads REQUIRED)
find_package(fmt REQUIRED)
# ember.toml (engine/core/config.cpp). Debian's libtomlplusplus-dev ships a CMake package whose
# target, tomlplusplus::tomlplusplus, is the compiled shared library.
find_package(tomlplusplus REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
pkg_check_modules(OPENBLAS REQUIRED IMPORTED_TARGET openblas)  # the CPU's float matmul
pkg_check_modules(SLEEF REQUIRED IMPORTED_TARGET sleef)  # the CPU's vector math
if(EMBER_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(EMBER_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()
# The plan database: Cap'n Proto encodes plans (schema/), SQLite stores them (store/).
# Cap'n Proto is linked statically (Debian ships libcapnp.a and libkj.a), so ember's binaries
# run on machines without it, such as the GPU machines. Cap'n Proto's CMake package prefers
# the shared library; naming the archives first makes it import those.
foreach(_lib capnp kj)
  find_library(CapnProto_${_lib}_IMPORTED_LOCATION NAMES lib${_lib}.a)
endforeach()
find_package(CapnProto REQUIRED)
find_package(SQLite3 REQUIRED)
# The shared-memory tier between worker processes (store/shm/shared_segment.h): Boost.Interprocess,
# header-only.
find_package(Boost 1.74 REQUIRED)
# The flat hash maps of the per-op host path (engine/core/flat_map.h), header-only.
find_package(tsl-robin-map REQUIRED)
# ember-plans (tools/plans): its command line and --json output; header-only Debian packages
# (libcli11-dev, nlohmann-json3-dev). The plans test suite parses that JSON too.
find_package(CLI11 CONFIG REQUIRED)
find_package(nlohmann_json REQUIRED)
