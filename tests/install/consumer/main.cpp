// The install test's consumer: only the installed public API (<ember/ember.h>, ember::ember).
// Computes the seed's expression (a * b + c * 2.0).exp() on known values and compares it with
// the same computation in double. Prints "OK ..." on success; anything else fails the test.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <ember/ember.h>

int main() {
  const std::vector<float> a = {0.5f, -1.0f, 2.0f, 0.0f, 1.5f, -0.25f};
  const std::vector<float> b = {2.0f, 0.25f, -0.5f, 3.0f, 1.0f, 4.0f};
  const std::vector<float> c = {0.0f, 0.5f, 0.25f, -1.0f, 0.125f, 0.75f};
  const std::vector<int64_t> shape = {2, 3};
  try {
    ember::Tensor ta = ember::Tensor::FromVector(a, shape);
    ember::Tensor tb = ember::Tensor::FromVector(b, shape);
    ember::Tensor tc = ember::Tensor::FromVector(c, shape);
    ember::Tensor y = (ta * tb + tc * 2.0).Exp();
    if (y.Shape() != shape || y.Dtype() != ember::DType::kF32) {
      std::printf("FAIL: result has shape [%zu dims] dtype %s, expected [2, 3] f32\n",
                  y.Shape().size(), std::string(ember::DTypeName(y.Dtype())).c_str());
      return 1;
    }
    const std::vector<float> got = y.ToVector<float>();
    if (got.size() != a.size()) {
      std::printf("FAIL: %zu values, expected %zu\n", got.size(), a.size());
      return 1;
    }
    double sum = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      const double want = std::exp(double{a[i]} * double{b[i]} + double{c[i]} * 2.0);
      if (std::fabs(got[i] - want) > 1e-5 * std::fmax(1.0, std::fabs(want))) {
        std::printf("FAIL: value %zu is %.9g, expected %.9g\n", i, double{got[i]}, want);
        return 1;
      }
      sum += got[i];
    }
    std::printf("OK (a * b + c * 2.0).Exp() on [2, 3] f32: sum %.6f\n", sum);
  } catch (const std::exception& e) {
    std::printf("FAIL: %s\n", e.what());
    return 1;
  }
  return 0;
}
