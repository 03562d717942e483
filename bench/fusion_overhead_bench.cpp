// Host overhead of the fusion engine per registered op, with a backend that does no work.
//
// Every case pushes the same op sequences that the API would queue (fresh tensor ids for every
// temporary, named inputs ReadOnly, temporaries ReadWrite at their last use) through
// MultiStream::Register and ends each segment with MultiStream::Drain (a sync). The backend and
// the fuser are bench-local and do nothing but keep the handle container consistent, so what is
// measured is the engine itself: queueing, relative conversion, the first-op index lookup,
// policy validation, exploration and dispatch.
//
//   *_Hit      the plan store already holds the segment's plan (a warm-up explored it once);
//              every measured segment must hit, or the case reports an error.
//   *_Explore  a fresh MultiStream (and plan store) per iteration: each segment explores once.
//   *_Build    the baseline: the same ops built into a std::vector<OperationIr>, nothing else.
//
// Segments:
//   Seed4      the seed's (a * b + c * 2).exp(): Mul, MulScalar, Add, Exp on 64x64, preceded
//              (from the second segment on) by the Drop of the previous segment's result, as
//              the API queues it when `y` dies after the sync: 5 registered ops per segment.
//   Chains40   five independent chains of eight unary/scalar ops on 256x256 (the 7390-point
//              example of docs/FUSERS.md); after the sync each chain's result is read once
//              (its last use), so no Drop is queued: 40 registered ops per segment.
//
// Counters: ns_per_op (thread CPU time per registered op), ns_per_segment (per sync), and for
// the Explore cases ns_per_exploration (= ns_per_segment: one exploration per segment).
#include <benchmark/benchmark.h>

#include <time.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "engine/fuse/context.h"
#include "engine/fuse/fuser.h"
#include "engine/fuse/optimization.h"
#include "engine/fuse/ordered_execution.h"
#include "engine/ir/builders.h"
#include "engine/runtime/backend.h"
#include "engine/runtime/buffer.h"
#include "engine/runtime/handle_container.h"
#include "engine/stream/multi_stream.h"
#include "engine/stream/stream_id.h"

namespace ember {
namespace {

// --- A backend that does no work -------------------------------------------------------------

class EmptyBuffer final : public Buffer {
 public:
  size_t size() const override { return 0; }
  std::string_view backend() const override { return "noop"; }
};

// Every output gets a handle on one shared empty buffer; inputs are taken (so last uses free)
// and nothing is computed.
class NoopBackend final : public Backend {
 public:
  std::string_view name() const override { return "noop"; }

  void Execute(const OperationIr& op, HandleContainer& handles) override {
    ++unfused_ops;
    if (op.kind == OpKind::kInit) return;
    if (op.kind == OpKind::kDrop) {
      handles.Free(op.inputs[0]);
      return;
    }
    for (const TensorIr& t : op.inputs) handles.Get(t);
    for (const TensorIr& t : op.outputs) handles.Register(t.id, Handle(t));
  }
  TensorHandle FromHost(std::span<const std::byte>, const Shape& shape, DType dtype) override {
    return TensorHandle{.buffer = buffer_, .shape = shape, .dtype = dtype};
  }
  void ToHost(const TensorHandle&, std::span<std::byte>) override {}
  void Seed(uint64_t) override {}
  void Synchronize() override {}

  TensorHandle Handle(const TensorIr& t) const {
    return TensorHandle{.buffer = buffer_, .shape = t.shape, .dtype = t.dtype};
  }

  // Ops run through Execute (unfused) and through an optimization (fused): a hit must fuse.
  size_t unfused_ops = 0;
  size_t fused_ops = 0;

 private:
  std::shared_ptr<Buffer> buffer_ = std::make_shared<EmptyBuffer>();
};

// --- A fuser that accepts up to N elementwise ops --------------------------------------------

// The ops the bench fuser takes: the elementwise kinds the segments use, and Drop (burn's
// elementwise fuser accepts Drop too). A subset, so `default:` is deliberate here.
bool IsFusable(OpKind kind) {
  switch (kind) {
    case OpKind::kDrop:
    case OpKind::kAdd:
    case OpKind::kSub:
    case OpKind::kMul:
    case OpKind::kDiv:
    case OpKind::kAddScalar:
    case OpKind::kSubScalar:
    case OpKind::kMulScalar:
    case OpKind::kDivScalar:
    case OpKind::kAbs:
    case OpKind::kNeg:
    case OpKind::kExp:
    case OpKind::kLog:
    case OpKind::kSqrt:
    case OpKind::kTanh:
      return true;
    default:
      return false;
  }
}

// Executes nothing: registers a handle for each output of its ops so the queue and the handle
// container stay consistent; a Drop just frees.
class MarkOutputsOptimization final : public Optimization {
 public:
  MarkOutputsOptimization(size_t len, NoopBackend& backend)
      : len_(len), backend_(backend) {}

