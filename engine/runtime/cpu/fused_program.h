// BlockProgram: one block of a fused trace (Note [Fused trace], engine/trace/fuse_trace.h)
// compiled for the CPU interpreter. Built per launch by PlanFused (fused_plan.h), run by
// RunBlockTiles (fused_tiles.h). Plain data; read-only while it runs, so every worker thread
// shares it.
//
// Note [CPU fused tiles]
// A block runs over its positions in tiles of kFusedTile. A tile runs the block's steps in
// order, each over the whole tile: one dispatch per step per tile, tight loops inside (numexpr's
// scheme). The block's reads, ops and writes compile into steps over *values*, one tile of
// numbers in a compute domain (Note [CPU compute domains], convert.h):
//   kLoad     a source's numbers for the tile: a tensor broadcast to the block's reference
//             (a dense f32 or i64 tensor is read in place, not copied), a buffer of values
//             another block handed over, or a constant;
//   kConvert  a value stored as a dtype and loaded back into that dtype's domain with the
//             load/store rules of convert.h: the rounding after an op, a cast, or a move
//             between domains;
//   kCompute  one tile function of the unfused kernels (kernels.h), so the math is theirs;
//   kStore    a value stored into an output, in the output's dtype;
//   kKeep     a value copied into a group buffer for a later block or a reduce stage;
//   kIndexed  an indexed read (Gather, Select, Cat: Note [Indexed inputs], fuse_trace.h): per
//             position, the element the unfused kernel would copy (or zero bytes out of
//             range), then loaded into its domain as a read of that dtype (fused_indexed.h).
// Stores run after every other step of the tile, so an output that took an input's buffer in
// place (fused_outputs.h) never overwrites numbers the tile has yet to load.
// Each value remembers the dtype whose rounding it already holds, so a kConvert appears only
// where an unfused run would have stored and reloaded something different. A value lives in
// a scratch slot from its step to its last use, and slots are reused after that: the working
// set is (values live at once) x kFusedTile x 8 bytes, whatever the length of the block.
//
// Note [Direct writes]
// An unfused kernel writes its result straight into its output (map_tiles.h); the interpreter
// must not pay a copy that the ops run one by one do not. So a kCompute or kConvert whose value
// is kept in a group buffer, or stored into an output that holds the numbers as they are (dense,
// the domain's own dtype), writes there instead of into its slot (TileStep::into), and the
// kKeep or kStore that follows finds its numbers already in place and copies nothing. Only an
// output that aliases no tensor the block reads may be written early (OutputTarget::direct):
// one that took an input's or the matmul result's buffer is still written by the stores at the
// end of the tile. For the same reason an input overwritten in place is copied out of the way
// only when a store reads its loaded numbers raw (TileSource::stored_raw): every other read of
// it happens before the tile's stores.
//
// Note [Repeated rows]
// A full block reads a reduced block's value repeated along the axis (kBroadcastBuffer): with
// rows (inner == 1) and a tile inside one row, that is one number for the whole tile. The load
// then points at that number instead of filling a tile with copies of it, and a float binary op
// whose right operand it is runs its float_rhs_repeated function (map_tiles.h): the same
// arithmetic, so the same bits. Any other step that reads the value gets the tile filled first.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "engine/ir/scalar_ir.h"
#include "engine/runtime/cpu/map_tiles.h"
#include "engine/runtime/cpu/strided.h"
#include "engine/trace/fuse_trace.h"

