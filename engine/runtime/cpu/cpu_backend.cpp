#include "engine/runtime/cpu/cpu_backend.h"

#include <cstring>
#include <vector>

#include "engine/core/check.h"
#include "engine/ir/op_group.h"
#include "engine/runtime/cpu/cpu_buffer.h"
#include "engine/runtime/cpu/fused_plan_cache.h"
#include "engine/runtime/cpu/fused_run.h"
#include "engine/runtime/cpu/kernels.h"
#include "engine/runtime/cpu/random.h"
#include "engine/runtime/cpu/strided.h"
#include "engine/runtime/cpu/thread_pool.h"

namespace ember::cpu {
namespace {

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(int threads) : pool_(threads) { ConfigureBlasThreads(); }

  std::string_view name() const override { return "cpu"; }
  void Execute(const OperationIr& op, HandleContainer& handles) override;
  std::vector<TensorHandle> ExecuteFused(const FusedLaunch& launch) override {
    return RunFused(launch, pool_, plans_);
  }
  TensorHandle FromHost(std::span<const std::byte> bytes, const Shape& shape, DType dtype) override;
  void ToHost(const TensorHandle& handle, std::span<std::byte> out) override;
  std::shared_ptr<Buffer> Borrow(void* data, size_t bytes,
                                 std::shared_ptr<const void> owner) override {
    return std::make_shared<CpuBuffer>(static_cast<std::byte*>(data), bytes, std::move(owner));
  }
  void Seed(uint64_t seed) override { generator_.Seed(seed); }
  void Synchronize() override {}

