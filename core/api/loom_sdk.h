// Loom plugin SDK: a header-only C++ layer over the C ABI (loom_c_api.h).
//
// Plugin authors write kernels as classes and register them with a
// Registrar inside LOOM_PLUGIN(...). Everything here is inline and talks to
// the core only through the LoomApi table handed to LoomPluginInit, so a
// plugin built with it links nothing from the core. Exceptions thrown by
// plugin code are caught here and turned into LOOM_INTERNAL statuses.
//
// A kernel class K provides:
//   Status Init(const KernelInfo& info);          // read attributes
//   Status Prepare(const PrepareContext& ctx);    // optional: once per plan
//   Status Compute(KernelContext& ctx);           // size outputs, compute
// and is registered with registrar.Kernel<K>("OpType", options). Prepare,
// when K has it, gets the input dtypes, the shapes known at plan time and
// the constant inputs (TFLite Prepare, ONNX Runtime PrePack); see
// LoomKernelPrepareFn in loom_c_api.h. A Prepare the SDK cannot call (not
// public, or another signature) is a compile error of Registrar::Kernel.
#ifndef LOOM_CORE_API_LOOM_SDK_H_
#define LOOM_CORE_API_LOOM_SDK_H_

#include <cstring>
#include <exception>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/api/loom_c_api.h"

namespace loom {
namespace sdk {

// The table received by this shared object's LoomPluginInit.
inline const LoomApi*& GlobalApi() {
  static const LoomApi* api = nullptr;
  return api;
}
inline const LoomApi& Api() { return *GlobalApi(); }
// True when the core's table has `member` (it may be older than this header).
#define LOOM_SDK_API_HAS(member) LOOM_HAS_MEMBER(LoomApi, ::loom::sdk::Api().struct_size, member)

// Owns a LoomStatus* (NULL = OK). Move-only.
class Status {
 public:
  Status() = default;
  explicit Status(LoomStatus* s) : s_(s) {}
  Status(LoomStatusCode code, const std::string& message)
      : s_(code == LOOM_OK ? nullptr : Api().CreateStatus(code, message.c_str())) {}
  Status(Status&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  Status& operator=(Status&& o) noexcept {
    if (this != &o) { Reset(); s_ = std::exchange(o.s_, nullptr); }
    return *this;
  }
  Status(const Status&) = delete;
  Status& operator=(const Status&) = delete;
  ~Status() { Reset(); }

  static Status Ok() { return Status(); }
  bool ok() const { return s_ == nullptr; }
  LoomStatusCode code() const { return s_ ? Api().StatusCode(s_) : LOOM_OK; }
  std::string message() const { return s_ ? Api().StatusMessage(s_) : ""; }
  // Hands the status to the caller (for returning through the C ABI).
  LoomStatus* release() { return std::exchange(s_, nullptr); }

 private:
  void Reset() { if (s_) Api().ReleaseStatus(std::exchange(s_, nullptr)); }
  LoomStatus* s_ = nullptr;
};

inline Status InvalidArgument(const std::string& m) { return Status(LOOM_INVALID_ARGUMENT, m); }
inline Status Unimplemented(const std::string& m) { return Status(LOOM_UNIMPLEMENTED, m); }
inline Status Internal(const std::string& m) { return Status(LOOM_INTERNAL, m); }
inline Status FailedPrecondition(const std::string& m) { return Status(LOOM_FAILED_PRECONDITION, m); }

#define LOOM_SDK_RETURN_IF_ERROR(expr)          \
  do {                                          \
    ::loom::sdk::Status _loom_st = (expr);      \
    if (!_loom_st.ok()) return _loom_st;        \
  } while (0)

// IEEE half and bfloat16 storage types with float conversion.
struct Float16 {
  uint16_t bits = 0;
  Float16() = default;
  explicit Float16(float f) : bits(FromFloat(f)) {}
  explicit operator float() const { return ToFloat(bits); }
  static uint16_t FromFloat(float f) {
    uint32_t x; std::memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t mag = x & 0x7fffffffu;
    if (mag >= 0x7f800000u) return static_cast<uint16_t>(sign | 0x7c00u | (mag > 0x7f800000u ? 0x200u : 0));
    if (mag >= 0x47800000u) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow -> inf
    if (mag < 0x38800000u) {  // subnormal or zero in half
      float m; uint32_t mm = mag; std::memcpy(&m, &mm, 4);
      m += 0.5f;  // align to 2^-24 spacing, round to nearest even by the FPU
      uint32_t r; std::memcpy(&r, &m, 4);
      return static_cast<uint16_t>(sign | (r - 0x3f000000u));
    }
    uint32_t odd = (mag >> 13) & 1u;
    mag += 0xc8000fffu + odd;  // rebias exponent (-112 << 23) and round to nearest even
    return static_cast<uint16_t>(sign | (mag >> 13));
  }
  static float ToFloat(uint16_t h) {
    uint32_t sign = (h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
    uint32_t x;
    if (exp == 0) {
      float f = static_cast<float>(man) * 5.9604644775390625e-8f;  // 2^-24
      std::memcpy(&x, &f, 4);
      x |= sign;
    } else if (exp == 31) {
      x = sign | 0x7f800000u | (man << 13);
    } else {
      x = sign | ((exp + 112) << 23) | (man << 13);
    }
    float f; std::memcpy(&f, &x, 4);
    return f;
  }
};

struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  explicit BFloat16(float f) : bits(FromFloat(f)) {}
  explicit operator float() const { return ToFloat(bits); }
  static uint16_t FromFloat(float f) {
    uint32_t x; std::memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // NaN
    x += 0x7fffu + ((x >> 16) & 1u);  // round to nearest even
    return static_cast<uint16_t>(x >> 16);
  }
  static float ToFloat(uint16_t b) {
    uint32_t x = static_cast<uint32_t>(b) << 16;
    float f; std::memcpy(&f, &x, 4);
    return f;
  }
};

template <typename T> struct DTypeOf;
template <> struct DTypeOf<float> { static constexpr LoomDataType value = LOOM_DTYPE_FLOAT; };
template <> struct DTypeOf<double> { static constexpr LoomDataType value = LOOM_DTYPE_DOUBLE; };
template <> struct DTypeOf<Float16> { static constexpr LoomDataType value = LOOM_DTYPE_FLOAT16; };
template <> struct DTypeOf<BFloat16> { static constexpr LoomDataType value = LOOM_DTYPE_BFLOAT16; };
template <> struct DTypeOf<int8_t> { static constexpr LoomDataType value = LOOM_DTYPE_INT8; };
template <> struct DTypeOf<uint8_t> { static constexpr LoomDataType value = LOOM_DTYPE_UINT8; };
template <> struct DTypeOf<int16_t> { static constexpr LoomDataType value = LOOM_DTYPE_INT16; };
template <> struct DTypeOf<int32_t> { static constexpr LoomDataType value = LOOM_DTYPE_INT32; };
template <> struct DTypeOf<int64_t> { static constexpr LoomDataType value = LOOM_DTYPE_INT64; };
template <> struct DTypeOf<bool> { static constexpr LoomDataType value = LOOM_DTYPE_BOOL; };

// Size in bytes of one element; 0 for an unknown dtype.
inline size_t DTypeSize(LoomDataType t) {
  switch (t) {
    case LOOM_DTYPE_FLOAT: case LOOM_DTYPE_INT32: case LOOM_DTYPE_UINT32: return 4;
    case LOOM_DTYPE_DOUBLE: case LOOM_DTYPE_INT64: case LOOM_DTYPE_UINT64: return 8;
    case LOOM_DTYPE_FLOAT16: case LOOM_DTYPE_BFLOAT16: case LOOM_DTYPE_INT16: case LOOM_DTYPE_UINT16: return 2;
    case LOOM_DTYPE_INT8: case LOOM_DTYPE_UINT8: case LOOM_DTYPE_BOOL: return 1;
    default: return 0;
  }
}

inline const char* DTypeName(LoomDataType t) {
  switch (t) {
    case LOOM_DTYPE_FLOAT: return "float32";
    case LOOM_DTYPE_DOUBLE: return "float64";
    case LOOM_DTYPE_FLOAT16: return "float16";
    case LOOM_DTYPE_BFLOAT16: return "bfloat16";
    case LOOM_DTYPE_INT8: return "int8";
    case LOOM_DTYPE_UINT8: return "uint8";
    case LOOM_DTYPE_INT16: return "int16";
    case LOOM_DTYPE_UINT16: return "uint16";
    case LOOM_DTYPE_INT32: return "int32";
    case LOOM_DTYPE_UINT32: return "uint32";
    case LOOM_DTYPE_INT64: return "int64";
    case LOOM_DTYPE_UINT64: return "uint64";
    case LOOM_DTYPE_BOOL: return "bool";
    case LOOM_DTYPE_STRING: return "string";
    default: return "undefined";
  }
}

// DTypeName, or for a sequence / optional type "seq(float32)",
// "optional(seq(int64))" (the core's DataTypeName).
inline std::string TypeName(LoomDataType t) {
  if (t & LOOM_DTYPE_OPTIONAL) return "optional(" + TypeName(t & ~LOOM_DTYPE_OPTIONAL) + ")";
  if (t & LOOM_DTYPE_SEQUENCE) return "seq(" + TypeName(t & ~LOOM_DTYPE_SEQUENCE) + ")";
  return DTypeName(t);
}

// TypeName's inverse (the names the importer writes in "input_dtype.x"
// arguments); LOOM_DTYPE_UNDEFINED for a name it does not write.
// core/dtype_test.cc pins both to the core's DataTypeName / ParseDataType.
inline LoomDataType TypeFromName(const std::string& name) {
  auto wrapped = [&](const std::string& head, std::string* inner) {
    if (name.size() <= head.size() + 1 || name.compare(0, head.size(), head) != 0 || name.back() != ')') return false;
    *inner = name.substr(head.size(), name.size() - head.size() - 1);
    return true;
  };
  std::string inner;
  if (wrapped("seq(", &inner)) {
    const LoomDataType e = TypeFromName(inner);
    return e == LOOM_DTYPE_UNDEFINED || (e & (LOOM_DTYPE_SEQUENCE | LOOM_DTYPE_OPTIONAL)) ? LOOM_DTYPE_UNDEFINED
                                                                                            : e | LOOM_DTYPE_SEQUENCE;
  }
  if (wrapped("optional(", &inner)) {
    const LoomDataType e = TypeFromName(inner);
    return e == LOOM_DTYPE_UNDEFINED || (e & LOOM_DTYPE_OPTIONAL) ? LOOM_DTYPE_UNDEFINED : e | LOOM_DTYPE_OPTIONAL;
  }
  for (LoomDataType t = 1; t <= LOOM_DTYPE_BFLOAT16; ++t) {
    if (name == DTypeName(t)) return t;
  }
  return LOOM_DTYPE_UNDEFINED;
}

// A non-owning view of a tensor handed to a kernel.
class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(const LoomTensor* t) : t_(t) {}
  bool present() const { return t_ != nullptr; }
  LoomDataType dtype() const { return Api().TensorDType(t_); }
  size_t rank() const { return Api().TensorRank(t_); }
  int64_t dim(size_t i) const { return Api().TensorDims(t_)[i]; }
  const int64_t* dims_data() const { return Api().TensorDims(t_); }
  std::vector<int64_t> shape() const {
    const int64_t* d = Api().TensorDims(t_);
    return std::vector<int64_t>(d, d + rank());
  }
  int64_t num_elements() const { return Api().TensorNumElements(t_); }
  void* raw_data() const { return Api().TensorData(t_); }
  template <typename T> T* data() const { return static_cast<T*>(Api().TensorData(t_)); }
  const LoomTensor* handle() const { return t_; }

