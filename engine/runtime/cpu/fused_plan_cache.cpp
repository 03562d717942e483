#include "engine/runtime/cpu/fused_plan_cache.h"

#include <algorithm>
#include <utility>

namespace ember::cpu {
namespace {

// `now` holds TensorIrs (outputs) or TensorHandles (inputs): both have a shape and a dtype.
template <typename Tensor>
bool SameShapesAndDtypes(const std::vector<TensorIr>& kept, const std::vector<Tensor>& now) {
  return std::equal(
      kept.begin(), kept.end(), now.begin(), now.end(),
      [](const TensorIr& a, const Tensor& b) { return a.dtype == b.dtype && a.shape == b.shape; });
}

}  // namespace

bool FusedPlanCache::Matches(const Entry& entry, const FusedLaunch& launch) {
  return SameShapesAndDtypes(entry.inputs, launch.inputs) &&
         SameShapesAndDtypes(entry.outputs, launch.outputs) &&
         entry.block_shapes == launch.block_shapes && entry.view_shapes == launch.view_shapes &&
         (launch.trace_serial != 0 || entry.trace == *launch.trace);
}

std::unique_ptr<FusedPlan> FusedPlanCache::Take(const FusedLaunch& launch) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    const auto it = entries_.find(KeyOf(launch));
    if (it != entries_.end()) {
      for (Entry& entry : it->second) {
        if (entry.plan == nullptr || !Matches(entry, launch)) continue;
        ++hits_;
        return std::move(entry.plan);
      }
    }
    ++misses_;
  }
  return std::make_unique<FusedPlan>(PlanFused(launch));
}

void FusedPlanCache::Give(const FusedLaunch& launch, std::unique_ptr<FusedPlan> plan) {
  plan->tensors.clear();
  std::lock_guard<std::mutex> lock(mu_);
  if (const auto it = entries_.find(KeyOf(launch)); it != entries_.end()) {
    for (Entry& entry : it->second) {
      if (!Matches(entry, launch)) continue;
      if (entry.plan == nullptr) entry.plan = std::move(plan);
      return;  // else another launch gave its copy back first: one is enough
    }
  }
  if (size_ >= kMaxPlans) {
    entries_.clear();
    size_ = 0;
  }
  std::vector<Entry>& fresh = entries_[KeyOf(launch)];
  if (fresh.size() >= kMaxPerTrace) {
    fresh.erase(fresh.begin());
    --size_;
  }
  Entry entry{.trace = launch.trace_serial != 0 ? FuseTrace{} : *launch.trace,
              .outputs = launch.outputs,
              .block_shapes = launch.block_shapes,
              .view_shapes = launch.view_shapes,
              .plan = std::move(plan)};
  entry.inputs.reserve(launch.inputs.size());
  for (const TensorHandle& in : launch.inputs) {
    entry.inputs.push_back({.shape = in.shape, .dtype = in.dtype});
  }
  fresh.push_back(std::move(entry));
  ++size_;
}

uint64_t FusedPlanCache::hits() const {
  std::lock_guard<std::mutex> lock(mu_);
  return hits_;
}

uint64_t FusedPlanCache::misses() const {
  std::lock_guard<std::mutex> lock(mu_);
  return misses_;
}

size_t FusedPlanCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return size_;
}

}  // namespace ember::cpu
