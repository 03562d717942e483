// Note [Repeated rows] (engine/runtime/cpu/fused_program.h): a row's statistic read by a full
// block is one number for a tile inside one row. Rows shorter than a tile (tiles cross rows),
// one tile long, and several tiles long with a partial last tile; the statistic as the right
// operand of a binary op (read as one number), as the left one, under a unary op and stored
// as it is (each filled first); compared byte for byte with the ops run one by one.
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/runtime/cpu/fused_program.h"
#include "tests/runtime/fused_test_util.h"

namespace ember::testing {
namespace {

// block 0 hands x over and its rows' maxima are taken; block 1 (rows) hands m over; block 2:
// out0 = x - m, out1 = m - x, out2 = x * exp(m), out3 = m (an output of the rows' shape).
FuseTrace RowStatisticTrace() {
  FuseTrace trace;
  trace.blocks.push_back(
      {.reads = {Assign(Local(0), InArg(0))}, .writes = {Assign(Handed(0, 0), Local(0))}});
  trace.blocks.push_back({.writes = {Assign(Handed(1, 0), Local(0))}});
  trace.blocks.push_back(
      {.ops = {Op(FuseOpKind::kSub, Local(0), Handed(0, 0), Handed(1, 0)),
               Op(FuseOpKind::kSub, Local(1), Handed(1, 0), Handed(0, 0)),
               Op(FuseOpKind::kExp, Local(2), Handed(1, 0)),
               Op(FuseOpKind::kMul, Local(3), Handed(0, 0), Local(2))},
       .writes = {Assign(OutArg(0), Local(0)), Assign(OutArg(1), Local(1)),
                  Assign(OutArg(2), Local(3)), Assign(OutArg(3), Handed(1, 0))}});
  trace.reduces.push_back({.kind = ReduceStage::Kind::kMax,
                           .from = 0,
                           .axis = 1,
                           .input = Handed(0, 0),
                           .output = Local(0)});
  trace.resources = Resources(1, 4);
  return trace;
}

TEST(FusedRepeatedRows, RowStatisticsMatchTheUnfusedOps) {
  for (const int64_t length : {int64_t{700}, cpu::kFusedTile, int64_t{3000}}) {
    for (const int threads : {1, 2}) {
      const std::string what =
          "rows of " + std::to_string(length) + ", " + std::to_string(threads) + " threads";
      Harness h(threads);
      const Shape full = {37, length}, rows = {37, 1};
      const TensorIr x =
          h.Input(full, DType::kF32, AwkwardData(37 * length, -3, 3, length + 1, false));
      const TensorIr m = h.Exec(ir::ReduceDim(OpKind::kMaxDim, x, 1, h.Output(rows)));
      const TensorIr d = h.Exec(ir::Binary(OpKind::kSub, x, m, h.Output(full)));
      const TensorIr r = h.Exec(ir::Binary(OpKind::kSub, m, x, h.Output(full)));
      const TensorIr e = h.Exec(ir::Unary(OpKind::kExp, m, h.Output(rows)));
      const TensorIr q = h.Exec(ir::Binary(OpKind::kMul, x, e, h.Output(full)));

      const FuseTrace trace = RowStatisticTrace();
      const std::vector<TensorHandle> fused = RunFused(
          h, trace, {x}, {OutIr(full), OutIr(full), OutIr(full), OutIr(rows)}, {full, rows, full});
      ExpectSameBytes(h.backend(), fused[0], h.Handle(d), (what + ": x - m").c_str());
      ExpectSameBytes(h.backend(), fused[1], h.Handle(r), (what + ": m - x").c_str());
      ExpectSameBytes(h.backend(), fused[2], h.Handle(q), (what + ": x * exp(m)").c_str());
      ExpectSameBytes(h.backend(), fused[3], h.Handle(m), (what + ": m").c_str());
    }
  }
}

}  // namespace
}  // namespace ember::testing