namespace ember::cpu {

// Positions per tile: with 8-byte numbers, ten live values fill 80 KiB (L2).
inline constexpr int64_t kFusedTile = 1024;

// The dtype a domain holds without rounding: f32 or i64.
inline DType DomainDType(Domain domain) {
  return domain == Domain::kFloat ? DType::kF32 : DType::kI64;
}

// Where a kLoad step takes a tile of numbers from.
struct TileSource {
  enum class Kind : uint8_t {
    kTensor,           // FusedPlan::tensors[index] seen through `view`
    kBuffer,           // group buffer `index`, at the same position
    kBroadcastBuffer,  // group buffer `index` of a reduced block, repeated along the axis
    kConstant,         // BlockProgram::{float,int}_constants[index]
  };
  Kind kind = Kind::kTensor;
  int index = 0;
  Domain domain = Domain::kFloat;
  StridedView view;  // kTensor: the tensor broadcast to the block's reference (bound late)
  // kTensor: read the numbers from a copy, not from the tensor: an output overwrites it in place
  // and a store reads this value raw (Note [Direct writes]). Bound late.
  bool copy = false;
  bool stored_raw = false;  // kTensor: a kStore's argument is this load's value
  // kConstant of a launch scalar: its position in FusedLaunch::scalars (-1: a literal, fixed
  // by the trace), the dtype it is read as and the Fill dtype, so that a plan kept across
  // launches takes each launch's value (RefillConstants).
  int scalar = -1;
  DType scalar_dtype = DType::kF32;
  std::optional<DType> fill;
};

// An indexed op's operands as a kIndexed step reads them (fused_indexed.h).
struct IndexedTensor {
  const std::byte* data = nullptr;  // element at multi-index 0
  Shape shape;
  Shape strides;  // in elements
};

struct IndexedSource {
  FuseOpKind kind = FuseOpKind::kGather;
  int64_t dim = 0;
  std::vector<int> tensors;   // plan tensors: {tensor, indices} (Gather, Select), or the inputs
  DType dtype = DType::kF32;  // of every tensor read (never of the indices)
  // Bound late (BindFused):
  Shape ref;                         // the block's reference shape
  std::vector<IndexedTensor> reads;  // the tensors elements are read from (Cat: all of them)
  std::vector<int64_t> starts;       // Cat: where each input starts along dim
  StridedView indices;               // Gather, Select: the index of each position, over `ref`
};

// An output as one block writes it (bound late, once the outputs exist).
struct OutputTarget {
  int output = 0;  // index in FusedLaunch::outputs
  std::byte* data = nullptr;
  DType dtype = DType::kF32;
  bool dense = true;  // the output has the reference's shape: position p is element p
  // Dense, and no tensor the block reads shares its buffer: a step may write its numbers there
  // before the tile's stores (Note [Direct writes]). Bound late.
  bool direct = false;
  Shape ref;      // the block's reference shape
  Shape strides;  // per reference dim; 0 where the output has size 1 and the
                  // reference does not (only coordinate 0 there is written)
};

struct TileStep {
  enum class Kind : uint8_t { kLoad, kConvert, kCompute, kStore, kKeep, kIndexed };
  Kind kind = Kind::kLoad;
  int out = -1;                           // the value written (kLoad, kConvert, kCompute)
  int args[kMaxOperands] = {-1, -1, -1};  // the values read (kConvert/kStore/kKeep: args[0])
  TileOp op{Domain::kFloat};              // kCompute
  DType dtype = DType::kF32;              // kConvert: the dtype the value is stored as
  // kLoad: a source; kStore: a target; kKeep: a group buffer; kIndexed: an indexed source.
  int target = -1;
  // kCompute, kConvert: the kKeep or kStore step (an index into steps) whose destination this
  // step writes directly, when it can (Note [Direct writes]); -1: its slot.
  int into = -1;
};

struct TileValue {
  Domain domain = Domain::kFloat;
  int slot = -1;  // -1: the value never lives in scratch (a buffer or a constant)
};

struct BlockProgram {
  std::vector<TileSource> sources;
  std::vector<OutputTarget> targets;
  std::vector<IndexedSource> indexed;
  std::vector<TileStep> steps;
  std::vector<TileValue> values;
  std::vector<std::vector<float>> float_constants;  // kFusedTile copies of one number each
  std::vector<std::vector<int64_t>> int_constants;
  int num_slots = 0;
};

// A non-local argument as the plan resolves it against the launch.
struct ArgSource {
  enum class Kind : uint8_t { kTensor, kBuffer, kBroadcastBuffer, kScalar };
  Kind kind = Kind::kTensor;
  int index = 0;              // a plan tensor or a group buffer
  DType dtype = DType::kF32;  // the dtype of the numbers (kScalar: the dtype it is read as)
  ScalarIr scalar;            // kScalar
  int scalar_pos = -1;        // kScalar: its position in FusedLaunch::scalars; -1: a literal
};

// Where a write goes: an output, a group buffer, or nowhere (a value no one takes over).
struct ArgSink {
  enum class Kind : uint8_t { kOutput, kBuffer, kNone };
  Kind kind = Kind::kNone;
  int index = 0;
};

// The block's view of the rest of the plan. `source` and `sink` throw ember::Error for
// arguments the plan cannot bind.
struct BlockLinks {
  std::function<ArgSource(const FuseArg&)> source;
  std::function<ArgSink(const FuseArg&)> sink;
  // An indexed op checked against the launch, its tensors resolved (Note [Indexed inputs]).
  std::function<IndexedSource(const FuseOp&)> indexed;
  // The local a reduce or matmul stage fills before the block runs, and where it is.
  std::optional<FuseArg> stage_local;
  ArgSource stage_source;
};

// Compiles reads, ops and writes. Throws ember::Error when the block reads a local nothing
// wrote, writes somewhere an op cannot, or uses an argument `links` refuses.
BlockProgram CompileBlock(const FuseBlock& block, const BlockLinks& links);

// Fills every constant of a launch scalar with `scalars`' value (a compiled program keeps the
// values of the launch it was compiled for; a cached one is reused with other values).
void RefillConstants(BlockProgram& program, std::span<const ScalarIr> scalars);

}  // namespace ember::cpu
