# Embeds migrations/NNNN_name.sql into a C++ source file, so that ember binaries need no files
# at run time (migrations/README.md). Run as a script:
#   cmake -DSQL_DIR=<migrations dir> -DOUTPUT=<file.cpp> -P EmbedMigrations.cmake
# The output defines ember::EmbeddedMigrations() (store/sqlite/migrations.h), or the function
# -DFUNCTION=<name> names (the PostgreSQL set: store/postgres/), one entry per file, in version
# order. The build fails on a badly named file, a gap in the numbering, or a file that
# contains the raw-string delimiter (RawString.cmake).
if(NOT SQL_DIR OR NOT OUTPUT)
  message(FATAL_ERROR "EmbedMigrations.cmake needs -DSQL_DIR=... and -DOUTPUT=...")
endif()
if(NOT FUNCTION)
  set(FUNCTION "EmbeddedMigrations")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/RawString.cmake)

file(GLOB files RELATIVE "${SQL_DIR}" "${SQL_DIR}/*.sql")
list(SORT files)
set(delimiter "ember_sql")
set(entries "")
set(expected 1)
foreach(file IN LISTS files)
  if(NOT file MATCHES "^([0-9][0-9][0-9][0-9])_([a-z0-9_]+)\\.sql$")
    message(FATAL_ERROR "migrations/${file}: names must look like 0001_plan_store.sql")
  endif()
  set(name "${CMAKE_MATCH_2}")
  string(REGEX REPLACE "^0+" "" version "${CMAKE_MATCH_1}")
  if(NOT version EQUAL expected)
    message(FATAL_ERROR "migrations/${file}: expected version ${expected} (no gaps, no duplicates)")
  endif()
  math(EXPR expected "${expected} + 1")
  file(READ "${SQL_DIR}/${file}" sql)
  ember_raw_string(literal "${sql}" "${delimiter}" "migrations/${file}")
  string(APPEND entries "    {${version}, \"${name}\", ${literal}},\n")
endforeach()
if(entries STREQUAL "")
  message(FATAL_ERROR "no migrations in ${SQL_DIR}")
endif()

set(source "// Generated from migrations/*.sql by cmake/EmbedMigrations.cmake. Do not edit.
#include <span>

#include \"store/repository/migration.h\"

namespace ember {
namespace {

constexpr Migration kMigrations[] = {
${entries}};

}  // namespace

std::span<const Migration> ${FUNCTION}() { return kMigrations; }

}  // namespace ember
")
file(WRITE "${OUTPUT}.tmp" "${source}")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
