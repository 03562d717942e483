// Color for human output: ANSI escapes only when stdout is a terminal and NO_COLOR
// (no-color.org) is unset or empty. Styling is applied after alignment, so it never changes
// a column's width.
#pragma once

#include <string>
#include <string_view>

namespace ember::plans {

enum class Style { kPlain, kBold, kDim, kGood, kBad, kWarn };

// Decided once per process from isatty(stdout) and NO_COLOR.
bool ColorEnabled();

// `text` wrapped in the escapes of `style` when color is enabled; `text` otherwise.
std::string Styled(std::string_view text, Style style);

}  // namespace ember::plans
