#include "engine/trace/trace_chains.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

namespace ember {
namespace {

// A value ops can share: a block's local, a handover, an output buffer.
using ValueKey = std::tuple<int, uint32_t, uint32_t>;  // (kind, block, pos)

std::optional<ValueKey> KeyOf(const FuseArg& arg, uint32_t block) {
  switch (arg.kind) {
    case FuseArgKind::kLocal: return ValueKey{0, block, arg.pos};
    case FuseArgKind::kMultiBlockLocal: return ValueKey{1, arg.block, arg.pos};
    case FuseArgKind::kOutput: return ValueKey{2, 0, arg.pos};
    default: return std::nullopt;  // inputs, views, scalars, literals connect nothing
  }
}

bool ReadsInput(const FuseOp& op) {
  return op.kind == FuseOpKind::kAssign &&
         (op.args[0].kind == FuseArgKind::kInput || op.args[0].kind == FuseArgKind::kInputView);
}

class UnionFind {
 public:
  int Add() {
    parent_.push_back(static_cast<int>(parent_.size()));
    return parent_.back();
  }
  int Find(int x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void Join(int a, int b) {
    a = Find(a);
    b = Find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }

 private:
  std::vector<int> parent_;
};

// Where an op sits: block, list (0 reads, 1 ops, 2 writes), index.
struct OpAt {
  uint32_t block;
  int list;
  size_t index;
};

const std::vector<FuseOp>& List(const FuseBlock& block, int list) {
  return list == 0 ? block.reads : list == 1 ? block.ops : block.writes;
}

std::vector<FuseOp>& List(FuseBlock& block, int list) {
  return list == 0 ? block.reads : list == 1 ? block.ops : block.writes;
}

}  // namespace

bool IsIdleBlock(const FuseTrace& trace, uint32_t b) {
  const FuseBlock& block = trace.blocks.at(b);
  if (!block.reads.empty() || !block.ops.empty() || !block.writes.empty()) return false;
  for (const ReduceStage& stage : trace.reduces) {
    if (stage.from == b || stage.from + 1 == b) return false;
  }
  return true;
}

std::vector<FuseTrace> SplitTraceChains(const FuseTrace& trace) {
  if (trace.matmul) return {};
  // Reads of an input whose local no other op writes: shared by the chains that use them.
  std::set<ValueKey> written_by_ops;
  for (uint32_t b = 0; b < trace.blocks.size(); ++b) {
    for (int list = 1; list <= 2; ++list) {
      for (const FuseOp& op : List(trace.blocks[b], list)) {
        if (auto key = KeyOf(op.out, b)) written_by_ops.insert(*key);
      }
    }
  }
  std::set<ValueKey> shared_reads;
  for (uint32_t b = 0; b < trace.blocks.size(); ++b) {
    for (const FuseOp& op : trace.blocks[b].reads) {
      const auto key = KeyOf(op.out, b);
      if (ReadsInput(op) && key && !written_by_ops.contains(*key)) shared_reads.insert(*key);
    }
  }
  UnionFind sets;
  std::map<ValueKey, int> owner;  // a value's first node
  auto touch = [&](int node, std::optional<ValueKey> key) {
    if (!key || shared_reads.contains(*key)) return;
    auto [it, fresh] = owner.try_emplace(*key, node);
    if (!fresh) sets.Join(node, it->second);
  };
  std::vector<OpAt> ops;     // per op node, in order
  std::vector<int> op_node;  // per op node: its node
  std::vector<OpAt> reads;   // shared reads, placed after the chains are known
  // Stages join in their `from` block's order: a stage's node comes after that block's ops.
  std::vector<int> stage_node(trace.reduces.size(), -1);
  for (uint32_t b = 0; b < trace.blocks.size(); ++b) {
    const FuseBlock& block = trace.blocks[b];
    for (int list = 0; list <= 2; ++list) {
      const std::vector<FuseOp>& l = List(block, list);
      for (size_t i = 0; i < l.size(); ++i) {
        const FuseOp& op = l[i];
        if (list == 0 && ReadsInput(op) && shared_reads.contains(*KeyOf(op.out, b))) {
          reads.push_back({b, list, i});
          continue;
        }
        const int node = sets.Add();
        ops.push_back({b, list, i});
        op_node.push_back(node);
        for (int k = 0; k < FuseOpArity(op.kind); ++k) touch(node, KeyOf(op.args[k], b));
        touch(node, KeyOf(op.out, b));
      }
    }
    for (size_t s = 0; s < trace.reduces.size(); ++s) {
      const ReduceStage& stage = trace.reduces[s];
      if (stage.from != b) continue;
      stage_node[s] = sets.Add();
      touch(stage_node[s], KeyOf(stage.input, b));
      touch(stage_node[s], KeyOf(stage.output, b + 1));
    }
  }
  // Chains numbered by first appearance: ops in order, a stage after its block's ops.
  std::map<int, int> chain_of_root;
  auto chain_of = [&](int node) {
    return chain_of_root.try_emplace(sets.Find(node), static_cast<int>(chain_of_root.size()))
        .first->second;
  };
  std::vector<int> op_chain(ops.size());
  std::vector<int> stage_chain(trace.reduces.size(), -1);
  {
    size_t next_op = 0;
    for (uint32_t b = 0; b < trace.blocks.size(); ++b) {
      for (; next_op < ops.size() && ops[next_op].block == b; ++next_op) {
        op_chain[next_op] = chain_of(op_node[next_op]);
      }
      for (size_t s = 0; s < trace.reduces.size(); ++s) {
        if (trace.reduces[s].from == b) stage_chain[s] = chain_of(stage_node[s]);
      }
    }
  }
  const auto chains = static_cast<int>(chain_of_root.size());
  if (chains <= 1) return {};
  // Which chains read each shared local.
  std::map<ValueKey, std::set<int>> readers;
  for (size_t n = 0; n < ops.size(); ++n) {
    const FuseOp& op = List(trace.blocks[ops[n].block], ops[n].list)[ops[n].index];
    for (int k = 0; k < FuseOpArity(op.kind); ++k) {
      const auto key = KeyOf(op.args[k], ops[n].block);
      if (key && shared_reads.contains(*key)) readers[*key].insert(op_chain[n]);
    }
  }
  std::vector<FuseTrace> out(chains);
  for (FuseTrace& t : out) {
    t.resources = trace.resources;
    t.blocks.resize(trace.blocks.size());
    for (size_t b = 0; b < trace.blocks.size(); ++b) {
      t.blocks[b].shape_ref = trace.blocks[b].shape_ref;
      t.blocks[b].num_locals = trace.blocks[b].num_locals;
    }
  }
  // Ops go in their original order: merge the shared reads back by position.
  std::vector<std::pair<OpAt, std::vector<int>>> placed;
  for (size_t n = 0; n < ops.size(); ++n) placed.push_back({ops[n], {op_chain[n]}});
  for (const OpAt& at : reads) {
    const FuseOp& op = trace.blocks[at.block].reads[at.index];
    const auto it = readers.find(*KeyOf(op.out, at.block));
    if (it == readers.end()) continue;  // a local nothing reads: no chain needs it
    placed.push_back({at, std::vector<int>(it->second.begin(), it->second.end())});
  }
  std::stable_sort(placed.begin(), placed.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first.block, a.first.list, a.first.index) <
           std::tie(b.first.block, b.first.list, b.first.index);
  });
  for (const auto& [at, in] : placed) {
    const FuseOp& op = List(trace.blocks[at.block], at.list)[at.index];
    for (int c : in) List(out[c].blocks[at.block], at.list).push_back(op);
  }
  for (size_t s = 0; s < trace.reduces.size(); ++s) {
    out[stage_chain[s]].reduces.push_back(trace.reduces[s]);
  }
  return out;
}

}  // namespace ember
