#include "python/src/numpy_tensor.h"

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "python/src/status.h"

namespace py = pybind11;

namespace loom {
namespace python {
namespace {

constexpr DataType kHeld[] = {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16, DataType::kInt8,
                              DataType::kUInt8,   DataType::kInt16,   DataType::kUInt16,  DataType::kInt32,
                              DataType::kUInt32,  DataType::kInt64,   DataType::kUInt64,  DataType::kBool};

DataType LoomDtype(const py::dtype& d, const std::string& name) {
  for (DataType t : kHeld) {
    if (NumpyDtype(t).is(d) || NumpyDtype(t).equal(d)) return t;
  }
  throw py::type_error("loom: " + name + " has numpy dtype " + std::string(py::str(py::object(d))) +
                       ", which Loom does not hold (expected a bool, integer or float dtype)");
}

// `value` as a C-contiguous, aligned, native-order array (copied once if it
// is not one already).
py::array Contiguous(const py::handle& value, const std::string& name) {
  py::array a = py::array::ensure(value);
  if (!a) throw py::type_error("loom: " + name + " is not convertible to a numpy array");
  const bool in_place = (a.flags() & py::array::c_style) && reinterpret_cast<uintptr_t>(a.data()) % a.itemsize() == 0 &&
                        a.dtype().byteorder() != '>' && a.dtype().byteorder() != '<';
  if (!in_place) {
    a = py::array::ensure(py::module_::import("numpy").attr("ascontiguousarray")(
        a, a.dtype().attr("newbyteorder")("=")));
  }
  return a;
}

}  // namespace

py::dtype NumpyDtype(DataType t) {
  switch (t) {
    case DataType::kFloat32: return py::dtype::of<float>();
    case DataType::kFloat64: return py::dtype::of<double>();
    case DataType::kFloat16: return py::dtype("float16");
    case DataType::kInt8: return py::dtype::of<int8_t>();
    case DataType::kUInt8: return py::dtype::of<uint8_t>();
    case DataType::kInt16: return py::dtype::of<int16_t>();
    case DataType::kUInt16: return py::dtype::of<uint16_t>();
    case DataType::kInt32: return py::dtype::of<int32_t>();
    case DataType::kUInt32: return py::dtype::of<uint32_t>();
    case DataType::kInt64: return py::dtype::of<int64_t>();
    case DataType::kUInt64: return py::dtype::of<uint64_t>();
    case DataType::kBool: return py::dtype::of<bool>();
    default:
      throw py::type_error(std::string("loom: no numpy dtype for ") + DataTypeName(t));
  }
}

Tensor BorrowArray(const py::handle& value, const std::string& name) {
  py::array a = Contiguous(value, name);
  const DataType dtype = LoomDtype(a.dtype(), name);
  Shape dims(a.shape(), a.shape() + a.ndim());
  // The array stays alive while any tensor uses it, released with the GIL.
  std::shared_ptr<void> owner(new py::object(a), [](void* o) {
    py::gil_scoped_acquire gil;
    delete static_cast<py::object*>(o);
  });
  return Value(Tensor::Borrow(dtype, std::move(dims), const_cast<void*>(a.data()), std::move(owner)));
}

Tensor CopyArray(const py::handle& value, const std::string& name) {
  return Value(BorrowArray(value, name).Clone());
}

py::array ShareTensor(Tensor t) {
  py::dtype dtype = NumpyDtype(t.dtype());
  std::vector<py::ssize_t> shape(t.dims().begin(), t.dims().end());
  auto* held = new Tensor(std::move(t));
  py::capsule base(held, [](void* p) { delete static_cast<Tensor*>(p); });
  return py::array(dtype, shape, held->raw_data(), base);
}

py::object ShareValue(Tensor t) {
  if (t.dtype() == DataType::kString) {  // a numpy array of Python str objects, as ONNX Runtime returns
    py::list items;
    for (const std::string& s : t.strings()) items.append(py::str(s));
    py::tuple shape(t.dims().size());
    for (size_t i = 0; i < t.dims().size(); ++i) shape[i] = py::int_(t.dims()[i]);
    return py::module_::import("numpy").attr("array")(items, py::arg("dtype") = "object").attr("reshape")(shape);
  }
  if (!t.is_value()) return ShareTensor(std::move(t));
  if (IsOptionalType(t.dtype())) return t.values().empty() ? py::none() : ShareValue(t.values()[0]);
  py::list items;
  for (const Tensor& v : t.values()) items.append(ShareValue(v));
  return std::move(items);
}

py::array CopyTensor(const Tensor& t) { return ShareTensor(Value(t.Clone())); }

}  // namespace python
}  // namespace loom
