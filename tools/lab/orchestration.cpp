#include "tools/lab/orchestration.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <stdexcept>

#include "store/sqlite/wal_companions.h"
#include "tools/lab/child_process.h"

namespace ember::lab {

namespace {

RunResult ParseChild(const std::string& what, const std::string& output) {
  try {
    return RunResultFromJson(nlohmann::json::parse(output));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(what + " printed no usable result (" + e.what() + ")");
  }
}

RunResult RunOne(const std::string& what, const LabOptions& options) {
  ChildProcess child(ChildArguments(options));
  std::string failure;
  const std::string output = child.Finish(&failure);
  if (!failure.empty()) throw std::runtime_error(what + " " + failure);
  return ParseChild(what, output);
}

}  // namespace

ColdWarm RunColdWarm(LabOptions options, Progress& progress) {
  ColdWarm out;
  if (options.db) {
    if (std::filesystem::exists(*options.db)) {
      throw std::runtime_error("--db " + *options.db +
                               " exists; the cold run needs a fresh database: remove it or "
                               "name another file");
    }
    out.database = *options.db;
    out.database_kept = true;
  } else {
    std::filesystem::create_directories(".ember");
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    out.database =
        ".ember/lab-default-" + std::to_string(getpid()) + "-" +
        std::to_string(std::chrono::duration_cast<std::chrono::microseconds>(now).count()) + ".db";
    RemoveDatabaseFiles(out.database);
    options.db = out.database;
  }
  // Note [Cold and warm]: the pair measures what a later process gains from the plan database.
  // The shared-memory tier is for concurrent siblings, and its segment outlives a database
  // (it is named after the database's path), so it stays off unless --shm asks for it.
  if (!options.shm) options.shm = "off";
  try {
    progress.SetTotal(2);
    out.cold = RunOne("the cold run", options);
    progress.Advance();
    out.warm = RunOne("the warm run", options);
    progress.Advance();
    progress.Clear();
  } catch (...) {
    if (!out.database_kept) RemoveDatabaseFiles(out.database);
    throw;
  }
  if (!out.database_kept) RemoveDatabaseFiles(out.database);
  return out;
}

std::vector<RunResult> RunWorkers(const LabOptions& options, int count, Progress& progress) {
  StartBarrier barrier;
  std::vector<std::string> args = ChildArguments(options);
  args.push_back("--start-fd");
  args.push_back(std::to_string(StartBarrier::kStartFd));
  std::vector<ChildProcess> children;
  children.reserve(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) children.emplace_back(args, &barrier);
  barrier.Release();

  progress.SetTotal(count);
  std::vector<RunResult> results;
  std::string errors;
  for (int i = 0; i < count; ++i) {
    const std::string what = "worker " + std::to_string(i);
    std::string failure;
    const std::string output = children[static_cast<size_t>(i)].Finish(&failure);
    progress.Advance();
    if (!failure.empty()) {
      errors += "\n  " + what + " " + failure;
      continue;
    }
    try {
      results.push_back(ParseChild(what, output));
    } catch (const std::runtime_error& e) {
      errors += "\n  " + std::string(e.what());
    }
  }
  progress.Clear();
  if (!errors.empty()) throw std::runtime_error("workers failed:" + errors);
  return results;
}

}  // namespace ember::lab
