// The fusion trace table (burn-fusion's stream/execution/trace.rs and its tests): the tensor
// and op printers it uses, how a strategy flattens into blocks, golden tables
// (the 4-op block of the seed, byte for byte as burn prints it), and that every execution of a
// queue logs the table at Full level.
#include "engine/stream/trace.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/log.h"
#include "engine/fuse/context.h"
#include "engine/fuse/ordered_execution.h"
#include "engine/ir/builders.h"
#include "engine/ir/format.h"
#include "engine/runtime/cpu/cpu_backend.h"
#include "engine/stream/operation_queue.h"
#include "tests/stream/stream_test_util.h"

namespace ember {
namespace {

using stream_test::Iota;
using stream_test::kShape;
using stream_test::MakeHandle;
using test::Out;
using test::Ro;
using ::testing::Contains;
using ::testing::Not;
using ::testing::StartsWith;

// An optimization that only carries a name for the trace; Execute runs its ops one by one, so a
// real queue can execute it too.
class FakeOptimization final : public Optimization {
 public:
  FakeOptimization(std::string name, size_t len) : name_(std::move(name)), len_(len) {}

  void Execute(Context& context, OrderedExecution& execution) override {
    for (size_t i = 0; i < len_; ++i) execution.ExecuteWithinOptimization(i, *context.handles);
  }
  size_t len() const override { return len_; }
  std::string_view name() const override { return name_; }
  OptimizationState ToState() const override { return {name_, {}}; }

 private:
  std::string name_;
  size_t len_;
};

std::shared_ptr<Optimization> Fake(std::string name, size_t len) {
  return std::make_shared<FakeOptimization>(std::move(name), len);
}

// The top rule: `═` repeated n times.
std::string Rule(size_t n) {
  std::string rule;
  for (size_t i = 0; i < n; ++i) rule += "═";
  return rule;
}

std::string Lines(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) {
    if (!text.empty()) text += '\n';
    text += line;
  }
  return text;
}

size_t Count(std::string_view text, std::string_view needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string_view::npos;
       at = text.find(needle, at + needle.size())) {
    ++n;
  }
  return n;
}

// The seed's (a * b + c * 2).exp() on 64x64: t1 * t2 -> t4, t3 * 2 -> t5, t4 + t5 -> t6,
// exp(t6) -> t7.
std::vector<OperationIr> SeedOps() {
  const Shape s = {64, 64};
  return {
      ir::Binary(OpKind::kMul, Ro(1, s), Ro(2, s), Ro(4, s)),
      ir::Scalar(OpKind::kMulScalar, Ro(3, s), ScalarIr::Float(2.0), Ro(5, s)),
      ir::Binary(OpKind::kAdd, Ro(4, s), Ro(5, s), Ro(6, s)),
      ir::Unary(OpKind::kExp, Ro(6, s), Ro(7, s)),
  };
}

// Positions 0 and 2 fuse, 1 runs alone after them.
std::vector<OperationIr> ComposedOps() {
  return {
      ir::Unary(OpKind::kExp, Ro(1, {8}), Ro(2, {8})),
      ir::Permute(Ro(3, {4, 2}), {1, 0}, Ro(4, {2, 4})),
      ir::Binary(OpKind::kMul, Ro(2, {8}), Ro(2, {8}), Ro(5, {8})),
  };
}

// --- The printers (burn's trace.rs tests) -------------------------------------------------------

TEST(Trace, TensorFormatIsCompact) { EXPECT_EQ(FormatTensor(Ro(42, {2, 3, 4})), "t42:f32[2,3,4]"); }

TEST(Trace, TensorFormatSeparatesSeveralTensorsWithCommaSpace) {
  const std::vector<TensorIr> tensors = {Ro(1, {8}), Ro(2, {})};
  EXPECT_EQ(FormatTensors(tensors), "t1:f32[8], t2:f32[]");
}

TEST(Trace, OpKindIncludesTheInnerVariant) {
  EXPECT_EQ(OpName(ir::Permute(Ro(1, {4, 2}), {1, 0}, Ro(2, {2, 4}))), "BaseFloat::Permute");
}

TEST(Trace, OpKindOfAFloatUnaryIsFloatFamily) {
  EXPECT_EQ(OpName(ir::Unary(OpKind::kExp, Ro(1, {4}), Ro(2, {4}))), "Float::Exp");
}

