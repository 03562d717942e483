#include "tools/lab/reference_math.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ember::lab {

double HostRandom::Uniform(double lo, double hi) {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  const double unit = static_cast<double>(z >> 11) * 0x1.0p-53;
  return lo + (hi - lo) * unit;
}

Matrix HostRandom::UniformMatrix(int64_t rows, int64_t cols, double lo, double hi) {
  Matrix m(rows, cols);
  for (double& x : m.v) x = static_cast<float>(Uniform(lo, hi));
  return m;
}

std::vector<float> ToFloats(const Matrix& m) {
  std::vector<float> out(m.v.size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<float>(m.v[i]);
  return out;
}

Matrix FromFloats(const std::vector<float>& values, int64_t rows, int64_t cols) {
  Matrix m(rows, cols);
  for (size_t i = 0; i < m.v.size(); ++i) m.v[i] = values[i];
  return m;
}

Matrix RoundedToFloat(Matrix m) {
  for (double& x : m.v) x = static_cast<float>(x);
  return m;
}

Matrix MatMul(const Matrix& a, const Matrix& b) {
  Matrix out(a.rows, b.cols);
  for (int64_t i = 0; i < a.rows; ++i) {
    for (int64_t k = 0; k < a.cols; ++k) {
      const double aik = a.at(i, k);
      for (int64_t j = 0; j < b.cols; ++j) out.at(i, j) += aik * b.at(k, j);
    }
  }
  return out;
}

Matrix Transpose(const Matrix& a) {
  Matrix out(a.cols, a.rows);
  for (int64_t i = 0; i < a.rows; ++i) {
    for (int64_t j = 0; j < a.cols; ++j) out.at(j, i) = a.at(i, j);
  }
  return out;
}

namespace {

template <typename F>
Matrix Zip(const Matrix& a, const Matrix& b, F f) {
  Matrix out(a.rows, a.cols);
  for (int64_t i = 0; i < a.rows; ++i) {
    const int64_t bi = b.rows == 1 ? 0 : i;
    for (int64_t j = 0; j < a.cols; ++j) out.at(i, j) = f(a.at(i, j), b.at(bi, j));
  }
  return out;
}

template <typename F>
Matrix Map(Matrix a, F f) {
  for (double& x : a.v) x = f(x);
  return a;
}

}  // namespace

Matrix Add(const Matrix& a, const Matrix& b) {
  return Zip(a, b, [](double x, double y) { return x + y; });
}

Matrix Sub(const Matrix& a, const Matrix& b) {
  return Zip(a, b, [](double x, double y) { return x - y; });
}

Matrix Scale(const Matrix& a, double s) {
  return Map(a, [s](double x) { return x * s; });
}

Matrix SumRows(const Matrix& a) {
  Matrix out(1, a.cols);
  for (int64_t i = 0; i < a.rows; ++i) {
    for (int64_t j = 0; j < a.cols; ++j) out.at(0, j) += a.at(i, j);
  }
  return out;
}

Matrix LayerNorm(const Matrix& x, const Matrix& gamma, const Matrix& beta, double eps) {
  Matrix out(x.rows, x.cols);
  for (int64_t i = 0; i < x.rows; ++i) {
    double mean = 0;
    for (int64_t j = 0; j < x.cols; ++j) mean += x.at(i, j);
    mean /= static_cast<double>(x.cols);
    double var = 0;
    for (int64_t j = 0; j < x.cols; ++j) var += (x.at(i, j) - mean) * (x.at(i, j) - mean);
    var /= static_cast<double>(x.cols);
    const double inv = 1.0 / std::sqrt(var + eps);
    for (int64_t j = 0; j < x.cols; ++j) {
      out.at(i, j) = (x.at(i, j) - mean) * inv * gamma.at(0, j) + beta.at(0, j);
    }
  }
  return out;
}

Matrix Softmax(const Matrix& x) {
  Matrix out(x.rows, x.cols);
  for (int64_t i = 0; i < x.rows; ++i) {
    double max = -std::numeric_limits<double>::infinity();
    for (int64_t j = 0; j < x.cols; ++j) max = std::max(max, x.at(i, j));
    double sum = 0;
    for (int64_t j = 0; j < x.cols; ++j) sum += out.at(i, j) = std::exp(x.at(i, j) - max);
    for (int64_t j = 0; j < x.cols; ++j) out.at(i, j) /= sum;
  }
  return out;
}

Matrix Gelu(const Matrix& x) {
  return Map(x, [](double u) { return 0.5 * u * (1.0 + std::erf(u / std::sqrt(2.0))); });
}

Matrix Tanh(const Matrix& x) {
  return Map(x, [](double u) { return std::tanh(u); });
}

double MaxRelError(const std::vector<float>& got, const std::vector<double>& ref) {
  if (got.size() != ref.size()) return std::numeric_limits<double>::infinity();
  double max_abs = 0;
  for (double r : ref) max_abs = std::max(max_abs, std::fabs(r));
  const double denominator = std::max(max_abs, 1e-6);
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double err = std::fabs(static_cast<double>(got[i]) - ref[i]);
    if (!(err <= worst)) worst = err;  // also catches NaN
    if (std::isnan(worst)) return std::numeric_limits<double>::infinity();
  }
  return worst / denominator;
}

}  // namespace ember::lab