 private:
  const LoomTensor* t_ = nullptr;
};

// An operator's attributes (defaults applied) and arity, at kernel creation.
class KernelInfo {
 public:
  explicit KernelInfo(const LoomKernelInfo* info) : info_(info) {}
  std::string op_type() const { return Api().Info_OpType(info_); }
  std::string op_name() const { return Api().Info_OpName(info_); }
  size_t num_inputs() const { return Api().Info_NumInputs(info_); }
  size_t num_outputs() const { return Api().Info_NumOutputs(info_); }
  bool Has(const char* name) const { return Api().Info_HasAttr(info_, name) != 0; }
  std::string input_name(size_t i) const { return Api().Info_InputName(info_, i); }
  std::string output_name(size_t i) const { return Api().Info_OutputName(info_, i); }
  // A NetDef attribute in protobuf binary form (for nested nets).
  Status GetNetBytes(const char* name, std::string* out) const {
    const void* d = nullptr; size_t n = 0;
    Status s(Api().Info_GetNetBytes(info_, name, &d, &n));
    if (s.ok()) out->assign(static_cast<const char*>(d), n);
    return s;
  }

  Status GetInt(const char* name, int64_t* out) const { return Status(Api().Info_GetInt(info_, name, out)); }
  Status GetFloat(const char* name, float* out) const { return Status(Api().Info_GetFloat(info_, name, out)); }
  Status GetString(const char* name, std::string* out) const {
    const char* d = nullptr; size_t n = 0;
    Status s(Api().Info_GetString(info_, name, &d, &n));
    if (s.ok()) out->assign(d, n);
    return s;
  }
  Status GetInts(const char* name, std::vector<int64_t>* out) const {
    const int64_t* d = nullptr; size_t n = 0;
    Status s(Api().Info_GetInts(info_, name, &d, &n));
    if (s.ok()) out->assign(d, d + n);
    return s;
  }
  Status GetFloats(const char* name, std::vector<float>* out) const {
    const float* d = nullptr; size_t n = 0;
    Status s(Api().Info_GetFloats(info_, name, &d, &n));
    if (s.ok()) out->assign(d, d + n);
    return s;
  }
  Status GetStrings(const char* name, std::vector<std::string>* out) const {
    size_t n = 0;
    Status s(Api().Info_GetStringsCount(info_, name, &n));
    if (!s.ok()) return s;
    out->clear();
    for (size_t i = 0; i < n; ++i) {
      const char* d = nullptr; size_t len = 0;
      Status e(Api().Info_GetStringAt(info_, name, i, &d, &len));
      if (!e.ok()) return e;
      out->emplace_back(d, len);
    }
    return Status::Ok();
  }
  Status GetTensor(const char* name, Tensor* out) const {
    const LoomTensor* t = nullptr;
    Status s(Api().Info_GetTensor(info_, name, &t));
    if (s.ok()) *out = Tensor(t);
    return s;
  }
  // Value-or-default helpers for attributes that are optional without a
  // schema default.
  int64_t IntOr(const char* name, int64_t dflt) const { int64_t v; return GetInt(name, &v).ok() ? v : dflt; }
  float FloatOr(const char* name, float dflt) const { float v; return GetFloat(name, &v).ok() ? v : dflt; }
  std::string StringOr(const char* name, const std::string& dflt) const { std::string v; return GetString(name, &v).ok() ? v : dflt; }
  std::vector<int64_t> IntsOr(const char* name, std::vector<int64_t> dflt) const {
    std::vector<int64_t> v; return GetInts(name, &v).ok() ? v : dflt;
  }
  std::vector<float> FloatsOr(const char* name, std::vector<float> dflt) const {
    std::vector<float> v; return GetFloats(name, &v).ok() ? v : dflt;
  }
  const LoomKernelInfo* handle() const { return info_; }

