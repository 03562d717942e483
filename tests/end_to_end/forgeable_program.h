// The program issue 13's forgeries edit (tests/store/forged_plans.h), run by the engine
// children of tests/end_to_end and tests/tools/plans: (x * 0.5 + 3).mean(1) * 2 on a [16, 8] and an
// [8, 8] input, each fused by the Reduce fuser into one plan whose trace holds a Mean and
// three scalar placeholders. Returns a checksum of the results that weighs every value by its
// position, so a forged plan that computes anything else shows.
//
// Header-only: each suite builds its own tests/<dir>/*_test.cpp only.
#pragma once

#include <cstdint>
#include <vector>

#include <ember/ember.h>

namespace ember::forge {

inline double ForgeableProgram() {
  double checksum = 0;
  for (int64_t rows : {16, 8}) {
    std::vector<float> values(static_cast<size_t>(rows) * 8);
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 7) * 0.25f;
    const Tensor x = Tensor::FromVector(values, {rows, 8});
    const std::vector<float> means = (((x * 0.5) + 3.0).MeanDim(1) * 2.0).ToVector<float>();
    for (size_t i = 0; i < means.size(); ++i) checksum += static_cast<double>(means[i]) * (i + 1);
  }
  return checksum;
}

}  // namespace ember::forge
