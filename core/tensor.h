// Tensor: a dense, contiguous, row-major array on a device.
//
// A Tensor is a handle: copies share the same buffer (like a
// std::shared_ptr). Allocations are 64-byte aligned (kTensorAlignment). Rank
// 0 is a scalar holding one element; a zero-size dim gives zero elements and
// no allocation. Slice() makes an alias of a range of the leading dimension
// without copying, which the recurrent-network operator uses for links.
#ifndef LOOM_CORE_TENSOR_H_
#define LOOM_CORE_TENSOR_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/device.h"
#include "core/dtype.h"

namespace loom {

using Shape = std::vector<int64_t>;

// Product of dims (1 for rank 0). Dims must be non-negative.
int64_t NumElements(absl::Span<const int64_t> dims);
// "[2, 3, 4]"
std::string ShapeToString(absl::Span<const int64_t> dims);

class BufferPool;

// Device memory owned by one or more Tensors.
class Buffer {
 public:
  // `bytes` on `device`: from `pool` when it is not null (the run-time pool
  // of the net an op runs in, core/buffer_pool.h), else
  // straight from the device. RESOURCE_EXHAUSTED names device and bytes.
  static absl::StatusOr<std::shared_ptr<Buffer>> Allocate(Device* device, size_t bytes, BufferPool* pool);
  // Straight from the device, never from a pool (a net's arena).
  static absl::StatusOr<std::shared_ptr<Buffer>> AllocateFromDevice(Device* device, size_t bytes);
  // `bytes` at `data` on `device` that the caller owns (a numpy array, a C
  // caller's buffer): never freed here; `owner` (may be null) is held until
  // the last tensor sharing the buffer lets go.
  static std::shared_ptr<Buffer> Wrap(Device* device, void* data, size_t bytes, std::shared_ptr<void> owner);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  void* data() const { return data_; }
  size_t size() const { return bytes_; }
  Device* device() const { return device_; }

 private:
  friend class BufferPool;
  Buffer(Device* d, void* p, size_t n) : device_(d), data_(p), bytes_(n) {}
  Device* device_;
  void* data_;
  size_t bytes_;
  // Set when the memory came from a pool: it goes back there, not to the
  // device, when the last owner lets go.
  std::shared_ptr<BufferPool> pool_;
  uint64_t pool_signature_ = 0;  // the pool's signature when it was taken
  // Set for Wrap: the memory is the caller's (kept alive by this).
  std::shared_ptr<void> external_owner_;
  bool external_ = false;
};

class Tensor {
 public:
  // An empty float32 tensor of shape [0] on the CPU: no buffer.
  Tensor();
  // Allocates (uninitialized) memory on `device`.
  static absl::StatusOr<Tensor> Create(DataType dtype, Shape dims, Device* device = CpuDevice());
  // Allocates on the CPU and zero-fills; aborts only if the allocation fails
  // (for tests and tools).
  static Tensor Zeros(DataType dtype, Shape dims);
  // A tensor over memory the caller owns (Buffer::Wrap): `dtype` `dims` at
  // `data`, nbytes() of them, on `device`; no copy. The caller keeps the
  // memory valid until `owner` is released (or, with a null owner, for as
  // long as any tensor uses it). loom::Session never writes a tensor fed as an input
  // (it feeds a copy where an op of the net writes that input in place).
  // INVALID_ARGUMENT for a bad shape or dtype, or a null `data` with
  // elements.
  static absl::StatusOr<Tensor> Borrow(DataType dtype, Shape dims, void* data, std::shared_ptr<void> owner,
                                       Device* device = CpuDevice());
  // A CPU tensor holding a copy of `values`.
  template <typename T>
  static Tensor FromVector(Shape dims, const std::vector<T>& values);

  // ONNX's sequence and optional values (dtype IsValueType, core/dtype.h)
  // are Tensors too, with no bytes of their own (shape [0]) and a list of
  // values: for SequenceOf(E), tensors of type E; for OptionalOf(X), none
  // or one value of type X. A tensor is copied into memory of the value's
  // own (it may be a planner's arena slot that the next op reuses) unless
  // it already belongs to a value (in_value(): a values()[i] of another
  // one), which is shared: values are immutable once made. INVALID_ARGUMENT
  // names the mismatched type.
  static absl::StatusOr<Tensor> MakeValue(DataType type, std::vector<Tensor> values);
  bool is_value() const { return IsValueType(dtype_); }
  // A value's contents; empty for a tensor and for an optional's "none".
  const std::vector<Tensor>& values() const;
  // True for a tensor or value held by a value (read-only, shared).
  bool in_value() const { return in_value_; }

  // A string tensor's elements (dtype kString), row-major; its bytes are
  // none (nbytes() 0, raw_data() nullptr). Copies of the tensor share them
  // as they share a buffer. Empty for other dtypes.
  const std::vector<std::string>& strings() const;
  std::vector<std::string>* mutable_strings() const { return strings_.get(); }