 private:
  const LoomKernelInfo* info_;
};

// One run of one operator.
// The core's kernel-context table (ABI 11, LoomApi::GetSubApi), or nullptr
// from an older core.
inline const LoomKernelContextApi* KernelContextApi() {
  static const LoomKernelContextApi* table =
      LOOM_SDK_API_HAS(GetSubApi) && Api().GetSubApi != nullptr
          ? static_cast<const LoomKernelContextApi*>(Api().GetSubApi(LOOM_SUBAPI_KERNEL_CONTEXT, 1))
          : nullptr;
  return table;
}

// ONNX sequence and optional values (LoomValueApi): a value is a tensor
// handle whose dtype carries LOOM_DTYPE_SEQUENCE or LOOM_DTYPE_OPTIONAL.
inline bool IsValueType(LoomDataType t) { return (t & (LOOM_DTYPE_SEQUENCE | LOOM_DTYPE_OPTIONAL)) != 0; }
inline bool IsSequenceType(LoomDataType t) {
  return (t & (LOOM_DTYPE_SEQUENCE | LOOM_DTYPE_OPTIONAL)) == LOOM_DTYPE_SEQUENCE;
}
inline bool IsOptionalType(LoomDataType t) { return (t & LOOM_DTYPE_OPTIONAL) != 0; }
// A sequence's element type, an optional's inner type.
inline LoomDataType ValueElementType(LoomDataType t) {
  return (t & LOOM_DTYPE_OPTIONAL) ? (t & ~LOOM_DTYPE_OPTIONAL) : (t & ~LOOM_DTYPE_SEQUENCE);
}
// The core's values table, or nullptr from a core without it.
inline const LoomValueApi* ValueApi() {
  static const LoomValueApi* table = LOOM_SDK_API_HAS(GetSubApi) && Api().GetSubApi != nullptr
                                         ? static_cast<const LoomValueApi*>(Api().GetSubApi(LOOM_SUBAPI_VALUES, 1))
                                         : nullptr;
  return table;
}
// What value `v` holds (a sequence's tensors; an optional's zero or one
// value); empty for a tensor or from a core without the table.
inline std::vector<Tensor> ValuesOf(const Tensor& v) {
  std::vector<Tensor> out;
  const LoomValueApi* a = ValueApi();
  if (a == nullptr || !v.present()) return out;
  const size_t n = a->Value_Count(v.handle());
  for (size_t i = 0; i < n; ++i) out.emplace_back(a->Value_At(v.handle(), i));
  return out;
}
// Makes blob `v` the value of `type` holding `values` (LoomValueApi::
// Value_Set: tensors copied unless they came from ValuesOf).
inline Status SetValue(LoomTensor* v, LoomDataType type, const std::vector<Tensor>& values) {
  const LoomValueApi* a = ValueApi();
  if (a == nullptr) return Status(LOOM_UNIMPLEMENTED, "the core has no values table (sequences, optionals)");
  std::vector<const LoomTensor*> h;
  for (const Tensor& t : values) h.push_back(t.handle());
  return Status(a->Value_Set(v, type, h.data(), h.size()));
}
// A CPU tensor the kernel owns (LoomValueApi::Value_NewTensor), freed when
// this goes: contents for SetValue that no blob holds. Move-only.
class OwnedTensor {
 public:
  OwnedTensor() = default;
  OwnedTensor(OwnedTensor&& o) noexcept : t_(std::exchange(o.t_, nullptr)) {}
  OwnedTensor& operator=(OwnedTensor&& o) noexcept {
    if (this != &o) { Reset(); t_ = std::exchange(o.t_, nullptr); }
    return *this;
  }
  OwnedTensor(const OwnedTensor&) = delete;
  OwnedTensor& operator=(const OwnedTensor&) = delete;
  ~OwnedTensor() { Reset(); }
  static Status Create(LoomDataType dtype, const std::vector<int64_t>& dims, OwnedTensor* out) {
    const LoomValueApi* a = ValueApi();
    if (a == nullptr) return Status(LOOM_UNIMPLEMENTED, "the core has no values table (sequences, optionals)");
    LoomStatus* st = nullptr;
    out->Reset();
    out->t_ = a->Value_NewTensor(dtype, dims.data(), dims.size(), &st);
    return Status(st);
  }
  Tensor get() const { return Tensor(t_); }
  void Reset() { if (t_) ValueApi()->Value_FreeTensor(std::exchange(t_, nullptr)); }

