#include "tools/plans/terminal_style.h"

#include <unistd.h>

#include <cstdlib>

namespace ember::plans {

bool ColorEnabled() {
  static const bool enabled = [] {
    const char* no_color = std::getenv("NO_COLOR");
    return isatty(STDOUT_FILENO) == 1 && (no_color == nullptr || *no_color == '\0');
  }();
  return enabled;
}

std::string Styled(std::string_view text, Style style) {
  if (style == Style::kPlain || !ColorEnabled()) return std::string(text);
  const char* code = "";
  switch (style) {
    case Style::kPlain: break;
    case Style::kBold: code = "1"; break;
    case Style::kDim: code = "2"; break;
    case Style::kGood: code = "32"; break;
    case Style::kBad: code = "31"; break;
    case Style::kWarn: code = "33"; break;
  }
  return "\x1b[" + std::string(code) + "m" + std::string(text) + "\x1b[0m";
}

}  // namespace ember::plans
