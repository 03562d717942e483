// The seed's two programs (README.md, "ember-lab") as the engine queues them, written once for
// ember-lab's reuse and unrelated scenarios (scenario_seed.cpp) and for the tests that check
// what the engine makes of them (tests/end_to_end/seed_walkthrough_test.cpp,
// tests/common/workloads.h). Each op is one statement: C++ leaves the order of an operator's
// operands unspecified, and the op order is what the search and the plan keys see (docs/API.md).
#pragma once

#include <utility>

#include <ember/ember.h>

namespace ember::lab {

// (a * b + c * s).exp(): Mul, MulScalar, Add, Exp. a, b and c stay the caller's (read
// ReadOnly); the two products are temporaries (their last use, ReadWrite). The ElementWise
// fuser takes all four ops (score 630).
inline Tensor SeedExpression(const Tensor& a, const Tensor& b, const Tensor& c, double s) {
  Tensor ab = a * b;
  Tensor cs = c * s;
  return (std::move(ab) + std::move(cs)).Exp();
}

// One of the five independent chains of the unrelated walk-through, eight unary and scalar ops
// on `input` (which stays the caller's): |sin(tanh(exp(x * 0.5 + 1) - 0.25) * 3)|. Five of them
// before one sync are one fused ElementWise kernel of 40 ops (score 7390).
inline Tensor UnrelatedChain(const Tensor& input) {
  Tensor x = input * 0.5;
  x = std::move(x) + 1.0;
  x = std::move(x).Exp();
  x = std::move(x) - 0.25;
  x = std::move(x).Tanh();
  x = std::move(x) * 3.0;
  x = std::move(x).Sin();
  x = std::move(x).Abs();
  return x;
}

}  // namespace ember::lab
