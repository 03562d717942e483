#include "engine/core/plan_db_location.h"

namespace ember {

bool IsPostgresUri(std::string_view location) {
  return location.starts_with("postgresql://") || location.starts_with("postgres://");
}

std::string RedactedUri(std::string_view uri) {
  const size_t scheme = uri.find("://");
  if (scheme == std::string_view::npos) return std::string(uri);
  std::string out(uri.substr(0, scheme + 3));
  std::string_view rest = uri.substr(scheme + 3);
  // The authority ends at the first '/' or '?'; its user info at the last '@' within it.
  const size_t authority_end = rest.find_first_of("/?");
  const std::string_view authority = rest.substr(0, authority_end);
  const size_t at = authority.rfind('@');
  if (at != std::string_view::npos) {
    const std::string_view user_info = authority.substr(0, at);
    const size_t colon = user_info.find(':');
    out += colon == std::string_view::npos ? std::string(user_info)
                                           : std::string(user_info.substr(0, colon)) + ":***";
    out += '@';
    out += authority.substr(at + 1);
  } else {
    out += authority;
  }
  if (authority_end == std::string_view::npos) return out;
  std::string_view tail = rest.substr(authority_end);
  const size_t query = tail.find('?');
  out += tail.substr(0, query);
  if (query == std::string_view::npos) return out;
  out += '?';
  std::string_view params = tail.substr(query + 1);
  bool first = true;
  while (!params.empty()) {
    const size_t amp = params.find('&');
    const std::string_view param = params.substr(0, amp);
    if (!first) out += '&';
    first = false;
    out += param.starts_with("password=") ? std::string("password=***") : std::string(param);
    if (amp == std::string_view::npos) break;
    params = params.substr(amp + 1);
  }
  return out;
}

}  // namespace ember
