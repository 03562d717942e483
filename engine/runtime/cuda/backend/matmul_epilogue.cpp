#include "engine/runtime/cuda/backend/matmul_epilogue.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include <ember/error.h>

#include "engine/core/log.h"
#include "engine/runtime/cuda/driver_api.h"

namespace ember::cuda {
namespace {

using codegen::BlasEpilogueKind;
using codegen::BlasEpilogueMatch;
using codegen::ReluRule;

struct Counters {
  std::atomic<uint64_t> matched{0}, refused{0}, measured{0}, chose_cublaslt{0};
  std::atomic<uint64_t> runs_cublaslt{0}, runs_kernel{0};
};
Counters& GlobalCounters() {
  static Counters counters;
  return counters;
}

constexpr int kNoOverride = -1;
std::atomic<int> g_mode_override{kNoOverride};

EpilogueMode ModeFromEnv() {
  const char* v = std::getenv("EMBER_CUDA_MATMUL_EPILOGUE");
  if (v == nullptr || *v == '\0' || std::strcmp(v, "auto") == 0) return EpilogueMode::kAuto;
  if (std::strcmp(v, "cublaslt") == 0) return EpilogueMode::kCublasLt;
  if (std::strcmp(v, "kernel") == 0) return EpilogueMode::kKernel;
  Warn("matmul-epilogue-env",
       fmt::format("EMBER_CUDA_MATMUL_EPILOGUE={} is not auto, cublaslt or kernel; using auto", v));
  return EpilogueMode::kAuto;
}

MatmulEpilogue BlasKind(BlasEpilogueKind kind) {
  switch (kind) {
    case BlasEpilogueKind::kNone: return MatmulEpilogue::kNone;
    case BlasEpilogueKind::kBias: return MatmulEpilogue::kBias;
    case BlasEpilogueKind::kRelu: return MatmulEpilogue::kRelu;
    case BlasEpilogueKind::kBiasRelu: return MatmulEpilogue::kBiasRelu;
  }
  return MatmulEpilogue::kNone;
}

bool HasRelu(BlasEpilogueKind kind) {
  return kind == BlasEpilogueKind::kRelu || kind == BlasEpilogueKind::kBiasRelu;
}

std::string RuleText(const ReluRule& r) {
  return fmt::format("NaN -> {}, -0 -> {}", r.keeps_nan ? "NaN" : "+0",
                     r.keeps_negative_zero ? "-0" : "+0");
}

// A CUDA event for timing on a stream, destroyed with the scope.
class Event {
 public:
  Event() { EMBER_CU(cuEventCreate, &event_, CU_EVENT_DEFAULT); }
  ~Event() { EMBER_CU_WARN(cuEventDestroy, event_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  void Record(CUstream stream) { EMBER_CU(cuEventRecord, event_, stream); }
  CUevent get() const { return event_; }

 private:
  CUevent event_ = nullptr;
};

double ElapsedMs(const Event& from, const Event& to) {
  float ms = 0;
  EMBER_CU(cuEventElapsedTime, &ms, from.get(), to.get());
  return ms;
}

}  // namespace

void SetMatmulEpilogueModeForTesting(std::optional<EpilogueMode> mode) {
  g_mode_override.store(mode ? static_cast<int>(*mode) : kNoOverride);
}

EpilogueMode CurrentMatmulEpilogueMode() {
  const int forced = g_mode_override.load();
  if (forced != kNoOverride) return static_cast<EpilogueMode>(forced);
  static const EpilogueMode from_env = ModeFromEnv();
  return from_env;
}

EpilogueCounters MatmulEpilogueCounters() {
  const Counters& c = GlobalCounters();
  return {.matched = c.matched.load(),
          .refused = c.refused.load(),
          .measured = c.measured.load(),
          .chose_cublaslt = c.chose_cublaslt.load(),
          .runs_cublaslt = c.runs_cublaslt.load(),
          .runs_kernel = c.runs_kernel.load()};
}

MatmulEpilogues::MatmulEpilogues(DeviceContext& ctx, CudaOps& ops, TraceLauncher& launcher,
                                 EpilogueChoiceStore* store)
    : ctx_(ctx), ops_(ops), launcher_(launcher), store_(store != nullptr ? store : &own_store_) {}

void MatmulEpilogues::RunKernel(const FusedLaunch& launch, std::span<const TensorHandle> views,
                                std::span<const TensorHandle> outputs, int matmul_output) {
  const FuseTrace& trace = *launch.trace;
  const MatmulStage& m = *trace.matmul;
  const TensorIr out{.shape = launch.block_shapes[0], .dtype = m.output.dtype};
  const TensorHandle* into = matmul_output >= 0 ? &outputs[matmul_output] : nullptr;
  const TensorHandle product = ops_.Matmul(launch.inputs[m.lhs], launch.inputs[m.rhs], out, into);
  launcher_.Run(trace, {.inputs = launch.inputs,
                        .views = views,
                        .outputs = outputs,
                        .matmul = &product,
                        .scalars = launch.scalars,
                        .block_shapes = launch.block_shapes,
                        .serial = launch.trace_serial});
}

void MatmulEpilogues::RunCublasLt(const FusedLaunch& launch, const BlasEpilogueMatch& match,
                                  std::span<const TensorHandle> outputs) {
  const MatmulStage& m = *launch.trace->matmul;
  const TensorIr out{.shape = launch.block_shapes[0], .dtype = m.output.dtype};
  BlasEpilogue epilogue{.kind = BlasKind(match.kind), .alpha = match.alpha};
  if (match.bias_input >= 0) {
    epilogue.bias = AddressOf(launch.inputs[static_cast<size_t>(match.bias_input)]);
  }
  ops_.Matmul(launch.inputs[m.lhs], launch.inputs[m.rhs], out, &outputs[match.output], epilogue);
}

EpilogueChoice MatmulEpilogues::Measure(const FusedLaunch& launch,
                                        std::span<const TensorHandle> views,
                                        const BlasEpilogueMatch& match,
                                        std::span<const TensorHandle> outputs, int matmul_output,
                                        std::string* cublaslt_failure) {
  std::vector<TensorHandle> scratch;
  for (const TensorIr& out : launch.outputs)
    scratch.push_back(ctx_.NewHandle(out.shape, out.dtype));
  bool cublaslt_ok = true;
  try {
    RunCublasLt(launch, match, scratch);  // warm: the heuristic and the plan
  } catch (const Error& e) {
    // cuBLASLt refuses before queuing anything (no algorithm for this epilogue).
    cublaslt_ok = false;
    *cublaslt_failure = e.what();
  }
  if (!cublaslt_ok) {
    RunKernel(launch, views, outputs, matmul_output);
    return {.variant = EpilogueVariant::kKernel};
  }
  RunKernel(launch, views, scratch, matmul_output);  // warm: compiles the epilogue kernel
  Event start, middle, end;
  start.Record(ctx_.stream->get());
  RunCublasLt(launch, match, scratch);
  middle.Record(ctx_.stream->get());
  RunKernel(launch, views, outputs, matmul_output);
  end.Record(ctx_.stream->get());
  EMBER_CU(cuEventSynchronize, end.get());
  EpilogueChoice choice{.cublaslt_ms = ElapsedMs(start, middle),
                        .kernel_ms = ElapsedMs(middle, end)};
  choice.variant =
      choice.cublaslt_ms < choice.kernel_ms ? EpilogueVariant::kCublasLt : EpilogueVariant::kKernel;
  return choice;
}

codegen::ReluRule MatmulEpilogues::BlasReluRule() {
  if (blas_relu_) return *blas_relu_;
  // Probed beside the device's start (blas_warm_up.h), waited for when it still runs; probed
  // now when it could not run. Never skipped for the generated kernel while the probe runs:
  // which variant a matmul + relu gets would then depend on timing, and a warm process would
  // compile a kernel its cold run never needed (GPU suite, a731495: 93 ms on an H100, more
  // than the probe's wait).
  std::optional<ReluProbeReadings> probed;
  if (ctx_.blas_warm_up != nullptr) {
    ctx_.blas_warm_up->Wait();
    probed = ctx_.blas_warm_up->Relu();
  }
  if (!probed) probed = ProbeBlasRelu(ctx_.Blas(), *ctx_.allocator, ctx_.stream->get());
  const float got[3] = {probed->nan_in, probed->two, probed->minus_three};
  const float got_zero[1] = {probed->minus_zero};
  ReluRule rule{.keeps_nan = std::isnan(got[0]), .keeps_negative_zero = std::signbit(got_zero[0])};
  const bool plain = (std::isnan(got[0]) || got[0] == 0.0f) && got[1] == 2.0f && got[2] == 0.0f &&
                     !std::signbit(got[2]) && got_zero[0] == 0.0f;
  if (!plain) {
    // Not a relu at all on this device: no chain may use it.
    Warn("cublaslt-relu-probe",
         fmt::format("cuBLASLt's relu epilogue gave {}, {}, {} for relu(NaN), relu(2), relu(-3): "
                     "not a relu; matmul + relu runs the generated epilogue kernel",
                     got[0], got[1], got[2]));
    relu_usable_ = false;
  }
  LogFusion(LogLevel::kMedium, [&] {
    return fmt::format("[cuda] cuBLASLt relu epilogue on {}: {}", ctx_.device->name(),
                       RuleText(rule));
  });
  blas_relu_ = rule;
  return rule;
}

EpilogueShapeClass MatmulEpilogues::ClassOf(const FusedLaunch& launch,
                                            const BlasEpilogueMatch& match) {
  if (device_key_.empty()) {
    device_key_ = fmt::format("{}/{}/cublasLt-{}", ctx_.device->name(), ctx_.device->arch(),
                              CublasLtVersion());
  }
  const Shape& o = launch.block_shapes[0];
  const Shape& lhs = launch.inputs[launch.trace->matmul->lhs].shape;
  int64_t batch = 1;
  for (size_t d = 0; d + 2 < o.size(); ++d) batch *= o[d];
  return {.device = device_key_,
          .dtype = launch.trace->matmul->output.dtype,
          .kind = match.kind,
          .alpha = match.has_alpha,
          .m_log2 = CeilLog2(o[o.size() - 2]),
          .n_log2 = CeilLog2(o.back()),
          .k_log2 = CeilLog2(lhs.back()),
          .batch_log2 = CeilLog2(batch)};
}

void MatmulEpilogues::Run(const FusedLaunch& launch, std::span<const TensorHandle> views,
                          std::vector<TensorHandle>& outputs, std::span<const int> in_place,
                          int matmul_output) {
  const FuseTrace& trace = *launch.trace;
  const MatmulStage& m = *trace.matmul;
  if (m.lhs >= launch.inputs.size() || m.rhs >= launch.inputs.size()) {
    throw Error("a fused matmul of a missing input");
  }
  Counters& counters = GlobalCounters();
  const EpilogueMode mode = CurrentMatmulEpilogueMode();
  auto kernel = [&] {
    RunKernel(launch, views, outputs, matmul_output);
    ++counters.runs_kernel;
  };
  if (mode == EpilogueMode::kKernel) return kernel();

  codegen::TraceLaunch bound{.trace = &trace};
  for (const TensorHandle& h : launch.inputs) bound.inputs.push_back(Bind(h));
  for (const TensorHandle& h : outputs) bound.outputs.push_back(Bind(h));
  bound.scalars = launch.scalars;
  bound.block_shapes = launch.block_shapes;
  codegen::BlasEpilogueResult result = codegen::MatchBlasEpilogue(bound);
  const Shape& lhs = launch.inputs[m.lhs].shape;
  if (result.match && (lhs.empty() || lhs.back() < 1 || NumElements(launch.block_shapes[0]) == 0)) {
    result = {.refusal = "an empty product"};
  }
  if (result.match && outputs.size() != 1)
    result = {.refusal = "an output cuBLASLt does not write"};
  if (result.match && HasRelu(result.match->kind)) {
    const ReluRule blas = BlasReluRule();
    if (!relu_usable_ || !(blas == result.match->relu)) {
      result = {.refusal = fmt::format("cuBLASLt's relu is {}, the program's {}", RuleText(blas),
                                       RuleText(result.match->relu))};
    }
  }
  if (!result.match) {
    ++counters.refused;
    LogFusion(LogLevel::kFull, [&] {
      return fmt::format("[cuda] matmul epilogue: generated kernel ({})", result.refusal);
    });
    return kernel();
  }
  ++counters.matched;
  const BlasEpilogueMatch& match = *result.match;
  auto cublaslt = [&] {
    // cuBLASLt must not write over an operand it reads (the bias, when it is the output's
    // in-place buffer): such an output gets a buffer of its own.
    if (in_place[match.output] >= 0) {
      const TensorIr& out = launch.outputs[match.output];
      outputs[match.output] = ctx_.NewHandle(out.shape, out.dtype);
    }
    RunCublasLt(launch, match, outputs);
    ++counters.runs_cublaslt;
  };
  if (mode == EpilogueMode::kCublasLt) return cublaslt();

  const EpilogueShapeClass shape_class = ClassOf(launch, match);
  if (const std::optional<EpilogueChoice> known = store_->Find(shape_class)) {
    if (known->variant == EpilogueVariant::kKernel) return kernel();
    try {
      return cublaslt();
    } catch (const CudaError&) {
      throw;  // the driver's, not cuBLASLt's refusal (Note [Lost context], cuda_backend.cpp)
    } catch (const Error& e) {
      // A choice another process stored (or a forged one) that cuBLASLt refuses here, before
      // queuing anything: the kernel variant runs, and is what is remembered from now on.
      store_->Remember(shape_class, {.variant = EpilogueVariant::kKernel});
      LogFusion(LogLevel::kMedium, [&] {
        return fmt::format(
            "[cuda] matmul epilogue {}: the stored cublaslt choice failed ({}); "
            "kernel from now on",
            shape_class.ToString(), e.what());
      });
      return kernel();
    }
  }
  std::string failure;
  const EpilogueChoice choice = Measure(launch, views, match, outputs, matmul_output, &failure);
  store_->Remember(shape_class, choice);
  ++counters.measured;
  ++counters.runs_kernel;  // the measured launch's outputs are the kernel variant's
  if (choice.variant == EpilogueVariant::kCublasLt) ++counters.chose_cublaslt;
  LogFusion(LogLevel::kMedium, [&] {
    if (!failure.empty()) {
      return fmt::format("[cuda] matmul epilogue {} -> kernel (cuBLASLt refused: {})",
                         shape_class.ToString(), failure);
    }
    return fmt::format("[cuda] matmul epilogue {} -> {} (cublaslt {:.3f} ms, kernel {:.3f} ms)",
                       shape_class.ToString(), EpilogueVariantName(choice.variant),
                       choice.cublaslt_ms, choice.kernel_ms);
  });
}

}  // namespace ember::cuda
