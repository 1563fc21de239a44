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

// True for a numpy array of strings: dtype object (str or bytes items) or of
// kind 'U' / 'S'; such an array feeds a string tensor.
bool IsStringArray(const pybind11::array& a);

// A Session.run feed as a tensor or an ONNX value, as ONNX Runtime's Python
// API takes them. `declared` is the input's declared type (kUndefined: not
// known). In order:
//  - None: an optional with no element; TypeError unless `declared` is an
//    optional type.
//  - `declared` optional(X): the optional holding `value` fed as X.
//  - a list, `declared` a sequence type or not known: a sequence, each item
//    fed as a tensor (below); the items share one dtype (the declared
//    element type where known), else TypeError naming the item. An empty
//    list needs the declared type (TypeError otherwise).
//  - a numpy array of dtype object (str or bytes items) or of kind 'U'/'S':
//    a string tensor of its shape (a copy; bytes decoded as UTF-8);
//    TypeError naming the element for another item, ValueError for bytes
//    that are not UTF-8.
//  - anything else: BorrowArray (read in place; a list for a tensor input
//    as numpy.asarray makes it).
Tensor FeedValue(const pybind11::handle& value, DataType declared, const std::string& name);

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
