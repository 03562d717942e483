// KernelSpec::signature both ways: the text a spec is known by (what a kernel cache keys on,
// and the `// mode=...` line of every generated source), and the spec read back from that text.
// Writing and reading live here together so that the format has one definition: the plan
// database's import and copy read a stored kernel's signature back to generate its source again
// and compare (Note [Kernels are their plans'], store/admin/bundle_kernel_check.h).
//
// Pure functions, callable from any thread.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "codegen/kernel_plan.h"

namespace ember::codegen {

// "mode=1 block=0 width=4 index64=false threads=256 group=32 shared=true b0:21 dt:aa ua:11
// full:1": every field of `spec` its source depends on, in one deterministic line.
std::string KernelSignature(const KernelSpec& spec);

// The spec whose KernelSignature `line` is, for a trace of `blocks` blocks (its geometry,
// grid and shared bytes, left at their defaults), or nullopt when `line` is not one: a field
// missing, out of its range, or of another trace's shape. Text from outside (a stored kernel's
// source) may be anything, so nothing here throws or trusts a size it has not checked.
std::optional<KernelSpec> ParseKernelSignature(std::string_view line, size_t blocks);

}  // namespace ember::codegen