 private:
  LoomTensor* t_ = nullptr;
};
// Element i of string tensor `t` (LOOM_DTYPE_STRING); empty when `t` is
// not one, i is out of range or the core has no values table.
inline std::string_view StringAt(const Tensor& t, size_t i) {
  const LoomValueApi* a = ValueApi();
  const char* d = nullptr;
  size_t n = 0;
  if (a == nullptr || !LOOM_HAS_MEMBER(LoomValueApi, a->struct_size, String_At) || !a->String_At(t.handle(), i, &d, &n)) {
    return {};
  }
  return std::string_view(d, n);
}
// Sets element i of string tensor `t` (an output sized as LOOM_DTYPE_STRING).
inline Status SetStringAt(const Tensor& t, size_t i, std::string_view s) {
  const LoomValueApi* a = ValueApi();
  if (a == nullptr || !LOOM_HAS_MEMBER(LoomValueApi, a->struct_size, String_Set)) {
    return Status(LOOM_UNIMPLEMENTED, "the core has no string tensors");
  }
  return Status(a->String_Set(const_cast<LoomTensor*>(t.handle()), i, s.data(), s.size()));
}
// Makes blob `dst` share the sequence or optional `src`.
inline Status AssignValue(LoomTensor* dst, const Tensor& src) {
  const LoomValueApi* a = ValueApi();
  if (a == nullptr) return Status(LOOM_UNIMPLEMENTED, "the core has no values table (sequences, optionals)");
  return Status(a->Value_Assign(dst, src.handle()));
}

// Sizes `t` (a blob of a workspace the kernel of `ctx` keeps: its nested
// nets' inputs, links, outputs) as an op's output is sized: the running
// net's max_tensor_bytes, memory from the net's pool
// (LoomKernelContextApi::ResizeTensor). `what` names the blob in errors.
// From a core older than 11: Tensor_Resize (default limits, the device).
inline Status ResizeTensor(LoomKernelContext* ctx, LoomTensor* t, LoomDataType dtype, const int64_t* dims,
                           size_t rank, const char* what = nullptr) {
  if (const LoomKernelContextApi* k = KernelContextApi(); k != nullptr && ctx != nullptr) {
    return Status(k->ResizeTensor(ctx, t, dtype, dims, rank, what));
  }
  return Status(Api().Tensor_Resize(t, dtype, dims, rank));
}

// A hold on the per-op state of type T under `key` in the workspace of
// ctx's op (LoomKernelContextApi::OpResource_*, ABI 11): a T made with
// `new T()` when none is live, shared by every kernel that acquires the same
// key there (an op's kernels for each plan, its gradient op's kernels), and
// deleted when the last shared_ptr copy goes. UNIMPLEMENTED from an older
// core.
template <class T>
Status AcquireOpResource(LoomKernelContext* ctx, const std::string& key, std::shared_ptr<T>* out) {
  const LoomKernelContextApi* k = KernelContextApi();
  if (k == nullptr) return Status(LOOM_UNIMPLEMENTED, "the core has no per-op resources (ABI 11)");
  LoomStatus* st = nullptr;
  LoomOpResource* hold = k->OpResource_Acquire(
      ctx, key.c_str(),
      [](void*, LoomStatus** status) -> void* {
        try {
          return new T();
        } catch (...) {
          *status = Api().CreateStatus(LOOM_RESOURCE_EXHAUSTED, "making a per-op resource failed");
          return nullptr;
        }
      },
      [](void* p) { delete static_cast<T*>(p); }, nullptr, &st);
  if (hold == nullptr) return Status(st);
  *out = std::shared_ptr<T>(static_cast<T*>(k->OpResource_Data(hold)),
                            [hold](T*) { KernelContextApi()->OpResource_Release(hold); });
  return Status::Ok();
}

class KernelContext {
 public:
  explicit KernelContext(LoomKernelContext* ctx) : ctx_(ctx) {}
  size_t num_inputs() const { return Api().Ctx_NumInputs(ctx_); }
  size_t num_outputs() const { return Api().Ctx_NumOutputs(ctx_); }
  // An absent optional input gives a Tensor with present() == false.
  Tensor Input(size_t i) const { return Tensor(i < num_inputs() ? Api().Ctx_Input(ctx_, i) : nullptr); }
  bool OutputRequested(size_t i) const { return i < num_outputs() && Api().Ctx_OutputRequested(ctx_, i) != 0; }
  Status Output(size_t i, LoomDataType dtype, const std::vector<int64_t>& shape, Tensor* out) {
    LoomTensor* t = nullptr;
    Status s(Api().Ctx_Output(ctx_, i, dtype, shape.data(), shape.size(), &t));
    if (s.ok()) *out = Tensor(t);
    return s;
  }
  // The same with the shape as a pointer and a rank (no allocation).
  Status Output(size_t i, LoomDataType dtype, const int64_t* dims, size_t rank, Tensor* out) {
    LoomTensor* t = nullptr;
    Status s(Api().Ctx_Output(ctx_, i, dtype, dims, rank, &t));
    if (s.ok()) *out = Tensor(t);
    return s;
  }
  // Output i's blob as it is, unsized: for a sequence or optional output
  // (SetValue, AssignValue). nullptr when the output is not requested.
  LoomTensor* OutputHandle(size_t i) { return i < num_outputs() ? Api().Ctx_OutputHandle(ctx_, i) : nullptr; }
  int num_threads() const { return Api().Ctx_NumThreads(ctx_); }
  void* stream() const { return Api().Ctx_Stream(ctx_); }
  // A limit of the net this op runs in (LoomLimit; ABI 2's Ctx_Limit): <= 0
  // when there is none, or when the core is too old to say.
  int64_t Limit(LoomLimit which) const {
    return LOOM_SDK_API_HAS(Ctx_Limit) && Api().Ctx_Limit != nullptr ? Api().Ctx_Limit(ctx_, which) : 0;
  }
  // `bytes` of scratch on the op's device until Compute returns (ABI 3's
  // Ctx_Scratch, from the net's pool). A core without it (ABI 2 or older):
  // an UNIMPLEMENTED status.
  Status Scratch(size_t bytes, void** out) {
    *out = nullptr;
    if (!LOOM_SDK_API_HAS(Ctx_Scratch) || Api().Ctx_Scratch == nullptr) {
      return Status(LOOM_UNIMPLEMENTED, "the core has no Ctx_Scratch (ABI 3)");
    }
    LoomStatus* st = nullptr;
    *out = Api().Ctx_Scratch(ctx_, bytes, &st);
    return Status(st);
  }
  LoomKernelContext* handle() const { return ctx_; }