// burn's format_table_puts_name_and_score_in_block_header.
TEST(Trace, TableNamesTheFusedBlockAndItsScoreOnce) {
  const OperationIr op = ir::Unary(OpKind::kExp, Ro(1, {4}), Ro(2, {4}));
  const std::vector<TraceBlock> blocks = {
      {.kind = TraceBlock::Kind::kFused, .name = "FusedKernel", .score = 42, .ops = {op, op}},
      {.kind = TraceBlock::Kind::kUnfused, .ops = {op}},
  };
  const std::string table = FormatTraceTable(blocks);

  const std::string first_line = table.substr(0, table.find('\n'));
  EXPECT_EQ(first_line, Rule(first_line.size() / std::string_view("═").size()));
  EXPECT_NE(table.find("\nfusion trace (3 ops, 2 blocks)\n"), std::string::npos);
  EXPECT_NE(table.find("▸ fused FusedKernel (score=42, 2 ops)"), std::string::npos);
  EXPECT_NE(table.find("▸ un-fused (1 op)"), std::string::npos);
  EXPECT_EQ(Count(table, "FusedKernel"), 1u);
  EXPECT_EQ(Count(table, "score=42"), 1u);
  // idx runs across blocks.
  EXPECT_NE(table.find("\n0  "), std::string::npos);
  EXPECT_NE(table.find("\n1  "), std::string::npos);
  EXPECT_NE(table.find("\n2  "), std::string::npos);
}

// --- Flattening ---------------------------------------------------------------------------------

TEST(Trace, CollectTakesGlobalOpsAtEachLeafsPositionsInExecutionOrder) {
  const std::vector<OperationIr> ops = ComposedOps();
  const ExecutionStrategy strategy = ExecutionStrategy::Composed({
      ExecutionStrategy::Composed({ExecutionStrategy::Fused(Fake("ElementWise", 2), {2, 0}, 9)}),
      ExecutionStrategy::Operations({1}),
  });
  const std::vector<TraceBlock> blocks = CollectTraceBlocks(strategy, ops);
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_EQ(blocks[0], (TraceBlock{.kind = TraceBlock::Kind::kFused,
                                   .name = "ElementWise",
                                   .score = 9,
                                   .ops = {ops[2], ops[0]}}));
  EXPECT_EQ(blocks[1], (TraceBlock{.kind = TraceBlock::Kind::kUnfused, .ops = {ops[1]}}));
}

TEST(Trace, BlockHeadersUseSingularForOneOp) {
  const OperationIr op = ir::Drop(Ro(1, {}));
  EXPECT_EQ(FormatTraceBlockHeader(
                {.kind = TraceBlock::Kind::kFused, .name = "Reduce", .score = 3, .ops = {op}}),
            "▸ fused Reduce (score=3, 1 op)");
  EXPECT_EQ(FormatTraceBlockHeader({.kind = TraceBlock::Kind::kUnfused, .ops = {op, op}}),
            "▸ un-fused (2 ops)");
}

// --- Golden tables ------------------------------------------------------------------------------

// The seed's table, whose rows are burn's output verbatim. Widths are in bytes but padding is in
// characters (Note [Trace table widths]): the block column is 40 wide while its header is 38
// characters, and the 115 `═` match the 115 characters of every row.
TEST(Trace, GoldenSeedFusedBlock) {
  const std::vector<OperationIr> ops = SeedOps();
  const ExecutionStrategy strategy =
      ExecutionStrategy::Fused(Fake("ElementWise", 4), {0, 1, 2, 3}, 630);
  EXPECT_EQ(
      FormatExecutionTable(strategy, ops),
      Lines({
          Rule(115),
          "fusion trace (4 ops, 1 block)",
          "idx  block                                     op                       inputs       "
          "                 outputs      ",
          "---  ----------------------------------------  -----------------------  -------------"
          "---------------  -------------",
          "0    ▸ fused ElementWise (score=630, 4 ops)    NumericFloat::Mul        t1:f32[64,64]"
          ", t2:f32[64,64]  t4:f32[64,64]",
          "1                                              NumericFloat::MulScalar  t3:f32[64,64]"
          "                 t5:f32[64,64]",
          "2                                              NumericFloat::Add        t4:f32[64,64]"
          ", t5:f32[64,64]  t6:f32[64,64]",
          "3                                              Float::Exp               t6:f32[64,64]"
          "                 t7:f32[64,64]",
      }));
}

// Fused then un-fused; the last column is padded too (no trailing newline at the end).
TEST(Trace, GoldenComposedFusedThenUnfused) {
  const std::vector<OperationIr> ops = ComposedOps();
  const ExecutionStrategy strategy = ExecutionStrategy::Composed({
      ExecutionStrategy::Fused(Fake("ElementWise", 2), {0, 2}, 120),
      ExecutionStrategy::Operations({1}),
  });
  EXPECT_EQ(FormatExecutionTable(strategy, ops),
            Lines({
                Rule(100),
                "fusion trace (3 ops, 2 blocks)",
                "idx  block                                     op                  inputs      "
                "          outputs    ",
                "---  ----------------------------------------  ------------------  ------------"
                "--------  -----------",
                "0    ▸ fused ElementWise (score=120, 2 ops)    Float::Exp          t1:f32[8]   "
                "          t2:f32[8]  ",
                "1                                              NumericFloat::Mul   t2:f32[8], t"
                "2:f32[8]  t5:f32[8]  ",
                "2    ▸ un-fused (1 op)                         BaseFloat::Permute  t3:f32[4,2] "
                "          t4:f32[2,4]",
            }));
}