  void Execute(Context& context, OrderedExecution& execution) override {
    backend_.fused_ops += len_;
    for (size_t i = 0; i < len_; ++i) {
      const OperationIr& op = execution.OperationWithinOptimization(i);
      if (op.kind == OpKind::kDrop) {
        context.handles->Free(op.inputs[0]);
        continue;
      }
      for (const TensorIr& t : op.outputs) context.handles->Register(t.id, backend_.Handle(t));
    }
  }
  size_t len() const override { return len_; }
  std::string_view name() const override { return "MarkOutputs"; }
  OptimizationState ToState() const override { return {.name = "MarkOutputs", .trace = {}}; }

 private:
  size_t len_;
  NoopBackend& backend_;
};

// Open until it has taken `max_ops` ops or sees one it cannot take. Score = ops fused, except
// that a single op scores 0 and runs unfused (as the real ElementWise fuser: docs/FUSERS.md,
// `x + 1.0` alone).
class BenchFuser final : public OperationFuser {
 public:
  BenchFuser(size_t max_ops, NoopBackend& backend) : max_ops_(max_ops), backend_(backend) {}

  void Fuse(const OperationIr& op) override {
    if (closed_) return;
    if (len_ == max_ops_ || !IsFusable(op.kind)) {
      closed_ = true;
      return;
    }
    ++len_;
  }
  std::shared_ptr<Optimization> Finish() override {
    return std::make_shared<MarkOutputsOptimization>(len_, backend_);
  }
  void Reset() override {
    len_ = 0;
    closed_ = false;
  }
  FuserStatus status() const override {
    return closed_ ? FuserStatus::kClosed : FuserStatus::kOpen;
  }
  FuserProperties properties() const override {
    return {.score = len_ >= 2 ? len_ : 0, .ready = len_ >= 1};
  }
  size_t len() const override { return len_; }
  std::unique_ptr<OperationFuser> Clone() const override {
    return std::make_unique<BenchFuser>(*this);
  }

 private:
  size_t max_ops_;
  NoopBackend& backend_;
  size_t len_ = 0;
  bool closed_ = false;
};

constexpr size_t kMaxFusedOps = 64;

FuserFactory Fusers(NoopBackend& backend) {
  return [&backend] {
    std::vector<std::unique_ptr<OperationFuser>> fusers;
    fusers.push_back(std::make_unique<BenchFuser>(kMaxFusedOps, backend));
    return fusers;
  };
}

// --- The op sequences ------------------------------------------------------------------------

TensorIr T(TensorId id, const Shape& shape, TensorStatus status) {
  return TensorIr{.id = id, .shape = shape, .status = status, .dtype = DType::kF32};
}

constexpr TensorStatus kNew = TensorStatus::kNotInit;
constexpr TensorStatus kRO = TensorStatus::kReadOnly;
constexpr TensorStatus kRW = TensorStatus::kReadWrite;

// A program that emits one segment at a time with fresh ids for its temporaries.
class Program {
 public:
  virtual ~Program() = default;
  // Named inputs (handles registered before the first segment).
  virtual std::vector<TensorIr> Inputs() const = 0;
  // Appends the next segment's ops to `ops`.
  virtual void Segment(std::vector<OperationIr>& ops) = 0;
  // The segment's results, read once (last use) after the sync; empty when they are dropped.
  virtual std::vector<TensorIr> ReadAfterSync() const { return {}; }

 protected:
  TensorId next_id_ = 1000;
};

// (a * b + c * 2).exp() on 64x64, with the Drop of the previous result first.
class SeedProgram final : public Program {
 public:
  std::vector<TensorIr> Inputs() const override {
    return {T(kA, shape_, kRO), T(kB, shape_, kRO), T(kC, shape_, kRO)};
  }
  void Segment(std::vector<OperationIr>& ops) override {
    if (previous_y_ != 0) ops.push_back(ir::Drop(T(previous_y_, shape_, kRW)));
    const TensorId ab = next_id_++, c2 = next_id_++, sum = next_id_++, y = next_id_++;
    ops.push_back(
        ir::Binary(OpKind::kMul, T(kA, shape_, kRO), T(kB, shape_, kRO), T(ab, shape_, kNew)));
    ops.push_back(ir::Scalar(OpKind::kMulScalar, T(kC, shape_, kRO), ScalarIr::Float(2.0),
                             T(c2, shape_, kNew)));
    ops.push_back(
        ir::Binary(OpKind::kAdd, T(ab, shape_, kRW), T(c2, shape_, kRW), T(sum, shape_, kNew)));
    ops.push_back(ir::Unary(OpKind::kExp, T(sum, shape_, kRW), T(y, shape_, kNew)));
    previous_y_ = y;
  }

