#include "engine/runtime/cuda/backend/cuda_backend.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <ember/error.h>

#include "engine/core/check.h"
#include "engine/core/config.h"
#include "engine/core/elapsed.h"
#include "engine/core/log.h"
#include "engine/ir/op_group.h"
#include "engine/runtime/cpu/fused_outputs.h"
#include "engine/runtime/cpu/kernels.h"
#include "engine/runtime/cuda/backend/cuda_ops.h"
#include "engine/runtime/cuda/backend/device_context.h"
#include "engine/runtime/cuda/backend/matmul_epilogue.h"
#include "engine/runtime/cuda/backend/trace_launcher.h"
#include "engine/runtime/cuda/driver_api.h"
#include "engine/runtime/cuda/nvrtc_api.h"

namespace ember::cuda {
namespace {

ReduceStage::Kind ReduceKindOf(OpKind kind) {
  switch (kind) {
    case OpKind::kSumDim:
    case OpKind::kSum: return ReduceStage::Kind::kSum;
    case OpKind::kMeanDim:
    case OpKind::kMean: return ReduceStage::Kind::kMean;
    case OpKind::kProdDim: return ReduceStage::Kind::kProd;
    case OpKind::kMaxDim: return ReduceStage::Kind::kMax;
    case OpKind::kMinDim: return ReduceStage::Kind::kMin;
    case OpKind::kArgMax: return ReduceStage::Kind::kArgMax;
    case OpKind::kArgMin: return ReduceStage::Kind::kArgMin;
    default: break;
  }
  throw Error(fmt::format("{} is not a reduction", OpKindName(kind)));
}

// The stream of calls that come before any SetStream (a backend used directly, as the tests
// do); StreamIds start at 1 (engine/stream/stream_id.cpp).
constexpr uint64_t kNoStream = 0;

class CudaBackend final : public Backend {
 public:
  explicit CudaBackend(int ordinal) : start_(std::chrono::steady_clock::now()) {
    // cuBLASLt loads while the context is created (blas_warm_up.h).
    auto warm_up = std::make_unique<BlasWarmUp>();
    ctx_.device = CudaDevice::Open(ordinal);
    ScopedContext scope(*ctx_.device);
    ctx_.streams = std::make_unique<StreamSet>(ctx_.device);
    ctx_.stream = &ctx_.streams->Get(kNoStream);
    ctx_.order = std::make_unique<StreamOrder>(ctx_.device);
    ctx_.allocator = std::make_shared<DeviceAllocator>(ctx_.device);
    ctx_.staging = std::make_unique<PinnedStaging>(ctx_.device);
    // Loads NVRTC for its version when the plan database's environment has not already.
    ctx_.kernels = std::make_unique<KernelCache>(ctx_.device);
    warm_up->Begin(ctx_.allocator, ctx_.stream->get());
    ctx_.blas_warm_up = std::move(warm_up);
  }

  ~CudaBackend() override {
    try {
      ScopedContext scope(*ctx_.device);
      ctx_.streams->SynchronizeAll();
    } catch (const std::exception&) {
      // The process may be exiting with the driver gone; nothing is left to wait for.
    }
    // The streams go with the backend; borrowed memory still held (an export) goes at once.
    ctx_.allocator->StreamsGone();
  }

