// DeviceFactStore: what a backend measured about its device and would otherwise measure again in
// every process (which matmul epilogue variant is faster for a shape class, Note [Epilogue
// choice] in engine/runtime/cuda/backend/matmul_epilogue.h), kept with the plans of the
// environment (store/persistent_facts.h: the plan database, either kind, and its shared-memory
// tier), reached through the PlanBacking (engine/stream/plan_backing.h). A plug-in like
// KernelStore (kernel_store.h): a backend that measures nothing never sees one.
//
// A fact is a short name and a short value, both text the backend writes and parses itself. A
// store checks what it returns (a checksum per row), but the value is still data: the backend
// parses it and ignores what does not parse, and a fact may only choose between things that are
// all correct (a stored epilogue choice picks between two variants that both compute the plan's
// result; it never makes a refused one usable). docs/PLAN_DATABASE.md, "Trust model".
//
// Threading: called under the device server's lock, one call at a time per store.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ember {

class DeviceFactStore {
 public:
  virtual ~DeviceFactStore() = default;
  // The longest name and value a store keeps; longer ones are not remembered.
  static constexpr size_t kMaxNameBytes = 256;
  static constexpr size_t kMaxValueBytes = 1024;

  // The value remembered under `name` in this environment (by this process or any other that
  // shares the database), or nullopt: never remembered, or its row was damaged (then the
  // backend measures again and remembers the new value over it). Must be cheap: called at the
  // first launch of each shape class.
  virtual std::optional<std::string> Find(std::string_view name) = 0;
  // Keeps `value` under `name`, replacing what was there; written behind (never waits on the
  // database).
  virtual void Remember(std::string_view name, std::string_view value) = 0;
};

}  // namespace ember
