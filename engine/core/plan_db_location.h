// Plan database locations: telling a PostgreSQL server from a SQLite path, and showing either
// without its secrets. Here in engine/core because the configuration's messages, the tools and
// the store all show locations.
//
// A plan database location that starts with postgresql:// or postgres:// is a libpq
// connection URI (https://www.postgresql.org/docs/15/libpq-connect.html#LIBPQ-CONNSTRING).
// Credentials and TLS come from libpq's own mechanisms (PGPASSFILE, PGSERVICE, sslmode= in the
// URI); a password written into the URI works too, but is never shown: every message, log line
// and tool output names the server through RedactedUri, and every message of libpq's (which
// may quote the URI, or a token of it) passes through RedactedText first.
//
// Note [Reading a URI as libpq does]: libpq (fe-connect.c, conninfo_uri_parse_options) ends the
// user info at the first '@' met before any '/', so a '?' or '#' inside a password belongs to
// the password; it percent-decodes query keywords, so ?pass%77ord= is a password; and
// sslpassword= is a secret too. RedactedUri reads the user info the same way, widened where
// libpq would refuse the URI anyway (a further '@' before the first '/'; a '/' inside what was
// meant as a password), so that it never shows less than libpq takes as a secret.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ember {

bool IsPostgresUri(std::string_view location);

// `uri` with the password of its user-info part ("user:secret@host") and the value of every
// secret-bearing query parameter (password, sslpassword, in any percent-encoded spelling)
// replaced by "***". Everything else is kept, so the message still says which server, port,
// database and options. Control characters are escaped (Printable).
std::string RedactedUri(std::string_view uri);

// The secrets `uri` carries, as written in it and percent-decoded, longest first (empty for a
// path or a URI without secrets).
std::vector<std::string> UriSecrets(std::string_view uri);

// `text` (a message that may quote `uri` or a token of it, such as libpq's "invalid
// percent-encoded token" or "unexpected character ... in URI") with `uri` shown as RedactedUri
// and every one of `secrets` replaced by "***".
std::string RedactedText(std::string_view text, std::string_view uri,
                         const std::vector<std::string>& secrets);

// What to show for a plan database location: RedactedUri for a server, the path made Printable.
std::string ShownLocation(std::string_view location);

}  // namespace ember
