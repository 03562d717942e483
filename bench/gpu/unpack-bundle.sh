#!/usr/bin/env bash
# Unpacks build-gpu/bundle.tar.xz (what a device call carries: device-suite.sh build) into
# build-gpu/bundle when the bundle is missing or older than the packed one. A warm device
# machine keeps the last call's build-gpu/bundle, so a newer carried bundle must replace it
# rather than be skipped. Run from anywhere; the paths are the repository's.
set -euo pipefail
build="$(cd "$(dirname "$0")/../.." && pwd)/build-gpu"
packed="$build/bundle.tar.xz"
[[ -f "$packed" ]] || exit 0
if [[ ! -f "$build/bundle/COMMIT" || "$packed" -nt "$build/bundle/COMMIT" ]]; then
  rm -rf "$build/bundle"
  tar xJf "$packed" -C "$build" --touch  # extracted files dated now: newer than the archive
fi
