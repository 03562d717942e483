#!/usr/bin/env bash
# ./test.sh [ctest arguments...]: installs the Debian packages ember needs (if missing),
# configures build/ with the release preset (first time only, tests on), builds incrementally
# and runs every test in parallel. The exit status is the tests' result.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "${root}"

.ci/install-deps.sh
if [[ ! -f build/build.ninja ]]; then
  cmake --preset release
elif ! grep -q '^EMBER_BUILD_TESTS:BOOL=ON$' build/CMakeCache.txt; then
  cmake build -DEMBER_BUILD_TESTS=ON  # build/ was configured without tests
fi
cmake --build --preset release
exec ctest --preset release -j "$(nproc)" "$@"
