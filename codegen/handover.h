// Handovers: the values one block of a fused trace hands to a later one (its
// kMultiBlockLocal arguments), and where each lives in the kernels of a launch. The planner
// (plan_trace.h) sizes scratch buffers and shared memory from them and the generator
// (block_emitter.h) declares and reads them, so both take them from one function.
//
// Note [Shared handover slots]
// In a row kernel every thread of a row group reads a full block's handed-over value back only
// at the positions it wrote itself (each full block walks the row with the same group, width
// and stride), so a row's shared array is private to its writer thread position by position.
// An array is therefore free again once the last read of its value has run: a handover
// written later may take it. "Later" is a later block, or a later step of the block that
// reads the old value for the last time: within one block a thread runs the block's ops in
// order for each of its positions, so when every read of the old value comes before the
// write of the new one (steps in ForEachArg's order), the thread has loaded the old value at a
// position before it stores the new one there. Softmax then needs one array, not two (exp's
// values take the scaled input's place as they are computed), and a trace of many
// independent reduce chains (what the search, faithful to burn, builds from back-to-back
// softmaxes or layernorms) needs the shared memory of its widest point, not of every chain
// together, and keeps its handovers out of scratch. Slots are numbered in the order their
// first handover is found.
#pragma once

#include <cstdint>
#include <vector>

#include "codegen/kernel_plan.h"
#include "engine/trace/fuse_trace.h"

namespace ember::codegen {

// A value one block hands to a later one (a kMultiBlockLocal argument), and where it lives
// (Note [Kernel modes], kernel_source.h).
struct Handover {
  enum class Storage : uint8_t {
    kRegister,  // a reduced block's value: every thread of a row computes it
    kShared,    // kRow: a full block's value, one number per row position in shared memory
    kScratch,   // a scratch buffer (TracePlan::scratch), one number per position
  };
  uint32_t block = 0;  // the writer
  uint32_t pos = 0;
  DType dtype = DType::kF32;
  Storage storage = Storage::kRegister;
  int scratch = -1;        // kScratch: index into TracePlan::scratch
  int slot = -1;           // kShared: its row-long array (Note [Shared handover slots])
  uint32_t last_read = 0;  // the last block that reads it
  // Steps in ForEachArg's order over the whole trace: its last read, and its write (Note
  // [Shared handover slots]).
  uint32_t last_read_step = 0;
  uint32_t write_step = 0;
};

// The handovers of `trace` in a fixed order, storage chosen for `mode` (`shared`: kRow keeps
// full values in shared memory, in slots). Used by the planner and by the generator alike.
std::vector<Handover> FindHandovers(const FuseTrace& trace, KernelMode mode, bool shared,
                                    const std::vector<bool>& full);

// The bytes of one row position over every shared slot: float-domain slots hold 4-byte
// numbers, the others 8-byte ones (the domain types of codegen/cuda_expr.h).
int SharedSlotBytes(const std::vector<Handover>& handovers);

}  // namespace ember::codegen
