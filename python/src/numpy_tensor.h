// numpy arrays <-> loom::Tensor for the bindings.
//
// dtypes: bool, int8..int64, uint8..uint64, float16/32/64 map both ways
// (bfloat16 has no numpy dtype: TypeError). An array that is C-contiguous,
// aligned and in native byte order is read in place; others are copied
// once into such an array first.
#ifndef LOOM_PYTHON_SRC_NUMPY_TENSOR_H_
#define LOOM_PYTHON_SRC_NUMPY_TENSOR_H_

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>

#include "core/dtype.h"
#include "core/tensor.h"

namespace loom {
namespace python {

// The numpy dtype of `t`; TypeError for one numpy lacks.
pybind11::dtype NumpyDtype(DataType t);

// A tensor over `value`'s memory (anything numpy.asarray takes), which it
// keeps alive: no copy where the array is C-contiguous, aligned and native.
// `name` ("input 'x'") names it in errors (TypeError for an unheld dtype).
Tensor BorrowArray(const pybind11::handle& value, const std::string& name);

// The same values in memory of the tensor's own (Caffe2's FeedBlob copies:
// the array may change after the call).
Tensor CopyArray(const pybind11::handle& value, const std::string& name);

// A numpy array over `t`'s memory, keeping the tensor alive (no copy).
pybind11::array ShareTensor(Tensor t);

// ShareTensor for a tensor; a string tensor as a numpy array of str
// objects (a copy); for an ONNX sequence a list of arrays, for an optional
// None or its value (as ONNX Runtime's Python API returns them).
pybind11::object ShareValue(Tensor t);

// A numpy array with a copy of `t`'s values (Caffe2's FetchBlob: the
// workspace may reuse the memory on the next run).
pybind11::array CopyTensor(const Tensor& t);

}  // namespace python
}  // namespace loom

#endif  // LOOM_PYTHON_SRC_NUMPY_TENSOR_H_
