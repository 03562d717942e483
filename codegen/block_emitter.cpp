#include "codegen/block_emitter.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include <ember/error.h>

#include "codegen/cuda_expr.h"
#include "codegen/indexed_read.h"
#include "codegen/reduce_accumulator.h"

namespace ember::codegen {

// Lowers one block at one site: reads, ops and writes into statements over lane arrays.
class KernelContext::BodyWriter {
 public:
  BodyWriter(KernelContext& ctx, uint32_t b, const BlockSite& site)
      : ctx_(ctx), b_(b), site_(site), block_(ctx.trace_.blocks.at(b)) {}

  std::string Write() {
    for (const auto* ops : {&block_.reads, &block_.ops, &block_.writes}) {
      for (const FuseOp& op : *ops) Op(op);
    }
    std::string s = fmt::format("{:{}}{{\n", "", site_.indent);
    s += body_;
    if (!stores_.empty()) {
      // Stores last: an output may take an input's buffer in place (fused_outputs.h).
      if (!site_.guard.empty()) s += Line(fmt::format("if ({}) {{", site_.guard));
      s += stores_;
      if (!site_.guard.empty()) s += Line("}");
    }
    s += fmt::format("{:{}}}}\n", "", site_.indent);
    return s;
  }

 private:
  std::string Line(const std::string& text) const {
    return fmt::format("{:{}}{}\n", "", site_.indent + 2, text);
  }
  void Emit(const std::string& text) { body_ += Line(text); }
  std::string Lanes(const std::string& stmt) const {
    if (site_.lanes == 1) return "{ const int l = 0; " + stmt + " }";
    return fmt::format("_Pragma(\"unroll\") for (int l = 0; l < {}; ++l) {{ {} }}", site_.lanes,
                       stmt);
  }

  int NewValue(bool float_domain) {
    const int v = next_value_++;
    Emit(fmt::format("{} v{}[{}];", DomainType(float_domain), v, site_.lanes));
    domains_.push_back(float_domain);
    return v;
  }
  bool DomainOfValue(int v) const { return domains_.at(v); }

  // --- coordinates and offsets ---
  void NeedCoordinates() {
    if (coordinates_) return;
    coordinates_ = true;
    const Shape& ref = RefShapeRank();
    const int rank = static_cast<int>(ref.size());
    if (rank == 0) return;
    Emit(fmt::format("idx r_ = {};", site_.pos));
    for (int d = rank - 1; d >= 0; --d) {
      const std::string dim =
          ctx_.S({.kind = Slot::Kind::kRefDim, .block = static_cast<int>(b_), .dim = d});
      if (d == 0) {
        Emit(fmt::format("const idx c0 = r_;"));
      } else {
        Emit(fmt::format("const idx c{} = r_ % (idx){}; r_ /= (idx){};", d, dim, dim));
      }
    }
  }
  // Only the rank matters here: shapes are arguments.
  const Shape& RefShapeRank() const { return ctx_.trace_.blocks[b_].shape_ref; }

  std::string Stride(int t, int d) {
    return "(idx)" +
           ctx_.S(
               {.kind = Slot::Kind::kStride, .tensor = t, .block = static_cast<int>(b_), .dim = d});
  }
  std::string LastStride(int t) {
    const int rank = static_cast<int>(RefShapeRank().size());
    return rank == 0 ? "(idx)0" : Stride(t, rank - 1);
  }
  std::string Offset(int t) {
    const auto it = offsets_.find(t);
    if (it != offsets_.end()) return it->second;
    NeedCoordinates();
    const int rank = static_cast<int>(RefShapeRank().size());
    std::string sum = rank == 0 ? "(idx)0" : "";
    for (int d = 0; d < rank; ++d) {
      if (d > 0) sum += " + ";
      sum += fmt::format("c{} * {}", d, Stride(t, d));
    }
    const std::string name = fmt::format("o{}", t);
    Emit(fmt::format("const idx {} = {};", name, sum));
    offsets_[t] = name;
    return name;
  }