 private:
  static constexpr TensorId kA = 1, kB = 2, kC = 3;
  Shape shape_ = {64, 64};
  TensorId previous_y_ = 0;
};

// Five independent chains of eight unary/scalar ops on 256x256, one chain after the other.
class ChainsProgram final : public Program {
 public:
  static constexpr size_t kChains = 5;
  static constexpr size_t kChainLength = 8;

  std::vector<TensorIr> Inputs() const override {
    std::vector<TensorIr> inputs;
    for (size_t j = 0; j < kChains; ++j) inputs.push_back(T(1 + j, shape_, kRO));
    return inputs;
  }
  void Segment(std::vector<OperationIr>& ops) override {
    results_.clear();
    for (size_t j = 0; j < kChains; ++j) {
      TensorIr x = T(1 + j, shape_, kRO);
      for (size_t k = 0; k < kChainLength; ++k) {
        const TensorIr out = T(next_id_++, shape_, kNew);
        ops.push_back(ChainOp(k, x, out));
        x = T(out.id, shape_, kRW);
      }
      results_.push_back(x);  // ReadWrite: the read is its last use
    }
  }
  std::vector<TensorIr> ReadAfterSync() const override { return results_; }

 private:
  static OperationIr ChainOp(size_t k, const TensorIr& x, const TensorIr& out) {
    switch (k % 8) {
      case 0: return ir::Scalar(OpKind::kMulScalar, x, ScalarIr::Float(2.0), out);
      case 1: return ir::Unary(OpKind::kExp, x, out);
      case 2: return ir::Scalar(OpKind::kAddScalar, x, ScalarIr::Float(1.0), out);
      case 3: return ir::Unary(OpKind::kLog, x, out);
      case 4: return ir::Unary(OpKind::kTanh, x, out);
      case 5: return ir::Scalar(OpKind::kSubScalar, x, ScalarIr::Float(0.5), out);
      case 6: return ir::Unary(OpKind::kAbs, x, out);
      default: return ir::Unary(OpKind::kSqrt, x, out);
    }
  }

  Shape shape_ = {256, 256};
  std::vector<TensorIr> results_;
};

std::unique_ptr<Program> MakeProgram(int which) {
  if (which == 0) return std::make_unique<SeedProgram>();
  return std::make_unique<ChainsProgram>();
}

// --- Measuring -------------------------------------------------------------------------------

int64_t ThreadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

void Report(benchmark::State& state, int64_t cpu_ns, size_t ops, bool explore) {
  const double segments = static_cast<double>(state.iterations());
  const double ns = static_cast<double>(cpu_ns);
  state.counters["ns_per_op"] = ns / static_cast<double>(ops);
  state.counters["ns_per_segment"] = ns / segments;
  state.counters["ops_per_segment"] = static_cast<double>(ops) / segments;
  if (explore) state.counters["ns_per_exploration"] = ns / segments;
}

// The device state the API keeps around a MultiStream.
struct Device {
  NoopBackend backend;
  HandleContainer handles;
  static constexpr StreamId kStream = 1;

