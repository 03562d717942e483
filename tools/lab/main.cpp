// ember-lab: the main job. For now it runs the seed's expression, (a * b + c * 2.0).exp() on
// 64x64 random inputs, and prints a summary of the result.
#include <cstdio>

#include <ember/ember.h>

int main() {
  using ember::DType;
  using ember::Tensor;
  const std::vector<int64_t> shape = {64, 64};
  Tensor a = Tensor::RandomUniform(shape, DType::kF32);
  Tensor b = Tensor::RandomUniform(shape, DType::kF32);
  Tensor c = Tensor::RandomUniform(shape, DType::kF32);
  // Sequenced explicitly so that the ops queue in the seed's order (Mul, MulScalar, Add, Exp)
  // whatever order the compiler evaluates operator operands in (docs/API.md).
  Tensor ab = a * b;
  Tensor c2 = c * 2.0;
  Tensor y = (std::move(ab) + std::move(c2)).Exp();
  std::vector<float> v = y.ToVector<float>();
  double sum = 0;
  for (float x : v) sum += x;
  std::printf("(a * b + c * 2.0).exp() on 64x64: %zu values, mean %.6f, first %.6f\n", v.size(),
              sum / static_cast<double>(v.size()), static_cast<double>(v[0]));
  return 0;
}