  Access AccessOf(int t) const {
    const Access a = ctx_.spec_.access.at(b_).at(t);
    if (a == Access::kNone)
      throw Error(fmt::format("block {} was not planned to touch tensor {}", b_, t));
    return a;
  }

  // --- tensor reads and writes ---
  Held LoadTensor(int t, DType arg_dtype) {
    const DType dtype = ctx_.spec_.dtypes.at(t);
    if (dtype != arg_dtype) {
      throw Error(fmt::format("block {} reads a {} tensor as {}", b_, DTypeName(dtype),
                              DTypeName(arg_dtype)));
    }
    ctx_.used_[t] = true;
    const bool f = FloatDomain(dtype);
    const int v = NewValue(f);
    const std::string ptr = fmt::format("t{}", t);
    const int w = site_.lanes;
    auto vector_load = [&](const std::string& at) {
      Emit(fmt::format("{{ {} raw[{}]; ember_load<{}>({} + {}, raw); {} }}", StorageType(dtype), w,
                       w, ptr, at,
                       Lanes(fmt::format("v{}[l] = {};", v, LoadExpr(dtype, "raw[l]")))));
    };
    switch (AccessOf(t)) {
      case Access::kNone: break;
      case Access::kVector:
        if (w > 1) {
          vector_load(site_.pos);
          break;
        }
        [[fallthrough]];
      case Access::kLinear:
        Emit(Lanes(
            fmt::format("v{}[l] = {};", v, LoadExpr(dtype, ptr + "[" + site_.pos + " + l]"))));
        break;
      case Access::kRowVector:
        if (w > 1) {
          vector_load(Offset(t));
          break;
        }
        [[fallthrough]];
      case Access::kStrided:
        Emit(Lanes(fmt::format(
            "v{}[l] = {};", v,
            LoadExpr(dtype, fmt::format("{}[{} + l * {}]", ptr, Offset(t), LastStride(t))))));
        break;
      case Access::kSplat: {
        const std::string o = Offset(t);
        Emit(Lanes(fmt::format("v{}[l] = {};", v, LoadExpr(dtype, ptr + "[" + o + "]"))));
        break;
      }
      case Access::kUniform:
        Emit(Lanes(fmt::format("v{}[l] = {};", v, LoadExpr(dtype, ptr + "[0]"))));
        break;
      case Access::kIndexed:
        throw Error(fmt::format("block {} reads indexed tensor {} by position", b_, t));
    }
    return {v, dtype};
  }

  // Stores `held` (in its domain) as tensor t's dtype. `now`: at once, else with the stores.
  void StoreTensor(int t, Held held, bool now) {
    const DType dtype = ctx_.spec_.dtypes.at(t);
    ctx_.used_[t] = true;
    ctx_.written_[t] = true;
    const std::string ptr = fmt::format("t{}", t);
    const int w = site_.lanes;
    const std::string value = StoreExpr(dtype, fmt::format("v{}[l]", held.value));
    std::string stmt;
    auto vector_store = [&](const std::string& at) {
      return fmt::format("{{ {} raw[{}]; {} ember_store<{}>({} + {}, raw); }}", StorageType(dtype),
                         w, Lanes("raw[l] = " + value + ";"), w, ptr, at);
    };
    switch (AccessOf(t)) {
      case Access::kVector:
        if (w > 1) {
          stmt = vector_store(site_.pos);
          break;
        }
        [[fallthrough]];
      case Access::kLinear:
        stmt = Lanes(fmt::format("{}[{} + l] = {};", ptr, site_.pos, value));
        break;
      case Access::kRowVector:
        if (w > 1) {
          stmt = vector_store(Offset(t));
          break;
        }
        [[fallthrough]];
      case Access::kStrided:
      case Access::kSplat:
      case Access::kUniform:
        stmt = Lanes(fmt::format("{}[{} + l * {}] = {};", ptr, Offset(t), LastStride(t), value));
        break;
      case Access::kNone: break;
      case Access::kIndexed: throw Error(fmt::format("block {} writes indexed tensor {}", b_, t));
    }
    if (now) {
      Emit(stmt);
    } else {
      stores_ += Line(stmt);
    }
  }

