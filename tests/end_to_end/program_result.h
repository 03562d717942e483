// What a random program (program_generator.h) gives back: the tensors it read, its listing and
// the features the differential tests count for coverage; and how the listing prints shapes and
// numbers.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <ember/ember.h>

namespace ember::testing {

// One tensor read back. Float dtypes are read as float (f16 and bf16 widen exactly), int and
// bool dtypes as int64.
struct ProgramOutput {
  std::string name;
  DType dtype = DType::kF32;
  std::vector<int64_t> shape;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  // Note [Fuzzy outputs]: downstream of a discontinuous op on computed floats.
  bool fuzzy = false;
  // The least precise float dtype (f32 < f16 < bf16) a computed value on the way was stored in.
  DType coarsest_float = DType::kF32;
};

// What a program contained, for the test's coverage assertions.
struct ProgramFeatures {
  int ops = 0;
  int reductions = 0;
  int matmuls = 0;
  int reduce_broadcasts = 0;  // a reduction's result broadcast back onto its rows
  int casts = 0;
  int views = 0;
  int masks = 0;
  int moved_operands = 0;
  int drops = 0;
  int gathers = 0;  // the indexed ops (program_indexed_steps.h)
  int selects = 0;
  int cats = 0;
  DType dtype = DType::kF32;  // the working dtype of the inputs
};

struct ProgramResult {
  std::vector<ProgramOutput> outputs;
  std::string listing;
  ProgramFeatures features;
  std::string error;  // what an op threw, if one did (the listing stops there)
};

inline std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ',';
    s += std::to_string(shape[i]);
  }
  s += ']';
  return s;
}

inline std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.4g", v);
  return buf;
}

}  // namespace ember::testing
