#!/usr/bin/env bash
# Installs every Debian package ember needs to build, test, benchmark and inspect plans.
# The one list of system dependencies: CMake finds all of them, nothing is downloaded at build
# time. Idempotent and fast on a machine that has them all (one dpkg-query, no apt-get).
#
# Works as root on a fresh Debian 12 (bookworm), or as a user with sudo.
# EMBER_SKIP_DEPS=1 skips it (for machines whose packages are managed some other way).
set -euo pipefail

packages=(
  # Toolchain.
  build-essential   # g++ 12, make, libc headers
  cmake             # 3.25 on bookworm: CMakePresets.json version 6
  ninja-build
  pkg-config        # finds libxxhash
  git
  ca-certificates
  clang-format-14   # the pinned formatter: .ci/check-format, the `format` test
  # Engine.
  libfmt-dev
  libxxhash-dev     # XXH3 plan keys and first-op hashes
  libboost-dev      # Boost.Interprocess: the shared-memory tier
  robin-map-dev     # tsl::robin_map: the flat hash maps of the per-op host path
  libopenblas-dev   # the CPU backend's float matmul (sgemm)
  libsleef-dev      # the CPU backend's vector exp, log, sin, tanh, erf, ...
  # Plan database.
  libsqlite3-dev
  sqlite3
  libpq-dev         # libpq-fe.h to build; libpq5 is opened at run time (store/postgres/)
  postgresql        # the server the PostgreSQL tests start for themselves (initdb, pg_ctl)
  capnproto         # capnp compiler for schema/plan.capnp
  libcapnp-dev
  # Configuration and tools.
  libtomlplusplus-dev  # ember.toml
  libcli11-dev         # ember-lab, ember-plans
  nlohmann-json3-dev   # --json output
  # The Python module (engine/python; off with a message where these are missing).
  python3-dev       # Python's headers
  pybind11-dev
  libdlpack-dev     # dlpack/dlpack.h: Tensor.__dlpack__, ember.from_dlpack
  python3-numpy     # the module's NumPy exchange, and its tests' reference
  python3-pytest    # tests/python, run by CTest
  python3-torch     # tests/python's PyTorch exchange checks (skipped where it is absent)
  # Tests and benchmarks.
  libgtest-dev
  libgmock-dev
  libbenchmark-dev
  hyperfine
  # Fuzzing (tests/fuzz/run-fuzzers.sh; CI replays the kept inputs with g++ instead).
  clang                # clang 14: libFuzzer needs it
  libclang-rt-14-dev   # libFuzzer and the sanitizer runtimes for clang
)

if [[ "${EMBER_SKIP_DEPS:-0}" == "1" ]]; then
  exit 0
fi

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "install-deps: dpkg-query not found: this script installs Debian packages;" \
       "install the equivalent of: ${packages[*]} (then set EMBER_SKIP_DEPS=1)" >&2
  exit 1
fi

# One dpkg-query for all packages; unknown packages only print to stderr.
declare -A installed=()
while read -r name status; do
  [[ "${status}" == "installed" ]] && installed["${name}"]=1
done < <(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "${packages[@]}" 2>/dev/null || true)

missing=()
for p in "${packages[@]}"; do
  [[ -n "${installed[${p}]:-}" ]] || missing+=("${p}")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi

if [[ "$(id -u)" -eq 0 ]]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "install-deps: missing packages: ${missing[*]}" >&2
  echo "install-deps: run this script as root (or install sudo) to install them" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