  // --- values ---
  Held Splat(const std::string& scalar, bool float_domain, DType dtype) {
    const int v = NewValue(float_domain);
    Emit(Lanes(fmt::format("v{}[l] = {};", v, scalar)));
    return {v, dtype};
  }

  // The value as an unfused kernel would reload it after storing it as `dtype`.
  Held Convert(Held held, DType dtype) {
    const bool from = DomainOfValue(held.value);
    const bool exact =
        dtype == held.dtype || (FloatDomain(dtype) == from && dtype == DomainDType(from));
    if (exact) return held;
    const int v = NewValue(FloatDomain(dtype));
    Emit(Lanes(fmt::format("v{}[l] = {};", v,
                           LoadExpr(dtype, StoreExpr(dtype, fmt::format("v{}[l]", held.value))))));
    return {v, dtype};
  }

  Held Read(const FuseArg& arg, std::optional<DType> fill) {
    if (arg.kind == FuseArgKind::kLocal) return ReadLocal(arg);
    const bool constant = arg.kind == FuseArgKind::kScalar || arg.kind == FuseArgKind::kLiteral;
    const std::optional<DType> filled = constant ? fill : std::nullopt;
    for (const auto& [key, held] : loaded_) {
      if (key.first == arg && key.second == filled) return held;
    }
    const Held held = Source(arg, filled);
    loaded_.push_back({{arg, filled}, held});
    return held;
  }

  Held ReadLocal(const FuseArg& arg) {
    const auto it = locals_.find({arg.pos, arg.dtype});
    if (it != locals_.end()) return it->second;
    // A stage's local: the reduce result, or the matmul product.
    const FuseTrace& trace = ctx_.trace_;
    if (trace.matmul && b_ == 0 && trace.matmul->output == arg) {
      return locals_[{arg.pos, arg.dtype}] = LoadTensor(ctx_.MatmulTensor(), arg.dtype);
    }
    for (size_t k = 0; k < trace.reduces.size(); ++k) {
      const ReduceStage& stage = trace.reduces[k];
      if (stage.from + 1 == b_ && stage.output.pos == arg.pos && stage.output.dtype == arg.dtype) {
        return locals_[{arg.pos, arg.dtype}] =
                   Splat(fmt::format("rs{}", k), FloatDomain(arg.dtype), arg.dtype);
      }
    }
    throw Error(fmt::format("fused block {} reads local {} ({}) before any op writes it", b_,
                            arg.pos, DTypeName(arg.dtype)));
  }

  Held Source(const FuseArg& arg, std::optional<DType> fill) {
    const FuseResources& r = ctx_.trace_.resources;
    const int views = static_cast<int>(r.inputs.size());
    const int outputs = views + static_cast<int>(r.views.size());
    switch (arg.kind) {
      case FuseArgKind::kInput: return LoadTensor(static_cast<int>(arg.pos), arg.dtype);
      case FuseArgKind::kInputView: return LoadTensor(views + static_cast<int>(arg.pos), arg.dtype);
      case FuseArgKind::kOutput: return LoadTensor(outputs + static_cast<int>(arg.pos), arg.dtype);
      case FuseArgKind::kMultiBlockLocal: return ReadHandover(arg);
      case FuseArgKind::kScalar: {
        if (arg.pos >= r.scalars.size()) throw Error("fused trace refers to a missing scalar");
        const DType dtype = fill ? *fill : r.scalars[arg.pos].dtype;
        const bool f = FloatDomain(dtype);
        const std::string slot = ctx_.S({.kind = fill ? Slot::Kind::kFill : Slot::Kind::kScalar,
                                         .index = static_cast<int>(arg.pos),
                                         .dtype = dtype});
        const std::string text =
            f ? fmt::format("__uint_as_float((unsigned){})", slot) : fmt::format("(i64){}", slot);
        return Splat(text, f, fill ? *fill : DomainDType(f));
      }
      case FuseArgKind::kLiteral: {
        const DType dtype = fill ? *fill : arg.dtype;
        const bool f = FloatDomain(dtype);
        const std::string text =
            f ? fmt::format("{}.0f", arg.pos) : fmt::format("(i64){}", arg.pos);
        return Splat(text, f, fill ? *fill : DomainDType(f));
      }
      case FuseArgKind::kLocal: break;
    }
    throw Error("fused block reads a local as a source");
  }

