// ember::Tensor as `_ember.Tensor`: creation, inspection, and the ops, each by the C++ name it
// calls. The Python half (engine/python/ember/) adds the standard's names, type promotion,
// Python scalars, indexing and axis handling; these bindings stay one-to-one with the C++ API.
#include <pybind11/stl.h>

#include <functional>
#include <map>
#include <span>

#include "engine/python/bindings.h"

namespace ember::python {

namespace {

using release = py::call_guard<py::gil_scoped_release>;

template <typename Fn>
const Fn& Lookup(const std::map<std::string, Fn, std::less<>>& table, const std::string& name,
                 const char* what) {
  auto it = table.find(name);
  if (it == table.end())
    throw py::value_error("ember: no " + std::string(what) + " '" + name + "'");
  return it->second;
}

using Unary = std::function<Tensor(const Tensor&)>;
using Binary = std::function<Tensor(const Tensor&, const Tensor&)>;
using WithScalar = std::function<Tensor(const Tensor&, double)>;
using WithIntScalar = std::function<Tensor(const Tensor&, int64_t)>;
using WithDim = std::function<Tensor(const Tensor&, int64_t)>;

const std::map<std::string, Unary, std::less<>>& UnaryOps() {
  static const std::map<std::string, Unary, std::less<>> ops = {
      {"Exp", [](const Tensor& t) { return t.Exp(); }},
      {"Log", [](const Tensor& t) { return t.Log(); }},
      {"Log1p", [](const Tensor& t) { return t.Log1p(); }},
      {"Sqrt", [](const Tensor& t) { return t.Sqrt(); }},
      {"Abs", [](const Tensor& t) { return t.Abs(); }},
      {"Neg", [](const Tensor& t) { return t.Neg(); }},
      {"Recip", [](const Tensor& t) { return t.Recip(); }},
      {"Sin", [](const Tensor& t) { return t.Sin(); }},
      {"Cos", [](const Tensor& t) { return t.Cos(); }},
      {"Tanh", [](const Tensor& t) { return t.Tanh(); }},
      {"Erf", [](const Tensor& t) { return t.Erf(); }},
      {"BitwiseNot", [](const Tensor& t) { return t.BitwiseNot(); }},
  };
  return ops;
}

const std::map<std::string, Binary, std::less<>>& BinaryOps() {
  static const std::map<std::string, Binary, std::less<>> ops = {
      {"Add", [](const Tensor& a, const Tensor& b) { return a + b; }},
      {"Sub", [](const Tensor& a, const Tensor& b) { return a - b; }},
      {"Mul", [](const Tensor& a, const Tensor& b) { return a * b; }},
      {"Div", [](const Tensor& a, const Tensor& b) { return a / b; }},
      {"Powf", [](const Tensor& a, const Tensor& b) { return a.Powf(b); }},
      {"Rem", [](const Tensor& a, const Tensor& b) { return a.Rem(b); }},
      {"Equal", [](const Tensor& a, const Tensor& b) { return a.Equal(b); }},
      {"Lower", [](const Tensor& a, const Tensor& b) { return a.Lower(b); }},
      {"Greater", [](const Tensor& a, const Tensor& b) { return a.Greater(b); }},
      {"LowerEqual", [](const Tensor& a, const Tensor& b) { return a.LowerEqual(b); }},
      {"GreaterEqual", [](const Tensor& a, const Tensor& b) { return a.GreaterEqual(b); }},
      {"Matmul", [](const Tensor& a, const Tensor& b) { return a.Matmul(b); }},
      {"BitwiseAnd", [](const Tensor& a, const Tensor& b) { return a.BitwiseAnd(b); }},
      {"BitwiseOr", [](const Tensor& a, const Tensor& b) { return a.BitwiseOr(b); }},
      {"BitwiseXor", [](const Tensor& a, const Tensor& b) { return a.BitwiseXor(b); }},
      {"BitwiseLeftShift", [](const Tensor& a, const Tensor& b) { return a.BitwiseLeftShift(b); }},
      {"BitwiseRightShift",
       [](const Tensor& a, const Tensor& b) { return a.BitwiseRightShift(b); }},
  };
  return ops;
}

// Tensor op scalar; the "R" forms put the scalar on the left (s - x, s / x).
const std::map<std::string, WithScalar, std::less<>>& ScalarOps() {
  static const std::map<std::string, WithScalar, std::less<>> ops = {
      {"Add", [](const Tensor& a, double s) { return a + s; }},
      {"Sub", [](const Tensor& a, double s) { return a - s; }},
      {"Mul", [](const Tensor& a, double s) { return a * s; }},
      {"Div", [](const Tensor& a, double s) { return a / s; }},
      {"RSub", [](const Tensor& a, double s) { return s - a; }},
      {"RDiv", [](const Tensor& a, double s) { return s / a; }},
      {"Powf", [](const Tensor& a, double s) { return a.Powf(s); }},
      {"Rem", [](const Tensor& a, double s) { return a.Rem(s); }},
      {"Equal", [](const Tensor& a, double s) { return a.Equal(s); }},
      {"Lower", [](const Tensor& a, double s) { return a.Lower(s); }},
      {"Greater", [](const Tensor& a, double s) { return a.Greater(s); }},
      {"LowerEqual", [](const Tensor& a, double s) { return a.LowerEqual(s); }},
      {"GreaterEqual", [](const Tensor& a, double s) { return a.GreaterEqual(s); }},
  };
  return ops;
}

// Tensor op an exact int64 scalar (the bitwise ops: a double would round a mask past 2^53).
const std::map<std::string, WithIntScalar, std::less<>>& IntScalarOps() {
  static const std::map<std::string, WithIntScalar, std::less<>> ops = {
      {"BitwiseAnd", [](const Tensor& a, int64_t s) { return a.BitwiseAnd(s); }},
      {"BitwiseOr", [](const Tensor& a, int64_t s) { return a.BitwiseOr(s); }},
      {"BitwiseXor", [](const Tensor& a, int64_t s) { return a.BitwiseXor(s); }},
      {"BitwiseLeftShift", [](const Tensor& a, int64_t s) { return a.BitwiseLeftShift(s); }},
      {"BitwiseRightShift", [](const Tensor& a, int64_t s) { return a.BitwiseRightShift(s); }},
  };
  return ops;
}

const std::map<std::string, WithDim, std::less<>>& DimOps() {
  static const std::map<std::string, WithDim, std::less<>> ops = {
      {"SumDim", [](const Tensor& t, int64_t d) { return t.SumDim(d); }},
      {"MeanDim", [](const Tensor& t, int64_t d) { return t.MeanDim(d); }},
      {"ProdDim", [](const Tensor& t, int64_t d) { return t.ProdDim(d); }},
      {"MaxDim", [](const Tensor& t, int64_t d) { return t.MaxDim(d); }},
      {"MinDim", [](const Tensor& t, int64_t d) { return t.MinDim(d); }},
      {"ArgMax", [](const Tensor& t, int64_t d) { return t.ArgMax(d); }},
      {"ArgMin", [](const Tensor& t, int64_t d) { return t.ArgMin(d); }},
  };
  return ops;
}

// Python's slice bounds as ember::Slice: (start, end or None, step) per leading dim.
using PySlice = std::tuple<int64_t, std::optional<int64_t>, int64_t>;

}  // namespace

void BindTensor(py::module_& m) {
  py::class_<Tensor>(m, "Tensor")
      .def_property_readonly("shape",
                             [](const Tensor& t) {
                               const std::vector<int64_t>& s = t.Shape();
                               py::tuple out(s.size());
                               for (size_t i = 0; i < s.size(); ++i) out[i] = s[i];
                               return out;
                             })
      .def_property_readonly("dtype_code",
                             [](const Tensor& t) { return static_cast<int>(t.Dtype()); })
      .def_property_readonly("device", [](const Tensor& t) { return t.device().ToString(); })
      .def_property_readonly("size", &Tensor::NumElements);

  m.def(
      "zeros",
      [](std::vector<int64_t> shape, int dtype, const std::string& device) {
        return Tensor::Zeros(std::move(shape), DTypeFromCode(dtype), ParseDevice(device));
      },
      release());
  m.def(
      "ones",
      [](std::vector<int64_t> shape, int dtype, const std::string& device) {
        return Tensor::Ones(std::move(shape), DTypeFromCode(dtype), ParseDevice(device));
      },
      release());
  m.def(
      "full",
      [](std::vector<int64_t> shape, double value, int dtype, const std::string& device) {
        return Tensor::Full(std::move(shape), value, DTypeFromCode(dtype), ParseDevice(device));
      },
      release());
  m.def(
      "random_uniform",
      [](std::vector<int64_t> shape, int dtype, const std::string& device, double lo, double hi) {
        return Tensor::RandomUniform(std::move(shape), DTypeFromCode(dtype), ParseDevice(device),
                                     lo, hi);
      },
      release());
  m.def(
      "random_normal",
      [](std::vector<int64_t> shape, int dtype, const std::string& device, double mean,
         double std) {
        return Tensor::RandomNormal(std::move(shape), DTypeFromCode(dtype), ParseDevice(device),
                                    mean, std);
      },
      release());
  // Row-major stored elements from any buffer (a C-contiguous NumPy array's memory): one copy.
  m.def("from_buffer", [](const py::buffer& data, std::vector<int64_t> shape, int dtype,
                          const std::string& device) {
    const DType d = DTypeFromCode(dtype);
    const py::buffer_info info = data.request();
    const auto* bytes = static_cast<const std::byte*>(info.ptr);
    const size_t size = static_cast<size_t>(info.size) * static_cast<size_t>(info.itemsize);
    py::gil_scoped_release unlocked;  // `data` stays referenced by the caller's frame
    return Tensor::FromBytes(std::span<const std::byte>(bytes, size), std::move(shape), d,
                             ParseDevice(device));
  });
}

void BindTensorOps(py::module_& m) {
  m.def(
      "unary",
      [](const std::string& name, const Tensor& t) { return Lookup(UnaryOps(), name, "op")(t); },
      release());
  m.def(
      "binary",
      [](const std::string& name, const Tensor& a, const Tensor& b) {
        return Lookup(BinaryOps(), name, "op")(a, b);
      },
      release());
  m.def(
      "scalar",
      [](const std::string& name, const Tensor& a, double s) {
        return Lookup(ScalarOps(), name, "op")(a, s);
      },
      release());
  m.def(
      "int_scalar",
      [](const std::string& name, const Tensor& a, int64_t s) {
        return Lookup(IntScalarOps(), name, "op")(a, s);
      },
      release());
  m.def(
      "reduce",
      [](const std::string& name, const Tensor& t, int64_t dim) {
        return Lookup(DimOps(), name, "reduction")(t, dim);
      },
      release());
  m.def(
      "clamp", [](const Tensor& t, double lo, double hi) { return t.Clamp(lo, hi); }, release());
  m.def(
      "cast", [](const Tensor& t, int dtype) { return t.Cast(DTypeFromCode(dtype)); }, release());
  m.def(
      "mask_where",
      [](const Tensor& t, const Tensor& mask, const Tensor& value) {
        return t.MaskWhere(mask, value);
      },
      release());
  m.def(
      "mask_fill",
      [](const Tensor& t, const Tensor& mask, double value) { return t.MaskFill(mask, value); },
      release());
  m.def(
      "reshape", [](const Tensor& t, std::vector<int64_t> shape) { return t.Reshape(shape); },
      release());
  m.def(
      "permute", [](const Tensor& t, std::vector<int64_t> axes) { return t.Permute(axes); },
      release());
  m.def(
      "expand", [](const Tensor& t, std::vector<int64_t> shape) { return t.Expand(shape); },
      release());
  m.def(
      "slice",
      [](const Tensor& t, const std::vector<PySlice>& ranges) {
        std::vector<Slice> slices;
        for (const auto& [start, end, step] : ranges) slices.push_back(Slice{start, end, step});
        return t.Slice(std::move(slices));
      },
      release());
  m.def(
      "select",
      [](const Tensor& t, int64_t dim, const Tensor& indices) { return t.Select(dim, indices); },
      release());
  m.def(
      "cat", [](std::vector<Tensor> tensors, int64_t dim) { return Cat(std::move(tensors), dim); },
      release());
}

}  // namespace ember::python