  DataType dtype() const { return dtype_; }
  const Shape& dims() const { return dims_; }
  size_t rank() const { return dims_.size(); }
  int64_t dim(size_t i) const { return dims_[i]; }
  int64_t num_elements() const { return num_elements_; }
  size_t nbytes() const { return static_cast<size_t>(num_elements_) * DataTypeSize(dtype_); }
  Device* device() const { return device_; }
  // nullptr when the tensor has no elements.
  void* raw_data() const;
  template <typename T> T* data() const { return static_cast<T*>(raw_data()); }
  bool is_alias() const { return alias_; }
  const std::shared_ptr<Buffer>& buffer() const { return buffer_; }

  // Gives the tensor this dtype and shape. Keeps the buffer when this tensor
  // is its only owner and it is large enough, so steady-state runs do not
  // allocate; otherwise allocates a new one on the tensor's device, from
  // `pool` when it is not null (the net's run-time pool: a kernel context's
  // LoomKernelContext::pool), else from the device. Contents are unspecified
  // afterwards.
  absl::Status Resize(DataType dtype, Shape dims, BufferPool* pool = nullptr);
  // Like Resize, but an alias must keep its size: resizing an alias to
  // another byte size is an error rather than a silent detach.
  absl::Status ResizeOrCheckAlias(DataType dtype, Shape dims, BufferPool* pool = nullptr);

  // An alias of rows [begin, end) of the leading dimension (rank >= 1).
  absl::StatusOr<Tensor> Slice(int64_t begin, int64_t end) const;
  // An alias with the same bytes and another shape (same element count).
  absl::StatusOr<Tensor> Reshaped(Shape dims) const;
  // A tensor placed by the memory planner (core/memory_plan.h): bytes
  // [offset, offset + capacity) of `arena`, shaped `dtype` `dims`. Resize
  // keeps the place while the new size fits `capacity`, and moves the tensor
  // to memory of its own otherwise (an inference that guessed the shape
  // wrong costs an allocation, never an overrun).
  static Tensor Planned(std::shared_ptr<Buffer> arena, size_t offset, size_t capacity, DataType dtype, Shape dims);
  bool is_planned() const { return planned_capacity_ > 0; }
  // A host tensor with `dtype` and `dims` and no memory (raw_data() is
  // nullptr whatever its element count): the input a kernel that reads only
  // shapes gets when the planner folds it (LOOM_FOLD_INPUT_SHAPES).
  static Tensor ShapeOnly(DataType dtype, Shape dims);
  // Drops the memory (back to its pool or device once no other tensor
  // shares it); the tensor becomes empty, shape [0], keeping its device.
  void Release();
  // A copy with its own buffer (on the CPU).
  absl::StatusOr<Tensor> Clone() const;

  std::string DebugString() const;  // "float32[2, 3]"
  // Element i (flat, row-major) of a CPU tensor as a double (float16 and
  // bfloat16 converted; NaN for an unknown dtype).
  double ElementAsDouble(int64_t i) const;

 private:
  DataType dtype_ = DataType::kFloat32;
  Shape dims_{0};
  int64_t num_elements_ = 0;
  Device* device_ = nullptr;
  std::shared_ptr<Buffer> buffer_;
  size_t offset_ = 0;  // bytes into buffer_
  bool alias_ = false;
  size_t planned_capacity_ = 0;  // > 0: placed in a planner's arena (Planned)
  std::shared_ptr<const std::vector<Tensor>> values_;  // a value's contents (MakeValue)
  std::shared_ptr<std::vector<std::string>> strings_;   // a string tensor's elements
  bool in_value_ = false;
};

// Copies src's bytes into dst, which may be on another device; both must have
// the same byte size (INVALID_ARGUMENT otherwise). Host<->device copies go
// through the non-host side's Device::Copy on `stream` (nullptr: its default
// stream).
absl::Status CopyTensorBytes(const Tensor& src, Tensor* dst, StreamHandle stream = nullptr);

// Sizes dst like src (dtype and dims, on dst's own device) and copies src
// into it: the planner's cross-device copy (core/plan.h). New memory comes
// from `pool` when it is not null (Tensor::Resize).
absl::Status CopyTensorAcross(const Tensor& src, Tensor* dst, StreamHandle stream = nullptr,
                              BufferPool* pool = nullptr);

template <typename T>
Tensor Tensor::FromVector(Shape dims, const std::vector<T>& values) {
  Tensor t = Zeros(DataTypeOf<T>::value, std::move(dims));
  T* d = t.data<T>();
  for (size_t i = 0; i < values.size() && static_cast<int64_t>(i) < t.num_elements(); ++i) d[i] = values[i];
  return t;
}

}  // namespace loom

namespace loom {
// The ABI's opaque LoomTensor handle points at a loom::Tensor.
inline LoomTensor* ToHandle(Tensor* t) { return reinterpret_cast<LoomTensor*>(t); }
inline const LoomTensor* ToHandle(const Tensor* t) { return reinterpret_cast<const LoomTensor*>(t); }
inline const Tensor* FromHandle(const LoomTensor* t) { return reinterpret_cast<const Tensor*>(t); }
inline Tensor* FromHandle(LoomTensor* t) { return reinterpret_cast<Tensor*>(t); }
}  // namespace loom

#endif  // LOOM_CORE_TENSOR_H_
