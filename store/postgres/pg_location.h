// Telling a PostgreSQL location from a SQLite path, and showing one without its secrets.
//
// A plan database location that starts with postgresql:// or postgres:// is a libpq
// connection URI (https://www.postgresql.org/docs/15/libpq-connect.html#LIBPQ-CONNSTRING).
// Credentials and TLS come from libpq's own mechanisms (PGPASSFILE, PGSERVICE, sslmode= in the
// URI); a password written into the URI works too, but is never shown: every message, log line
// and tool output names the server through RedactedUri.
#pragma once

#include <string>
#include <string_view>

namespace ember::pg {

bool IsPostgresUri(std::string_view location);

// `uri` with the password of its user-info part ("user:secret@host") and any password=
// parameter of its query replaced by "***". Everything else is kept, so the message still says
// which server, port, database and options.
std::string RedactedUri(std::string_view uri);

}  // namespace ember::pg
