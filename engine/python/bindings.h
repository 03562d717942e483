// The C++ core of the Python module `ember` (engine/python/ember/ is its Python half, which
// gives the Array API standard's names and semantics on top of these bindings). Internal to the
// module: `_ember` is not a public interface, the Python package is.
//
// Threads and the GIL: every binding that queues, syncs or reads releases the GIL while ember
// works (py::call_guard<py::gil_scoped_release>), so Python threads run ember side by side, each
// on its own stream as C++ threads do. Nothing that runs under a device server's lock ever takes
// the GIL, so a thread that holds the GIL while it waits for that lock (a tensor's Drop from a
// Python destructor) cannot deadlock; borrowed Python memory that ember lets go there is given
// back later, with the GIL (Note [Deferred releases], deferred_release.h).
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include <ember/ember.h>

namespace ember::python {

namespace py = pybind11;

// "cpu", "cuda" or "cuda:N" (ValueError otherwise; Device::Cuda's ember::Error, which says why
// no GPU can be used, becomes a RuntimeError).
Device ParseDevice(const std::string& name);
// The DType of a code that Python passes (DType's stored values); TypeError for other values.
DType DTypeFromCode(int code);

// Maps ember::Error to the exception the Array API standard's conventions suggest, by its kind
// (ember/error.h): TypeError for a dtype a function does not take, RuntimeError for an unusable
// device or a failed run, ValueError for the rest (shapes, axes, values), always with the C++
// message.
void RegisterErrors(py::module_& m);
void BindTensor(py::module_& m);
void BindTensorOps(py::module_& m);
void BindExchange(py::module_& m);
void BindImport(py::module_& m);
void BindEngine(py::module_& m);

}  // namespace ember::python
