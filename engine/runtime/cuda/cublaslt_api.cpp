#include "engine/runtime/cuda/cublaslt_api.h"

#include <cuda.h>

#include <bit>
#include <optional>

#include <fmt/format.h>

#include "engine/core/check.h"
#include "engine/runtime/cuda/driver_api.h"
#include "engine/runtime/cuda/dynamic_library.h"

namespace ember::cuda {
namespace {

struct LoadedCublasLt {
  std::optional<CublasLtApi> api;
  std::string error;  // Why `api` is empty.
};

LoadedCublasLt LoadCublasLt() {
  const std::string major = std::to_string(CUDA_VERSION / 1000);
  const std::vector<std::string> candidates =
      ToolkitLibraryCandidates("libcublasLt.so." + major, "libcublasLt.so");
  std::string why;
  std::optional<DynamicLibrary> library = DynamicLibrary::Open(candidates, &why);
  if (!library) return {.error = fmt::format("cuBLASLt not found: {}", why)};

  CublasLtApi api;
  api.library_path = library->path();
  std::string missing;
#define EMBER_CUBLASLT_LOAD_FIELD(name)                                    \
  api.name = reinterpret_cast<decltype(api.name)>(library->Symbol(#name)); \
  if (api.name == nullptr) missing += std::string(missing.empty() ? "" : ", ") + #name;
  EMBER_CUBLASLT_FUNCTIONS(EMBER_CUBLASLT_LOAD_FIELD)
#undef EMBER_CUBLASLT_LOAD_FIELD
  if (!missing.empty()) {
    return {.error = fmt::format("cuBLASLt at {} lacks {}", api.library_path, missing)};
  }
  return {.api = api};
}

cudaDataType_t DataType(DType dtype) {
  switch (dtype) {
    case DType::kF32: return CUDA_R_32F;
    case DType::kF16: return CUDA_R_16F;
    case DType::kBF16: return CUDA_R_16BF;
    case DType::kI32:
    case DType::kI64:
    case DType::kBool: break;
  }
  throw Error(fmt::format("cuBLASLt matmul supports f32, f16 and bf16, not {}", DTypeName(dtype)));
}

cublasLtEpilogue_t Epilogue(MatmulEpilogue epilogue) {
  switch (epilogue) {
    case MatmulEpilogue::kNone: return CUBLASLT_EPILOGUE_DEFAULT;
    case MatmulEpilogue::kBias: return CUBLASLT_EPILOGUE_BIAS;
    case MatmulEpilogue::kRelu: return CUBLASLT_EPILOGUE_RELU;
    case MatmulEpilogue::kGelu: return CUBLASLT_EPILOGUE_GELU;
    case MatmulEpilogue::kBiasRelu: return CUBLASLT_EPILOGUE_RELU_BIAS;
    case MatmulEpilogue::kBiasGelu: return CUBLASLT_EPILOGUE_GELU_BIAS;
  }
  EMBER_CHECK(false, "unknown MatmulEpilogue");
  return CUBLASLT_EPILOGUE_DEFAULT;
}

bool HasBias(MatmulEpilogue epilogue) {
  return epilogue == MatmulEpilogue::kBias || epilogue == MatmulEpilogue::kBiasRelu ||
         epilogue == MatmulEpilogue::kBiasGelu;
}

// The largest power of two up to 256 that divides `ptr`: cuBLASLt's heuristic picks kernels
// with vector loads only when told the operands allow them.
int Alignment(CUdeviceptr ptr) {
  if (ptr == 0) return 256;
  return static_cast<int>(std::min<uint64_t>(256, uint64_t{1} << std::countr_zero(ptr)));
}

template <typename T>
void SetDesc(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attribute, const T& value) {
  CheckCublas(CublasLt().cublasLtMatmulDescSetAttribute(desc, attribute, &value, sizeof(value)),
              "cublasLtMatmulDescSetAttribute");
}

template <typename T>
void SetLayout(cublasLtMatrixLayout_t layout, cublasLtMatrixLayoutAttribute_t attribute,
               const T& value) {
  CheckCublas(CublasLt().cublasLtMatrixLayoutSetAttribute(layout, attribute, &value, sizeof(value)),
              "cublasLtMatrixLayoutSetAttribute");
}

template <typename T>
void SetPreference(cublasLtMatmulPreference_t preference,
                   cublasLtMatmulPreferenceAttributes_t attribute, const T& value) {
  CheckCublas(
      CublasLt().cublasLtMatmulPreferenceSetAttribute(preference, attribute, &value, sizeof(value)),
      "cublasLtMatmulPreferenceSetAttribute");
}

}  // namespace

const CublasLtApi& CublasLt() {
  static const LoadedCublasLt loaded = LoadCublasLt();
  if (!loaded.api) throw Error(loaded.error);
  return *loaded.api;
}

std::string CublasLtVersion() {
  const size_t version = CublasLt().cublasLtGetVersion();
  return fmt::format("{}.{}.{}", version / 10000, version / 100 % 100, version % 100);
}

void CheckCublas(cublasStatus_t status, std::string_view call) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  const CublasLtApi& api = CublasLt();
  const char* name = api.cublasLtGetStatusName(status);
  const char* text = api.cublasLtGetStatusString(status);
  throw Error(fmt::format("{}: {} ({})", call, name != nullptr ? name : "cublasStatus",
                          text != nullptr ? text : std::to_string(static_cast<int>(status))));
}

// The descriptors and the chosen algorithm of one shape. Only the pointers change per call.
struct BlasLt::Plan {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr;  // A' = B, n×k column-major.
  cublasLtMatrixLayout_t b = nullptr;  // B' = A, k×m column-major.
  cublasLtMatrixLayout_t c = nullptr;  // C' = D' = Cᵀ, n×m column-major.
  cublasLtMatmulAlgo_t algo = {};

