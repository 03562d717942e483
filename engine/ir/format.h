// Printers for tensors, scalars, ranges and ops, shared by the fusion log, the trace table and
// `ember-plans show` (tools/plans/show_command.cpp), so every stage prints an op the same way. Pure
// functions; callable from any thread. They print global and relative ops alike (a relative
// op shows relative ids, shape ids and placeholders).
//
// Formats (the tensor format is burn's trace format):
//   tensor  t42:f32[2,3,4]   rank 0: t2:f32[]   (status is not printed)
//   scalar  Float: shortest round-trip decimal that always reads as a float
//                  (2.0, -0.0, 0.1, 1e-07, inf, nan);
//           Int: -3;  UInt: 7u (relative placeholders print as 0u, 1u, ...);  Bool: true
//   range   start:end:step with end left out when open and step left out when 1
//           (2:8, 2:, 0:8:2, -1::-1)
//   op      Family::Kind(inputs, scalars, ranges=[...], dims=[...], distribution) -> outputs
//           where each part appears only when the op has it, e.g.
//             NumericFloat::Add(t1:f32[64,64], t2:f32[64,64]) -> t4:f32[64,64]
//             NumericFloat::MulScalar(t3:f32[64,64], 2.0) -> t5:f32[64,64]
//             BaseFloat::Slice(t1:f32[8,8], ranges=[0:4, 2:]) -> t2:f32[4,6]
//             NumericFloat::SumDim(t1:f32[4,8], dims=[1]) -> t2:f32[4,1]
//             Float::Random(uniform(0.0, 1.0)) -> t3:f32[4]
//             Drop(t3:f32[4])
#pragma once

#include <span>
#include <string>

#include <ember/slice.h>

#include "engine/ir/operation_ir.h"

namespace ember {

std::string FormatTensor(const TensorIr& tensor);
// Comma-space joined; empty for no tensors.
std::string FormatTensors(std::span<const TensorIr> tensors);
std::string FormatScalar(const ScalarIr& scalar);
std::string FormatRange(const Slice& range);
// uniform(a, b) or normal(mean, std).
std::string FormatDistribution(const Distribution& distribution);
std::string FormatOp(const OperationIr& op);

}  // namespace ember
