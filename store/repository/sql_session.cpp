#include "store/repository/sql_session.h"

namespace ember {

Status QueryInt64(SqlSession& sql, std::string_view statement, std::span<const SqlValue> args,
                  std::string_view what, int64_t* out) {
  *out = 0;
  bool first = true;
  return sql.Query(statement, args, what, [&](const SqlRow& row) {
    if (first && !row.IsNull(0)) *out = row.Int64(0);
    first = false;
  });
}

}  // namespace ember