  Plan() = default;
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;
  ~Plan() {
    const CublasLtApi& api = CublasLt();
    for (cublasLtMatrixLayout_t layout : {a, b, c}) {
      if (layout != nullptr) api.cublasLtMatrixLayoutDestroy(layout);
    }
    if (desc != nullptr) api.cublasLtMatmulDescDestroy(desc);
  }
};

BlasLt::BlasLt(std::shared_ptr<DeviceAllocator> allocator, size_t workspace_bytes)
    : allocator_(std::move(allocator)), workspace_bytes_(workspace_bytes) {
  const CublasLtApi& api = CublasLt();
  ScopedContext scoped(*allocator_->device());
  CheckCublas(api.cublasLtCreate(&handle_), "cublasLtCreate");
}

DeviceBlock BlasLt::WorkspaceLocked(CUstream stream) {
  if (workspace_bytes_ == 0) return {};
  auto it = workspaces_.find(stream);
  if (it == workspaces_.end()) {
    it = workspaces_.emplace(stream, allocator_->Allocate(workspace_bytes_, stream)).first;
  }
  return it->second;
}

BlasLt::~BlasLt() {
  try {
    ScopedContext scoped(*allocator_->device());
    plans_.clear();
    CublasLt().cublasLtDestroy(handle_);
  } catch (const Error&) {
    // The driver is gone (process exit), and the handle with it.
  }
  for (const auto& [stream, workspace] : workspaces_) allocator_->Free(workspace);
}

size_t BlasLt::cached_plans() const {
  std::lock_guard lock(mutex_);
  return plans_.size();
}

const BlasLt::Plan& BlasLt::PlanFor(const MatmulArgs& args) {
  const PlanKey key{args.dtype,
                    args.m,
                    args.n,
                    args.k,
                    args.batch,
                    args.lda,
                    args.ldb,
                    args.ldc,
                    args.batch_stride_a,
                    args.batch_stride_b,
                    args.batch_stride_c,
                    args.epilogue,
                    Alignment(args.a),
                    Alignment(args.b),
                    Alignment(args.c),
                    Alignment(args.bias)};
  auto found = plans_.find(key);
  if (found != plans_.end()) return *found->second;

  const CublasLtApi& api = CublasLt();
  const cudaDataType_t type = DataType(args.dtype);
  auto plan = std::make_unique<Plan>();
  CheckCublas(api.cublasLtMatmulDescCreate(&plan->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F),
              "cublasLtMatmulDescCreate");
  SetDesc(plan->desc, CUBLASLT_MATMUL_DESC_EPILOGUE, Epilogue(args.epilogue));
  if (HasBias(args.epilogue)) {
    SetDesc(plan->desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, static_cast<int32_t>(type));
    SetDesc(plan->desc, CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, int64_t{0});
    // The heuristic needs a pointer to know the epilogue reads one; Matmul sets the real one.
    SetDesc(plan->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, reinterpret_cast<void*>(args.bias));
  }

  auto layout = [&](cublasLtMatrixLayout_t* out, int64_t rows, int64_t cols, int64_t ld,
                    int64_t stride) {
    CheckCublas(api.cublasLtMatrixLayoutCreate(out, type, static_cast<uint64_t>(rows),
                                               static_cast<uint64_t>(cols), ld),
                "cublasLtMatrixLayoutCreate");
    if (args.batch > 1) {
      SetLayout(*out, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, static_cast<int32_t>(args.batch));
      SetLayout(*out, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, stride);
    }
  };
  layout(&plan->a, args.n, args.k, args.ldb, args.batch_stride_b);
  layout(&plan->b, args.k, args.m, args.lda, args.batch_stride_a);
  layout(&plan->c, args.n, args.m, args.ldc, args.batch_stride_c);

  cublasLtMatmulPreference_t preference = nullptr;
  CheckCublas(api.cublasLtMatmulPreferenceCreate(&preference), "cublasLtMatmulPreferenceCreate");
  cublasLtMatmulHeuristicResult_t result = {};
  int found_count = 0;
  cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
  try {
    SetPreference(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                  static_cast<uint64_t>(workspace_bytes_));
    // A' is B, B' is A (see the header).
    SetPreference(preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
                  static_cast<uint32_t>(Alignment(args.b)));
    SetPreference(preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
                  static_cast<uint32_t>(Alignment(args.a)));
    SetPreference(preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
                  static_cast<uint32_t>(Alignment(args.c)));
    SetPreference(preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES,
                  static_cast<uint32_t>(Alignment(args.c)));
    status = api.cublasLtMatmulAlgoGetHeuristic(handle_, plan->desc, plan->a, plan->b, plan->c,
                                                plan->c, preference, 1, &result, &found_count);
  } catch (...) {
    api.cublasLtMatmulPreferenceDestroy(preference);
    throw;
  }
  api.cublasLtMatmulPreferenceDestroy(preference);
  CheckCublas(status, "cublasLtMatmulAlgoGetHeuristic");
  if (found_count == 0) {
    throw Error(fmt::format(
        "cuBLASLt has no algorithm for a {} matmul m={} n={} k={} batch={} lda={} ldb={} ldc={} "
        "(epilogue {})",
        DTypeName(args.dtype), args.m, args.n, args.k, args.batch, args.lda, args.ldb, args.ldc,
        static_cast<int>(args.epilogue)));
  }
  plan->algo = result.algo;
  return *plans_.emplace(key, std::move(plan)).first->second;
}

void BlasLt::Matmul(const MatmulArgs& args, CUstream stream) {
  EMBER_CHECK(args.m >= 1 && args.n >= 1 && args.k >= 1 && args.batch >= 1,
              "matmul sizes m={} n={} k={} batch={}", args.m, args.n, args.k, args.batch);
  EMBER_CHECK(args.lda >= args.k && args.ldb >= args.n && args.ldc >= args.n,
              "matmul leading dimensions lda={} ldb={} ldc={}", args.lda, args.ldb, args.ldc);
  EMBER_CHECK(args.batch == 1 || args.batch_stride_c >= args.m * args.ldc,
              "matmul output batches overlap");
  EMBER_CHECK(!HasBias(args.epilogue) || args.bias != 0, "bias epilogue without a bias");

  std::lock_guard lock(mutex_);
  ScopedContext scoped(*allocator_->device());
  const Plan& plan = PlanFor(args);
  const DeviceBlock workspace = WorkspaceLocked(stream);
  if (HasBias(args.epilogue)) {
    SetDesc(plan.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, reinterpret_cast<void*>(args.bias));
  }
  const float alpha = args.alpha;
  const float beta = 0.0f;
  // cudaStream_t and CUstream are the same type (pointers to CUstream_st).
  CheckCublas(
      CublasLt().cublasLtMatmul(handle_, plan.desc, &alpha, reinterpret_cast<const void*>(args.b),
                                plan.a, reinterpret_cast<const void*>(args.a), plan.b, &beta,
                                reinterpret_cast<const void*>(args.c), plan.c,
                                reinterpret_cast<void*>(args.c), plan.c, &plan.algo,
                                reinterpret_cast<void*>(workspace.ptr), workspace.size, stream),
      "cublasLtMatmul");
}

}  // namespace ember::cuda
