// Plan database locations: telling a PostgreSQL server from a SQLite path, and showing either
// without its secrets. Here in engine/core because the configuration's messages, the tools and
// the store all show locations.
//
// A plan database location that starts with postgresql:// or postgres:// is a libpq
// connection URI (https://www.postgresql.org/docs/15/libpq-connect.html#LIBPQ-CONNSTRING).
// Credentials and TLS come from libpq's own mechanisms (PGPASSFILE, PGSERVICE, sslmode= in the
// URI); a password written into the URI works too, but is never shown: every message, log line
// and tool output names the server through RedactedUri.
#pragma once

#include <string>
#include <string_view>

namespace ember {

bool IsPostgresUri(std::string_view location);

// `uri` with the password of its user-info part ("user:secret@host") and any password=
// parameter of its query replaced by "***". Everything else is kept, so the message still says
// which server, port, database and options.
std::string RedactedUri(std::string_view uri);

// What to show for a plan database location: RedactedUri for a server, the path as it is.
inline std::string ShownLocation(std::string_view location) {
  return IsPostgresUri(location) ? RedactedUri(location) : std::string(location);
}

}  // namespace ember