 private:
  LoomKernelContext* ctx_;
};

// A kernel's hold on a packed constant (PrepareContext::SharedPack): the
// copy stays while some kernel holds it. Move-only; empty() when there is
// none.
class SharedPack {
 public:
  SharedPack() = default;
  explicit SharedPack(LoomSharedPack* p) : p_(p) {}
  SharedPack(SharedPack&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  SharedPack& operator=(SharedPack&& o) noexcept {
    if (this != &o) { Reset(); p_ = std::exchange(o.p_, nullptr); }
    return *this;
  }
  SharedPack(const SharedPack&) = delete;
  SharedPack& operator=(const SharedPack&) = delete;
  ~SharedPack() { Reset(); }
  bool empty() const { return p_ == nullptr; }
  void* data() const { return p_ ? Api().SharedPack_Data(p_) : nullptr; }
  void Reset() { if (p_) Api().SharedPack_Release(std::exchange(p_, nullptr)); }

 private:
  LoomSharedPack* p_ = nullptr;
};

// What a kernel learns once per plan, before its first Compute (ABI 2).
class PrepareContext {
 public:
  explicit PrepareContext(const LoomPrepareContext* ctx) : ctx_(ctx) {}
  KernelInfo info() const { return KernelInfo(Api().Prepare_Info(ctx_)); }
  size_t num_inputs() const { return Api().Prepare_NumInputs(ctx_); }
  size_t num_outputs() const { return Api().Prepare_NumOutputs(ctx_); }
  // LOOM_DTYPE_UNDEFINED for an absent optional input.
  LoomDataType InputDType(size_t i) const { return Api().Prepare_InputDType(ctx_, i); }
  // False when the shape is not known at plan time.
  bool InputShape(size_t i, std::vector<int64_t>* shape) const {
    const int64_t* d = nullptr; size_t r = 0;
    if (!Api().Prepare_InputShape(ctx_, i, &d, &r)) return false;
    shape->assign(d, d + r);
    return true;
  }
  // The input's value when it is an initializer (constant for the plan's
  // life); present() == false otherwise.
  Tensor InputConstant(size_t i) const { return Tensor(Api().Prepare_InputConstant(ctx_, i)); }
  // The kernel packed constant input i and will not read it again, not
  // even its shape (LoomApi::Prepare_ReleaseConstant); a no-op on a core
  // older than ABI 4.
  void ReleaseConstant(size_t i) const {
    if (LOOM_SDK_API_HAS(Prepare_ReleaseConstant) && Api().Prepare_ReleaseConstant != nullptr) {
      Api().Prepare_ReleaseConstant(ctx_, i);
    }
  }
  // Since ABI 8: a copy of constant input i packed into the kernel's own
  // layout, shared with every kernel of this net and its nested nets that
  // asks for the same constant with the same `key` (LoomApi::
  // Prepare_SharedPack; the step nets of all timesteps of a
  // RecurrentNetwork hold one copy). `fill(data)` fills `bytes` bytes on
  // the first request only. *out stays empty (and the status OK) when the
  // input is not constant or the core predates ABI 8; the kernel then
  // reads the input as it is.
  Status SharedPack(size_t i, const std::string& key, size_t bytes, const std::function<Status(void* data)>& fill,
                    sdk::SharedPack* out) const {
    *out = sdk::SharedPack();
    if (!LOOM_SDK_API_HAS(Prepare_SharedPack) || Api().Prepare_SharedPack == nullptr) return Status::Ok();
    LoomSharedPack* handle = nullptr;
    auto trampoline = [](void* user, void* data) -> LoomStatus* {
      try {  // no exception crosses the C ABI
        return (*static_cast<const std::function<Status(void*)>*>(user))(data).release();
      } catch (const std::exception& e) {
        return Status(LOOM_INTERNAL, std::string("SharedPack fill: ") + e.what()).release();
      } catch (...) {
        return Status(LOOM_INTERNAL, "SharedPack fill: unknown exception").release();
      }
    };
    LOOM_SDK_RETURN_IF_ERROR(Status(Api().Prepare_SharedPack(
        ctx_, i, key.c_str(), bytes, trampoline, const_cast<std::function<Status(void*)>*>(&fill), &handle)));
    *out = sdk::SharedPack(handle);
    return Status::Ok();
  }
  LoomDataType OutputDType(size_t i) const { return Api().Prepare_OutputDType(ctx_, i); }
  bool OutputShape(size_t i, std::vector<int64_t>* shape) const {
    const int64_t* d = nullptr; size_t r = 0;
    if (!Api().Prepare_OutputShape(ctx_, i, &d, &r)) return false;
    shape->assign(d, d + r);
    return true;
  }
  int num_threads() const { return Api().Prepare_NumThreads(ctx_); }
  // The net's floating-point math mode (LoomKernelContextApi::
  // Prepare_FpMathMode, core/fpmath_mode.h): LOOM_FPMATH_MODE_BF16 allows
  // float32 convolutions and matmuls on bf16 inputs. A core older than the
  // table's version 2 has only LOOM_FPMATH_MODE_STRICT.
  LoomFpMathMode fpmath_mode() const {
    const LoomKernelContextApi* k = KernelContextApi();
    if (k == nullptr || k->version < 2 || !LOOM_HAS_MEMBER(LoomKernelContextApi, k->struct_size, Prepare_FpMathMode)) {
      return LOOM_FPMATH_MODE_STRICT;
    }
    return static_cast<LoomFpMathMode>(k->Prepare_FpMathMode(ctx_));
  }
  std::string device() const { return Api().Prepare_Device(ctx_); }
  const LoomPrepareContext* handle() const { return ctx_; }

 private:
  const LoomPrepareContext* ctx_;
};

// Dtype and shape inference for a schema's infer function.
class InferenceContext {
 public:
  explicit InferenceContext(LoomInferenceContext* ctx) : ctx_(ctx) {}
  KernelInfo info() const { return KernelInfo(Api().Infer_Info(ctx_)); }
  size_t num_inputs() const { return Api().Infer_NumInputs(ctx_); }
  size_t num_outputs() const { return Api().Infer_NumOutputs(ctx_); }
  LoomDataType InputDType(size_t i) const { return Api().Infer_InputDType(ctx_, i); }
  bool InputShape(size_t i, std::vector<int64_t>* shape) const {
    const int64_t* d = nullptr; size_t r = 0;
    if (!Api().Infer_InputShape(ctx_, i, &d, &r)) return false;
    shape->assign(d, d + r);
    return true;
  }
  Tensor InputConstant(size_t i) const { return Tensor(Api().Infer_InputConstant(ctx_, i)); }
  void SetOutputDType(size_t i, LoomDataType t) { Api().Infer_SetOutputDType(ctx_, i, t); }
  void SetOutputShape(size_t i, const std::vector<int64_t>& s) { Api().Infer_SetOutputShape(ctx_, i, s.data(), s.size()); }

