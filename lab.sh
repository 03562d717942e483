#!/usr/bin/env bash
# ./lab.sh [ember-lab arguments...]: installs the Debian packages ember needs (if missing),
# configures build/ with the release preset (first time only), builds ember-lab incrementally
# and runs it. Build output goes to stderr; stdout is ember-lab's alone.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

"${root}/.ci/install-deps.sh"
if [[ ! -f "${root}/build/build.ninja" ]]; then
  (cd "${root}" && cmake --preset release) >&2
fi
cmake --build "${root}/build" --target ember-lab >&2
exec "${root}/build/bin/ember-lab" "$@"
