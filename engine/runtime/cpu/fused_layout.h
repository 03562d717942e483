// FusedLayout: how the blocks of a fused trace share positions, checked against the launch.
//
// Note [CPU fused groups]
// A trace with reduce stages (Reduce, ReduceBroadcasted) has blocks of two shapes: the full
// shape S = [outer..., L, inner...] reduced along `axis` (length L), and the reduced shape R
// (S with the axis at 1). Unit u is one outer index: positions [u*L*inner, (u+1)*L*inner) of a
// full block and [u*inner, (u+1)*inner) of a reduced one. A unit's values never depend on
// another unit's, so a *group* of units runs every block in order (block, reduce, block, ...)
// with the values blocks hand over (MultiBlockLocal values, reduce results) kept in group
// buffers sized to the group. Groups are sized so those buffers stay in cache (a group of
// softmax rows is read from memory once and re-read from cache), and are spread over the
// pool. With too few units to keep every thread busy (a reduce along axis 0) the whole tensor
// is one group, and each block and each reduce spreads its own positions over the pool.
// A trace without reduces (elementwise, matmul) is one unit: every position of every block.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/runtime/fused_launch.h"

namespace ember::cpu {

struct FusedLayout {
  int64_t units = 1;
  int64_t axis = -1;  // the reduce axis, -1 without reduce stages
  int64_t axis_length = 1;
  int64_t inner = 1;
  Shape full_shape;                     // S (empty without reduce stages)
  std::vector<bool> full;               // per block: its reference is S (else R)
  std::vector<int64_t> unit_positions;  // per block: positions of one unit
};

// Throws ember::Error when the blocks' shapes and stages do not fit one of the layouts above
// (a trace with reduce stages: MakeReduceLayout, engine/trace/reduce_layout.h).
FusedLayout MakeFusedLayout(const FusedLaunch& launch);

// True when `from` broadcasts to `to` by numpy rules.
bool Broadcasts(const Shape& from, const Shape& to);

}  // namespace ember::cpu
