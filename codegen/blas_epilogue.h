// Whether a Matmul trace's epilogue block is exactly one of cuBLASLt's own epilogues, so that the
// product and its epilogue can run as one cuBLASLt call instead of cuBLASLt followed by a
// generated kernel (engine/runtime/cuda/backend/matmul_epilogue.h chooses between the two).
// Pure: it reads the trace and the launch's real shapes, strides and scalar values, and is
// tested on every machine (tests/codegen/blas_epilogue_test.cpp).
//
// Note [cuBLASLt epilogue match]
// cuBLASLt computes, for f32 with CUBLAS_COMPUTE_32F, D = act(alpha * acc + bias) with acc the
// f32 accumulation of A·B, bias one value per column of ember's row-major product, broadcast
// over rows and batches. The matcher accepts a block 0 that is exactly
//     [alpha]   Mul(y, s) or Mul(s, y), s a scalar slot read as f32 (any finite or not value);
//     [bias]    Add(x, b) or Add(b, x), b read from an input whose real shape, right-aligned to
//               the product's [..., M, N], is 1 everywhere but the last dim, which is N with
//               stride 1 (or N == 1): the same N values for every row and batch;
//     [relu]    one of the forms ember's ops give (below);
// in that order (alpha before bias, bias before relu, each at most once; none at all is the plain
// product), starting at the matmul's local, every intermediate used only by the next step, and
// one write of the last value to a contiguous f32 output of the product's shape. Anything else
// refuses, with the reason: another read, another op, another output, a write of an intermediate, a
// cast, a non-f32 dtype, a bias that varies by row or batch or is strided, GELU in any form
// (cuBLASLt's GELU is the tanh approximation; ember's is the erf chain, which is not the same
// function).
//
// Relu: ember has no relu op; programs write it as Clamp(y, 0, +inf), MaskFill(y, y < 0, 0)
// (also with y <= 0), or MaskWhere(zeros, y > 0, y) (also y >= 0), so the matcher accepts
// Clamp(y, +0, +inf) and ConditionalAssign over a comparison of y with +0 whose other operand is
// y and whose constant is +0 (a scalar slot or a literal, possibly assigned to a local first).
// These forms differ on NaN and on -0 (Clamp keeps both; y > 0 ? y : 0 turns NaN and -0 into +0),
// and cuBLASLt does not document what its relu does with either, so a match reports its
// ReluRule and the caller uses the cuBLASLt relu only when the rule it measured on the device
// (matmul_epilogue.h, ProbeReluRule) is the same; otherwise it runs the generated kernel. -0
// against +0 only matters to 1/x and signbit, but "exactly" means bits.
//
// Rounding: alpha then bias may be one FMA in cuBLASLt, as the generated kernel may contract
// y * s + b (NVRTC contracts by default; Note [GPU tolerances], tests/gpu/gpu_test_util.h); the
// product itself is cuBLASLt's in both variants, though its algorithm may differ with the
// epilogue (a different split of K), which is the matmul's own last-bit freedom.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "codegen/kernel_plan.h"

namespace ember::codegen {

enum class BlasEpilogueKind : uint8_t { kNone, kBias, kRelu, kBiasRelu };

std::string_view BlasEpilogueKindName(BlasEpilogueKind kind);  // "bias+relu"

// What a relu does with a NaN input and with -0.
struct ReluRule {
  bool keeps_nan = true;            // NaN -> NaN (else NaN -> +0)
  bool keeps_negative_zero = true;  // -0 -> -0 (else -0 -> +0)
  bool operator==(const ReluRule&) const = default;
};

struct BlasEpilogueMatch {
  BlasEpilogueKind kind = BlasEpilogueKind::kNone;
  bool has_alpha = false;
  float alpha = 1.0f;   // the scalar as the generated kernel reads it (ScalarSlotValue)
  int bias_input = -1;  // resources.inputs index of the bias, for kBias and kBiasRelu
  uint32_t output = 0;  // resources.outputs index the block writes
  ReluRule relu;        // the chain's rule, for kRelu and kBiasRelu
};

struct BlasEpilogueResult {
  std::optional<BlasEpilogueMatch> match;
  std::string refusal;  // why not, when match is empty ("a second output", ...)
};

// REQUIRES: launch.trace has a matmul stage; launch.inputs, outputs, scalars and block_shapes
// are the real ones (launch.matmul_result and addresses are not read).
BlasEpilogueResult MatchBlasEpilogue(const TraceLaunch& launch);

}  // namespace ember::codegen
