// CheckDatabaseHeader: a look at a plan database's first 100 bytes before SQLite opens it, so
// that a file that is not a database, or a database cut short, is reported and left untouched
// (SQLite would otherwise fail later, on the first read, with a less useful message).
//
// The header layout is SQLite's file format (https://sqlite.org/fileformat.html §1.3): the
// 16-byte magic string, the page size at offset 16, the file change counter at 24, the size in
// pages at 28, and at 92 the change counter for which that size is valid.
#pragma once

#include <string>

#include "engine/core/status.h"

namespace ember {

// OK for an empty file (a new database) and for a plausible SQLite header. Corruption, with
// what was found, for a file shorter than a header, without the magic string, with an invalid
// page size, or — when there is no non-empty -wal file to complete it — shorter than its
// header's page count says or not a whole number of pages. IoError when it cannot be read.
Status CheckDatabaseHeader(const std::string& path);

}  // namespace ember
