// EnvironmentFingerprint: everything a stored plan depends on, so that a plan is only ever seen
// by the environment that made it (docs/PLAN_DATABASE.md, "Environments").
//
// Note [Environment fingerprint]: the fields are the engine version, the plan schema version,
// the backend, the device model and compute capability, the fusers with their versions,
// max_blocks, the sync tail's rule and the CPU's math accuracy. The device ordinal is deliberately
// absent: the same model in slot 0 or slot 3 makes the same plans, and keying on the ordinal splits
// caches across ranks (as the device index in PyTorch Inductor's cache keys did: pytorch/pytorch
// issue #170621, pull request #196153). The fusers keep the engine's order, because that order
// breaks ties between equally scored plans and so changes plans.
//
// The canonical text is compact JSON with the keys in the order of the struct, stored as
// environments.description; the stable id, "env-" and 32 hex digits of XXH3-128 of that text,
// is environments.fingerprint (unique). Both are on-disk formats: changing either makes every
// stored plan invisible, so they are pinned by golden tests. Pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ember {

struct FuserVersion {
  std::string name;
  uint32_t version = 0;

  bool operator==(const FuserVersion&) const = default;
};

struct EnvironmentFingerprint {
  std::string engine_version;      // "0.1.0"
  uint32_t schema_version = 0;     // The plan encoding's version (schema/README.md).
  std::string backend;             // "cpu", "cuda"
  std::string device_model;        // "NVIDIA H200", or the CPU model
  std::string compute_capability;  // "9.0"; empty where the backend has none
  // The kernel compiler ("nvrtc-13.0"); empty where plans hold no generated code. Written into
  // the canonical text only when set, so CPU environments keep their stable ids.
  std::string compiler;
  std::vector<FuserVersion> fusers;  // In the engine's order (Note [Environment fingerprint]).
  size_t max_blocks = 0;
  // The sync tail's rule (Note [Sync tail], engine/stream/explorer.cpp): "burn" (the default)
  // or "search" ([fusion.search] search_sync_tail). Written only when it is not burn's, so that
  // existing environments (and the schema fixtures) keep their ids. Plans stored before the rule
  // became a setting were found by the search rule, but under fuser version 2, and every fuser
  // became version 3 with it (indexed inputs, issue 45): none of them is served under either
  // rule.
  std::string sync_tail = "burn";
  // The CPU's transcendental functions' accuracy ([cpu] math, Note [CPU math accuracy],
  // engine/runtime/cpu/vector_math.h): "u10" (the default) or "u35"; "u10" for other backends.
  // Written only when it is not u10, so that existing environments keep their ids.
  std::string cpu_math = "u10";

  bool operator==(const EnvironmentFingerprint&) const = default;
};

// {"engine_version":"0.1.0","schema_version":1,...,"fusers":[{"name":"elementwise",
// "version":1}],"max_blocks":5} — no spaces, strings JSON-escaped; ,"sync_tail":"search" after
// max_blocks when the tail is searched again, then ,"cpu_math":"u35" when the CPU's functions
// are the 3.5-ULP ones.
std::string CanonicalEnvironmentText(const EnvironmentFingerprint& fingerprint);

// "env-" followed by 32 lowercase hex digits: XXH3-128 (seed 0) of the canonical text, high
// half first. Never forced to 0 by EMBER_HASH_ZERO (it is an identity, not a lookup hash).
std::string EnvironmentStableId(const EnvironmentFingerprint& fingerprint);

// The same recipe over a canonical text already at hand (a stored environments.description),
// for checking a stored or shipped stable id against its description.
std::string EnvironmentStableIdOfText(std::string_view canonical_text);

// What differs between two canonical texts, field by field, for explaining a miss on a plan of
// another environment: "max_blocks: 3 here, 5 in the stored plan's; fusers: ...". `here` is
// this process's. A text that is not a JSON object is compared whole. Each value shown is
// bounded and made Printable (engine/core/printable.h), and at most six fields are named: the
// stored text comes from any host of a shared database.
std::string EnvironmentDifference(std::string_view here, std::string_view stored);

}  // namespace ember