 private:
  LoomInferenceContext* ctx_;
};

namespace internal {
inline LoomStatus* FromException(const char* where, const std::exception* e) {
  std::string m = std::string("C++ exception in plugin ") + where + ": " + (e ? e->what() : "unknown");
  return Api().CreateStatus(LOOM_INTERNAL, m.c_str());
}

template <class K>
void* CreateKernel(const LoomKernelInfo* info, LoomStatus** status) {
  try {
    auto k = std::make_unique<K>();
    Status s = k->Init(KernelInfo(info));
    if (!s.ok()) { *status = s.release(); return nullptr; }
    return k.release();
  } catch (const std::exception& e) {
    *status = FromException("kernel creation", &e);
  } catch (...) {
    *status = FromException("kernel creation", nullptr);
  }
  return nullptr;
}
template <class K>
void DestroyKernel(void* k) { delete static_cast<K*>(k); }
template <class K>
LoomStatus* ComputeKernel(void* k, LoomKernelContext* ctx) {
  try {
    KernelContext c(ctx);
    return static_cast<K*>(k)->Compute(c).release();
  } catch (const std::exception& e) {
    return FromException("kernel compute", &e);
  } catch (...) {
    return FromException("kernel compute", nullptr);
  }
}
template <class K, class = void>
struct HasPrepare : std::false_type {};
template <class K>
struct HasPrepare<K, std::void_t<decltype(std::declval<K&>().Prepare(std::declval<const PrepareContext&>()))>>
    : std::true_type {};
// Whether K declares a member named Prepare at all, whatever its access or
// signature (the member-detector idiom: in a class deriving from K and from
// one with a Prepare of its own, the name is ambiguous exactly when K has
// one, and ambiguity is found before access is checked). A final K cannot be
// derived from and counts as having none.
struct PrepareProbe {
  int Prepare;
};
struct NoMembers {};
template <class K>
struct WithPrepareProbe : std::conditional_t<std::is_final_v<K>, NoMembers, K>, PrepareProbe {};
template <class K, class = void>
struct DeclaresPrepare : std::true_type {};
template <class K>
struct DeclaresPrepare<K, std::void_t<decltype(&WithPrepareProbe<K>::Prepare)>> : std::false_type {};
template <class K>
LoomStatus* PrepareKernel(void* k, const LoomPrepareContext* ctx) {
  try {
    PrepareContext c(ctx);
    return static_cast<K*>(k)->Prepare(c).release();
  } catch (const std::exception& e) {
    return FromException("kernel prepare", &e);
  } catch (...) {
    return FromException("kernel prepare", nullptr);
  }
}
}  // namespace internal

// Since ABI 5: what a gradient maker sees and does (Caffe2's
// GradientMakerBase): the forward op's inputs I(i), outputs O(i), their
// gradients' names GI(i) (write these) and GO(i) (read these), and ops
// appended with AddOp. Register one with SchemaBuilder::Gradient.
class GradientContext {
 public:
  explicit GradientContext(LoomGradientContext* ctx) : ctx_(ctx) {}
  // The forward op: attributes (defaults applied), arity, blob names.
  KernelInfo info() const { return KernelInfo(Api().Grad_Info(ctx_)); }
  size_t num_inputs() const { return info().num_inputs(); }
  size_t num_outputs() const { return info().num_outputs(); }
  // Blob names of input / output i ("" when absent or out of range).
  std::string I(size_t i) const { return info().input_name(i); }
  std::string O(size_t i) const { return info().output_name(i); }
  // The gradient of output i; "" when none flows into it.
  std::string GO(size_t i) const { return Str(Api().Grad_OutputGradient(ctx_, i)); }
  // Where to write input i's gradient; "" when the backward pass does not
  // need it (the maker may skip it).
  std::string GI(size_t i) const { return Str(Api().Grad_InputGradient(ctx_, i)); }
  // Input i has no gradient (an index, a shape): not an error.
  void NoGradient(size_t i) { Api().Grad_NoGradient(ctx_, i); }
  // A blob name of this op's gradient for temporaries.
  std::string Temp(const std::string& suffix) const { return Str(Api().Grad_TempPrefix(ctx_)) + suffix; }
  // Appends `type` over `in` writing `out`; with copy_arguments, the forward
  // op's arguments come along (Caffe2 copies them by default; here they
  // must be asked for). Arg* set arguments of the op just added.
  Status AddOp(const std::string& type, const std::vector<std::string>& in, const std::vector<std::string>& out,
               bool copy_arguments = false) {
    std::vector<const char*> i, o;
    for (const std::string& s : in) i.push_back(s.c_str());
    for (const std::string& s : out) o.push_back(s.c_str());
    return Status(Api().Grad_AddOp(ctx_, type.c_str(), i.data(), i.size(), o.data(), o.size(), copy_arguments ? 1 : 0));
  }
  GradientContext& ArgInt(const std::string& name, int64_t v) { Api().Grad_ArgInt(ctx_, name.c_str(), v); return *this; }
  GradientContext& ArgFloat(const std::string& name, float v) { Api().Grad_ArgFloat(ctx_, name.c_str(), v); return *this; }
  GradientContext& ArgInts(const std::string& name, const std::vector<int64_t>& v) {
    Api().Grad_ArgInts(ctx_, name.c_str(), v.data(), v.size());
    return *this;
  }
  GradientContext& ArgString(const std::string& name, const std::string& v) {
    Api().Grad_ArgString(ctx_, name.c_str(), v.c_str());
    return *this;
  }
  // Since ABI 6: a list of strings and a NetDef (protobuf binary) argument.
  GradientContext& ArgStrings(const std::string& name, const std::vector<std::string>& v) {
    std::vector<const char*> p;
    for (const std::string& s : v) p.push_back(s.c_str());
    if (HasAbi6()) Api().Grad_ArgStrings(ctx_, name.c_str(), p.data(), p.size());
    return *this;
  }
  GradientContext& ArgNet(const std::string& name, const std::string& net) {
    if (HasAbi6()) Api().Grad_ArgNet(ctx_, name.c_str(), net.data(), net.size());
    return *this;
  }

  // Since ABI 6: the backward ops of a nested net (a step net, protobuf
  // binary), derived by the core's backward builder (Grad_NetBackward):
  // `output_grads[i]` holds the gradient of `outputs[i]`; `wrt_grads` gets,
  // per `wrt` blob, the blob of its gradient ("" where none). *backward is a
  // NetDef with the backward ops only, its external inputs the blobs they
  // read and do not write.
  Status NetBackward(const std::string& net, const std::vector<std::string>& outputs,
                     const std::vector<std::string>& output_grads, const std::vector<std::string>& wrt,
                     std::string* backward, std::vector<std::string>* wrt_grads) {
    if (!HasAbi6()) return Unimplemented("the core predates ABI 6 (Grad_NetBackward)");
    std::vector<const char*> o, og, w;
    for (const std::string& s : outputs) o.push_back(s.c_str());
    for (const std::string& s : output_grads) og.push_back(s.c_str());
    for (const std::string& s : wrt) w.push_back(s.c_str());
    const void* bytes = nullptr;
    size_t size = 0;
    const char* const* grads = nullptr;
    Status s(Api().Grad_NetBackward(ctx_, net.data(), net.size(), o.data(), og.data(), o.size(), w.data(), w.size(),
                                    &bytes, &size, &grads));
    if (!s.ok()) return s;
    backward->assign(static_cast<const char*>(bytes), size);
    wrt_grads->clear();
    for (size_t k = 0; k < wrt.size(); ++k) wrt_grads->push_back(Str(grads[k]));
    return Status::Ok();
  }

  // Since ABI 7: appends every op of `net` (a NetDef, protobuf binary), its
  // blob names as they are: a net the maker built, or NetBackward's result.
  Status AddNet(const std::string& net) {
    if (!LOOM_SDK_API_HAS(Grad_AddNet)) return Unimplemented("the core predates ABI 7 (Grad_AddNet)");
    return Status(Api().Grad_AddNet(ctx_, net.data(), net.size()));
  }

