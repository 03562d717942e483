#include "store/postgres/libpq_api.h"

#include <dlfcn.h>

#include <fmt/format.h>

namespace ember::pg {
namespace {

struct Loaded {
  LibPq api{};
  const LibPq* table = nullptr;
  std::string why;
};

template <typename F>
bool Resolve(void* handle, const char* name, F* out, std::string* missing) {
  *out = reinterpret_cast<F>(dlsym(handle, name));
  if (*out == nullptr) *missing += fmt::format("{}{}", missing->empty() ? "" : ", ", name);
  return *out != nullptr;
}

void LoadInto(Loaded& loaded) {
  // The soname first (what Debian's libpq5 installs), then the development link.
  void* handle = nullptr;
  std::string tried;
  for (const char* name : {"libpq.so.5", "libpq.so"}) {
    handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (handle != nullptr) break;
    const char* error = dlerror();
    tried += fmt::format("{}{}: {}", tried.empty() ? "" : "; ", name, error ? error : "?");
  }
  if (handle == nullptr) {
    loaded.why = fmt::format(
        "PostgreSQL's client library libpq is not installed (Debian package libpq5): {}", tried);
    return;
  }
  // Never closed: results freed at exit may still call into it.
  LibPq& a = loaded.api;
  std::string missing;
  Resolve(handle, "PQconnectdb", &a.connectdb, &missing);
  Resolve(handle, "PQstatus", &a.status, &missing);
  Resolve(handle, "PQerrorMessage", &a.errorMessage, &missing);
  Resolve(handle, "PQfinish", &a.finish, &missing);
  Resolve(handle, "PQexec", &a.exec, &missing);
  Resolve(handle, "PQexecParams", &a.execParams, &missing);
  Resolve(handle, "PQresultStatus", &a.resultStatus, &missing);
  Resolve(handle, "PQresultErrorField", &a.resultErrorField, &missing);
  Resolve(handle, "PQresultErrorMessage", &a.resultErrorMessage, &missing);
  Resolve(handle, "PQclear", &a.clear, &missing);
  Resolve(handle, "PQntuples", &a.ntuples, &missing);
  Resolve(handle, "PQgetvalue", &a.getvalue, &missing);
  Resolve(handle, "PQgetlength", &a.getlength, &missing);
  Resolve(handle, "PQgetisnull", &a.getisnull, &missing);
  Resolve(handle, "PQcmdTuples", &a.cmdTuples, &missing);
  Resolve(handle, "PQserverVersion", &a.serverVersion, &missing);
  Resolve(handle, "PQsetNoticeProcessor", &a.setNoticeProcessor, &missing);
  Resolve(handle, "PQlibVersion", &a.libVersion, &missing);
  Resolve(handle, "PQsocket", &a.socket, &missing);
  Resolve(handle, "PQconsumeInput", &a.consumeInput, &missing);
  Resolve(handle, "PQnotifies", &a.notifies, &missing);
  Resolve(handle, "PQfreemem", &a.freemem, &missing);
  if (!missing.empty()) {
    loaded.why = fmt::format("libpq lacks {} (too old a libpq)", missing);
    return;
  }
  loaded.table = &loaded.api;
}

}  // namespace

const LibPq* LoadLibPq(std::string* why) {
  // Never destroyed, like the library (see above).
  static const Loaded* loaded = [] {
    auto* fresh = new Loaded;
    LoadInto(*fresh);
    return fresh;
  }();
  if (loaded->table == nullptr && why != nullptr) *why = loaded->why;
  return loaded->table;
}

}  // namespace ember::pg