  Held ReadHandover(const FuseArg& arg) {
    const Handover* h = ctx_.FindHandover(arg.block, arg.pos);
    if (h == nullptr || arg.block >= b_ || h->dtype != arg.dtype) {
      throw Error(
          fmt::format("block {} reads value {} of block {}, which no earlier block hands "
                      "over as {}",
                      b_, arg.pos, arg.block, DTypeName(arg.dtype)));
    }
    const bool f = FloatDomain(arg.dtype);
    switch (h->storage) {
      case Handover::Storage::kRegister:
        return Splat(fmt::format("h{}_{}", h->block, h->pos), f, arg.dtype);
      case Handover::Storage::kShared: {
        if (!ctx_.spec_.full.at(b_)) throw Error("a reduced block reads a full block's value");
        const int v = NewValue(f);
        if (site_.lanes > 1) {
          // One vector access per thread: scalar lanes would be a bank conflict per lane.
          Emit(fmt::format("ember_load<{}>(sh{}_{} + {}, v{});", site_.lanes, h->block, h->pos,
                           site_.row, v));
        } else {
          Emit(Lanes(fmt::format("v{}[l] = sh{}_{}[{} + l];", v, h->block, h->pos, site_.row)));
        }
        return {v, arg.dtype};
      }
      case Handover::Storage::kScratch:
        return LoadTensor(ctx_.FirstScratch() + h->scratch, arg.dtype);
    }
    return {};
  }

  void WriteHandover(const FuseArg& out, Held held) {
    if (out.block != b_)
      throw Error(fmt::format("block {} writes a value of block {}", b_, out.block));
    const Handover* h = ctx_.FindHandover(out.block, out.pos);
    const std::optional<size_t> stage = ctx_.StageFrom(b_);
    const bool folds = stage && ctx_.trace_.reduces[*stage].input.pos == out.pos;
    if (h == nullptr && !folds) return;  // no later block or stage takes it over
    const Held kept = Convert(held, out.dtype);
    if (folds) {
      const ReduceStage& s = ctx_.trace_.reduces[*stage];
      if (s.input.dtype != out.dtype)
        throw Error("a reduce stage reads its input as another dtype");
      const bool f = FloatDomain(out.dtype);
      const int op = ReduceOpNumber(s.kind);
      if (IsExtreme(s.kind)) {
        Emit(Lanes(fmt::format("ember_fold<{}>(acc{}, v{}[l], (idx)({} + l));", op, *stage,
                               kept.value, site_.row)));
      } else {
        Emit(Lanes(fmt::format("ember_fold<{}>(acc{}, ({})v{}[l]);", op, *stage,
                               f ? "double" : "i64", kept.value)));
      }
    }
    if (h == nullptr) return;
    if (h->dtype != out.dtype)
      throw Error(fmt::format("block {} writes value {} as two dtypes", b_, out.pos));
    switch (h->storage) {
      case Handover::Storage::kRegister:
        if (site_.lanes != 1) throw Error("a register handover from a vectorized block");
        Emit(fmt::format("h{}_{} = v{}[0];", h->block, h->pos, kept.value));
        return;
      case Handover::Storage::kShared:
        if (site_.lanes > 1) {
          Emit(fmt::format("ember_store<{}>(sh{}_{} + {}, v{});", site_.lanes, h->block, h->pos,
                           site_.row, kept.value));
        } else {
          Emit(Lanes(
              fmt::format("sh{}_{}[{} + l] = v{}[l];", h->block, h->pos, site_.row, kept.value)));
        }
        return;
      case Handover::Storage::kScratch:
        StoreTensor(ctx_.FirstScratch() + h->scratch, kept, true);
        return;
    }
  }

