#include "engine/runtime/cpu/fused_program.h"

#include <algorithm>
#include <bit>
#include <map>
#include <utility>

#include <fmt/format.h>

#include <ember/error.h>

#include "engine/core/check.h"
#include "engine/runtime/cpu/convert.h"
#include "engine/runtime/cpu/kernels.h"

namespace ember::cpu {
namespace {

// A value and the dtype whose rounding its numbers already hold.
struct Held {
  int value;
  DType dtype;
};

// The tile function of a non-Assign op, in the compute domain Note [Fused trace] gives it: of
// the output's dtype for Clamp and ConditionalAssign, else of the first operand's.
TileOp OpTile(const FuseOp& op) {
  const bool by_output = op.kind == FuseOpKind::kClamp || op.kind == FuseOpKind::kConditionalAssign;
  return ElementTile(op.kind, by_output ? op.out.dtype : op.args[0].dtype);
}

// The constant `tile` of `program` holding `value`, entered as Constant describes.
void FillConstant(BlockProgram& program, const TileSource& tile, ScalarIr value) {
  float f = ScalarAsFloat(value);
  int64_t i = ScalarAsInt(value);
  if (tile.fill) {
    std::byte element[8] = {};
    EncodeFill(value, *tile.fill, element);
    LoadRunF32(element, *tile.fill, 1, 1, &f);
    LoadRunI64(element, *tile.fill, 1, 1, &i);
  }
  if (tile.domain == Domain::kFloat) {
    std::vector<float>& numbers = program.float_constants[tile.index];
    // Every number is the same: the first stands for all. Compared as bits (NaN, -0).
    if (std::bit_cast<uint32_t>(numbers.front()) != std::bit_cast<uint32_t>(f)) {
      std::fill(numbers.begin(), numbers.end(), f);
    }
  } else {
    std::vector<int64_t>& numbers = program.int_constants[tile.index];
    if (numbers.front() != i) std::fill(numbers.begin(), numbers.end(), i);
  }
}

class BlockCompiler {
 public:
  explicit BlockCompiler(const BlockLinks& links) : links_(links) {}

  BlockProgram Compile(const FuseBlock& block) {
    for (const auto* ops : {&block.reads, &block.ops, &block.writes}) {
      for (const FuseOp& op : *ops) Op(op);
    }
    // Stores go last, after every load of the tile: an output may overwrite an input in place
    // (fused_outputs.h), and no step of the block reads an output it writes.
    std::stable_partition(program_.steps.begin(), program_.steps.end(),
                          [](const TileStep& step) { return step.kind != TileStep::Kind::kStore; });
    AllocateSlots();
    MarkDirectWrites();
    return std::move(program_);
  }

 private:
  void Op(const FuseOp& op) {
    if (op.kind == FuseOpKind::kAssign) {
      Write(op.out, Read(op.args[0], op.out.dtype));
      return;
    }
    if (FormOf(op.kind) == FuseOpForm::kIndexed) {
      Indexed(op);
      return;
    }
    const TileOp tile = OpTile(op);
    // ConditionalAssign(cond, lhs, rhs) is MaskWhere(tensor = rhs, mask = cond, value = lhs).
    static constexpr int kInOrder[] = {0, 1, 2};
    static constexpr int kMaskWhereOrder[] = {2, 0, 1};
    const int* order = op.kind == FuseOpKind::kConditionalAssign ? kMaskWhereOrder : kInOrder;
    TileStep step{.kind = TileStep::Kind::kCompute, .op = tile};
    for (int k = 0; k < FuseOpArity(op.kind); ++k) {
      step.args[k] = Convert(Read(op.args[order[k]], std::nullopt), DomainDType(tile.domain)).value;
    }
    step.out = NewValue(tile.domain, true);
    program_.steps.push_back(step);
    Write(op.out, {step.out, DomainDType(tile.domain)});
  }

  // The elements an unfused Gather, Select or Cat would copy, held as their dtype, then
  // written to the op's local as an Assign of a read of that dtype is (Note [Indexed inputs]).
  void Indexed(const FuseOp& op) {
    if (!links_.indexed) throw Error("fused block has an indexed op its plan cannot bind");
    program_.indexed.push_back(links_.indexed(op));
    const DType dtype = program_.indexed.back().dtype;
    const int value = NewValue(DomainOf(dtype), true);
    program_.steps.push_back({.kind = TileStep::Kind::kIndexed,
                              .out = value,
                              .target = static_cast<int>(program_.indexed.size()) - 1});
    Write(op.out, {value, dtype});
  }