 private:
  static std::string Str(const char* s) { return s != nullptr ? s : ""; }
  static bool HasAbi6() { return LOOM_SDK_API_HAS(Grad_NetBackward); }
  LoomGradientContext* ctx_;
};

namespace internal {
template <Status (*F)(GradientContext&)>
LoomStatus* GradientTrampoline(LoomGradientContext* ctx) {
  try {
    GradientContext c(ctx);
    return F(c).release();
  } catch (const std::exception& e) {
    return FromException("gradient maker", &e);
  } catch (...) {
    return FromException("gradient maker", nullptr);
  }
}
template <Status (*F)(InferenceContext&)>
LoomStatus* InferTrampoline(LoomInferenceContext* ctx) {
  try {
    InferenceContext c(ctx);
    return F(c).release();
  } catch (const std::exception& e) {
    return FromException("inference", &e);
  } catch (...) {
    return FromException("inference", nullptr);
  }
}
}  // namespace internal

// Builds a LoomSchemaDef. Storage lives in the builder until Register; the
// core copies everything it keeps.
class SchemaBuilder {
 public:
  explicit SchemaBuilder(std::string op_type) : op_type_(std::move(op_type)) {}
  SchemaBuilder& Doc(std::string d) { doc_ = std::move(d); return *this; }
  SchemaBuilder& Domain(std::string d) { domain_ = std::move(d); return *this; }
  SchemaBuilder& SinceVersion(int v) { since_ = v; return *this; }
  SchemaBuilder& Input(std::string name, std::string type_str, LoomParamOption opt = LOOM_PARAM_SINGLE, std::string doc = "") {
    inputs_.push_back({std::move(name), std::move(type_str), opt, std::move(doc)}); return *this;
  }
  SchemaBuilder& Output(std::string name, std::string type_str, LoomParamOption opt = LOOM_PARAM_SINGLE, std::string doc = "") {
    outputs_.push_back({std::move(name), std::move(type_str), opt, std::move(doc)}); return *this;
  }
  SchemaBuilder& TypeConstraint(std::string type_str, std::vector<LoomDataType> allowed, std::string doc = "") {
    constraints_.push_back({std::move(type_str), std::move(allowed), std::move(doc)}); return *this;
  }
  SchemaBuilder& AttrInt(std::string name, int64_t dflt, std::string doc = "") {
    AttrEntry a(std::move(name), LOOM_ATTR_INT, std::move(doc)); a.spec.has_default = 1; a.spec.default_int = dflt;
    attrs_.push_back(std::move(a)); return *this;
  }
  SchemaBuilder& AttrFloat(std::string name, float dflt, std::string doc = "") {
    AttrEntry a(std::move(name), LOOM_ATTR_FLOAT, std::move(doc)); a.spec.has_default = 1; a.spec.default_float = dflt;
    attrs_.push_back(std::move(a)); return *this;
  }
  SchemaBuilder& AttrString(std::string name, std::string dflt, std::string doc = "") {
    AttrEntry a(std::move(name), LOOM_ATTR_STRING, std::move(doc)); a.spec.has_default = 1; a.default_string = std::move(dflt);
    attrs_.push_back(std::move(a)); return *this;
  }
  SchemaBuilder& AttrInts(std::string name, std::vector<int64_t> dflt, std::string doc = "") {
    AttrEntry a(std::move(name), LOOM_ATTR_INTS, std::move(doc)); a.spec.has_default = 1; a.default_ints = std::move(dflt);
    attrs_.push_back(std::move(a)); return *this;
  }
  SchemaBuilder& AttrFloats(std::string name, std::vector<float> dflt, std::string doc = "") {
    AttrEntry a(std::move(name), LOOM_ATTR_FLOATS, std::move(doc)); a.spec.has_default = 1; a.default_floats = std::move(dflt);
    attrs_.push_back(std::move(a)); return *this;
  }
  SchemaBuilder& AttrStrings(std::string name, std::vector<std::string> dflt, std::string doc = "") {
    AttrEntry a(std::move(name), LOOM_ATTR_STRINGS, std::move(doc)); a.spec.has_default = 1; a.default_strings = std::move(dflt);
    attrs_.push_back(std::move(a)); return *this;
  }
  // An attribute with no default: required, or optional (absent unless given).
  SchemaBuilder& Attr(std::string name, LoomAttrType type, bool required, std::string doc = "") {
    AttrEntry a(std::move(name), type, std::move(doc)); a.spec.required = required ? 1 : 0;
    attrs_.push_back(std::move(a)); return *this;
  }
  SchemaBuilder& AllowUnknownAttrs() { allow_unknown_ = true; return *this; }
  SchemaBuilder& InPlace(int input, int output) { inplace_.push_back(input); inplace_.push_back(output); return *this; }
  SchemaBuilder& Infer(LoomInferFn fn) { infer_ = fn; return *this; }
  // Output dtypes and shapes from the inputs' (InferenceContext); an
  // exception F throws becomes an error status.
  template <Status (*F)(InferenceContext&)>
  SchemaBuilder& Infer() { infer_ = internal::InferTrampoline<F>; return *this; }
  // Since ABI 5: the op's gradient maker (GradientContext). Without one the
  // gradient is "not implemented".
  SchemaBuilder& Gradient(LoomGradientFn fn) { gradient_ = fn; return *this; }
  // Since ABI 11: when the planner may run the op at plan time (LoomFoldKind).
  SchemaBuilder& Fold(LoomFoldKind kind) { fold_ = kind; return *this; }
  template <Status (*F)(GradientContext&)>
  SchemaBuilder& Gradient() { gradient_ = internal::GradientTrampoline<F>; return *this; }

  // Fills `def` with pointers into this builder (valid while it lives).
  const LoomSchemaDef& Build() {
    in_.clear(); out_.clear(); tc_.clear(); at_.clear();
    for (auto& p : inputs_) in_.push_back({LOOM_FORMAL_PARAM_STRUCT_SIZE, p.name.c_str(), p.type_str.c_str(), p.opt, p.doc.c_str()});
    for (auto& p : outputs_) out_.push_back({LOOM_FORMAL_PARAM_STRUCT_SIZE, p.name.c_str(), p.type_str.c_str(), p.opt, p.doc.c_str()});
    for (auto& c : constraints_) {
      tc_.push_back({LOOM_TYPE_CONSTRAINT_STRUCT_SIZE, c.type_str.c_str(), c.allowed.data(), c.allowed.size(), c.doc.c_str()});
    }
    for (auto& a : attrs_) {
      LoomAttrSpec s = a.spec;
      s.struct_size = LOOM_ATTR_SPEC_STRUCT_SIZE;
      s.name = a.name.c_str(); s.doc = a.doc.c_str();
      s.default_string = a.default_string.c_str();
      s.default_ints = a.default_ints.data(); s.num_default_ints = a.default_ints.size();
      s.default_floats = a.default_floats.data(); s.num_default_floats = a.default_floats.size();
      a.default_string_ptrs.clear();
      for (auto& str : a.default_strings) a.default_string_ptrs.push_back(str.c_str());
      s.default_strings = a.default_string_ptrs.data(); s.num_default_strings = a.default_string_ptrs.size();
      at_.push_back(s);
    }
    def_ = LoomSchemaDef{};
    def_.struct_size = LOOM_SCHEMA_DEF_STRUCT_SIZE;
    def_.op_type = op_type_.c_str(); def_.domain = domain_.c_str(); def_.since_version = since_;
    def_.doc = doc_.c_str();
    def_.inputs = in_.data(); def_.num_inputs = in_.size();
    def_.outputs = out_.data(); def_.num_outputs = out_.size();
    def_.attrs = at_.data(); def_.num_attrs = at_.size();
    def_.type_constraints = tc_.data(); def_.num_type_constraints = tc_.size();
    def_.inplace_pairs = inplace_.data(); def_.num_inplace_pairs = inplace_.size() / 2;
    def_.infer = infer_;
    def_.allow_unknown_attrs = allow_unknown_ ? 1 : 0;
    def_.gradient = gradient_;
    def_.fold = fold_;
    return def_;
  }

