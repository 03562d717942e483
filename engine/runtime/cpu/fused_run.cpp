#include "engine/runtime/cpu/fused_run.h"

#include <algorithm>
#include <memory>

#include <ember/error.h>

#include "engine/runtime/cpu/buffer_cache.h"
#include "engine/runtime/cpu/fused_outputs.h"
#include "engine/runtime/cpu/fused_plan.h"
#include "engine/runtime/cpu/fused_tiles.h"
#include "engine/runtime/cpu/strided.h"

namespace ember::cpu {
namespace {

// Positions a group aims at: its buffers (4 or 8 bytes a number) stay in L2.
constexpr int64_t kGroupPositions = 8192;

// The group buffers of one thread, sized for up to `max_units` units.
class GroupMemory {
 public:
  // From the BufferCache (buffer_cache.h), like every CPU buffer: reused launch after launch.
  GroupMemory(const FusedPlan& plan, int64_t max_units) : plan_(plan) {
    for (const GroupBufferSpec& spec : plan.buffers) {
      const int64_t numbers = max_units * plan.layout.unit_positions[spec.block];
      // Uninitialized: a block writes each number before a later block or a reduce reads it.
      size_t capacity = 0;
      data_.push_back(BufferCache::Global().Allocate(
          static_cast<size_t>(numbers * DTypeSize(DomainDType(DomainOf(spec.dtype)))), &capacity));
      capacities_.push_back(capacity);
    }
  }
  ~GroupMemory() {
    for (size_t i = 0; i < data_.size(); ++i)
      BufferCache::Global().Release(data_[i], capacities_[i]);
  }
  GroupMemory(const GroupMemory&) = delete;
  GroupMemory& operator=(const GroupMemory&) = delete;

  GroupBuffers buffers() const { return {data_, plan_.layout.axis_length, plan_.layout.inner}; }

 private:
  const FusedPlan& plan_;
  std::vector<std::byte*> data_;
  std::vector<size_t> capacities_;
};

// Units [u0, u1), every block in order. `scratch`: run on this thread with it; null: spread
// each block and reduce over the pool.
void RunGroup(const FusedPlan& plan, int64_t u0, int64_t u1, GroupMemory& memory,
              TileScratch* scratch, ThreadPool& pool) {
  const FusedLayout& layout = plan.layout;
  const GroupBuffers group = memory.buffers();
  for (size_t b = 0; b < plan.blocks.size(); ++b) {
    if (const auto& stage = plan.reduce_before[b]) {
      ReduceGroup(*stage, group.data[stage->input], group.data[stage->output], u1 - u0,
                  layout.axis_length, layout.inner, scratch != nullptr ? nullptr : &pool);
    }
    const BlockProgram& program = plan.blocks[b];
    const int64_t base = u0 * layout.unit_positions[b];
    const int64_t end = u1 * layout.unit_positions[b];
    if (scratch != nullptr) {
      RunBlockTiles(program, group, base, base, end, *scratch);
      continue;
    }
    pool.ParallelFor(end - base, kParallelGrain, [&](int64_t begin, int64_t stop) {
      TileScratch local(program.num_slots);
      RunBlockTiles(program, group, base, base + begin, base + stop, local);
    });
  }
}

void RunGroups(const FusedPlan& plan, ThreadPool& pool) {
  const FusedLayout& layout = plan.layout;
  const int64_t widest = std::max<int64_t>(
      1, *std::max_element(layout.unit_positions.begin(), layout.unit_positions.end()));
  const int64_t group_units = std::max<int64_t>(1, kGroupPositions / widest);
  if (!plan.independent_units || layout.units < group_units * pool.size()) {
    GroupMemory memory(plan, layout.units);
    RunGroup(plan, 0, layout.units, memory, nullptr, pool);
    return;
  }
  // A chunk is at least kParallelGrain positions, so small traces run inline.
  const int64_t chunk_units = std::max(group_units, (kParallelGrain + widest - 1) / widest);
  pool.ParallelFor(layout.units, chunk_units, [&](int64_t begin, int64_t end) {
    GroupMemory memory(plan, std::min(group_units, end - begin));
    TileScratch scratch(plan.max_slots);
    for (int64_t u = begin; u < end; u += group_units) {
      RunGroup(plan, u, std::min(u + group_units, end), memory, &scratch, pool);
    }
  });
}

}  // namespace

std::vector<TensorHandle> RunFused(const FusedLaunch& launch, ThreadPool& pool,
                                   FusedPlanCache& cache) {
  if (launch.trace == nullptr) throw Error("fused launch without a trace");
  std::unique_ptr<FusedPlan> plan = cache.Take(launch);
  CheckFusedHandles(launch);
  plan->in_place = ChooseInPlace(launch);
  plan->matmul_output = ChooseMatmulOutput(launch, plan->in_place);
  std::vector<TensorHandle> outputs = AllocateOutputs(launch, plan->in_place, plan->matmul_output);
  BindFused(*plan, launch, outputs, pool);
  if (!plan->blocks.empty()) RunGroups(*plan, pool);
  cache.Give(launch, std::move(plan));
  return outputs;
}

}  // namespace ember::cpu
