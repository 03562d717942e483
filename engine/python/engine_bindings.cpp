// Devices, dtypes, errors and the engine-wide calls of the Python module: sync, flush_plans,
// stats, recent_misses, seed, native_stream (bindings.h).
#include <pybind11/stl.h>

#include <array>
#include <charconv>
#include <string_view>

#include <ember/memory.h>

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

// Each struct as a dict with the C++ field names, from the field lists of ember/stats.h (nested
// structs as nested dicts).
py::dict MissesDict(const MissCauses& m) {
  py::dict d;
#define EMBER_FIELD(f) d[#f] = m.f;
  EMBER_MISS_CAUSES_FIELDS(EMBER_FIELD)
#undef EMBER_FIELD
  d["total"] = m.total();
  return d;
}

py::dict GraphsDict(const GraphStats& g) {
  py::dict d;
#define EMBER_FIELD(f) d[#f] = g.f;
  EMBER_GRAPH_STATS_FIELDS(EMBER_FIELD)
#undef EMBER_FIELD
  return d;
}

py::dict StartDict(const StartBreakdown& s) {
  py::dict d;
#define EMBER_FIELD(f) d[#f] = s.f;
  EMBER_START_BREAKDOWN_FIELDS(EMBER_FIELD)
#undef EMBER_FIELD
  return d;
}

py::dict StatsDict(const Stats& s) {
  py::dict d;
#define EMBER_FIELD(f) d[#f] = s.f;
  EMBER_STATS_NUMBERS(EMBER_FIELD)
#undef EMBER_FIELD
  d["misses"] = MissesDict(s.misses);
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
  // The CUstream (as an int) of the calling thread's work on `device`, 0 on the CPU: the
  // `stream` that from_dlpack hands a CUDA producer's __dlpack__ (ember::NativeStream).
  m.def(
      "native_stream",
      [](const std::string& device) {
        return static_cast<uint64_t>(NativeStream(ParseDevice(device)));
      },
      release());
  m.def("dtype_name", [](int code) { return std::string(DTypeName(DTypeFromCode(code))); });
}

}  // namespace ember::python