  std::string_view name() const override { return "cuda"; }
  // Each entry point that reaches the driver runs under Guarded (Note [Lost context]).
  void Execute(const OperationIr& op, HandleContainer& handles) override {
    ctx_.allocator->CollectBorrowed();  // Note [Borrowed device memory]: under the server's lock
    Guarded([&] { ExecuteOp(op, handles); });
    if (first_op_ms_ == 0 && op.kind != OpKind::kInit && op.kind != OpKind::kDrop) NoteFirstOp();
  }
  std::vector<TensorHandle> ExecuteFused(const FusedLaunch& launch) override {
    ctx_.allocator->CollectBorrowed();
    std::vector<TensorHandle> outputs = Guarded([&] { return ExecuteTrace(launch); });
    if (first_op_ms_ == 0) NoteFirstOp();
    return outputs;
  }
  TensorHandle FromHost(std::span<const std::byte> bytes, const Shape& shape,
                        DType dtype) override {
    return Guarded([&] { return Upload(bytes, shape, dtype); });
  }
  void ToHost(const TensorHandle& handle, std::span<std::byte> out) override {
    Guarded([&] { Download(handle, out); });
  }
  // Note [Borrowed device memory] (engine/runtime/cuda/borrowed_owners.h): the memory is
  // ready for the current stream, which its producer ordered its writes before.
  std::shared_ptr<Buffer> Borrow(void* data, size_t bytes,
                                 std::shared_ptr<const void> owner) override {
    return std::make_shared<CudaBuffer>(ctx_.allocator, reinterpret_cast<CUdeviceptr>(data), bytes,
                                        ctx_.stream->raw(), std::move(owner));
  }
  uintptr_t NativeStream() override { return reinterpret_cast<uintptr_t>(ctx_.stream->raw()); }
  void Seed(uint64_t seed) override { ops_.Seed(seed); }
  void SetStream(uint64_t stream) override {
    Guarded([&] { UseStream(stream); });
  }
  void ReleaseStream(uint64_t stream) override;
  KernelCounters kernel_counters() const override {
    const KernelCache::Stats k = ctx_.kernels->stats();
    const LaunchRecords::Counters records = launcher_.record_counters();
    return {.compiled = k.compiled,
            .compile_ms = k.compile_ms,
            .loaded_from_shm = k.loaded_from_shm,
            .loaded_from_sqlite = k.loaded_from_sqlite,
            .rebuilt = k.rebuilt,
            .register_capped = launcher_.register_capped(),
            .record_hits = records.hits,
            .record_misses = records.misses,
            .record_evictions = records.evictions,
            .kernel_load_ms = k.load_ms,
            .kernel_source_ms = launcher_.source_ms(),
            .libraries_ms = ctx_.blas_warm_up != nullptr ? ctx_.blas_warm_up->work_ms() : 0,
            .first_op_ms = first_op_ms_,
            .graphs = launcher_.graphs().counters()};
  }
  bool compiles_kernels() const override { return true; }
  void UseKernelStore(KernelStore* store) override { ctx_.kernels->SetStore(store); }
  void UseFactStore(DeviceFactStore* store) override { epilogues_.UseFacts(store); }
  void UseRecipeStore(GraphRecipeStore* store) override { launcher_.graphs().UseStore(store); }
  void Synchronize() override {
    Guarded([&] {
      ScopedContext scope(*ctx_.device);
      ctx_.stream->Synchronize();
    });
    ctx_.allocator->CollectBorrowed();  // borrowed memory this stream was the last to read
  }

 private:
  // Note [Lost context]
  // Some CUDA errors end the context: a kernel that faulted (an illegal address, a trap), a
  // timeout, a hardware error (LosesContext, driver_api.h). Every later call in that context
  // fails, the device memory of every tensor on it is gone, and only a new process (or
  // destroying the primary context that the process's other CUDA users share) recovers. So
  // the backend cannot fall back the way it does for a kernel that fails to compile or launch
  // (the caller then runs the ops unfused): it remembers the first such error and from then on
  // every call throws an ember::Error that names it and says what to do, instead of a new
  // driver error per op that hides the cause.
  template <typename F>
  auto Guarded(F&& body) -> decltype(body()) {
    if (!lost_.empty()) throw Error(lost_);
    try {
      return body();
    } catch (const CudaError& e) {
      if (!LosesContext(e.result())) throw;
      lost_ = fmt::format(
          "cuda:{} is lost: {}. CUDA cannot recover a context after this error: the tensors on "
          "the device are gone and every later operation on it fails; restart the process",
          ctx_.device->ordinal(), e.what());
      Warn("cuda-context-lost", lost_);
      throw Error(lost_);
    }
  }

  void ExecuteOp(const OperationIr& op, HandleContainer& handles);
  std::vector<TensorHandle> ExecuteTrace(const FusedLaunch& launch);
  TensorHandle Upload(std::span<const std::byte> bytes, const Shape& shape, DType dtype);
  void Download(const TensorHandle& handle, std::span<std::byte> out);
  void UseStream(uint64_t stream);
  TensorHandle ViewOf(const FuseView& view, const TensorHandle& input, const Shape& shape);

  // The start, for KernelCounters: when the constructor began, and how long after it the
  // first op or trace other than Init and Drop was queued (0 until then).
  void NoteFirstOp() { first_op_ms_ = std::max(MsSince(start_), 1e-6); }

