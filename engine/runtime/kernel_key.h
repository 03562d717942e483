// MakeKernelKey: the key a compiled kernel is known by (KernelBinaryKey, kernel_store.h). Here,
// not in cuda/, because the key is computed from text alone: the CUDA kernel cache computes it
// before compiling, and a bundle import (store/admin/bundle_kernel_check.h) recomputes it from a
// stored kernel's text on machines built without CUDA. Pure; callable from any thread.
#pragma once

#include <string_view>

#include "engine/runtime/kernel_store.h"

namespace ember {

// The key of `kernel` compiled with `options_text` (cuda::CompileOptionsText) for `arch` by
// `compiler`: XXH3-64 over the key version, name, source, options, arch and compiler, each
// field length-prefixed; arch and compiler are kept beside the hash.
KernelBinaryKey MakeKernelKey(const KernelSource& kernel, std::string_view options_text,
                              std::string_view arch, std::string_view compiler);

}  // namespace ember
