#include "engine/core/plan_db_location.h"

#include <algorithm>
#include <optional>

#include "engine/core/printable.h"

namespace ember {
namespace {

// The query keywords whose values are secrets (libpq-connect.html, "Parameter Key Words").
constexpr std::string_view kSecretKeywords[] = {"password", "sslpassword"};

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Percent-decoded as libpq decodes URI parts; a malformed escape is kept as written.
std::string Decoded(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      const int high = HexValue(text[i + 1]);
      const int low = HexValue(text[i + 2]);
      if (high >= 0 && low >= 0) {
        out += static_cast<char>(high * 16 + low);
        i += 2;
        continue;
      }
    }
    out += text[i];
  }
  return out;
}

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

bool IsSecretKeyword(std::string_view raw_key) {
  const std::string key = Lower(Decoded(raw_key));
  return std::find(std::begin(kSecretKeywords), std::end(kSecretKeywords), key) !=
         std::end(kSecretKeywords);
}

// A URI cut at its parts (Note [Reading a URI as libpq does]): everything is a view of the URI.
struct UriParts {
  std::string_view scheme;  // "postgresql://"
  std::string_view user;    // before the password's ':' (or the whole user info)
  std::optional<std::string_view> password;
  bool has_user_info = false;
  std::string_view location;              // hosts, ports and path, up to the query
  std::optional<std::string_view> query;  // after the '?'
};

std::optional<UriParts> Split(std::string_view uri) {
  const size_t scheme_end = uri.find("://");
  if (scheme_end == std::string_view::npos) return std::nullopt;
  UriParts parts;
  parts.scheme = uri.substr(0, scheme_end + 3);
  std::string_view rest = uri.substr(scheme_end + 3);
  const size_t slash = rest.find('/');
  size_t at = rest.substr(0, slash).rfind('@');
  if (at == std::string_view::npos && slash != std::string_view::npos &&
      rest.substr(0, slash).find(':') != std::string_view::npos) {
    // "user:pa/ss@host": libpq refuses it (a port of "pa"), but the writer meant a password.
    const size_t query = rest.find('?', slash);
    const size_t late_at = rest.substr(0, query).rfind('@');
    if (late_at != std::string_view::npos && late_at > slash) at = late_at;
  }
  if (at != std::string_view::npos) {
    parts.has_user_info = true;
    const std::string_view user_info = rest.substr(0, at);
    const size_t colon = user_info.find(':');
    parts.user = user_info.substr(0, colon);
    if (colon != std::string_view::npos) parts.password = user_info.substr(colon + 1);
    rest = rest.substr(at + 1);
  }
  const size_t query = rest.find('?');
  parts.location = rest.substr(0, query);
  if (query != std::string_view::npos) parts.query = rest.substr(query + 1);
  return parts;
}

// Calls visit(raw_key, raw_value_or_nullopt) for each &-separated parameter of `query`.
template <typename Visit>
void ForEachParameter(std::string_view query, Visit&& visit) {
  while (true) {
    const size_t amp = query.find('&');
    const std::string_view param = query.substr(0, amp);
    const size_t eq = param.find('=');
    if (eq == std::string_view::npos) {
      visit(param, std::optional<std::string_view>());
    } else {
      visit(param.substr(0, eq), std::optional<std::string_view>(param.substr(eq + 1)));
    }
    if (amp == std::string_view::npos) return;
    query = query.substr(amp + 1);
  }
}

}  // namespace

bool IsPostgresUri(std::string_view location) {
  return location.starts_with("postgresql://") || location.starts_with("postgres://");
}

std::string RedactedUri(std::string_view uri) {
  const std::optional<UriParts> parts = Split(uri);
  if (!parts) return Printable(uri);
  std::string out(parts->scheme);
  if (parts->has_user_info) {
    out += parts->user;
    if (parts->password) out += ":***";
    out += '@';
  }
  out += parts->location;
  if (parts->query) {
    out += '?';
    bool first = true;
    ForEachParameter(*parts->query,
                     [&](std::string_view key, std::optional<std::string_view> value) {
                       if (!first) out += '&';
                       first = false;
                       out += key;
                       if (!value) return;
                       out += '=';
                       out += IsSecretKeyword(key) ? std::string_view("***") : *value;
                     });
  }
  return Printable(out);
}

std::vector<std::string> UriSecrets(std::string_view uri) {
  std::vector<std::string> secrets;
  const auto add = [&](std::string_view raw) {
    if (raw.empty()) return;
    secrets.emplace_back(raw);
    if (std::string decoded = Decoded(raw); decoded != raw) secrets.push_back(std::move(decoded));
  };
  if (const std::optional<UriParts> parts = Split(uri)) {
    if (parts->password) add(*parts->password);
    if (parts->query) {
      ForEachParameter(*parts->query,
                       [&](std::string_view key, std::optional<std::string_view> value) {
                         if (value && IsSecretKeyword(key)) add(*value);
                       });
    }
  }
  std::sort(secrets.begin(), secrets.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  return secrets;
}

std::string RedactedText(std::string_view text, std::string_view uri,
                         const std::vector<std::string>& secrets) {
  std::string out(text);
  const auto replace_all = [&out](std::string_view what, std::string_view with) {
    if (what.empty()) return;
    for (size_t pos = out.find(what); pos != std::string::npos;
         pos = out.find(what, pos + with.size())) {
      out.replace(pos, what.size(), with);
    }
  };
  if (!uri.empty()) replace_all(uri, RedactedUri(uri));
  for (const std::string& secret : secrets) replace_all(secret, "***");
  return out;
}

std::string ShownLocation(std::string_view location) {
  return IsPostgresUri(location) ? RedactedUri(location) : Printable(location);
}

}  // namespace ember
