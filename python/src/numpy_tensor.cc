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

// "[1, 0]": the position of element `flat` of an array of shape `dims`.
std::string Position(const Shape& dims, int64_t flat) {
  std::vector<int64_t> at(dims.size());
  for (size_t i = dims.size(); i-- > 0;) {
    at[i] = dims[i] > 0 ? flat % dims[i] : 0;
    flat = dims[i] > 0 ? flat / dims[i] : 0;
  }
  std::string out = "[";
  for (size_t i = 0; i < at.size(); ++i) out += (i ? ", " : "") + std::to_string(at[i]);
  return out + "]";
}

// A string tensor with a copy of `a`'s items (dtype object, 'U' or 'S').
Tensor StringTensor(const py::array& a, const std::string& name) {
  Shape dims(a.shape(), a.shape() + a.ndim());
  Tensor t = Value(Tensor::Create(DataType::kString, dims));
  // Row-major, as Python objects: str for 'U', bytes for 'S', the items themselves for object.
  const py::list items = py::module_::import("numpy").attr("ravel")(a).attr("tolist")();
  std::vector<std::string>& out = *t.mutable_strings();
  for (size_t i = 0; i < items.size(); ++i) {
    const py::handle item = items[i];
    if (py::isinstance<py::str>(item)) {
      out[i] = item.cast<std::string>();  // UTF-8
    } else if (py::isinstance<py::bytes>(item)) {
      PyObject* text = PyUnicode_DecodeUTF8(PyBytes_AS_STRING(item.ptr()), PyBytes_GET_SIZE(item.ptr()), "strict");
      if (text == nullptr) {
        PyErr_Clear();
        throw py::value_error("loom: " + name + " element " + Position(dims, static_cast<int64_t>(i)) +
                              " is bytes that are not UTF-8");
      }
      Py_DECREF(text);
      out[i] = std::string(PyBytes_AS_STRING(item.ptr()), PyBytes_GET_SIZE(item.ptr()));
    } else {
      throw py::type_error("loom: " + name + " element " + Position(dims, static_cast<int64_t>(i)) + " is " +
                           std::string(py::str(py::type::handle_of(item).attr("__name__"))) +
                           "; an array of dtype object feeds a string tensor: its items must be str or bytes");
    }
  }
  return t;
}

// One tensor of a feed: strings copied, numbers read in place.
Tensor FeedTensor(const py::handle& value, const std::string& name) {
  py::array a = py::array::ensure(value);
  if (a && IsStringArray(a)) return StringTensor(a, name);
  return a ? BorrowArray(a, name) : BorrowArray(value, name);
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

bool IsStringArray(const py::array& a) {
  const char kind = a.dtype().kind();
  return kind == 'O' || kind == 'U' || kind == 'S';
}

Tensor FeedValue(const py::handle& value, DataType declared, const std::string& name) {
  const bool known = declared != DataType::kUndefined;
  if (value.is_none()) {
    if (known && IsOptionalType(declared)) return Value(Tensor::MakeValue(declared, {}));
    throw py::type_error("loom: " + name + " is None, which only an input of an optional type takes (" +
                         (known ? std::string("its type is ") + DataTypeName(declared)
                                : std::string("the model does not declare its type")) +
                         ")");
  }
  if (known && IsOptionalType(declared)) {
    return Value(Tensor::MakeValue(declared, {FeedValue(value, ValueElementType(declared), name)}));
  }
  const bool list = py::isinstance<py::list>(value);
  if (known && IsSequenceType(declared) && !list) {
    throw py::type_error("loom: " + name + " is declared " + DataTypeName(declared) + "; feed it a list, not " +
                         std::string(py::str(py::type::handle_of(value).attr("__name__"))));
  }
  if (list && (!known || IsSequenceType(declared))) {
    const py::list items_in = py::reinterpret_borrow<py::list>(value);
    const DataType element = known ? ValueElementType(declared) : DataType::kUndefined;
    if (items_in.empty() && !known) {
      throw py::type_error("loom: " + name +
                           " is an empty list, and the model does not declare its type: an empty sequence needs its "
                           "element type");
    }
    std::vector<Tensor> items;
    for (size_t i = 0; i < items_in.size(); ++i) {
      items.push_back(FeedTensor(items_in[i], name + " item " + std::to_string(i)));
      const DataType got = items.back().dtype();
      if (got != items[0].dtype()) {
        throw py::type_error("loom: " + name + " item " + std::to_string(i) + " has dtype " + DataTypeName(got) +
                             " and item 0 " + DataTypeName(items[0].dtype()) + "; a sequence's items share one dtype");
      }
      if (known && got != element) {
        throw py::type_error("loom: " + name + " is declared " + DataTypeName(declared) + "; item " + std::to_string(i) +
                             " has dtype " + DataTypeName(got));
      }
    }
    const DataType type = known ? declared : SequenceOf(items[0].dtype());
    return Value(Tensor::MakeValue(type, std::move(items)));
  }
  return FeedTensor(value, name);
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