  void Write(const FuseArg& out, Held held) {
    const FuseResources& r = ctx_.trace_.resources;
    switch (out.kind) {
      case FuseArgKind::kLocal: locals_[{out.pos, out.dtype}] = Convert(held, out.dtype); return;
      case FuseArgKind::kOutput: {
        const int t = static_cast<int>(r.inputs.size() + r.views.size() + out.pos);
        if (out.pos >= r.outputs.size() || ctx_.spec_.dtypes.at(t) != out.dtype) {
          throw Error(fmt::format("block {} cannot write output {} as {}", b_, out.pos,
                                  DTypeName(out.dtype)));
        }
        StoreTensor(t, held, false);
        return;
      }
      case FuseArgKind::kMultiBlockLocal: WriteHandover(out, held); return;
      case FuseArgKind::kInput:
      case FuseArgKind::kScalar:
      case FuseArgKind::kLiteral:
      case FuseArgKind::kInputView: break;
    }
    throw Error(
        fmt::format("a fused op cannot write to argument kind {}", static_cast<int>(out.kind)));
  }

  // Note [Indexed inputs]: the element read (in its tensor's domain), then converted into the
  // out local as an Assign of a read converts it.
  void IndexedOp(const FuseOp& op) {
    for (const FuseArg& arg : op.indexed) {
      const auto t = static_cast<int>(arg.pos);
      if (arg.kind != FuseArgKind::kInput || AccessOf(t) != Access::kIndexed ||
          ctx_.spec_.dtypes.at(t) != arg.dtype) {
        throw Error(fmt::format("block {} was not planned to index input {} as {}", b_, arg.pos,
                                DTypeName(arg.dtype)));
      }
      ctx_.used_[t] = true;
    }
    NeedCoordinates();
    const DType dtype = op.indexed.at(0).dtype;
    const int v = NewValue(FloatDomain(dtype));
    const std::string lane =
        IndexedLane(op, static_cast<int>(RefShapeRank().size()), ctx_.spec_.dtypes,
                    fmt::format("v{}[l]", v), [&](const Slot& slot) { return ctx_.S(slot); });
    Emit(Lanes(lane));
    Write(op.out, {v, dtype});
  }

  void Op(const FuseOp& op) {
    if (FormOf(op.kind) == FuseOpForm::kIndexed) {
      IndexedOp(op);
      return;
    }
    if (op.kind == FuseOpKind::kAssign) {
      Write(op.out, Read(op.args[0], op.out.dtype));
      return;
    }
    const bool by_output =
        op.kind == FuseOpKind::kClamp || op.kind == FuseOpKind::kConditionalAssign;
    const bool f = !IntOnly(op.kind) &&
                   (FloatOnly(op.kind) || FloatDomain(by_output ? op.out.dtype : op.args[0].dtype));
    std::string args[3];
    for (int k = 0; k < FuseOpArity(op.kind); ++k) {
      args[k] =
          fmt::format("v{}[l]", Convert(Read(op.args[k], std::nullopt), DomainDType(f)).value);
    }
    const int v = NewValue(f);
    Emit(Lanes(fmt::format("v{}[l] = {};", v, OpExpr(op.kind, f, args[0], args[1], args[2]))));
    Write(op.out, {v, DomainDType(f)});
  }

