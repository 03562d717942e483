// Test fusers for the search suites (burn's TestOptimizationBuilder from
// stream/execution/tests.rs, and the NeverReadyFuser of stream/multi.rs), plus printers that
// make expected strategies short to write.
//
// TestOptimizationFuser(builder_id, expected): records every op it is fed.
//   status: Open iff the ops so far are a strict prefix of `expected`; else Closed;
//   properties: ready iff the ops so far start with `expected`, score = expected.size();
//   len(): expected.size() (not the ops fed);
//   Finish(): TestOptimization{builder_id, size = len()}.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/fuse/fuser.h"
#include "engine/fuse/optimization.h"
#include "engine/ir/operation_ir.h"
#include "engine/search/strategy.h"

namespace ember::search_test {

class TestOptimization : public Optimization {
 public:
  TestOptimization(size_t builder_id, size_t size) : builder_id_(builder_id), size_(size) {}
  void Execute(Context&, OrderedExecution&) override {}
  size_t len() const override { return size_; }
  std::string_view name() const override { return "TestOptimization"; }
  OptimizationState ToState() const override { return {.name = "TestOptimization", .trace = {}}; }

  size_t builder_id() const { return builder_id_; }

 private:
  size_t builder_id_;
  size_t size_;
};

class TestOptimizationFuser : public OperationFuser {
 public:
  TestOptimizationFuser(size_t builder_id, std::vector<OperationIr> expected)
      : builder_id_(builder_id), expected_(std::move(expected)) {}

  void Fuse(const OperationIr& op) override { actual_.push_back(op); }
  std::shared_ptr<Optimization> Finish() override {
    return std::make_shared<TestOptimization>(builder_id_, len());
  }
  void Reset() override { actual_.clear(); }
  FuserStatus status() const override {
    if (actual_.size() < expected_.size() && StartsWith(expected_, actual_)) {
      return FuserStatus::kOpen;
    }
    return FuserStatus::kClosed;
  }
  FuserProperties properties() const override {
    if (actual_.size() < expected_.size() || !StartsWith(actual_, expected_)) return {};
    return {.score = expected_.size(), .ready = true};
  }
  size_t len() const override { return expected_.size(); }
  std::unique_ptr<OperationFuser> Clone() const override {
    return std::make_unique<TestOptimizationFuser>(*this);
  }

 private:
  static bool StartsWith(const std::vector<OperationIr>& all,
                         const std::vector<OperationIr>& prefix) {
    if (prefix.size() > all.size()) return false;
    for (size_t i = 0; i < prefix.size(); ++i) {
      if (!(all[i] == prefix[i])) return false;
    }
    return true;
  }

  size_t builder_id_;
  std::vector<OperationIr> expected_;
  std::vector<OperationIr> actual_;
};

// Always Open, never ready: lets ops accumulate in one block.
class NeverReadyFuser : public OperationFuser {
 public:
  void Fuse(const OperationIr&) override { ++len_; }
  std::shared_ptr<Optimization> Finish() override { return nullptr; }
  void Reset() override { len_ = 0; }
  FuserStatus status() const override { return FuserStatus::kOpen; }
  FuserProperties properties() const override { return {}; }
  size_t len() const override { return len_; }
  std::unique_ptr<OperationFuser> Clone() const override {
    return std::make_unique<NeverReadyFuser>(*this);
  }

 private:
  size_t len_ = 0;
};

// One TestOptimizationFuser per pattern, builder ids 0, 1, ...
inline std::vector<std::unique_ptr<OperationFuser>> Fusers(
    const std::vector<std::vector<OperationIr>>& patterns) {
  std::vector<std::unique_ptr<OperationFuser>> fusers;
  for (size_t i = 0; i < patterns.size(); ++i) {
    fusers.push_back(std::make_unique<TestOptimizationFuser>(i, patterns[i]));
  }
  return fusers;
}

// "Opt(b0,n2,[0,1],s2)", "Ops[1,3]", "Composed[...]": burn's test literals as text, so that
// fused leaves compare by builder id and size rather than by identity.
inline std::string Describe(const ExecutionStrategy& strategy) {
  switch (strategy.kind) {
    case ExecutionStrategy::Kind::kOptimization: {
      const auto* opt = dynamic_cast<const TestOptimization*>(strategy.optimization.get());
      return fmt::format("Opt(b{},n{},[{}],s{})", opt ? opt->builder_id() : 999,
                         strategy.optimization->len(), fmt::join(strategy.ordering, ","),
                         strategy.score);
    }
    case ExecutionStrategy::Kind::kOperations:
      return fmt::format("Ops[{}]", fmt::join(strategy.ordering, ","));
    case ExecutionStrategy::Kind::kComposed: {
      std::vector<std::string> parts;
      for (const ExecutionStrategy& child : strategy.children) parts.push_back(Describe(child));
      return fmt::format("Composed[{}]", fmt::join(parts, ", "));
    }
  }
  return "?";
}

inline std::string Opt(size_t builder, size_t size, const std::vector<size_t>& ordering,
                       uint64_t score) {
  return fmt::format("Opt(b{},n{},[{}],s{})", builder, size, fmt::join(ordering, ","), score);
}
inline std::string Ops(const std::vector<size_t>& ordering) {
  return fmt::format("Ops[{}]", fmt::join(ordering, ","));
}
inline std::string Composed(const std::vector<std::string>& parts) {
  return fmt::format("Composed[{}]", fmt::join(parts, ", "));
}

}  // namespace ember::search_test
