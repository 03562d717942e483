// RunBlockTiles: the interpreter of a compiled block (Note [CPU fused tiles],
// fused_program.h). One call runs a range of the block's positions on the calling thread; the
// program and the group buffers are shared, and each call writes only its own positions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "engine/runtime/cpu/fused_program.h"
#include "engine/runtime/cpu/strided.h"

namespace ember::cpu {

// One thread's scratch: `slots` slots of kFusedTile numbers, and a tile of bytes for the
// store-and-reload of conversions.
class TileScratch {
 public:
  // The memory comes from the BufferCache (buffer_cache.h): a launch's scratch is the last
  // launch's, already faulted in, instead of a fresh allocation per block and chunk.
  explicit TileScratch(int slots);
  ~TileScratch();
  TileScratch(const TileScratch&) = delete;
  TileScratch& operator=(const TileScratch&) = delete;
  void* slot(int s) { return bytes_ + s * kSlotBytes; }
  std::byte* temp() { return bytes_ + slots_ * kSlotBytes; }
  // Where each value of a program is for the current tile: `values` entries, kept across the
  // calls that share this scratch.
  std::vector<const void*>& places(size_t values) {
    if (places_.size() < values) places_.resize(values);
    if (repeated_.size() < values) repeated_.resize(values);
    return places_;
  }
  // Per value: its place holds one number that stands for the whole tile (Note [Repeated rows],
  // fused_program.h). Sized by places().
  std::vector<uint8_t>& repeated() { return repeated_; }

 private:
  static constexpr int64_t kSlotBytes = kFusedTile * 8;
  int slots_;
  size_t capacity_ = 0;
  std::byte* bytes_;  // uninitialized: every step writes before it reads
  std::vector<const void*> places_;
  std::vector<uint8_t> repeated_;
};

// The buffers of the group of units being run (Note [CPU fused groups], fused_layout.h).
struct GroupBuffers {
  std::span<std::byte* const> data;  // per buffer: its value at the group's first position
  // A reduced block's buffer read by a full block repeats each value along the axis.
  int64_t axis_length = 1;
  int64_t inner = 1;
};

// Runs the block at positions [begin, end); `base` is the position of the group's first, where
// the group buffers start.
void RunBlockTiles(const BlockProgram& program, const GroupBuffers& group, int64_t base,
                   int64_t begin, int64_t end, TileScratch& scratch);

}  // namespace ember::cpu
