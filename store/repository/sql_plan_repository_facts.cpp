// SqlPlanRepository's device facts (Note [Device facts], store/persistent_facts.h): an
// environment's facts read in one query, checksums verified (Note [Row checksums]); one fact
// upserted, the last writer's value kept.
#include <fmt/format.h>

#include "engine/core/clock.h"
#include "engine/core/printable.h"
#include "engine/runtime/device_facts.h"
#include "store/codec/row_checksum.h"
#include "store/repository/column_encoding.h"
#include "store/repository/sql_plan_repository.h"

namespace ember {

Status PlanRepository::CheckDeviceFact(std::string_view name, std::string_view value) {
  const auto refuse = [&](std::string_view why) {
    return Status::InvalidArgument(
        fmt::format("device fact '{}': {}", PrintableBounded(name, 64), why));
  };
  if (name.empty()) return refuse("the name is empty");
  if (name.size() > DeviceFactStore::kMaxNameBytes) {
    return refuse(fmt::format("the name has {} bytes, more than {}", name.size(),
                              DeviceFactStore::kMaxNameBytes));
  }
  if (value.size() > DeviceFactStore::kMaxValueBytes) {
    return refuse(fmt::format("the value has {} bytes, more than {}", value.size(),
                              DeviceFactStore::kMaxValueBytes));
  }
  for (const std::string_view text : {name, value}) {
    if (!IsValidUtf8(text) || text.find('\0') != std::string_view::npos) {
      return refuse("the name and the value must be UTF-8 text without NUL");
    }
  }
  return Status::Ok();
}

Status SqlPlanRepository::LoadDeviceFacts(EnvironmentRowId environment, LoadedDeviceFacts* out) {
  return sql().ReadStatement("loading device facts", [&] {
    *out = LoadedDeviceFacts();
    return sql().Query(
        "SELECT name, value, checksum FROM device_facts WHERE environment_id = ?1 ORDER BY name",
        {SqlValue(int64_t{environment})}, "loading device facts", [&](const SqlRow& row) {
          DeviceFact fact{.name = row.Text(0), .value = row.Text(1)};
          if (DeviceFactChecksum(fact.name, fact.value) != FromColumn(row.Int64(2))) {
            ++out->damaged;
            return;
          }
          out->facts.push_back(std::move(fact));
        });
  });
}

Status SqlPlanRepository::PutDeviceFact(EnvironmentRowId environment, const DeviceFact& fact) {
  if (Status s = CheckDeviceFact(fact.name, fact.value); !s.ok()) return s;
  if (Status s = CheckWritable("storing a device fact"); !s.ok()) return s;
  const int64_t checksum = ToColumn(DeviceFactChecksum(fact.name, fact.value));
  return sql().WriteStatement("storing a device fact", [&] {
    return sql().Exec(
        "INSERT INTO device_facts (environment_id, name, value, checksum, updated) "
        "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (environment_id, name) DO UPDATE SET "
        "value = excluded.value, checksum = excluded.checksum, updated = excluded.updated",
        {SqlValue(int64_t{environment}), SqlValue(fact.name), SqlValue(fact.value),
         SqlValue(checksum), SqlValue(NowUnixMillis())},
        "storing a device fact");
  });
}

}  // namespace ember