  const std::chrono::steady_clock::time_point start_;
  double first_op_ms_ = 0;
  DeviceContext ctx_;
  std::optional<uint64_t> current_ = kNoStream;  // the ember stream ctx_.stream serves
  std::string lost_;  // Note [Lost context]: why the context is unusable, once it is
  TraceLauncher launcher_{ctx_,
                          GlobalConfig().launch_records,
                          {.enabled = GlobalConfig().graphs,
                           .after = GlobalConfig().graph_after,
                           .capacity = GlobalConfig().graph_cache}};
  CudaOps ops_{ctx_, launcher_};
  MatmulEpilogues epilogues_{ctx_, ops_, launcher_};
};

void CudaBackend::UseStream(uint64_t stream) {
  if (current_ == stream) return;
  ScopedContext scope(*ctx_.device);  // a new CUDA stream is created in the device's context
  // The window held on the old stream is submitted before any other stream can wait for it
  // (Note [Launch windows]).
  launcher_.graphs().EndWindow(LaunchGraphs::WindowEnd::kStreamSwitch);
  ctx_.stream = &ctx_.streams->Get(stream);
  current_ = stream;
}

void CudaBackend::ReleaseStream(uint64_t stream) {
  if (stream == kNoStream) return;
  ctx_.streams->Release(stream);
  // The CUDA stream stays valid (StreamSet keeps it), so a released current stream may still
  // finish the call it is in; the next SetStream picks a stream again.
  if (current_ == stream) current_.reset();
}

void CudaBackend::ExecuteOp(const OperationIr& op, HandleContainer& handles) {
  ScopedContext scope(*ctx_.device);
  std::vector<TensorHandle> in = TakeInputs(op, handles);
  for (const TensorHandle& input : in) ctx_.Use(input);
  const TensorIr& out = op.kind == OpKind::kDrop ? op.inputs[0] : op.outputs[0];
  TensorHandle result;
  switch (GroupOf(op.kind)) {
    // The generic groups are their fused op over their operands (op_list.def, Group column).
    case OpGroup::kUnary:
    case OpGroup::kBinary:
    case OpGroup::kScalar: result = ops_.Elementwise(op, in); break;
    case OpGroup::kSpecial:
      switch (*SpecialOf(op.kind)) {
        case SpecialOp::kInit: return;
        case SpecialOp::kDrop: handles.Free(op.inputs[0]); return;
        case SpecialOp::kRandom: result = ops_.Random(op.distribution, out); break;
        case SpecialOp::kZeros:
        case SpecialOp::kOnes:
        case SpecialOp::kFull:
        case SpecialOp::kClamp:
        case SpecialOp::kMaskWhere:
        case SpecialOp::kMaskFill: result = ops_.Elementwise(op, in); break;
        case SpecialOp::kCast:
          // As the CPU: a cast to the same dtype shares the input's buffer.
          result = in[0].dtype == out.dtype ? in[0] : ops_.Elementwise(op, in);
          break;
        case SpecialOp::kReshape: result = ops_.Reshape(in[0], out.shape); break;
        case SpecialOp::kSwapDims: result = cpu::SwapDims(in[0], op.dims[0], op.dims[1]); break;
        case SpecialOp::kPermute: result = cpu::Permute(in[0], op.dims); break;
        case SpecialOp::kSlice: result = cpu::SliceView(in[0], op.ranges); break;
        case SpecialOp::kExpand: result = cpu::Expand(in[0], out.shape); break;
        case SpecialOp::kCat: result = ops_.Cat(in, op.dims[0], out); break;
        case SpecialOp::kGather: result = ops_.Index(false, in[0], op.dims[0], in[1], out); break;
        case SpecialOp::kSelect: result = ops_.Index(true, in[0], op.dims[0], in[1], out); break;
        case SpecialOp::kSumDim:
        case SpecialOp::kMeanDim:
        case SpecialOp::kProdDim:
        case SpecialOp::kMaxDim:
        case SpecialOp::kMinDim:
        case SpecialOp::kArgMax:
        case SpecialOp::kArgMin:
          result = ops_.ReduceDim(ReduceKindOf(op.kind), in[0], op.dims[0], out);
          break;
        case SpecialOp::kSum:
        case SpecialOp::kMean: result = ops_.ReduceAll(ReduceKindOf(op.kind), in[0], out); break;
        case SpecialOp::kMatmul: result = ops_.Matmul(in[0], in[1], out); break;
      }
      break;
  }
  EMBER_DCHECK(result.shape == out.shape && result.dtype == out.dtype,
               "{}: kernel output does not match the op's output tensor", OpName(op));
  in.clear();
  handles.Register(out.id, std::move(result));
}

TensorHandle CudaBackend::ViewOf(const FuseView& view, const TensorHandle& input,
                                 const Shape& shape) {
  if (view.kind == FuseView::Kind::kSwapDims) {
    TensorHandle swapped = cpu::SwapDims(input, view.dim1, view.dim2);
    if (swapped.shape != shape) {
      throw Error(fmt::format("fused swap_dims of {} to {}", input.shape, shape));
    }
    return swapped;
  }
  if (NumElements(shape) != input.NumElements()) {
    throw Error(fmt::format("fused reshape of {} to {}", input.shape, shape));
  }
  return ops_.Reshape(input, shape);
}

std::vector<TensorHandle> CudaBackend::ExecuteTrace(const FusedLaunch& launch) {
  if (launch.trace == nullptr) throw Error("fused launch without a trace");
  ScopedContext scope(*ctx_.device);
  const FuseTrace& trace = *launch.trace;
  const FuseResources& r = trace.resources;
  if (launch.inputs.size() != r.inputs.size() || launch.outputs.size() != r.outputs.size() ||
      launch.view_shapes.size() != r.views.size() ||
      launch.block_shapes.size() != trace.blocks.size()) {
    throw Error("fused launch does not match its trace");
  }
  for (const TensorHandle& in : launch.inputs) {
    if (in.buffer == nullptr || in.buffer->backend() != "cuda") {
      throw Error("a fused input is not a CUDA tensor");
    }
  }
  // Inputs (and so the views of them and in-place outputs onto them) are ready on this stream.
  for (const TensorHandle& in : launch.inputs) ctx_.Use(in);
  const std::vector<int> in_place = cpu::ChooseInPlace(launch);
  const int matmul_output = cpu::ChooseMatmulOutput(launch, in_place);
  std::vector<TensorHandle> views;
  for (size_t k = 0; k < r.views.size(); ++k) {
    const FuseView& view = r.views[k];
    if (view.input >= launch.inputs.size()) throw Error("a fused view of a missing input");
    views.push_back(ViewOf(view, launch.inputs[view.input], launch.view_shapes[k]));
  }
  std::vector<TensorHandle> outputs;
  for (size_t o = 0; o < launch.outputs.size(); ++o) {
    const TensorIr& out = launch.outputs[o];
    if (in_place[o] >= 0) {
      TensorHandle handle = launch.inputs[in_place[o]];
      handle.strides = TensorHandle::ContiguousStrides(out.shape);
      outputs.push_back(std::move(handle));
    } else {
      outputs.push_back(ctx_.NewHandle(out.shape, out.dtype));
    }
  }
  if (trace.matmul) {
    epilogues_.Run(launch, views, outputs, in_place, matmul_output);
    return outputs;
  }
  launcher_.Run(trace, {.inputs = launch.inputs,
                        .views = views,
                        .outputs = outputs,
                        .scalars = launch.scalars,
                        .block_shapes = launch.block_shapes,
                        .serial = launch.trace_serial});
  return outputs;
}

TensorHandle CudaBackend::Upload(std::span<const std::byte> bytes, const Shape& shape,
                                 DType dtype) {
  ScopedContext scope(*ctx_.device);
  TensorHandle handle = ctx_.NewHandle(shape, dtype);
  EMBER_CHECK(bytes.size() == static_cast<size_t>(handle.NumElements()) * DTypeSize(dtype),
              "FromHost: {} bytes for {} elements of {}", bytes.size(), handle.NumElements(),
              DTypeName(dtype));
  if (!bytes.empty()) ctx_.staging->Upload(bytes, AddressOf(handle), ctx_.stream->get());
  return handle;
}

void CudaBackend::Download(const TensorHandle& handle, std::span<std::byte> out) {
  ScopedContext scope(*ctx_.device);
  EMBER_CHECK(out.size() == static_cast<size_t>(handle.NumElements()) * DTypeSize(handle.dtype),
              "ToHost: {} bytes for {} elements of {}", out.size(), handle.NumElements(),
              DTypeName(handle.dtype));
  if (out.empty()) return;
  ctx_.Use(handle);
  const TensorHandle dense = ops_.Contiguous(handle);
  ctx_.staging->Download(AddressOf(dense), out, ctx_.stream->get(StreamWork::kWait));
}

}  // namespace

std::unique_ptr<Backend> MakeCudaBackend(int ordinal) {
  return std::make_unique<CudaBackend>(ordinal);
}

}  // namespace ember::cuda
