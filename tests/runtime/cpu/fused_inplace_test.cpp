// In-place reuse of input buffers by fused outputs (the conditions of
// engine/runtime/cpu/fused_outputs.h, after burn's OutputPlanner::inplace_output), and the rule
// that a trace the CPU backend cannot run throws before it writes anything.
#include <cstdint>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include <ember/error.h>

#include "tests/runtime/fused_test_util.h"

namespace ember::testing {
namespace {

const Shape kShape = {9, 4001};
const int64_t kCount = 9 * 4001;

// out0 = exp(in0) + in1, out1 = in0 (the same numbers, written after out0).
FuseTrace ExpAddTrace() {
  FuseTrace trace;
  trace.blocks.push_back({.reads = {Assign(Local(0), InArg(0)), Assign(Local(1), InArg(1))},
                          .ops = {Op(FuseOpKind::kExp, Local(2), Local(0)),
                                  Op(FuseOpKind::kAdd, Local(3), Local(2), Local(1))},
                          .writes = {Assign(OutArg(0), Local(3)), Assign(OutArg(1), Local(0))}});
  trace.resources = Resources(2, 2);
  return trace;
}

struct Fixture {
  std::unique_ptr<Backend> backend = cpu::MakeCpuBackend(2);
  std::vector<double> x = TestData(kCount, -3, 3, 1);
  std::vector<double> y = TestData(kCount, -3, 3, 2);
  FuseTrace trace = ExpAddTrace();

