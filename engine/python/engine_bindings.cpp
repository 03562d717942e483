// Devices, dtypes, errors and the engine-wide calls of the Python module: sync, flush_plans,
// stats, recent_misses, seed (bindings.h).
#include <pybind11/stl.h>

#include <array>
#include <charconv>
#include <string_view>

#include "engine/python/bindings.h"
#include "engine/python/deferred_release.h"

namespace ember::python {

Device ParseDevice(const std::string& name) {
  if (name == "cpu") return Device::Cpu();
  if (name == "cuda") return Device::Cuda(0);
  const std::string_view prefix = "cuda:";
  if (name.starts_with(prefix)) {
    int ordinal = -1;
    const char* first = name.data() + prefix.size();
    const char* last = name.data() + name.size();
    const auto [end, ec] = std::from_chars(first, last, ordinal);
    if (ec == std::errc() && end == last && first != last && ordinal >= 0) {
      return Device::Cuda(ordinal);
    }
  }
  throw py::value_error("ember: device '" + name +
                        "' is not a device name; expected \"cpu\", \"cuda\" or \"cuda:N\"");
}

DType DTypeFromCode(int code) {
  if (code < 0 || code >= kNumDTypes) {
    throw py::type_error("ember: dtype code " + std::to_string(code) + " is not an ember dtype");
  }
  return static_cast<DType>(code);
}

namespace {

// The standard's conventions for each kind (ember/error.h): a wrong dtype is a TypeError, a
// device or engine that cannot do it a RuntimeError, any other argument a ValueError.
py::handle ErrorTypeFor(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kWrongDtype: return PyExc_TypeError;
    case ErrorKind::kRuntime: return PyExc_RuntimeError;
    case ErrorKind::kInvalidArgument: return PyExc_ValueError;
  }
  return PyExc_RuntimeError;
}

py::dict MissesDict(const MissCauses& m) {
  py::dict d;
  d["no_candidate"] = m.no_candidate;
  d["op_kind"] = m.op_kind;
  d["dtype"] = m.dtype;
  d["status"] = m.status;
  d["shape"] = m.shape;
  d["data_flow"] = m.data_flow;
  d["attribute"] = m.attribute;
  d["op_count"] = m.op_count;
  d["trigger"] = m.trigger;
  d["environment"] = m.environment;
  d["total"] = m.total();
  return d;
}

py::dict GraphsDict(const GraphStats& g) {
  py::dict d;
  d["captures"] = g.captures;
  d["capture_failures"] = g.capture_failures;
  d["replays"] = g.replays;
  d["replayed_launches"] = g.replayed_launches;
  d["node_updates"] = g.node_updates;
  d["fallback_diverged"] = g.fallback_diverged;
  d["fallback_ended_early"] = g.fallback_ended_early;
  d["fallback_replay_failed"] = g.fallback_replay_failed;
  d["evictions"] = g.evictions;
  d["recipes_loaded"] = g.recipes_loaded;
  d["recipes_stored"] = g.recipes_stored;
  d["windows"] = g.windows;
  d["ends_matmul"] = g.ends_matmul;
  d["ends_other_work"] = g.ends_other_work;
  d["ends_host_wait"] = g.ends_host_wait;
  d["ends_stream_switch"] = g.ends_stream_switch;
  d["ends_full"] = g.ends_full;
  d["ends_complete"] = g.ends_complete;
  return d;
}

py::dict StartDict(const StartBreakdown& s) {
  py::dict d;
  d["engine_ms"] = s.engine_ms;
  d["context_ms"] = s.context_ms;
  d["plan_db_open_ms"] = s.plan_db_open_ms;
  d["libraries_ms"] = s.libraries_ms;
  d["kernel_load_ms"] = s.kernel_load_ms;
  d["kernel_source_ms"] = s.kernel_source_ms;
  d["first_op_ms"] = s.first_op_ms;
  return d;
}

// ember::Stats as a dict with the C++ field names (nested structs as nested dicts).
py::dict StatsDict(const Stats& s) {
  py::dict d;
  d["explorations"] = s.explorations;
  d["cache_hits"] = s.cache_hits;
  d["misses"] = MissesDict(s.misses);
  d["plans"] = s.plans;
  d["fused_executions"] = s.fused_executions;
  d["unfused_operations"] = s.unfused_operations;
  d["launches"] = s.launches;
  d["plans_loaded_from_db"] = s.plans_loaded_from_db;
  d["plans_loaded_on_notify"] = s.plans_loaded_on_notify;
  d["plans_published"] = s.plans_published;
  d["rows_quarantined"] = s.rows_quarantined;
  d["plan_load_ms"] = s.plan_load_ms;
  d["plans_loaded_from_shm"] = s.plans_loaded_from_shm;
  d["shm_publish_skipped"] = s.shm_publish_skipped;
  d["cache_hits_from_shm"] = s.cache_hits_from_shm;
  d["cache_hits_from_db"] = s.cache_hits_from_db;
  d["kernels_compiled"] = s.kernels_compiled;
  d["compile_ms"] = s.compile_ms;
  d["kernels_loaded_from_db"] = s.kernels_loaded_from_db;
  d["kernels_loaded_from_shm"] = s.kernels_loaded_from_shm;
  d["kernels_rebuilt"] = s.kernels_rebuilt;
  d["launch_record_hits"] = s.launch_record_hits;
  d["launch_record_misses"] = s.launch_record_misses;
  d["launch_record_evictions"] = s.launch_record_evictions;
  d["graphs"] = GraphsDict(s.graphs);
  d["start"] = StartDict(s.start);
  return d;
}

}  // namespace

void RegisterErrors(py::module_& m) {
  (void)m;
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      PyErr_SetString(ErrorTypeFor(e.kind()).ptr(), e.what());
    }
  });
}

void BindEngine(py::module_& m) {
  using release = py::call_guard<py::gil_scoped_release>;
  m.def(
      "check_device", [](const std::string& name) { return ParseDevice(name).ToString(); },
      release());
  m.def("sync", [](const std::string& device) {
    {
      py::gil_scoped_release unlocked;
      Sync(ParseDevice(device));
    }
    // What the sync dropped is given back before it returns (Note [Deferred releases]).
    RunDeferredReleases();
  });
  m.def(
      "flush_plans", [](const std::string& device) { FlushPlans(ParseDevice(device)); }, release());
  m.def("stats", [](const std::string& device) {
    Stats s;
    {
      py::gil_scoped_release unlocked;
      s = GetStats(ParseDevice(device));
    }
    return StatsDict(s);
  });
  m.def(
      "recent_misses", [](const std::string& device) { return RecentMisses(ParseDevice(device)); },
      release());
  m.def(
      "seed", [](const std::string& device, uint64_t seed) { Seed(ParseDevice(device), seed); },
      release());
  m.def("dtype_name", [](int code) { return std::string(DTypeName(DTypeFromCode(code))); });
}

}  // namespace ember::python
