// cuBLASLt, loaded with dlopen on first use (README.md beside this file, "The dlopen rule"):
// libcublasLt.so.<major of the headers>, then libcublasLt.so, searched like NVRTC
// (ToolkitLibraryCandidates, dynamic_library.h). BlasLt runs ember's matrix products on it.
//
// Row-major operands: ember stores C[b] = A[b] (m×k) · B[b] (k×n) row-major, and cuBLASLt is
// column-major. A row-major m×k matrix with leading dimension lda is, read column-major, its
// transpose (k×m, same lda), so BlasLt asks cuBLASLt for Cᵀ = Bᵀ·Aᵀ: A' = B (n×k, ld ldb),
// B' = A (k×m, ld lda), D' = Cᵀ (n×m, ld ldc), no transposes, no copies. cuBLASLt's bias is
// one value per row of D', that is per column of C: the length-n vector added to every row.
//
// Precision: f32 computes with CUBLAS_COMPUTE_32F, which is pure FP32 (never TF32), so results
// match a float64 reference to about 1e-6; f16 and bf16 accumulate in FP32 and write the input
// dtype. The GELU epilogue is cuBLASLt's, the tanh approximation
// 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
//
// Threading: one caller at a time (the backend's lock); a mutex guards the plan cache.
#pragma once

#include <cublasLt.h>
#include <cuda.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>

#include "ember/dtype.h"
#include "ember/error.h"
#include "engine/runtime/cuda/device_allocator.h"

namespace ember::cuda {

#define EMBER_CUBLASLT_FUNCTIONS(X)       \
  X(cublasLtCreate)                       \
  X(cublasLtDestroy)                      \
  X(cublasLtGetVersion)                   \
  X(cublasLtGetStatusName)                \
  X(cublasLtGetStatusString)              \
  X(cublasLtMatmulDescCreate)             \
  X(cublasLtMatmulDescDestroy)            \
  X(cublasLtMatmulDescSetAttribute)       \
  X(cublasLtMatrixLayoutCreate)           \
  X(cublasLtMatrixLayoutDestroy)          \
  X(cublasLtMatrixLayoutSetAttribute)     \
  X(cublasLtMatmulPreferenceCreate)       \
  X(cublasLtMatmulPreferenceDestroy)      \
  X(cublasLtMatmulPreferenceSetAttribute) \
  X(cublasLtMatmulAlgoGetHeuristic)       \
  X(cublasLtMatmul)

struct CublasLtApi {
#define EMBER_CUBLASLT_DECLARE_FIELD(name) decltype(&::name) name = nullptr;
  EMBER_CUBLASLT_FUNCTIONS(EMBER_CUBLASLT_DECLARE_FIELD)
#undef EMBER_CUBLASLT_DECLARE_FIELD

  std::string library_path;  // The file that was opened.
};

// Loaded on the first call. Throws ember::Error "cuBLASLt not found: <each place tried>" when
// absent; later calls throw the same.
const CublasLtApi& CublasLt();

// "13.1.0".
std::string CublasLtVersion();

// Throws ember::Error "<call>: CUBLAS_STATUS_NOT_SUPPORTED (<its description>)" unless
// `status` is CUBLAS_STATUS_SUCCESS.
void CheckCublas(cublasStatus_t status, std::string_view call);

enum class MatmulEpilogue { kNone, kBias, kRelu, kGelu, kBiasRelu, kBiasGelu };

// One (batched) product, row-major as ember stores it: for b in [0, batch),
//   C[b] = epilogue(alpha · (A[b] · B[b]) (+ bias)),  A[b] = a + b·batch_stride_a, ...
// Leading dimensions and strides count elements. A batch stride of 0 broadcasts that operand
// to every batch (not C's).
struct MatmulArgs {
  DType dtype = DType::kF32;  // Of A, B, C and the bias: kF32, kF16 or kBF16.
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  int64_t batch = 1;
  CUdeviceptr a = 0;
  int64_t lda = 0;  // >= k.
  int64_t batch_stride_a = 0;
  CUdeviceptr b = 0;
  int64_t ldb = 0;  // >= n.
  int64_t batch_stride_b = 0;
  CUdeviceptr c = 0;
  int64_t ldc = 0;             // >= n.
  int64_t batch_stride_c = 0;  // >= m·ldc when batch > 1.
  MatmulEpilogue epilogue = MatmulEpilogue::kNone;
  CUdeviceptr bias = 0;  // n elements, for kBias, kBiasRelu and kBiasGelu.
  float alpha = 1.0f;    // scales the product before the bias (f32, as cuBLASLt's scale type)
};

class BlasLt {
 public:
  static constexpr size_t kDefaultWorkspaceBytes = size_t{32} << 20;

  // One cuBLASLt handle on the allocator's device. Each stream that runs a product gets its own
  // workspace block of `workspace_bytes` on first use: products on different streams may run
  // at the same time, and a shared workspace would be written by both. Throws ember::Error
  // when cuBLASLt is missing.
  explicit BlasLt(std::shared_ptr<DeviceAllocator> allocator,
                  size_t workspace_bytes = kDefaultWorkspaceBytes);
  ~BlasLt();
  BlasLt(const BlasLt&) = delete;
  BlasLt& operator=(const BlasLt&) = delete;

  // Queues the product on `stream`. The algorithm is chosen by cuBLASLt's heuristic once per
  // shape (dtype, sizes, leading dimensions, strides, epilogue, pointer alignment) and reused.
  // Throws ember::Error for a dtype other than f32/f16/bf16, when no algorithm fits, or when a
  // cuBLASLt call fails (naming the call and its status).
  // REQUIRES: m, n, k, batch >= 1, the leading dimensions and strides above; the operands are
  // ready on `stream` (the stream's workspace is reused in its order).
  void Matmul(const MatmulArgs& args, CUstream stream);

  // Shapes whose algorithm is cached.
  size_t cached_plans() const;

 private:
  struct Plan;
  using PlanKey = std::tuple<DType, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                             int64_t, int64_t, int64_t, MatmulEpilogue, int, int, int, int>;

  const Plan& PlanFor(const MatmulArgs& args);
  // The workspace of `stream`, allocated on its first product. REQUIRES: mutex_ is held.
  DeviceBlock WorkspaceLocked(CUstream stream);

  std::shared_ptr<DeviceAllocator> allocator_;
  const size_t workspace_bytes_;
  cublasLtHandle_t handle_ = nullptr;
  mutable std::mutex mutex_;
  std::map<PlanKey, std::unique_ptr<Plan>> plans_;  // Guarded by mutex_.
  std::map<CUstream, DeviceBlock> workspaces_;      // Guarded by mutex_.
};

}  // namespace ember::cuda
