#!/usr/bin/env bash
# The Python module for the GPU machine's interpreter, so that its tests (tests/python, the CUDA
# ones above all: test_dlpack_cuda.py) run there against PyTorch built for CUDA. That machine's
# python3 is another version than this one's (3.12 against Debian 12's 3.11), and its compiler
# cannot link this machine's LTO archives, so the module is compiled here against that Python's
# headers and linked with the archives of the ./test.sh tree (build/, built first).
#
#   bash bench/gpu/python-module.sh HEADERS_TAR    here; HEADERS_TAR holds the other Python's
#       include directory (python3.12/), on Debian and Ubuntu also its multiarch pyconfig.h
#       (x86_64-linux-gnu/python3.12/pyconfig.h, which python3.12/pyconfig.h includes), and a
#       pybind11 that supports that Python (pybind11/, PyTorch's own: torch/include/pybind11);
#       a first device call packs them:
#         tar cJf $OUT/pyinc.tar.xz -C /usr/include python3.12 \
#           x86_64-linux-gnu/python3.12/pyconfig.h -C <torch>/include pybind11
#       Writes build-gpu/python-module.tar.xz: the package ember/ (its .py files and
#       _ember.cpython-3XX-x86_64-linux-gnu.so) and lib/ with the shared libraries it needs
#       that the GPU machine's image may lack; carry it beside build-gpu/bundle.tar.xz.
#   There: tar xJf build-gpu/python-module.tar.xz -C build-gpu, then
#       LD_LIBRARY_PATH=build-gpu/python-module/lib PYTHONPATH=build-gpu/python-module python3 ...
set -euo pipefail
cd "$(dirname "$0")/../.."
repo="$(pwd)"
headers="$(realpath "${1:?usage: python-module.sh HEADERS_TAR}")"
build="$repo/build"
out="$repo/build-gpu/python-module"
work="$repo/build-gpu/python-module-work"
rm -rf "$out" "$work"
mkdir -p "$out/ember" "$out/lib" "$work/include"
tar xJf "$headers" -C "$work/include"
pyinc="$(find "$work/include" -maxdepth 1 -name 'python3.*' -type d | head -1)"
[[ -n "$pyinc" && -f "$pyinc/Python.h" ]] || { echo "python-module: no python3.*/Python.h in $headers" >&2; exit 1; }
[[ -f "$work/include/pybind11/pybind11.h" ]] || { echo "python-module: no pybind11/ in $headers" >&2; exit 1; }
multiarch="$(grep -o 'x86_64-linux-gnu/python3\.[0-9]*/pyconfig\.h' "$pyinc/pyconfig.h" || true)"
if [[ -n "$multiarch" && ! -f "$work/include/$multiarch" ]]; then
  echo "python-module: $pyinc/pyconfig.h includes $multiarch, which $headers lacks" >&2
  exit 1
fi
version="$(basename "$pyinc")"                 # python3.12
tag="cpython-${version#python}"                 # cpython-3.12
tag="${tag/./}-x86_64-linux-gnu"                # cpython-312-x86_64-linux-gnu

# The module's own compile and link commands in build/ (ninja knows them), with this Python's
# headers in place of build/'s, the pybind11 beside them ahead of Debian's, and the objects and
# the module written here. The engine's archives are build/'s, built first.
target="$(cd "$build" && ninja -t targets all | awk -F: '/^python\/ember\/_ember\.cpython.*\.so:/ { print $1 }')"
[[ -n "$target" ]] || { echo "python-module: build/ has no Python module target" >&2; exit 1; }
cmake --build "$build" --target ember_python
built_inc="$(cd "$build" && ninja -t commands "$target" | grep -o -- '-isystem /usr/include/python3\.[0-9]*' | head -1)"
(cd "$build" && ninja -t commands "$target") | grep -E 'engine/python/[a-z_]+\.cpp|-shared ' | while read -r line; do
  line="${line//$built_inc/-isystem $pyinc}"
  line="${line//-std=c++20/-std=c++20 -I$work/include}"
  line="${line//engine\/python\/CMakeFiles\/ember_python.dir\//$work/}"
  line="${line//$build\/$target/$out/ember/_ember.$tag.so}"
  line="${line//$target/$out/ember/_ember.$tag.so}"
  echo "python-module: ${line:0:160}…"
  (cd "$build" && eval "$line")
done
cp "$build"/python/ember/*.py "$out/ember/"
# Shared libraries: everything ldd resolves except the C/C++ runtimes and Python's own.
skip='^(linux-vdso|ld-linux|libc\.so|libm\.so|libpthread|libdl\.so|librt\.so|libstdc\+\+|libgcc_s|libpython)'
ldd "$out/ember/_ember.$tag.so" | awk '$3 ~ /^\// { print $1, $3 }' | while read -r name path; do
  [[ "$name" =~ $skip ]] && continue
  cp -L "$path" "$out/lib/$name"
  strip --strip-unneeded "$out/lib/$name" 2>/dev/null || true
done
strip --strip-unneeded "$out/ember/_ember.$tag.so"
tar cJf "$repo/build-gpu/python-module.tar.xz" -C "$repo/build-gpu" python-module
echo "python-module: carry build-gpu/python-module.tar.xz ($(du -h "$repo/build-gpu/python-module.tar.xz" | cut -f1))"