  void RegisterInputs(const Program& program) {
    for (const TensorIr& t : program.Inputs()) handles.Register(t.id, backend.Handle(t));
  }
  // Registers the segment's ops one by one, syncs, then reads the results it must read.
  // Returns the number of ops registered.
  size_t RunSegment(MultiStream& streams, Program& program, std::vector<OperationIr>& ops) {
    ops.clear();
    program.Segment(ops);
    for (OperationIr& op : ops) streams.Register(kStream, std::move(op), handles);
    streams.Drain(kStream, handles);
    for (const TensorIr& t : program.ReadAfterSync()) {
      handles.Free(t);  // a last-use read frees the handle (ReadPlan::kDirect)
      streams.MarkRead(kStream, t);
    }
    return ops.size();
  }
};

// The measured hit-path segment, a separate symbol so a profiler can collect only it
// (valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*MeasuredHitSegment*').
[[gnu::noinline]] size_t MeasuredHitSegment(Device& device, MultiStream& streams,
                                            Program& program, std::vector<OperationIr>& ops) {
  return device.RunSegment(streams, program, ops);
}

// Cache-hit path: explore during the warm-up, then every segment must hit.
void BM_Hit(benchmark::State& state) {
  std::unique_ptr<Program> program = MakeProgram(static_cast<int>(state.range(0)));
  Device device;
  device.RegisterInputs(*program);
  MultiStream streams(device.backend, Fusers(device.backend), SearchSettings{});
  std::vector<OperationIr> ops;
  for (int i = 0; i < 4; ++i) device.RunSegment(streams, *program, ops);
  const size_t plans = streams.store().size();
  device.backend.fused_ops = device.backend.unfused_ops = 0;

  size_t registered = 0;
  const int64_t start = ThreadCpuNs();
  for (auto _ : state) registered += MeasuredHitSegment(device, streams, *program, ops);
  const int64_t cpu_ns = ThreadCpuNs() - start;

  if (streams.store().size() != plans) {
    state.SkipWithError("a measured segment missed the plan store");
    return;
  }
  Report(state, cpu_ns, registered, /*explore=*/false);
  state.counters["plans"] = static_cast<double>(plans);
  state.counters["handles"] = static_cast<double>(device.handles.size());
  const double iterations = static_cast<double>(state.iterations());
  state.counters["fused_per_segment"] = static_cast<double>(device.backend.fused_ops) / iterations;
  state.counters["unfused_per_segment"] =
      static_cast<double>(device.backend.unfused_ops) / iterations;
}

// One exploration per iteration: a fresh MultiStream, hence an empty plan store.
void BM_Explore(benchmark::State& state) {
  std::unique_ptr<Program> program = MakeProgram(static_cast<int>(state.range(0)));
  Device device;
  device.RegisterInputs(*program);
  std::vector<OperationIr> ops;
  {
    MultiStream warm(device.backend, Fusers(device.backend), SearchSettings{});
    device.RunSegment(warm, *program, ops);  // steady-state segment shape (Seed4: with a Drop)
  }

  size_t registered = 0;
  size_t plans = 0;
  const int64_t start = ThreadCpuNs();
  for (auto _ : state) {
    MultiStream streams(device.backend, Fusers(device.backend), SearchSettings{});
    registered += device.RunSegment(streams, *program, ops);
    plans += streams.store().size();
  }
  const int64_t cpu_ns = ThreadCpuNs() - start;
  Report(state, cpu_ns, registered, /*explore=*/true);
  state.counters["plans_per_segment"] =
      static_cast<double>(plans) / static_cast<double>(state.iterations());
}

// Baseline: only building the same ops into a vector (a segment ends by clearing it).
void BM_Build(benchmark::State& state) {
  std::unique_ptr<Program> program = MakeProgram(static_cast<int>(state.range(0)));
  std::vector<OperationIr> ops;
  program->Segment(ops);  // the first Seed4 segment has no Drop: start in steady state
  size_t registered = 0;
  const int64_t start = ThreadCpuNs();
  for (auto _ : state) {
    ops.clear();
    program->Segment(ops);
    benchmark::DoNotOptimize(ops.data());
    benchmark::ClobberMemory();
    registered += ops.size();
  }
  const int64_t cpu_ns = ThreadCpuNs() - start;
  Report(state, cpu_ns, registered, /*explore=*/false);
}

// Reference: the same ops run one by one, unfused, on the no-op backend (an eager engine with
// no queue and no search).
void BM_Eager(benchmark::State& state) {
  std::unique_ptr<Program> program = MakeProgram(static_cast<int>(state.range(0)));
  Device device;
  device.RegisterInputs(*program);
  std::vector<OperationIr> ops;
  size_t registered = 0;
  const int64_t start = ThreadCpuNs();
  for (auto _ : state) {
    ops.clear();
    program->Segment(ops);
    for (const OperationIr& op : ops) device.backend.Execute(op, device.handles);
    for (const TensorIr& t : program->ReadAfterSync()) device.handles.Free(t);
    registered += ops.size();
  }
  const int64_t cpu_ns = ThreadCpuNs() - start;
  Report(state, cpu_ns, registered, /*explore=*/false);
}

// Arg 0: Seed4 (4 ops + the Drop of the previous result); Arg 1: Chains40.
BENCHMARK(BM_Build)->ArgNames({"chains"})->Arg(0)->Arg(1)->MinTime(0.2);
BENCHMARK(BM_Eager)->ArgNames({"chains"})->Arg(0)->Arg(1)->MinTime(0.2);
BENCHMARK(BM_Hit)->ArgNames({"chains"})->Arg(0)->Arg(1)->MinTime(0.2);
BENCHMARK(BM_Explore)->ArgNames({"chains"})->Arg(0)->Arg(1)->MinTime(0.2);

}  // namespace
}  // namespace ember

BENCHMARK_MAIN();