 private:
  struct Param { std::string name, type_str; LoomParamOption opt; std::string doc; };
  struct Constraint { std::string type_str; std::vector<LoomDataType> allowed; std::string doc; };
  struct AttrEntry {
    AttrEntry(std::string n, LoomAttrType t, std::string d) : name(std::move(n)), doc(std::move(d)) { spec.type = t; }
    std::string name, doc, default_string;
    std::vector<int64_t> default_ints;
    std::vector<float> default_floats;
    std::vector<std::string> default_strings;
    std::vector<const char*> default_string_ptrs;
    LoomAttrSpec spec{};
  };
  std::string op_type_, domain_, doc_;
  int since_ = 1;
  std::vector<Param> inputs_, outputs_;
  std::vector<Constraint> constraints_;
  std::vector<AttrEntry> attrs_;
  std::vector<int32_t> inplace_;
  LoomInferFn infer_ = nullptr;
  LoomGradientFn gradient_ = nullptr;
  LoomFoldKind fold_ = LOOM_FOLD_NEVER;
  bool allow_unknown_ = false;
  std::vector<LoomFormalParam> in_, out_;
  std::vector<LoomTypeConstraint> tc_;
  std::vector<LoomAttrSpec> at_;
  LoomSchemaDef def_{};
};

// How a kernel is keyed and constrained.
struct KernelOptions {
  std::string device = "CPU";
  std::string engine;
  int32_t priority = 0;
  // type_str -> dtypes this kernel handles.
  std::vector<std::pair<std::string, std::vector<LoomDataType>>> type_constraints;
  // The schema's domain ("" and "ai.onnx": ONNX's). Empty: this plugin's own
  // schema of the op type, else ONNX's, else the only one (ABI 10).
  std::string domain;
};

// Wraps one plugin's registration transaction.
class Registrar {
 public:
  Registrar(const LoomApi* api, LoomRegistrar* reg) : api_(api), reg_(reg) {}
  Status Register(SchemaBuilder& b) { return Status(api_->RegisterSchema(reg_, &b.Build())); }
  template <class K>
  Status Kernel(const std::string& op_type, const KernelOptions& opts = {}) {
    std::vector<LoomTypeConstraint> tc;
    for (auto& c : opts.type_constraints) {
      tc.push_back({LOOM_TYPE_CONSTRAINT_STRUCT_SIZE, c.first.c_str(), c.second.data(), c.second.size(), ""});
    }
    LoomKernelDef def{};
    def.struct_size = LOOM_KERNEL_DEF_STRUCT_SIZE;
    def.op_type = op_type.c_str();
    def.device = opts.device.c_str();
    def.engine = opts.engine.c_str();
    def.priority = opts.priority;
    def.type_constraints = tc.data();
    def.num_type_constraints = tc.size();
    def.create = &internal::CreateKernel<K>;
    def.destroy = &internal::DestroyKernel<K>;
    def.compute = &internal::ComputeKernel<K>;
    // A Prepare that is private, protected or of another signature would
    // silently never run: refuse to compile instead.
    static_assert(internal::HasPrepare<K>::value || !internal::DeclaresPrepare<K>::value,
                  "the kernel declares a Prepare the SDK cannot call: make it public, with the signature "
                  "Status Prepare(const loom::sdk::PrepareContext&)");
    if constexpr (internal::HasPrepare<K>::value) def.prepare = &internal::PrepareKernel<K>;
    def.domain = opts.domain.c_str();
    return Status(api_->RegisterKernel(reg_, &def));
  }
  Status Device(const LoomDeviceDef& def) { return Status(api_->RegisterDevice(reg_, &def)); }
  // Runs `files` in order (a plugin's registration functions, one per kernel
  // or schema file); the first error ends the plugin's registration.
  Status Each(std::initializer_list<Status (*)(Registrar&)> files) {
    for (auto* f : files) LOOM_SDK_RETURN_IF_ERROR(f(*this));
    return Status::Ok();
  }
  // Since ABI 7: a gradient maker for `op_type`, an op whose schema (maybe
  // another plugin's or the core's) has none (LoomApi::RegisterGradient).
  template <Status (*F)(GradientContext&)>
  Status Gradient(const std::string& op_type) {
    if (!LOOM_HAS_MEMBER(LoomApi, api_->struct_size, RegisterGradient)) {
      return Status(LOOM_UNIMPLEMENTED, "RegisterGradient: the core is older than ABI 7");
    }
    return Status(api_->RegisterGradient(reg_, op_type.c_str(), internal::GradientTrampoline<F>));
  }
  const LoomApi* api() const { return api_; }
  LoomRegistrar* handle() const { return reg_; }

 private:
  const LoomApi* api_;
  LoomRegistrar* reg_;
};

namespace internal {
// The body of every LoomPluginInit: checks the table, declares the plugin,
// runs the registration function, converts exceptions.
inline LoomStatus* RunPluginInit(const LoomApi* api, LoomRegistrar* reg, const char* name,
                                 const char* version, Status (*body)(Registrar&)) {
  if (api == nullptr || api->struct_size < sizeof(size_t) + 3 * sizeof(uint32_t)) return nullptr;
  GlobalApi() = api;
  LoomPluginInfo info{};
  info.struct_size = LOOM_PLUGIN_INFO_STRUCT_SIZE;
  info.abi_version = LOOM_ABI_VERSION;
  info.name = name;
  info.version = version;
  // A core that accepts this ABI version provides every member of its table
  // (DeclarePlugin refuses a newer ABI than the core's, naming both).
  LoomStatus* st = api->DeclarePlugin(reg, &info);
  if (st) return st;
  try {
    Registrar r(api, reg);
    return body(r).release();
  } catch (const std::exception& e) {
    return FromException("registration", &e);
  } catch (...) {
    return FromException("registration", nullptr);
  }
}
}  // namespace internal

}  // namespace sdk
}  // namespace loom

// Defines a registration function `fn` with the plugin-init signature.
// LOOM_PLUGIN uses the exported name; built-in op sets use their own name.
#define LOOM_DEFINE_PLUGIN_INIT(fn, name, version, reg_var)                              \
  static ::loom::sdk::Status fn##_Body(::loom::sdk::Registrar& reg_var);                \
  extern "C" LOOM_EXPORT LoomStatus* fn(const LoomApi* api, LoomRegistrar* r) {          \
    return ::loom::sdk::internal::RunPluginInit(api, r, name, version, &fn##_Body);     \
  }                                                                                      \
  static ::loom::sdk::Status fn##_Body(::loom::sdk::Registrar& reg_var)

// The plugin's exported entry point:
//   LOOM_PLUGIN("myplugin", "1.0.0", reg) { return reg.Kernel<MyKernel>("MyOp"); }
#define LOOM_PLUGIN(name, version, reg_var) LOOM_DEFINE_PLUGIN_INIT(LoomPluginInit, name, version, reg_var)

#endif  // LOOM_CORE_API_LOOM_SDK_H_