  // `fill`: the dtype an Assign stores a scalar as, which then follows Fill's rule.
  Held Read(const FuseArg& arg, std::optional<DType> fill) {
    if (arg.kind == FuseArgKind::kLocal) return ReadLocal(arg);
    const bool constant = arg.kind == FuseArgKind::kScalar || arg.kind == FuseArgKind::kLiteral;
    const std::optional<DType> filled = constant ? fill : std::nullopt;
    for (const auto& [key, held] : loaded_) {
      if (key.first == arg && key.second == filled) return held;
    }
    const Held held = Load(links_.source(arg), filled);
    loaded_.push_back({{arg, filled}, held});
    return held;
  }

  Held ReadLocal(const FuseArg& arg) {
    const auto it = locals_.find({arg.pos, arg.dtype});
    if (it != locals_.end()) return it->second;
    const std::optional<FuseArg>& stage = links_.stage_local;
    if (stage && stage->pos == arg.pos && stage->dtype == arg.dtype) {
      return locals_[{arg.pos, arg.dtype}] = Load(links_.stage_source, std::nullopt);
    }
    throw Error(fmt::format("fused block reads local {} ({}) before any op writes it", arg.pos,
                            DTypeName(arg.dtype)));
  }

  Held Load(const ArgSource& source, std::optional<DType> fill) {
    TileSource tile{.index = source.index, .domain = DomainOf(source.dtype)};
    DType dtype = source.dtype;
    bool in_scratch = true;
    switch (source.kind) {
      case ArgSource::Kind::kTensor: tile.kind = TileSource::Kind::kTensor; break;
      case ArgSource::Kind::kBroadcastBuffer: tile.kind = TileSource::Kind::kBroadcastBuffer; break;
      case ArgSource::Kind::kBuffer:
        tile.kind = TileSource::Kind::kBuffer;
        in_scratch = false;
        break;
      case ArgSource::Kind::kScalar:
        tile = Constant(source, fill);
        dtype = fill ? *fill : DomainDType(tile.domain);  // MapTiles does not round scalars
        in_scratch = false;
        break;
    }
    program_.sources.push_back(std::move(tile));
    const int value = NewValue(program_.sources.back().domain, in_scratch);
    program_.steps.push_back({.kind = TileStep::Kind::kLoad,
                              .out = value,
                              .target = static_cast<int>(program_.sources.size()) - 1});
    return {value, dtype};
  }

  // A scalar operand enters its domain as MapTiles' Operand::Scalar does; a scalar assigned to
  // a local (a fused Full) is encoded as Fill encodes it.
  TileSource Constant(const ArgSource& source, std::optional<DType> fill) {
    TileSource tile{.kind = TileSource::Kind::kConstant,
                    .domain = DomainOf(fill ? *fill : source.dtype),
                    .scalar = source.scalar_pos,
                    .scalar_dtype = source.dtype,
                    .fill = fill};
    if (tile.domain == Domain::kFloat) {
      tile.index = static_cast<int>(program_.float_constants.size());
      program_.float_constants.emplace_back(kFusedTile);
    } else {
      tile.index = static_cast<int>(program_.int_constants.size());
      program_.int_constants.emplace_back(kFusedTile);
    }
    FillConstant(program_, tile, source.scalar);
    return tile;
  }

  // The value as an unfused kernel would reload it after storing it as `dtype`.
  Held Convert(Held held, DType dtype) {
    const Domain from = program_.values[held.value].domain;
    const bool exact =
        dtype == held.dtype || (DomainOf(dtype) == from && dtype == DomainDType(from));
    if (exact) return held;
    const int value = NewValue(DomainOf(dtype), true);
    program_.steps.push_back({.kind = TileStep::Kind::kConvert,
                              .out = value,
                              .args = {held.value, -1, -1},
                              .dtype = dtype});
    return {value, dtype};
  }

  void Write(const FuseArg& out, Held held) {
    switch (out.kind) {
      case FuseArgKind::kLocal: locals_[{out.pos, out.dtype}] = Convert(held, out.dtype); return;
      case FuseArgKind::kOutput: {
        // A store applies the same rules as the rounding, so it takes the value as it is.
        program_.targets.push_back(
            {.output = static_cast<int>(links_.sink(out).index), .dtype = out.dtype});
        program_.steps.push_back({.kind = TileStep::Kind::kStore,
                                  .args = {held.value, -1, -1},
                                  .target = static_cast<int>(program_.targets.size()) - 1});
        return;
      }
      case FuseArgKind::kMultiBlockLocal: {
        const ArgSink sink = links_.sink(out);
        if (sink.kind != ArgSink::Kind::kBuffer) return;  // no later block takes it over
        program_.steps.push_back({.kind = TileStep::Kind::kKeep,
                                  .args = {Convert(held, out.dtype).value, -1, -1},
                                  .target = sink.index});
        return;
      }
      case FuseArgKind::kInput:
      case FuseArgKind::kScalar:
      case FuseArgKind::kLiteral:
      case FuseArgKind::kInputView: break;
    }
    throw Error(
        fmt::format("a fused op cannot write to argument kind {}", static_cast<int>(out.kind)));
  }

