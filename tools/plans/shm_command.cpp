// ember-plans shm ls | rm | invalidate: the shared-memory segments of a database (the tier
// between worker processes, Note [Shared plan segment] in store/shm/shared_plan_tier.h).
//
// `ls` reads the database (read-only) for its environments and inspects the segments without
// changing them (store/shm/shared_segment_info.h). `rm` and `invalidate` work from the database's
// path alone, so they also clean up after a database that was deleted or cannot be opened.
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "engine/core/clock.h"
#include "engine/core/plan_db_location.h"
#include "engine/core/printable.h"
#include "store/admin/plan_inventory.h"
#include "store/shm/shared_segment.h"
#include "store/shm/shared_segment_info.h"
#include "tools/plans/commands.h"
#include "tools/plans/human_units.h"
#include "tools/plans/json_output.h"
#include "tools/plans/text_table.h"

namespace ember::plans {

namespace {

using Json = nlohmann::ordered_json;

template <typename T>
Json OrNull(const std::optional<T>& value) {
  return value.has_value() ? Json(*value) : Json(nullptr);
}

template <typename T>
std::string OrDash(const std::optional<T>& value) {
  return value.has_value() ? fmt::format("{}", *value) : "-";
}

std::string Mode(mode_t mode) { return fmt::format("{:04o}", mode); }

bool Incomplete(const SharedSegmentInfo& s) { return s.publish_skipped.value_or(0) > 0; }

uint64_t LiveClaims(const std::vector<SharedSegmentInfo>& segments) {
  uint64_t live = 0;
  for (const SharedSegmentInfo& s : segments) live += s.live_claims.value_or(0);
  return live;
}

Cell StateCell(const SharedSegmentInfo& s) {
  if (s.state == "ready") {
    return Incomplete(s) ? Cell("ready, full", Style::kWarn) : Cell("ready", Style::kGood);
  }
  return Cell(s.state, s.state == "initializing" ? Style::kWarn : Style::kBad);
}

Json SegmentJson(const SharedSegmentInfo& s,
                 const std::map<std::string, EnvironmentRowId>& environment_ids) {
  Json environment_id = nullptr;
  if (s.environment.has_value()) environment_id = environment_ids.at(*s.environment);
  return {{"name", s.name},
          {"environment", OrNull(s.environment)},
          {"environment_id", environment_id},
          {"state", s.state},
          {"problem", s.problem.empty() ? Json(nullptr) : Json(s.problem)},
          {"bytes", s.bytes},
          {"used_bytes", OrNull(s.used_bytes)},
          {"entries", OrNull(s.entries)},
          {"plan_keys", OrNull(s.plan_keys)},
          {"generation", OrNull(s.generation)},
          {"publish_skipped", OrNull(s.publish_skipped)},
          {"incomplete", s.publish_skipped.has_value() ? Json(Incomplete(s)) : Json(nullptr)},
          {"layout_version", OrNull(s.layout_version)},
          {"live_claims", OrNull(s.live_claims)},
          {"created", OrNull(s.created_ms)},
          {"creator_pid", OrNull(s.creator_pid)},
          {"owner_uid", s.owner_uid},
          {"mode", Mode(s.mode)}};
}

void PrintSegments(const std::vector<SharedSegmentInfo>& segments,
                   const std::map<std::string, EnvironmentRowId>& environment_ids) {
  TextTable main_table({{"segment", false},
                        {"env", true},
                        {"state", false},
                        {"entries", true},
                        {"keys", true},
                        {"claims", true},
                        {"used", true}});
  TextTable detail_table({{"segment", false},
                          {"size", true},
                          {"gen", true},
                          {"skipped", true},
                          {"layout", true},
                          {"created", false, true, 6},
                          {"uid", true},
                          {"mode", false}});
  const int64_t now = NowUnixMillis();
  bool unknown_environment = false;
  for (const SharedSegmentInfo& s : segments) {
    unknown_environment = unknown_environment || !s.environment.has_value();
    const Cell env = s.environment.has_value()
                         ? Cell(std::to_string(environment_ids.at(*s.environment)))
                         : Cell("?", Style::kWarn);
    const uint32_t claims = s.live_claims.value_or(0);
    main_table.AddRow(
        {s.name, env, StateCell(s), OrDash(s.entries), OrDash(s.plan_keys),
         Cell(OrDash(s.live_claims), claims > 0 ? Style::kWarn : Style::kPlain),
         s.used_bytes.has_value() ? FormatBytes(static_cast<int64_t>(*s.used_bytes)) : "-"});
    const std::string skipped =
        Incomplete(s) ? fmt::format("{} full", *s.publish_skipped) : OrDash(s.publish_skipped);
    detail_table.AddRow({s.name, FormatBytes(static_cast<int64_t>(s.bytes)), OrDash(s.generation),
                         Cell(skipped, Incomplete(s) ? Style::kWarn : Style::kPlain),
                         OrDash(s.layout_version),
                         s.created_ms.has_value() ? FormatAge(s.created_ms, now) : "-",
                         std::to_string(s.owner_uid), Mode(s.mode)});
  }
  std::cout << main_table.Render() << "\n" << detail_table.Render();
  bool first_note = true;
  auto note = [&first_note](const std::string& text) {
    if (first_note) std::cout << "\n";
    first_note = false;
    std::cout << text << "\n";
  };
  for (const SharedSegmentInfo& s : segments) {
    // Segment names in /dev/shm are any local user's to choose.
    if (!s.problem.empty()) {
      note(ShownText(s.name) + ": " + Styled(ShownText(s.state + ": " + s.problem), Style::kBad));
    }
  }
  if (unknown_environment) {
    note("env ?: no environment of this database has that segment's name");
  }
}

// The segments of the database `global` names, found from its path alone; 0 when it worked,
// else the exit code (the failure is reported). `path` is what the segment functions name the
// database by (a server's segments are named after its URI without the password,
// shared_segment.cpp); `shown` is what output shows of it (ShownLocation: never the password,
// nothing a terminal acts on).
int SegmentsByPath(const GlobalOptions& global, std::string* path, std::string* shown,
                   std::vector<SharedSegmentInfo>* segments) {
  if (Status s = DatabasePath(global, path); !s.ok()) return ReportOpenFailure(global, s);
  *shown = ShownLocation(*path);
  if (Status s = InspectSharedSegments(*path, {}, segments, global.allow_shared_writable);
      !s.ok()) {
    return ReportFailure(s);
  }
  return kExitOk;
}

}  // namespace

int RunShmList(const GlobalOptions& global) {
  // A file or a server: the segments are this host's either way.
  std::unique_ptr<PlanRepository> db;
  if (Status s = OpenRepositoryForReading(global, &db); !s.ok()) {
    return ReportOpenFailure(global, s);
  }
  std::vector<EnvironmentRecord> environments;
  if (Status s = ListEnvironments(db->sql(), &environments); !s.ok()) return ReportFailure(s);
  std::vector<std::string> fingerprints;
  std::map<std::string, EnvironmentRowId> environment_ids;
  for (const EnvironmentRecord& e : environments) {
    fingerprints.push_back(e.fingerprint);
    environment_ids[e.fingerprint] = e.id;
  }
  std::vector<SharedSegmentInfo> segments;
  if (Status s = InspectSharedSegments(db->location(), fingerprints, &segments,
                                       global.allow_shared_writable);
      !s.ok()) {
    return ReportFailure(s);
  }

  if (global.json) {
    Json out = Json::array();
    for (const SharedSegmentInfo& s : segments) out.push_back(SegmentJson(s, environment_ids));
    std::cout << JsonText(out) << "\n";
    return kExitOk;
  }
  if (segments.empty()) {
    std::cout << "no shared segments for " << ShownText(db->location()) << "\n";
    return kExitOk;
  }
  PrintSegments(segments, environment_ids);
  return kExitOk;
}

int RunShmRemove(const GlobalOptions& global, const ShmRemoveOptions& options) {
  std::string path;
  std::string shown;
  std::vector<SharedSegmentInfo> segments;
  if (int code = SegmentsByPath(global, &path, &shown, &segments); code != kExitOk) return code;
  Json report = {{"database", shown},
                 {"dry_run", options.dry_run},
                 {"removed", Json::array()},
                 {"not_removed", Json::array()}};
  if (segments.empty()) {
    if (global.json) {
      std::cout << JsonText(report) << "\n";
    } else {
      std::cout << "no shared segments for " << shown << "\n";
    }
    return kExitOk;
  }
  const uint64_t live = LiveClaims(segments);
  if (live > 0 && !options.force) {
    const std::string message = fmt::format(
        "shm rm: {} live claim(s) on the shared segments of {}: a worker is running on this "
        "database, and running workers keep using the segment they mapped after it is removed. "
        "Use 'ember-plans shm invalidate' while workers run, or stop them (or pass --force)",
        live, shown);
    if (global.json) std::cout << JsonText(Json{{"error", message}, {"live_claims", live}}) << "\n";
    return ReportFailure(Status::Unavailable(message));
  }
  if (options.dry_run) {
    for (const SharedSegmentInfo& s : segments) {
      report["removed"].push_back(s.name);
      if (!global.json) std::cout << "would remove " << ShownText(s.name) << "\n";
    }
    if (global.json) {
      std::cout << JsonText(report) << "\n";
    } else {
      std::cout << fmt::format("would remove {} shared segment(s) of {}\n", segments.size(), shown);
    }
    return kExitOk;
  }

  if (Status s = SharedSegment::RemoveAll(path); !s.ok()) return ReportFailure(s);
  // shm_unlink fails quietly for a segment of another user (/dev/shm is sticky); and a worker
  // may have created a segment again at once. Both are still listed afterwards.
  const std::vector<std::string> left = SharedSegment::NamesFor(path);
  size_t removed = 0;
  for (const SharedSegmentInfo& s : segments) {
    if (std::find(left.begin(), left.end(), s.name) == left.end()) {
      ++removed;
      report["removed"].push_back(s.name);
      if (!global.json) std::cout << "removed " << ShownText(s.name) << "\n";
      continue;
    }
    const std::string why =
        s.owner_uid == ::geteuid()
            ? std::string("it is there again: a running worker created it afresh")
            : fmt::format("it belongs to user {}: only that user or root can remove it",
                          s.owner_uid);
    report["not_removed"].push_back({{"name", s.name}, {"reason", why}});
    std::cerr << "ember-plans: shm rm: " << ShownText(s.name) << ": " << PrintableLines(why)
              << "\n";
  }
  if (global.json) {
    std::cout << JsonText(report) << "\n";
  } else {
    std::cout << fmt::format("removed {} shared segment(s) of {}\n", removed, shown);
  }
  return removed == segments.size() ? kExitOk : kExitProblems;
}

int RunShmInvalidate(const GlobalOptions& global) {
  std::string path;
  std::string shown;
  std::vector<SharedSegmentInfo> segments;
  if (int code = SegmentsByPath(global, &path, &shown, &segments); code != kExitOk) return code;
  // Invalidating maps each segment read-write: only segments this user owns.
  for (const SharedSegmentInfo& s : segments) {
    if (s.owner_uid == ::geteuid()) continue;
    return ReportFailure(Status::Unavailable(fmt::format(
        "shm invalidate: {} belongs to user {}; ember-plans writes only to segments this user "
        "owns, so run it as that user",
        s.name, s.owner_uid)));
  }
  size_t marked = 0;
  if (!segments.empty()) {
    if (Status s = SharedSegment::InvalidateAll(path, &marked); !s.ok()) return ReportFailure(s);
  }
  if (global.json) {
    std::cout << JsonText(
                     Json{{"database", shown}, {"segments", segments.size()}, {"marked", marked}})
              << "\n";
    return kExitOk;
  }
  if (segments.empty()) {
    std::cout << "no shared segments for " << shown << "\n";
    return kExitOk;
  }
  std::cout << fmt::format("marked {} shared segment(s) of {} broken{}\n", marked, shown,
                           marked > 0 ? ": running workers drop them and start fresh ones" : "");
  if (marked < segments.size()) {
    std::cout << fmt::format(
        "{} other object(s) are not ember plan segments; remove them with 'ember-plans shm rm'\n",
        segments.size() - marked);
  }
  return kExitOk;
}

}  // namespace ember::plans