// One op, one block; Drop prints bare and its empty outputs cell is padded to the header.
TEST(Trace, GoldenSingleOpSingleBlock) {
  const std::vector<OperationIr> ops = {ir::Drop(Ro(9, {}))};
  EXPECT_EQ(FormatExecutionTable(ExecutionStrategy::Operations({0}), ops),
            Lines({
                Rule(49),
                "fusion trace (1 op, 1 block)",
                "idx  block                op    inputs    outputs",
                "---  -------------------  ----  --------  -------",
                "0    ▸ un-fused (1 op)    Drop  t9:f32[]         ",
            }));
}

TEST(Trace, GoldenEmpty) {
  const std::vector<OperationIr> none;
  EXPECT_EQ(FormatExecutionTable(ExecutionStrategy::Operations({}), none), "fusion block: <empty>");
  EXPECT_EQ(FormatExecutionTable(ExecutionStrategy::Composed({}), none), "fusion block: <empty>");
  // Blocks with no ops still count as empty when no block has any.
  const std::vector<TraceBlock> empty_blocks = {{.kind = TraceBlock::Kind::kUnfused}};
  EXPECT_EQ(FormatTraceTable(empty_blocks), "fusion block: <empty>");
}

// --- The log ------------------------------------------------------------------------------------

struct QueueHarness {
  std::unique_ptr<Backend> backend = cpu::MakeCpuBackend(1);
  HandleContainer handles;
  OperationQueue queue;

  void Upload(TensorId id) {
    handles.Register(id, MakeHandle(*backend, Iota(kShape), kShape));
    queue.Add(ir::Init(Out(id, kShape)));
  }
};

// The table shows the global ops the execution covers (not those queued behind it).
TEST(Trace, QueueExecutionLogsTheTableAtFullLevel) {
  QueueHarness h;
  h.Upload(1);
  h.queue.Add(ir::Unary(OpKind::kExp, Ro(1, kShape), Out(2, kShape)));
  h.queue.Add(ir::Unary(OpKind::kExp, Ro(2, kShape), Out(3, kShape)));

  ScopedLogCapture capture(LogLevel::kFull);
  h.queue.ExecuteUnfused(std::vector<size_t>{0, 1}, *h.backend, h.handles);

  EXPECT_THAT(capture.messages(),
              Contains(Lines({
                  Rule(63),
                  "fusion trace (2 ops, 1 block)",
                  "idx  block                 op          inputs       outputs    ",
                  "---  --------------------  ----------  -----------  -----------",
                  "0    ▸ un-fused (2 ops)    Init                     t1:f32[2,3]",
                  "1                          Float::Exp  t1:f32[2,3]  t2:f32[2,3]",
              })));
}

TEST(Trace, QueueExecutionOfAFusedPlanLogsItsBlocks) {
  QueueHarness h;
  h.Upload(1);
  h.queue.Add(ir::Unary(OpKind::kExp, Ro(1, kShape), Out(2, kShape)));
  h.queue.Add(ir::Unary(OpKind::kExp, Ro(2, kShape), Out(3, kShape)));
  const BlockOptimization plan{
      ExecutionStrategy::Composed({ExecutionStrategy::Operations({0}),
                                   ExecutionStrategy::Fused(Fake("ElementWise", 2), {1, 2}, 7)}),
      {0, 1, 2}};

  ScopedLogCapture capture(LogLevel::kFull);
  h.queue.ExecuteOptimization(plan, *h.backend, h.handles);

  const std::string expected = FormatTraceTable(std::vector<TraceBlock>{
      {.kind = TraceBlock::Kind::kUnfused, .ops = {ir::Init(Out(1, kShape))}},
      {.kind = TraceBlock::Kind::kFused,
       .name = "ElementWise",
       .score = 7,
       .ops = {ir::Unary(OpKind::kExp, Ro(1, kShape), Out(2, kShape)),
               ir::Unary(OpKind::kExp, Ro(2, kShape), Out(3, kShape))}},
  });
  EXPECT_THAT(capture.messages(), Contains(expected));
  EXPECT_NE(expected.find("▸ fused ElementWise (score=7, 2 ops)"), std::string::npos);
  EXPECT_TRUE(h.queue.empty());
}

TEST(Trace, QueueExecutionDoesNotLogTheTableBelowFullLevel) {
  QueueHarness h;
  h.Upload(1);
  h.queue.Add(ir::Unary(OpKind::kExp, Ro(1, kShape), Out(2, kShape)));

  ScopedLogCapture capture(LogLevel::kMedium);
  h.queue.ExecuteUnfused(std::vector<size_t>{0, 1}, *h.backend, h.handles);

  EXPECT_THAT(capture.messages(), Not(Contains(StartsWith("═"))));
}

}  // namespace
}  // namespace ember
