// --json output. Text from outside (a workload name another host stored, a bundle's manifest,
// a log line) may be any bytes, and nlohmann::json::dump throws on invalid UTF-8: every
// document is written with such bytes replaced by U+FFFD instead, so --json never aborts, not
// even after a command has changed the database (issue 40: `import --json` did).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace ember::plans {

template <typename Json>
std::string JsonText(const Json& document) {
  return document.dump(2, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace);
}

}  // namespace ember::plans