 private:
  ThreadPool pool_;
  RandomGenerator generator_;
  FusedPlanCache plans_;
};

void CpuBackend::Execute(const OperationIr& op, HandleContainer& handles) {
  // Every input first (TakeInputs, engine/runtime/backend.h), so last uses free their buffers.
  std::vector<TensorHandle> in = TakeInputs(op, handles);
  auto x = [&](size_t i) {
    return Operand::Tensor(in[i], op.inputs[i].status == TensorStatus::kReadWrite);
  };
  auto s = [&](size_t i) { return Operand::Scalar(op.scalars[i]); };
  const TensorIr& out = op.kind == OpKind::kDrop ? op.inputs[0] : op.outputs[0];
  ThreadPool& pool = pool_;

  // The kernel of the op's fused op, over its inputs and then its scalars.
  auto elementwise = [&] {
    EMBER_DCHECK(in.size() + op.scalars.size() <= kMaxOperands, "{}: too many operands",
                 OpName(op));
    Operand operands[kMaxOperands];
    size_t n = 0;
    for (size_t i = 0; i < in.size(); ++i) operands[n++] = x(i);
    for (size_t i = 0; i < op.scalars.size(); ++i) operands[n++] = s(i);
    return Elementwise(FusedKindOf(op.kind), std::span(operands, n), out, pool);
  };

  TensorHandle result;
  switch (GroupOf(op.kind)) {
    // The generic groups are their fused op over their operands (op_list.def, Group column).
    case OpGroup::kUnary:
    case OpGroup::kBinary:
    case OpGroup::kScalar: result = elementwise(); break;
    case OpGroup::kSpecial:
      switch (*SpecialOf(op.kind)) {
        case SpecialOp::kInit: return;  // registered before the op was queued
        case SpecialOp::kDrop: handles.Free(op.inputs[0]); return;
        case SpecialOp::kRandom: result = Random(op.distribution, out, generator_, pool); break;
        case SpecialOp::kZeros: result = Fill(ScalarIr::Int(0), out, pool); break;
        case SpecialOp::kOnes: result = Fill(ScalarIr::Int(1), out, pool); break;
        case SpecialOp::kFull: result = Fill(op.scalars[0], out, pool); break;
        case SpecialOp::kClamp:
        case SpecialOp::kMaskWhere:
        case SpecialOp::kMaskFill: result = elementwise(); break;
        case SpecialOp::kCast: result = Cast(x(0), out, pool); break;
        case SpecialOp::kReshape: result = Reshape(in[0], out.shape, pool); break;
        case SpecialOp::kSwapDims: result = SwapDims(in[0], op.dims[0], op.dims[1]); break;
        case SpecialOp::kPermute: result = Permute(in[0], op.dims); break;
        case SpecialOp::kSlice: result = SliceView(in[0], op.ranges); break;
        case SpecialOp::kExpand: result = Expand(in[0], out.shape); break;
        case SpecialOp::kCat: result = Cat(in, op.dims[0], out, pool); break;
        case SpecialOp::kGather: result = Gather(in[0], op.dims[0], in[1], out, pool); break;
        case SpecialOp::kSelect: result = Select(in[0], op.dims[0], in[1], out, pool); break;
        case SpecialOp::kSumDim:
          result = ReduceDim(ReduceOp::kSum, in[0], op.dims[0], out, pool);
          break;
        case SpecialOp::kMeanDim:
          result = ReduceDim(ReduceOp::kMean, in[0], op.dims[0], out, pool);
          break;
        case SpecialOp::kProdDim:
          result = ReduceDim(ReduceOp::kProd, in[0], op.dims[0], out, pool);
          break;
        case SpecialOp::kMaxDim:
          result = ReduceDim(ReduceOp::kMax, in[0], op.dims[0], out, pool);
          break;
        case SpecialOp::kMinDim:
          result = ReduceDim(ReduceOp::kMin, in[0], op.dims[0], out, pool);
          break;
        case SpecialOp::kArgMax:
          result = ReduceDim(ReduceOp::kArgMax, in[0], op.dims[0], out, pool);
          break;
        case SpecialOp::kArgMin:
          result = ReduceDim(ReduceOp::kArgMin, in[0], op.dims[0], out, pool);
          break;
        case SpecialOp::kSum: result = ReduceAll(ReduceOp::kSum, in[0], out, pool); break;
        case SpecialOp::kMean: result = ReduceAll(ReduceOp::kMean, in[0], out, pool); break;
        case SpecialOp::kMatmul: result = Matmul(in[0], in[1], out, pool); break;
      }
      break;
  }
  EMBER_DCHECK(result.shape == out.shape && result.dtype == out.dtype,
               "{}: kernel output does not match the op's output tensor", OpName(op));
  in.clear();  // release last-use inputs before the output is published
  handles.Register(out.id, std::move(result));
}

TensorHandle CpuBackend::FromHost(std::span<const std::byte> bytes, const Shape& shape,
                                  DType dtype) {
  TensorHandle handle = NewHandle(shape, dtype);
  EMBER_CHECK(bytes.size() == static_cast<size_t>(handle.NumElements()) * DTypeSize(dtype),
              "FromHost: {} bytes for {} elements of {}", bytes.size(), handle.NumElements(),
              DTypeName(dtype));
  if (!bytes.empty()) std::memcpy(ElementData(handle), bytes.data(), bytes.size());
  return handle;
}

void CpuBackend::ToHost(const TensorHandle& handle, std::span<std::byte> out) {
  const int64_t n = handle.NumElements();
  EMBER_CHECK(out.size() == static_cast<size_t>(n) * DTypeSize(handle.dtype),
              "ToHost: {} bytes for {} elements of {}", out.size(), n, DTypeName(handle.dtype));
  const StridedView view = BroadcastView(handle, handle.shape);
  const int size = DTypeSize(handle.dtype);
  pool_.ParallelFor(n, kParallelGrain, [&](int64_t begin, int64_t end) {
    CopyElements(view, begin, end - begin, out.data() + begin * size);
  });
}

}  // namespace

std::unique_ptr<Backend> MakeCpuBackend(int threads) {
  return std::make_unique<CpuBackend>(threads);
}

}  // namespace ember::cpu
