#include "tools/plans/kernel_listing.h"

#include <fmt/format.h>

#include "engine/core/printable.h"
#include "store/codec/row_checksum.h"
#include "store/repository/column_encoding.h"
#include "tools/plans/human_units.h"
#include "tools/plans/plan_description.h"
#include "tools/plans/text_table.h"

namespace ember::plans {

namespace {

bool ChecksumMatches(const KernelRecord& k) {
  return KernelChecksum(k.binary) == FromColumn(k.checksum);
}

// What a stored kernel row lacks when it was written before schema 2 gave kernels their text.
constexpr char kNoSource[] = "no source stored (a row written before schema 2)";

}  // namespace

std::string FormatKernelTable(const std::vector<KernelRecord>& kernels) {
  std::string out = Styled(fmt::format("kernels ({})", kernels.size()), Style::kBold) + "\n";
  if (kernels.empty()) return out;
  TextTable table({{"id", true},
                   {"name", false, true, 10},
                   {"arch", false},
                   {"compiler", false, true, 8},
                   {"bytes", true},
                   {"created (UTC)", false},
                   {"", false, true, 8}});
  for (const KernelRecord& k : kernels) {
    table.AddRow({std::to_string(k.id), k.text.name.empty() ? Cell("?", Style::kWarn) : k.text.name,
                  k.key.arch, k.key.compiler_version, FormatBytes(k.bytes), FormatUtc(k.created),
                  ChecksumMatches(k) ? Cell("") : Cell("damaged: checksum mismatch", Style::kBad)});
  }
  return out + table.Render();
}

std::string FormatKernelSources(const std::vector<KernelRecord>& kernels) {
  std::string out;
  for (const KernelRecord& k : kernels) {
    out +=
        "\n" +
        Styled(fmt::format("source of {}; {}; options: {}", KernelLabel(k), k.key.compiler_version,
                           k.text.options.empty() ? "none" : ShownText(k.text.options)),
               Style::kBold) +
        "\n";
    if (k.text.source.empty()) {
      out += Styled(kNoSource, Style::kWarn) + "\n";
      continue;
    }
    // Source code keeps its lines and indentation; nothing in it reaches the terminal raw.
    out += PrintableLines(k.text.source);
    if (!k.text.source.ends_with('\n')) out += "\n";
  }
  return out;
}

nlohmann::ordered_json KernelsJson(const std::vector<KernelRecord>& kernels, bool with_source) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const KernelRecord& k : kernels) {
    nlohmann::ordered_json plans = nlohmann::ordered_json::array();
    for (const KernelLink& link : k.links) plans.push_back(link.plan_id);
    nlohmann::ordered_json kernel = {
        {"id", k.id},
        {"environment_id", k.environment_id},
        {"name", k.text.name},
        {"arch", k.key.arch},
        {"compiler_version", k.key.compiler_version},
        {"source_hash", Hex(k.key.source_hash)},
        {"options", k.text.options},
        {"bytes", k.bytes},
        {"created", k.created},
        {"compiled_for", k.plan_id.has_value() ? nlohmann::ordered_json(*k.plan_id) : nullptr},
        {"plans", plans},
        {"has_source", !k.text.source.empty()},
        {"problem", ChecksumMatches(k) ? nullptr : nlohmann::ordered_json("checksum mismatch")},
    };
    if (with_source) kernel["source"] = k.text.source;
    out.push_back(std::move(kernel));
  }
  return out;
}

}  // namespace ember::plans
