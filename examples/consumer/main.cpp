#include <cmath>
#include <cstdio>
#include <vector>

#include <ember/ember.h>

int main() {
  const std::vector<float> x = {0.5f, -1.0f, 2.0f, 0.0f, 1.5f, -0.25f};
  ember::Tensor a = ember::Tensor::FromVector(x, {2, 3});  // on the CPU
  ember::Tensor y = (a * a + a * 2.0).Exp();               // queued: nothing has run yet
  std::vector<float> out = y.ToVector<float>();            // runs, fused into one kernel
  bool ok = out.size() == x.size();
  for (size_t i = 0; ok && i < x.size(); ++i) {
    const double want = std::exp(double{x[i]} * x[i] + x[i] * 2.0);
    ok = std::fabs(out[i] - want) <= 1e-5 * std::fmax(1.0, want);
  }
  const ember::Stats stats = ember::GetStats();
  std::printf("%s: %zu values, %llu fused kernel(s), %llu plan(s) explored\n", ok ? "OK" : "FAIL",
              out.size(), static_cast<unsigned long long>(stats.fused_executions),
              static_cast<unsigned long long>(stats.explorations));
  return ok ? 0 : 1;
}