  int NewValue(Domain domain, bool in_scratch) {
    program_.values.push_back({domain, -1});
    in_scratch_.push_back(in_scratch);
    return static_cast<int>(program_.values.size()) - 1;
  }

  // Linear scan: a slot frees at its value's last use, so an op's result may take the slot of
  // an operand it reads for the last time (tile functions allow out == in).
  void AllocateSlots() {
    std::vector<TileValue>& values = program_.values;
    std::vector<int> last_use(values.size(), -1);
    for (size_t s = 0; s < program_.steps.size(); ++s) {
      for (int a : program_.steps[s].args) {
        if (a >= 0) last_use[a] = static_cast<int>(s);
      }
    }
    std::vector<int> free_slots;
    for (size_t s = 0; s < program_.steps.size(); ++s) {
      const TileStep& step = program_.steps[s];
      for (int k = 0; k < kMaxOperands; ++k) {
        const int a = step.args[k];
        const bool repeated = std::find(step.args, step.args + k, a) != step.args + k;
        if (a >= 0 && !repeated && last_use[a] == static_cast<int>(s) && values[a].slot >= 0) {
          free_slots.push_back(values[a].slot);
        }
      }
      if (step.out < 0 || !in_scratch_[step.out]) continue;
      if (free_slots.empty()) free_slots.push_back(program_.num_slots++);
      values[step.out].slot = free_slots.back();
      free_slots.pop_back();
      if (last_use[step.out] < 0) free_slots.push_back(values[step.out].slot);
    }
  }

  // Note [Direct writes]: which steps write into the destination of the kKeep or kStore that
  // reads their value, and which loads a store reads raw.
  void MarkDirectWrites() {
    std::vector<TileStep>& steps = program_.steps;
    std::vector<int> producer(program_.values.size(), -1);
    for (size_t s = 0; s < steps.size(); ++s) {
      if (steps[s].out >= 0) producer[steps[s].out] = static_cast<int>(s);
    }
    for (size_t s = 0; s < steps.size(); ++s) {
      const TileStep& step = steps[s];
      if (step.kind != TileStep::Kind::kKeep && step.kind != TileStep::Kind::kStore) continue;
      const int p = producer[step.args[0]];
      if (p < 0) continue;
      TileStep& from = steps[p];
      if (from.kind == TileStep::Kind::kLoad && step.kind == TileStep::Kind::kStore) {
        program_.sources[from.target].stored_raw = true;
        continue;
      }
      const bool computed =
          from.kind == TileStep::Kind::kCompute || from.kind == TileStep::Kind::kConvert;
      if (!computed || from.into >= 0) continue;
      if (step.kind == TileStep::Kind::kStore && !StoresAsIs(step, from)) continue;
      from.into = static_cast<int>(s);
    }
  }

  // The store takes `from`'s numbers byte for byte (the output is in the value's domain dtype),
  // and no other store of the block writes its output, so writing it early changes no order.
  bool StoresAsIs(const TileStep& store, const TileStep& from) const {
    const OutputTarget& target = program_.targets[store.target];
    if (target.dtype != DomainDType(program_.values[from.out].domain)) return false;
    return std::count_if(program_.targets.begin(), program_.targets.end(),
                         [&](const OutputTarget& t) { return t.output == target.output; }) == 1;
  }

  const BlockLinks& links_;
  BlockProgram program_;
  std::vector<bool> in_scratch_;  // per value: needs a slot (loads may still point elsewhere)
  std::map<std::pair<uint32_t, DType>, Held> locals_;  // by (pos, dtype)
  std::vector<std::pair<std::pair<FuseArg, std::optional<DType>>, Held>> loaded_;
};

}  // namespace

BlockProgram CompileBlock(const FuseBlock& block, const BlockLinks& links) {
  return BlockCompiler(links).Compile(block);
}

void RefillConstants(BlockProgram& program, std::span<const ScalarIr> scalars) {
  for (const TileSource& source : program.sources) {
    if (source.kind != TileSource::Kind::kConstant || source.scalar < 0) continue;
    EMBER_CHECK(static_cast<size_t>(source.scalar) < scalars.size(), "scalar {} of {}",
                source.scalar, scalars.size());
    FillConstant(program, source, scalars[source.scalar]);
  }
}

}  // namespace ember::cpu
