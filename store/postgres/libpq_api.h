// LibPq: the libpq functions ember calls, loaded with dlopen the first time a PostgreSQL plan
// database is opened. Nothing in ember links libpq: the same binaries run where it is missing
// (the GPU machines, a host without PostgreSQL's client), and a postgresql:// location there
// gets one clear error instead of a loader failure at start. The types come from Debian's
// libpq-dev headers (<libpq-fe.h>), the functions from libpq.so.5 at run time.
//
// Threading: Load may be called from any thread; the table it returns never changes.
#pragma once

#include <libpq-fe.h>

#include <string>

namespace ember::pg {

struct LibPq {
  decltype(&::PQconnectdb) connectdb;
  decltype(&::PQstatus) status;
  decltype(&::PQerrorMessage) errorMessage;
  decltype(&::PQfinish) finish;
  decltype(&::PQexec) exec;
  decltype(&::PQexecParams) execParams;
  decltype(&::PQresultStatus) resultStatus;
  decltype(&::PQresultErrorField) resultErrorField;
  decltype(&::PQresultErrorMessage) resultErrorMessage;
  decltype(&::PQclear) clear;
  decltype(&::PQntuples) ntuples;
  decltype(&::PQgetvalue) getvalue;
  decltype(&::PQgetlength) getlength;
  decltype(&::PQgetisnull) getisnull;
  decltype(&::PQcmdTuples) cmdTuples;
  decltype(&::PQserverVersion) serverVersion;
  decltype(&::PQsetNoticeProcessor) setNoticeProcessor;
  decltype(&::PQlibVersion) libVersion;
  decltype(&::PQsocket) socket;
  decltype(&::PQconsumeInput) consumeInput;
  decltype(&::PQnotifies) notifies;
  decltype(&::PQfreemem) freemem;
};

// The loaded table, or nullptr with *why set (the candidates tried and dlopen's reasons).
const LibPq* LoadLibPq(std::string* why);

}  // namespace ember::pg
