// Plain double-precision math for ember-lab's result checks: naive loops over row-major
// matrices, written independently of the engine (no ember types), so that a wrong fusion shows
// up as an error against this reference. Sizes in the scenarios are small enough that O(n^3)
// loops take milliseconds.
//
// Also the host data generator: every scenario builds its inputs here (deterministic for a
// seed) and hands the same numbers to the engine (as f32) and to the reference (as double).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ember::lab {

// A row-major matrix of doubles; a batch of matrices is a vector of these.
struct Matrix {
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<double> v;

  Matrix() = default;
  Matrix(int64_t r, int64_t c, double fill = 0.0) : rows(r), cols(c), v(r * c, fill) {}
  double& at(int64_t r, int64_t c) { return v[r * cols + c]; }
  double at(int64_t r, int64_t c) const { return v[r * cols + c]; }
};

// Deterministic uniform numbers in [lo, hi) (SplitMix64); the same seed gives the same data.
class HostRandom {
 public:
  explicit HostRandom(uint64_t seed) : state_(seed) {}
  double Uniform(double lo, double hi);
  Matrix UniformMatrix(int64_t rows, int64_t cols, double lo, double hi);

 private:
  uint64_t state_;
};

// The matrix's values rounded to f32, in the engine's FromVector layout.
std::vector<float> ToFloats(const Matrix& m);
// The matrix whose values are exactly the f32 inputs the engine received.
Matrix FromFloats(const std::vector<float>& values, int64_t rows, int64_t cols);
// Rounds every value to f32, so the reference starts from the engine's exact inputs.
Matrix RoundedToFloat(Matrix m);

Matrix MatMul(const Matrix& a, const Matrix& b);
Matrix Transpose(const Matrix& a);
// a + b, where b may be a [1, cols] row broadcast over a's rows.
Matrix Add(const Matrix& a, const Matrix& b);
Matrix Sub(const Matrix& a, const Matrix& b);
Matrix Scale(const Matrix& a, double s);
// Column sums: [rows, cols] -> [1, cols].
Matrix SumRows(const Matrix& a);
// Row-wise layer normalization with a [1, cols] gain and bias.
Matrix LayerNorm(const Matrix& x, const Matrix& gamma, const Matrix& beta, double eps);
// Row-wise softmax.
Matrix Softmax(const Matrix& x);
// 0.5 x (1 + erf(x / sqrt 2)).
Matrix Gelu(const Matrix& x);
Matrix Tanh(const Matrix& x);

// Max relative error of `got` against `ref`, relative to the reference's largest magnitude:
//   max_i |got_i - ref_i| / max(max_j |ref_j|, 1e-6)
// (the infinity-norm relative error). Per-element denominators would blow up on values near
// zero that f32 cannot resolve better than its absolute rounding; this measure does not.
// Sizes must match; a mismatch or a NaN counts as an error of +infinity.
double MaxRelError(const std::vector<float>& got, const std::vector<double>& ref);

// The tolerance for an f32 result against the double reference: 1e-4, i.e. about 800 f32 ulps
// of the largest value. Accumulations over a few hundred terms, layer norms, softmaxes and a few
// SGD steps stay near 1e-6; a wrong fusion (a missing op, a wrong operand, a wrong scalar)
// gives errors of order 1e-2 or more.
inline constexpr double kF32Tolerance = 1e-4;

}  // namespace ember::lab
