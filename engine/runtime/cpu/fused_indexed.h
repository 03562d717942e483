// The indexed reads of the CPU interpreter (Note [Indexed inputs], engine/trace/fuse_trace.h):
// a kIndexed step (Note [CPU fused tiles], fused_program.h) reads, for each position of a tile,
// the one element the unfused Gather, Select or Cat kernel (movement.cpp) copies to that
// position, with the same range rules, and loads it into its compute domain as any read of
// that dtype is loaded. So a fused Gather followed by ops gives the unfused kernels' bytes.
//
// Plain functions; LoadIndexedTile only reads the bound source, so every worker shares it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "engine/runtime/cpu/fused_program.h"
#include "engine/runtime/handle.h"

namespace ember::cpu {

// Points `source` at the launch's tensors (plan tensors by index) for a block over `ref`.
// REQUIRES: the planner checked the tensors against the op (fused_plan.cpp, IndexedOf).
void BindIndexed(IndexedSource& source, std::span<const TensorHandle> tensors, const Shape& ref);

// The values of positions [pos, pos + n) of the block into `out` (room for n numbers of the
// source's domain); `temp` holds n elements of the source's dtype meanwhile.
void LoadIndexedTile(const IndexedSource& source, int64_t pos, int64_t n, void* out,
                     std::byte* temp);

}  // namespace ember::cpu