  KernelContext& ctx_;
  const uint32_t b_;
  const BlockSite& site_;
  const FuseBlock& block_;
  std::string body_;
  std::string stores_;
  int next_value_ = 0;
  std::vector<bool> domains_;
  bool coordinates_ = false;
  std::map<int, std::string> offsets_;
  std::map<std::pair<uint32_t, DType>, Held> locals_;
  std::vector<std::pair<std::pair<FuseArg, std::optional<DType>>, Held>> loaded_;
};

KernelContext::KernelContext(const FuseTrace& trace, const KernelSpec& spec)
    : trace_(trace),
      spec_(spec),
      handovers_(FindHandovers(
          trace, spec.mode, spec.shared_handover,
          spec.full.empty() ? std::vector<bool>(trace.blocks.size(), true) : spec.full)),
      used_(spec.dtypes.size(), false),
      written_(spec.dtypes.size(), false) {
  for (Handover& h : handovers_) {
    if (h.storage == Handover::Storage::kScratch) h.scratch += spec.scratch_base;
  }
}

std::string KernelContext::S(const Slot& slot) {
  const auto it = std::find(slots_.begin(), slots_.end(), slot);
  const size_t k = it == slots_.end() ? slots_.size() : static_cast<size_t>(it - slots_.begin());
  if (it == slots_.end()) slots_.push_back(slot);
  return fmt::format("p.s[{}]", k);
}

int KernelContext::MatmulTensor() const {
  const FuseResources& r = trace_.resources;
  return static_cast<int>(r.inputs.size() + r.views.size() + r.outputs.size());
}

int KernelContext::FirstScratch() const { return MatmulTensor() + (trace_.matmul ? 1 : 0); }

const Handover* KernelContext::FindHandover(uint32_t block, uint32_t pos) const {
  for (const Handover& h : handovers_) {
    if (h.block == block && h.pos == pos) return &h;
  }
  return nullptr;
}

std::string KernelContext::Block(uint32_t b, const BlockSite& site) {
  return BodyWriter(*this, b, site).Write();
}

std::string KernelContext::Pointers() {
  std::string s;
  for (size_t t = 0; t < used_.size(); ++t) {
    if (!used_[t]) continue;
    const std::string address = S({.kind = Slot::Kind::kAddress, .tensor = static_cast<int>(t)});
    const char* type = StorageType(spec_.dtypes[t]);
    const bool restrict_ok = t < spec_.unaliased.size() && spec_.unaliased[t];
    s += fmt::format("  {}{}* {}t{} = ({}{}*){};\n", written_[t] ? "" : "const ", type,
                     restrict_ok ? "__restrict__ " : "", t, written_[t] ? "" : "const ", type,
                     address);
  }
  return s;
}

std::string KernelContext::SharedArrays(int rows) {
  // Each slot (Note [Shared handover slots], handover.h) holds `rows` rows of L; a row group
  // takes its own (ember_sub). 8-byte numbers first, so every array stays aligned.
  std::map<int, std::string> offsets;
  std::string offset = "0";
  for (bool wide : {true, false}) {
    for (const Handover& h : handovers_) {
      if (h.storage != Handover::Storage::kShared || FloatDomain(h.dtype) == wide) continue;
      if (!offsets.try_emplace(h.slot, offset).second) continue;
      offset += fmt::format(" + L * {}", rows * (wide ? 8 : 4));
    }
  }
  const std::string own = rows > 1 ? " + (idx)ember_sub * L" : "";
  std::string s;
  for (bool wide : {true, false}) {
    for (const Handover& h : handovers_) {
      if (h.storage != Handover::Storage::kShared || FloatDomain(h.dtype) == wide) continue;
      const char* type = DomainType(FloatDomain(h.dtype));
      s += fmt::format("  {}* sh{}_{} = ({}*)(ember_smem + {}){};\n", type, h.block, h.pos, type,
                       offsets.at(h.slot), own);
    }
  }
  return s;
}

std::string KernelContext::RegisterHandovers(int indent) {
  std::string s;
  for (const Handover& h : handovers_) {
    if (h.storage != Handover::Storage::kRegister) continue;
    s += fmt::format("{:{}}{} h{}_{} = 0;\n", "", indent, DomainType(FloatDomain(h.dtype)), h.block,
                     h.pos);
  }
  return s;
}

}  // namespace ember::codegen