  FusedLaunch MakeLaunch(std::vector<bool> reusable) {
    FusedLaunch launch = Launch(trace,
                                {MakeHandle(*backend, kShape, DType::kF32, x),
                                 MakeHandle(*backend, kShape, DType::kF32, y)},
                                {OutIr(kShape), OutIr(kShape)}, {kShape});
    launch.reusable = std::move(reusable);
    return launch;
  }
  // What the trace computes, from fresh copies of the inputs.
  std::vector<std::byte> Expected() {
    FusedLaunch launch = MakeLaunch({false, false});
    return ReadBytes(*backend, backend->ExecuteFused(launch)[0]);
  }
};

TEST(FusedInPlace, LastUseInputBufferIsReused) {
  Fixture f;
  const std::vector<std::byte> expected = f.Expected();
  FusedLaunch launch = f.MakeLaunch({true, false});
  const Buffer* x_buffer = launch.inputs[0].buffer.get();
  const std::vector<std::byte> x_bytes = ReadBytes(*f.backend, launch.inputs[0]);
  const std::vector<TensorHandle> out = f.backend->ExecuteFused(launch);
  EXPECT_EQ(out[0].buffer.get(), x_buffer);
  EXPECT_TRUE(ReadBytes(*f.backend, out[0]) == expected);
  // out1 copies in0, which out0 overwrote in place: it must hold the original numbers.
  EXPECT_TRUE(ReadBytes(*f.backend, out[1]) == x_bytes);
  EXPECT_NE(out[1].buffer.get(), x_buffer);
}

// in0 is first read by the last write, after out0 (which takes in0's buffer) is written in the
// trace's order: the tile must still load it before storing out0.
TEST(FusedInPlace, InputReadOnlyByALaterWriteIsLoadedFirst) {
  const std::unique_ptr<Backend> backend = cpu::MakeCpuBackend(2);
  FuseTrace trace;
  trace.blocks.push_back({.reads = {Assign(Local(0), InArg(1))},
                          .ops = {Op(FuseOpKind::kExp, Local(1), Local(0))},
                          .writes = {Assign(OutArg(0), Local(1)), Assign(OutArg(1), InArg(0))}});
  trace.resources = Resources(2, 2);
  const std::vector<double> x = TestData(kCount, -3, 3, 1);
  FusedLaunch launch = Launch(
      trace,
      {MakeHandle(*backend, kShape, DType::kF32, x), MakeHandle(*backend, kShape, DType::kF32, x)},
      {OutIr(kShape), OutIr(kShape)}, {kShape});
  launch.reusable = {true, false};
  const Buffer* x_buffer = launch.inputs[0].buffer.get();
  const std::vector<std::byte> x_bytes = ReadBytes(*backend, launch.inputs[0]);
  const std::vector<TensorHandle> out = backend->ExecuteFused(launch);
  EXPECT_EQ(out[0].buffer.get(), x_buffer);
  EXPECT_TRUE(ReadBytes(*backend, out[1]) == x_bytes);
}

TEST(FusedInPlace, InputStillReferencedElsewhereIsNotReused) {
  Fixture f;
  const std::vector<std::byte> expected = f.Expected();
  FusedLaunch launch = f.MakeLaunch({true, true});
  const TensorHandle other_x = launch.inputs[0];  // e.g. a view still alive
  const TensorHandle other_y = launch.inputs[1];
  const std::vector<std::byte> x_bytes = ReadBytes(*f.backend, other_x);
  const std::vector<TensorHandle> out = f.backend->ExecuteFused(launch);
  EXPECT_NE(out[0].buffer, other_x.buffer);
  EXPECT_NE(out[0].buffer, other_y.buffer);
  EXPECT_TRUE(ReadBytes(*f.backend, out[0]) == expected);
  EXPECT_TRUE(ReadBytes(*f.backend, other_x) == x_bytes);
}

TEST(FusedInPlace, NotReusedWithoutTheLastUseFlagOrWithAnotherDtype) {
  Fixture f;
  FusedLaunch launch = f.MakeLaunch({false, false});
  const Buffer* x_buffer = launch.inputs[0].buffer.get();
  const Buffer* y_buffer = launch.inputs[1].buffer.get();
  const Buffer* out_buffer = f.backend->ExecuteFused(launch)[0].buffer.get();
  EXPECT_NE(out_buffer, x_buffer);
  EXPECT_NE(out_buffer, y_buffer);

  // An f16 output cannot take an f32 buffer.
  FusedLaunch half = f.MakeLaunch({true, true});
  f.trace.blocks[0].writes[0].out.dtype = DType::kF16;
  half.outputs[0].dtype = DType::kF16;
  const std::vector<TensorHandle> out = f.backend->ExecuteFused(half);
  EXPECT_NE(out[0].buffer, half.inputs[0].buffer);
  EXPECT_NE(out[0].buffer, half.inputs[1].buffer);
}

// A read through a view, or from two blocks, keeps the input's buffer.
TEST(FusedInPlace, NotReusedWhenReadThroughAViewOrByTwoBlocks) {
  const std::unique_ptr<Backend> backend = cpu::MakeCpuBackend(1);
  FuseTrace viewed;
  viewed.blocks.push_back({.reads = {Assign(Local(0), ViewArg(0)), Assign(Local(1), InArg(0))},
                           .ops = {Op(FuseOpKind::kAdd, Local(2), Local(0), Local(1))},
                           .writes = {Assign(OutArg(0), Local(2))}});
  viewed.resources = Resources(1, 1, {}, {{.kind = FuseView::Kind::kReshape, .input = 0}});
  FusedLaunch launch =
      Launch(viewed, {MakeHandle(*backend, {4, 6}, DType::kF32, TestData(24, 0, 1))},
             {OutIr({4, 6})}, {{4, 6}}, {}, {{4, 6}});
  launch.reusable = {true};
  EXPECT_NE(backend->ExecuteFused(launch)[0].buffer, launch.inputs[0].buffer);

  FuseTrace two;
  two.blocks.push_back(
      {.reads = {Assign(Local(0), InArg(0))}, .writes = {Assign(Handed(0, 0), Local(0))}});
  two.blocks.push_back({.reads = {Assign(Local(0), InArg(0))},
                        .ops = {Op(FuseOpKind::kAdd, Local(1), Local(0), Handed(0, 0))},
                        .writes = {Assign(OutArg(0), Local(1))}});
  two.resources = Resources(1, 1);
  FusedLaunch launch2 = Launch(two, {MakeHandle(*backend, {4, 6}, DType::kF32, TestData(24, 0, 1))},
                               {OutIr({4, 6})}, {{4, 6}, {4, 6}});
  launch2.reusable = {true};
  const std::vector<TensorHandle> out = backend->ExecuteFused(launch2);
  EXPECT_NE(out[0].buffer, launch2.inputs[0].buffer);
  const std::vector<double> in = ReadValues(*backend, launch2.inputs[0]);
  const std::vector<double> doubled = ReadValues(*backend, out[0]);
  for (size_t i = 0; i < in.size(); ++i) EXPECT_EQ(doubled[i], static_cast<float>(in[i] * 2));
}

// Each broken trace throws ember::Error, leaves the reusable input untouched and writes nothing.
TEST(FusedThrows, BeforeWritingAnything) {
  struct Broken {
    const char* what;
    void (*breaks)(FuseTrace&, FusedLaunch&);
  };
  const Broken cases[] = {
      {"local read before written",
       [](FuseTrace& t, FusedLaunch&) { t.blocks[0].ops[0].args[0] = Local(9); }},
      {"input does not broadcast",
       [](FuseTrace&, FusedLaunch& l) {
         l.block_shapes[0] = {9, 4002};
       }},
      {"output dtype differs",
       [](FuseTrace&, FusedLaunch& l) { l.outputs[1].dtype = DType::kI32; }},
      {"output shape does not map",
       [](FuseTrace&, FusedLaunch& l) {
         l.outputs[0].shape = {9, 2};
       }},
      {"output never written", [](FuseTrace& t, FusedLaunch&) { t.blocks[0].writes.pop_back(); }},
      {"missing scalar",
       [](FuseTrace& t, FusedLaunch&) { t.blocks[0].ops[1].args[1] = ScalarArg(0); }},
      {"value of a block that does not hand it over",
       [](FuseTrace& t, FusedLaunch& l) {
         t.blocks.push_back({.ops = {Op(FuseOpKind::kExp, Local(0), Handed(0, 3))},
                             .writes = {Assign(OutArg(0), Local(0))}});
         l.block_shapes.push_back(kShape);
       }},
      {"launch sizes", [](FuseTrace&, FusedLaunch& l) { l.outputs.pop_back(); }},
      {"reduce from the last block",
       [](FuseTrace& t, FusedLaunch&) {
         t.reduces.push_back({.from = 0, .axis = 1, .input = Handed(0, 0), .output = Local(0)});
       }},
  };
  for (const Broken& c : cases) {
    Fixture f;
    FusedLaunch launch = f.MakeLaunch({true, false});
    c.breaks(f.trace, launch);
    const std::vector<std::byte> x_bytes = ReadBytes(*f.backend, launch.inputs[0]);
    EXPECT_THROW(f.backend->ExecuteFused(launch), Error) << c.what;
    EXPECT_TRUE(ReadBytes(*f.backend, launch.inputs[0]) == x_bytes) << c.what;
    EXPECT_EQ(launch.inputs[0].buffer.use_count(), 1) << c.what;
  }
}

}  // namespace
}  // namespace ember::testing
