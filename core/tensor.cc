#include "core/tensor.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/api/loom_sdk.h"
#include "core/buffer_pool.h"

namespace loom {

int64_t NumElements(absl::Span<const int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

std::string ShapeToString(absl::Span<const int64_t> dims) {
  return absl::StrCat("[", absl::StrJoin(dims, ", "), "]");
}

absl::StatusOr<std::shared_ptr<Buffer>> Buffer::Allocate(Device* device, size_t bytes, BufferPool* pool) {
  if (pool != nullptr && bytes > 0) return pool->Allocate(device, bytes);
  return AllocateFromDevice(device, bytes);
}

absl::StatusOr<std::shared_ptr<Buffer>> Buffer::AllocateFromDevice(Device* device, size_t bytes) {
  absl::StatusOr<void*> p = device->Allocate(bytes);
  if (!p.ok()) return p.status();
  return std::shared_ptr<Buffer>(new Buffer(device, *p, bytes));
}

std::shared_ptr<Buffer> Buffer::Wrap(Device* device, void* data, size_t bytes, std::shared_ptr<void> owner) {
  std::shared_ptr<Buffer> b(new Buffer(device, data, bytes));
  b->external_ = true;
  b->external_owner_ = std::move(owner);
  return b;
}

Buffer::~Buffer() {
  if (data_ == nullptr || external_) return;
  if (pool_) {
    pool_->Return(device_, data_, bytes_, pool_signature_);
  } else {
    device_->Free(data_);
  }
}

Tensor::Tensor() : device_(CpuDevice()) {}

// Dims are non-negative and their product (and, with elem_size > 0, its
// byte size) fits: a huge shape is an error, not an overflow.
static absl::Status CheckDims(absl::Span<const int64_t> dims, size_t elem_size = 0) {
  for (int64_t d : dims) {
    if (d < 0) return absl::InvalidArgumentError(absl::StrCat("negative dimension in shape ", ShapeToString(dims)));
  }
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d == 0) return absl::OkStatus();
    if (n > INT64_MAX / d) {
      return absl::InvalidArgumentError(absl::StrCat("shape ", ShapeToString(dims), " has more than 2^63 elements"));
    }
    n *= d;
  }
  if (elem_size > 0 && static_cast<uint64_t>(n) > SIZE_MAX / elem_size) {
    return absl::ResourceExhaustedError(absl::StrCat("shape ", ShapeToString(dims), " needs more than 2^64 bytes"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Tensor> Tensor::Create(DataType dtype, Shape dims, Device* device) {
  Tensor t;
  t.device_ = device;
  absl::Status s = t.Resize(dtype, std::move(dims));
  if (!s.ok()) return s;
  return t;
}

absl::StatusOr<Tensor> Tensor::Borrow(DataType dtype, Shape dims, void* data, std::shared_ptr<void> owner,
                                      Device* device) {
  const size_t elem = DataTypeSize(dtype);
  if (elem == 0) return absl::InvalidArgumentError(absl::StrCat("unsupported data type code ", static_cast<int>(dtype)));
  if (absl::Status s = CheckDims(dims, elem); !s.ok()) return s;
  Tensor t;
  t.device_ = device;
  t.dtype_ = dtype;
  t.dims_ = std::move(dims);
  t.num_elements_ = NumElements(t.dims_);
  if (t.num_elements_ > 0 && data == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("Tensor::Borrow: no data for ", t.DebugString()));
  }
  t.buffer_ = Buffer::Wrap(device, data, t.nbytes(), std::move(owner));
  return t;
}

Tensor Tensor::Zeros(DataType dtype, Shape dims) {
  absl::StatusOr<Tensor> t = Create(dtype, std::move(dims));
  if (!t.ok()) std::abort();
  if (t->nbytes()) std::memset(t->raw_data(), 0, t->nbytes());
  return *t;
}

void* Tensor::raw_data() const {
  if (!buffer_ || num_elements_ == 0) return nullptr;
  return static_cast<char*>(buffer_->data()) + offset_;
}

absl::Status Tensor::Resize(DataType dtype, Shape dims, BufferPool* pool) {
  if (values_ || in_value_) {  // a value's handle becomes a tensor again
    values_.reset();
    buffer_.reset();
    in_value_ = false;
    alias_ = false;
  }
  if (dtype == DataType::kString) {  // elements of their own, no buffer
    if (absl::Status s = CheckDims(dims, sizeof(std::string)); !s.ok()) return s;
    if (!device_->is_host()) return absl::InvalidArgumentError("string tensors live on the host only");
    const size_t n = static_cast<size_t>(NumElements(dims));
    if (!strings_ || strings_.use_count() != 1) strings_ = std::make_shared<std::vector<std::string>>();
    strings_->assign(n, std::string());
    buffer_.reset();
    planned_capacity_ = 0;
    offset_ = 0;
    alias_ = false;
    dtype_ = dtype;
    dims_ = std::move(dims);
    num_elements_ = static_cast<int64_t>(n);
    return absl::OkStatus();
  }
  strings_.reset();
  if (DataTypeSize(dtype) == 0) {
    return absl::InvalidArgumentError(absl::StrCat("unsupported data type code ", static_cast<int>(dtype)));
  }
  absl::Status s = CheckDims(dims, DataTypeSize(dtype));
  if (!s.ok()) return s;
  size_t bytes = static_cast<size_t>(NumElements(dims)) * DataTypeSize(dtype);
  bool keep = planned_capacity_ > 0 ? bytes <= planned_capacity_
                                     : buffer_ && !alias_ && buffer_.use_count() == 1 && buffer_->size() >= bytes;
  if (!keep) {
    planned_capacity_ = 0;
    buffer_.reset();  // give the old memory back first: a full device may fit the new one then
    auto b = Buffer::Allocate(device_, bytes, pool);
    if (!b.ok()) {
      // Left empty (shape [0], no buffer), never with elements and no memory;
      // a later Resize allocates again.
      Release();
      return absl::Status(b.status().code(),
                          absl::StrCat(DataTypeName(dtype), ShapeToString(dims), ": ", b.status().message()));
    }
    buffer_ = *std::move(b);
    offset_ = 0;
    alias_ = false;
  }
  dtype_ = dtype;
  dims_ = std::move(dims);
  num_elements_ = NumElements(dims_);
  return absl::OkStatus();
}

absl::Status Tensor::ResizeOrCheckAlias(DataType dtype, Shape dims, BufferPool* pool) {
  if (!alias_ || dtype == DataType::kString || dtype_ == DataType::kString) return Resize(dtype, std::move(dims), pool);
  absl::Status s = CheckDims(dims, DataTypeSize(dtype));
  if (!s.ok()) return s;
  size_t bytes = static_cast<size_t>(NumElements(dims)) * DataTypeSize(dtype);
  if (bytes != nbytes()) {
    return absl::FailedPreconditionError(absl::StrCat("cannot resize alias ", DebugString(), " to ",
                                                      DataTypeName(dtype), ShapeToString(dims)));
  }
  dtype_ = dtype;
  dims_ = std::move(dims);
  num_elements_ = NumElements(dims_);
  return absl::OkStatus();
}

absl::StatusOr<Tensor> Tensor::Slice(int64_t begin, int64_t end) const {
  if (dims_.empty()) return absl::InvalidArgumentError("cannot slice a scalar");
  if (dtype_ == DataType::kString) return absl::InvalidArgumentError("cannot alias rows of a string tensor");
  if (begin < 0 || end < begin || end > dims_[0]) {
    return absl::OutOfRangeError(absl::StrCat("slice [", begin, ", ", end, ") out of range for ", DebugString()));
  }
  Tensor t = *this;
  int64_t row = dims_[0] == 0 ? 0 : num_elements_ / dims_[0];
  t.offset_ = offset_ + static_cast<size_t>(begin * row) * DataTypeSize(dtype_);
  t.dims_[0] = end - begin;
  t.num_elements_ = NumElements(t.dims_);
  t.alias_ = true;
  t.planned_capacity_ = 0;
  return t;
}

absl::StatusOr<Tensor> Tensor::Reshaped(Shape dims) const {
  absl::Status s = CheckDims(dims);
  if (!s.ok()) return s;
  if (NumElements(dims) != num_elements_) {
    return absl::InvalidArgumentError(absl::StrCat("cannot reshape ", DebugString(), " to ", ShapeToString(dims)));
  }
  Tensor t = *this;
  t.dims_ = std::move(dims);
  t.alias_ = true;
  t.planned_capacity_ = 0;
  return t;
}

Tensor Tensor::Planned(std::shared_ptr<Buffer> arena, size_t offset, size_t capacity, DataType dtype, Shape dims) {
  Tensor t;
  t.device_ = arena->device();
  t.buffer_ = std::move(arena);
  t.offset_ = offset;
  t.planned_capacity_ = capacity;
  t.dtype_ = dtype;
  t.dims_ = std::move(dims);
  t.num_elements_ = NumElements(t.dims_);
  return t;
}

Tensor Tensor::ShapeOnly(DataType dtype, Shape dims) {
  Tensor t;
  t.dtype_ = dtype;
  t.dims_ = std::move(dims);
  t.num_elements_ = NumElements(t.dims_);
  return t;
}

void Tensor::Release() {
  values_.reset();
  strings_.reset();
  buffer_.reset();
  dims_.assign(1, 0);
  num_elements_ = 0;
  offset_ = 0;
  alias_ = false;
  planned_capacity_ = 0;
}

absl::StatusOr<Tensor> Tensor::MakeValue(DataType type, std::vector<Tensor> values) {
  if (!IsValueType(type) || std::string_view(DataTypeName(type)) == "undefined") {
    return absl::InvalidArgumentError(absl::StrCat("type code ", static_cast<int>(type),
                                                   " is not a sequence or optional type"));
  }
  const DataType element = ValueElementType(type);
  if (IsOptionalType(type) && values.size() > 1) {
    return absl::InvalidArgumentError(absl::StrCat(DataTypeName(type), " holds at most one value; given ",
                                                   values.size()));
  }
  for (size_t i = 0; i < values.size(); ++i) {
    Tensor& v = values[i];
    if (v.dtype() != element) {
      return absl::InvalidArgumentError(absl::StrCat(DataTypeName(type), ": value ", i, " is ", v.DebugString(),
                                                     "; expected ", DataTypeName(element)));
    }
    if (!v.in_value_ && !v.is_value()) {
      absl::StatusOr<Tensor> copy = v.Clone();
      if (!copy.ok()) return copy.status();
      v = *std::move(copy);
    }
    v.in_value_ = true;
  }
  Tensor t;
  t.dtype_ = type;
  t.values_ = std::make_shared<const std::vector<Tensor>>(std::move(values));
  return t;
}

const std::vector<std::string>& Tensor::strings() const {
  static const std::vector<std::string>* const kNone = new std::vector<std::string>();
  return strings_ ? *strings_ : *kNone;
}

const std::vector<Tensor>& Tensor::values() const {
  static const std::vector<Tensor>* const kNone = new std::vector<Tensor>();
  return values_ ? *values_ : *kNone;
}

absl::StatusOr<Tensor> Tensor::Clone() const {
  if (is_value()) return *this;  // immutable: shared
  if (dtype_ == DataType::kString) {
    Tensor t = *this;
    t.strings_ = std::make_shared<std::vector<std::string>>(strings());
    t.alias_ = false;
    t.in_value_ = false;
    return t;
  }
  auto t = Create(dtype_, dims_);
  if (!t.ok()) return t.status();
  if (nbytes()) {
    absl::Status s = device_->Copy(t->raw_data(), raw_data(), nbytes(),
                                   device_->is_host() ? CopyKind::kDeviceToDevice : CopyKind::kDeviceToHost, nullptr);
    if (!s.ok()) return s;
  }
  return t;
}

double Tensor::ElementAsDouble(int64_t i) const {
  switch (dtype_) {
    case DataType::kFloat32: return data<float>()[i];
    case DataType::kFloat64: return data<double>()[i];
    case DataType::kFloat16: return sdk::Float16::ToFloat(data<uint16_t>()[i]);
    case DataType::kBFloat16: return sdk::BFloat16::ToFloat(data<uint16_t>()[i]);
    case DataType::kInt8: return data<int8_t>()[i];
    case DataType::kUInt8: return data<uint8_t>()[i];
    case DataType::kInt16: return data<int16_t>()[i];
    case DataType::kUInt16: return data<uint16_t>()[i];
    case DataType::kInt32: return data<int32_t>()[i];
    case DataType::kUInt32: return data<uint32_t>()[i];
    case DataType::kInt64: return static_cast<double>(data<int64_t>()[i]);
    case DataType::kUInt64: return static_cast<double>(data<uint64_t>()[i]);
    case DataType::kBool: return data<bool>()[i] ? 1.0 : 0.0;
    default: return std::nan("");
  }
}

std::string Tensor::DebugString() const {
  if (is_value()) {
    if (IsOptionalType(dtype_)) {
      return values().empty() ? absl::StrCat(DataTypeName(dtype_), " none")
                              : absl::StrCat(DataTypeName(dtype_), " of ", values()[0].DebugString());
    }
    return absl::StrCat(DataTypeName(dtype_), " of ", values().size());
  }
  return absl::StrCat(DataTypeName(dtype_), ShapeToString(dims_));
}

absl::Status CopyTensorBytes(const Tensor& src, Tensor* dst, StreamHandle stream) {
  if (src.dtype() == DataType::kString || dst->dtype() == DataType::kString) {
    if (src.dtype() != dst->dtype() || src.num_elements() != dst->num_elements() || dst->mutable_strings() == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("copy of ", src.DebugString(), " into ", dst->DebugString(),
                                                     ": string tensors copy into string tensors of as many elements"));
    }
    if (dst->mutable_strings() != &src.strings()) *dst->mutable_strings() = src.strings();
    return absl::OkStatus();
  }
  if (dst->nbytes() != src.nbytes()) {
    return absl::InvalidArgumentError(absl::StrCat("copy of ", src.DebugString(), " into ", dst->DebugString(),
                                                   ": byte sizes differ"));
  }
  if (src.nbytes() == 0) return absl::OkStatus();
  const bool src_host = src.device()->is_host(), dst_host = dst->device()->is_host();
  CopyKind kind = src_host ? (dst_host ? CopyKind::kDeviceToDevice : CopyKind::kHostToDevice)
                           : (dst_host ? CopyKind::kDeviceToHost : CopyKind::kDeviceToDevice);
  Device* dev = src_host ? dst->device() : src.device();
  return dev->Copy(dst->raw_data(), src.raw_data(), src.nbytes(), kind, stream);
}

absl::Status CopyTensorAcross(const Tensor& src, Tensor* dst, StreamHandle stream, BufferPool* pool) {
  absl::Status s = dst->Resize(src.dtype(), src.dims(), pool);
  if (!s.ok()) return s;
  return CopyTensorBytes(src, dst, stream);
}

}  // namespace loom
