#include "engine/stream/trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <numeric>
#include <string_view>

#include "engine/core/check.h"
#include "engine/ir/format.h"

namespace ember {

// Note [Trace table widths]
// burn measures each column with Rust's str::len, a count of UTF-8 *bytes*, but pads cells with
// `{:<width$}`, which counts *characters*. ember keeps that mismatch on purpose so that its
// tables match burn's byte for byte:
//   * a column's width is the largest byte length of its cells (header included);
//   * a cell is followed by (width - characters in the cell) spaces;
//   * the top rule repeats `═` table_width times, table_width being the sum of the byte widths
//     plus two spaces between each of the five columns.
// Only the block cell holds non-ASCII text: its `▸` is 3 bytes but 1 character, so the block
// column ends 2 spaces wider than its longest header, and each row (all cells padded to their
// widths in characters) is exactly table_width characters, as long as the `═` rule.

namespace {

constexpr size_t kNumColumns = 5;
constexpr std::string_view kColumnGap = "  ";
using Row = std::array<std::string, kNumColumns>;

// Characters (Unicode scalar values) in valid UTF-8: every byte that does not continue one.
size_t Utf8Length(std::string_view text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

std::string_view Plural(size_t n, std::string_view one, std::string_view many) {
  return n == 1 ? one : many;
}

void CollectInto(const ExecutionStrategy& strategy, std::span<const OperationIr> global_ops,
                 std::vector<TraceBlock>& blocks) {
  auto ops_at = [&](const std::vector<size_t>& ordering) {
    std::vector<OperationIr> ops;
    ops.reserve(ordering.size());
    for (size_t position : ordering) {
      EMBER_CHECK(position < global_ops.size(), "trace: position {} of {} queued ops", position,
                  global_ops.size());
      ops.push_back(global_ops[position]);
    }
    return ops;
  };
  switch (strategy.kind) {
    case ExecutionStrategy::Kind::kOptimization:
      EMBER_CHECK(strategy.optimization != nullptr, "trace: a fused leaf without optimization");
      blocks.push_back(TraceBlock{.kind = TraceBlock::Kind::kFused,
                                  .name = std::string(strategy.optimization->name()),
                                  .score = strategy.score,
                                  .ops = ops_at(strategy.ordering)});
      return;
    case ExecutionStrategy::Kind::kOperations:
      blocks.push_back(
          TraceBlock{.kind = TraceBlock::Kind::kUnfused, .ops = ops_at(strategy.ordering)});
      return;
    case ExecutionStrategy::Kind::kComposed:
      for (const ExecutionStrategy& child : strategy.children) {
        CollectInto(child, global_ops, blocks);
      }
      return;
  }
}

// Appends the cells of `row`, each padded to its column (Note [Trace table widths]), and '\n'.
void AppendRow(const Row& row, const std::array<size_t, kNumColumns>& widths, std::string& out) {
  for (size_t i = 0; i < kNumColumns; ++i) {
    if (i > 0) out += kColumnGap;
    out += row[i];
    const size_t chars = Utf8Length(row[i]);
    if (chars < widths[i]) out.append(widths[i] - chars, ' ');
  }
  out += '\n';
}

}  // namespace

std::vector<TraceBlock> CollectTraceBlocks(const ExecutionStrategy& strategy,
                                           std::span<const OperationIr> global_ops) {
  std::vector<TraceBlock> blocks;
  CollectInto(strategy, global_ops, blocks);
  return blocks;
}

std::string FormatTraceBlockHeader(const TraceBlock& block) {
  const size_t n = block.ops.size();
  const std::string_view ops = Plural(n, "op", "ops");
  switch (block.kind) {
    case TraceBlock::Kind::kFused:
      return fmt::format("▸ fused {} (score={}, {} {})", block.name, block.score, n, ops);
    case TraceBlock::Kind::kUnfused: return fmt::format("▸ un-fused ({} {})", n, ops);
  }
  EMBER_CHECK(false, "trace: unknown block kind {}", static_cast<int>(block.kind));
  return {};
}

std::string FormatTraceTable(std::span<const TraceBlock> blocks) {
  size_t total = 0;
  for (const TraceBlock& block : blocks) total += block.ops.size();
  if (total == 0) return "fusion block: <empty>";

  const Row header = {"idx", "block", "op", "inputs", "outputs"};
  std::vector<Row> rows;
  rows.reserve(total);
  for (const TraceBlock& block : blocks) {
    for (size_t i = 0; i < block.ops.size(); ++i) {
      const OperationIr& op = block.ops[i];
      rows.push_back(Row{std::to_string(rows.size()),
                         i == 0 ? FormatTraceBlockHeader(block) : std::string(), OpName(op),
                         FormatTensors(op.inputs), FormatTensors(op.outputs)});
    }
  }

  // Widths in bytes, as burn's str::len (Note [Trace table widths]).
  std::array<size_t, kNumColumns> widths{};
  for (size_t i = 0; i < kNumColumns; ++i) widths[i] = header[i].size();
  for (const Row& row : rows) {
    for (size_t i = 0; i < kNumColumns; ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  const size_t table_width = std::accumulate(widths.begin(), widths.end(), size_t{0}) +
                             kColumnGap.size() * (kNumColumns - 1);

  std::string out;
  for (size_t i = 0; i < table_width; ++i) out += "═";
  out += '\n';
  out += fmt::format("fusion trace ({} {}, {} {})\n", total, Plural(total, "op", "ops"),
                     blocks.size(), Plural(blocks.size(), "block", "blocks"));
  AppendRow(header, widths, out);
  Row rule;
  for (size_t i = 0; i < kNumColumns; ++i) rule[i] = std::string(widths[i], '-');
  AppendRow(rule, widths, out);
  for (const Row& row : rows) AppendRow(row, widths, out);
  out.pop_back();  // the last row's '\n'
  return out;
}

std::string FormatExecutionTable(const ExecutionStrategy& strategy,
                                 std::span<const OperationIr> global_ops) {
  return FormatTraceTable(CollectTraceBlocks(strategy, global_ops));
}

}  // namespace ember
