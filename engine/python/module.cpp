// PYBIND11_MODULE for `ember._ember`, the C++ half of the Python module (bindings.h).
#include "engine/python/bindings.h"
#include "engine/python/deferred_release.h"

PYBIND11_MODULE(_ember, m) {
  m.doc() = "ember's C++ core; use the `ember` package (the Array API) instead.";
  ember::python::RegisterErrors(m);
  ember::python::BindTensor(m);
  ember::python::BindTensorOps(m);
  ember::python::BindExchange(m);
  ember::python::BindImport(m);
  ember::python::BindEngine(m);
  ember::python::InstallDeferredReleases(m);
}
