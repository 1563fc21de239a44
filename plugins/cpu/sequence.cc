// Sequence and optional kernels (ops/sequence.cc): SequenceEmpty,
// SequenceConstruct, SequenceInsert, SequenceAt, SequenceErase,
// SequenceLength, SplitToSequence, ConcatFromSequence (ONNX opset 11),
// Optional, OptionalHasElement, OptionalGetElement (opset 15). Values are
// immutable (core/tensor.h): a new sequence shares the tensors of the one
// it was made from, and tensors leaving a value (SequenceAt,
// OptionalGetElement) are copied into the op's output.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "plugins/cpu/cpu_common.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/tensor_util.h"

namespace loom {
namespace cpu {
namespace {

using sdk::OwnedTensor;
using sdk::TypeName;
using sdk::ValuesOf;

// A position input (a scalar) in [-n, n - 1], or [-n, n] with `end_ok`
// (insertion), made non-negative.
Status ReadPosition(const Tensor& t, int64_t n, bool end_ok, const std::string& label, int64_t* pos) {
  int64_t p = 0;
  LOOM_SDK_RETURN_IF_ERROR(ReadScalarInt(label, t, "position", &p));
  const int64_t hi = end_ok ? n : n - 1;
  if (p < -n || p > hi) {
    return Status(LOOM_OUT_OF_RANGE, label + ": position " + std::to_string(p) + " is outside [" + std::to_string(-n) +
                                         ", " + std::to_string(hi) + "] for a sequence of " + std::to_string(n));
  }
  *pos = p < 0 ? p + n : p;
  return Status::Ok();
}

// Copies tensor `x` into output i.
Status CopyToOutput(KernelContext& ctx, size_t i, const Tensor& x) {
  Tensor y;
  LOOM_SDK_RETURN_IF_ERROR(ctx.Output(i, x.dtype(), x.shape(), &y));
  CopyData(x, y);
  return Status::Ok();
}

class SequenceEmptyKernel {
 public:
  Status Init(const KernelInfo& info) {
    dtype_ = static_cast<LoomDataType>(info.IntOr("dtype", LOOM_DTYPE_FLOAT));
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) { return sdk::SetValue(ctx.OutputHandle(0), dtype_ | LOOM_DTYPE_SEQUENCE, {}); }

 private:
  LoomDataType dtype_ = LOOM_DTYPE_FLOAT;
};

class SequenceConstructKernel {
 public:
  Status Init(const KernelInfo&) { return Status::Ok(); }
  Status Compute(KernelContext& ctx) {
    std::vector<Tensor> items;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) items.push_back(ctx.Input(i));
    return sdk::SetValue(ctx.OutputHandle(0), items[0].dtype() | LOOM_DTYPE_SEQUENCE, items);
  }
};

class SequenceInsertKernel : public LabeledKernel {
 public:
  Status Compute(KernelContext& ctx) {
    const Tensor seq = ctx.Input(0), x = ctx.Input(1), position = ctx.Input(2);
    std::vector<Tensor> items = ValuesOf(seq);
    int64_t pos = static_cast<int64_t>(items.size());
    if (position.present()) {
      LOOM_SDK_RETURN_IF_ERROR(ReadPosition(position, static_cast<int64_t>(items.size()), true, label_, &pos));
    }
    items.insert(items.begin() + pos, x);
    return sdk::SetValue(ctx.OutputHandle(0), seq.dtype(), items);
  }

};

class SequenceAtKernel : public LabeledKernel {
 public:
  Status Compute(KernelContext& ctx) {
    const std::vector<Tensor> items = ValuesOf(ctx.Input(0));
    int64_t pos = 0;
    LOOM_SDK_RETURN_IF_ERROR(ReadPosition(ctx.Input(1), static_cast<int64_t>(items.size()), false, label_, &pos));
    return CopyToOutput(ctx, 0, items[pos]);
  }

};

class SequenceEraseKernel : public LabeledKernel {
 public:
  Status Compute(KernelContext& ctx) {
    const Tensor seq = ctx.Input(0), position = ctx.Input(1);
    std::vector<Tensor> items = ValuesOf(seq);
    if (items.empty()) return Status(LOOM_OUT_OF_RANGE, label_ + ": nothing to erase in an empty sequence");
    int64_t pos = static_cast<int64_t>(items.size()) - 1;
    if (position.present()) {
      LOOM_SDK_RETURN_IF_ERROR(ReadPosition(position, static_cast<int64_t>(items.size()), false, label_, &pos));
    }
    items.erase(items.begin() + pos);
    return sdk::SetValue(ctx.OutputHandle(0), seq.dtype(), items);
  }

};

class SequenceLengthKernel {
 public:
  Status Init(const KernelInfo&) { return Status::Ok(); }
  Status Compute(KernelContext& ctx) {
    Tensor y;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_INT64, std::vector<int64_t>{}, &y));
    *y.data<int64_t>() = static_cast<int64_t>(ValuesOf(ctx.Input(0)).size());
    return Status::Ok();
  }
};

class SplitToSequenceKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    axis_ = info.IntOr("axis", 0);
    keepdims_ = info.IntOr("keepdims", 1) != 0;
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    const Tensor x = ctx.Input(0), split = ctx.Input(1);
    const std::vector<int64_t> xs = x.shape();
    int64_t axis = axis_;
    LOOM_SDK_RETURN_IF_ERROR(semantics::NormalizeAxisOr(&axis, static_cast<int64_t>(xs.size()), label_, "axis"));
    const int64_t dim = xs[axis];
    std::vector<int64_t> sizes;
    bool squeeze = false;
    if (!split.present()) {
      sizes.assign(static_cast<size_t>(dim), 1);
      squeeze = !keepdims_;
    } else if (split.rank() == 0) {
      int64_t chunk = 0;
      LOOM_SDK_RETURN_IF_ERROR(ReadScalarInt(label_, split, "split", &chunk));
      if (chunk <= 0) return sdk::InvalidArgument(label_ + ": scalar 'split' must be > 0; found " + std::to_string(chunk));
      for (int64_t at = 0; at < dim; at += chunk) sizes.push_back(std::min(chunk, dim - at));
    } else {
      int64_t sum = 0;
      ReadInts(split, &sizes);  // int32 or int64 (the schema's I)
      for (int64_t s : sizes) {
        if (s < 0) return sdk::InvalidArgument(label_ + ": 'split' has a negative size " + std::to_string(s));
        sum += s;
      }
      if (sum != dim) {
        return sdk::InvalidArgument(label_ + ": 'split' sums to " + std::to_string(sum) + " but axis " +
                                    std::to_string(axis) + " of " + ShapeStr(xs) + " is " + std::to_string(dim));
      }
    }
    const int64_t outer = semantics::Product(xs, 0, axis), inner = semantics::Product(xs, axis + 1, xs.size());
    const ElementsIn xe(x);  // strings as views (tensor_util.h)
    const size_t elem = xe.esize();
    std::vector<OwnedTensor> pieces(sizes.size());
    std::vector<Tensor> items;
    int64_t at = 0;
    for (size_t k = 0; k < sizes.size(); ++k) {
      std::vector<int64_t> ps = xs;
      ps[axis] = sizes[k];
      if (squeeze) ps.erase(ps.begin() + axis);
      LOOM_SDK_RETURN_IF_ERROR(OwnedTensor::Create(x.dtype(), ps, &pieces[k]));
      const size_t row = static_cast<size_t>(sizes[k] * inner) * elem;
      ElementsOut piece(pieces[k].get());
      char* dst = piece.data<char>();
      const char* src = xe.data<char>();
      for (int64_t o = 0; o < outer && row > 0; ++o) {
        std::memcpy(dst + o * row, src + (static_cast<size_t>(o * dim + at) * inner) * elem, row);
      }
      LOOM_SDK_RETURN_IF_ERROR(piece.Finish());
      at += sizes[k];
      items.push_back(pieces[k].get());
    }
    return sdk::SetValue(ctx.OutputHandle(0), x.dtype() | LOOM_DTYPE_SEQUENCE, items);
  }

 private:
  std::string label_;
  int64_t axis_ = 0;
  bool keepdims_ = true;
};

class ConcatFromSequenceKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    axis_ = info.IntOr("axis", 0);
    new_axis_ = info.IntOr("new_axis", 0) != 0;
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    const Tensor seq = ctx.Input(0);
    const std::vector<Tensor> items = ValuesOf(seq);
    if (items.empty()) return sdk::InvalidArgument(label_ + ": the sequence is empty (no shape to concatenate)");
    const std::vector<int64_t> first = items[0].shape();
    const int64_t rank = static_cast<int64_t>(first.size());
    int64_t axis = axis_;
    LOOM_SDK_RETURN_IF_ERROR(semantics::NormalizeAxisOr(&axis, new_axis_ ? rank + 1 : rank, label_, "axis"));
    // Each tensor as [outer, d_k * inner]; the output [outer, sum d_k * inner].
    std::vector<int64_t> ys = first;
    if (new_axis_) ys.insert(ys.begin() + axis, 0);
    const int64_t outer = semantics::Product(ys, 0, axis), inner = semantics::Product(ys, axis + 1, ys.size());
    std::vector<int64_t> rows;
    ys[axis] = 0;
    for (size_t k = 0; k < items.size(); ++k) {
      std::vector<int64_t> s = items[k].shape();
      bool same = s.size() == first.size();
      for (size_t d = 0; same && d < s.size(); ++d) {
        same = (!new_axis_ && static_cast<int64_t>(d) == axis) || s[d] == first[d];
      }
      if (!same) {
        return sdk::InvalidArgument(label_ + ": tensor " + std::to_string(k) + " is " + ShapeStr(s) +
                                    ", which does not " + (new_axis_ ? "stack with " : "concatenate with ") +
                                    ShapeStr(first) + " along axis " + std::to_string(axis));
      }
      const int64_t d = new_axis_ ? 1 : s[axis];
      ys[axis] += d;
      rows.push_back(d * inner);
    }
    Tensor y;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, seq.dtype() & ~LOOM_DTYPE_SEQUENCE, ys, &y));
    const int64_t out_row = ys[axis] * inner;
    ElementsOut ye(y);  // strings as views (tensor_util.h)
    char* dst = ye.data<char>();
    int64_t offset = 0;
    for (size_t k = 0; k < items.size(); ++k) {
      const ElementsIn in(items[k]);
      const size_t elem = in.esize();
      const char* src = in.data<char>();
      for (int64_t o = 0; o < outer && rows[k] > 0; ++o) {
        std::memcpy(dst + (o * out_row + offset) * elem, src + o * rows[k] * elem, rows[k] * elem);
      }
      offset += rows[k];
    }
    return ye.Finish();
  }

 private:
  std::string label_;
  int64_t axis_ = 0;
  bool new_axis_ = false;
};

class OptionalKernel {
 public:
  Status Init(const KernelInfo& info) {
    type_ = static_cast<LoomDataType>(info.IntOr("type", LOOM_DTYPE_UNDEFINED));
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    const Tensor x = ctx.num_inputs() > 0 ? ctx.Input(0) : Tensor();
    if (!x.present()) return sdk::SetValue(ctx.OutputHandle(0), type_ | LOOM_DTYPE_OPTIONAL, {});
    return sdk::SetValue(ctx.OutputHandle(0), x.dtype() | LOOM_DTYPE_OPTIONAL, {x});
  }

 private:
  LoomDataType type_ = LOOM_DTYPE_UNDEFINED;
};

class OptionalHasElementKernel {
 public:
  Status Init(const KernelInfo&) { return Status::Ok(); }
  Status Compute(KernelContext& ctx) {
    Tensor y;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_BOOL, std::vector<int64_t>{}, &y));
    const Tensor x = ctx.Input(0);
    *y.data<bool>() = !sdk::IsOptionalType(x.dtype()) || !ValuesOf(x).empty();
    return Status::Ok();
  }
};

class OptionalGetElementKernel : public LabeledKernel {
 public:
  Status Compute(KernelContext& ctx) {
    const Tensor x = ctx.Input(0);
    if (!sdk::IsOptionalType(x.dtype())) {  // a plain value (opset 18)
      return sdk::IsValueType(x.dtype()) ? sdk::AssignValue(ctx.OutputHandle(0), x) : CopyToOutput(ctx, 0, x);
    }
    const std::vector<Tensor> v = ValuesOf(x);
    if (v.empty()) {
      return sdk::InvalidArgument(label_ + ": the optional input (" + TypeName(x.dtype()) + ") holds no value");
    }
    if (sdk::IsValueType(v[0].dtype())) return sdk::AssignValue(ctx.OutputHandle(0), v[0]);
    return CopyToOutput(ctx, 0, v[0]);
  }

};

}  // namespace

Status RegisterSequenceKernels(sdk::Registrar& reg) {
  const sdk::KernelOptions cpu{"CPU", "", 0, {}};
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<SequenceEmptyKernel>("SequenceEmpty", cpu));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<SequenceConstructKernel>("SequenceConstruct", cpu));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<SequenceInsertKernel>("SequenceInsert", cpu));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<SequenceAtKernel>("SequenceAt", cpu));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<SequenceEraseKernel>("SequenceErase", cpu));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<SequenceLengthKernel>("SequenceLength", cpu));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<SplitToSequenceKernel>("SplitToSequence", cpu));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ConcatFromSequenceKernel>("ConcatFromSequence", cpu));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<OptionalKernel>("Optional", cpu));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<OptionalHasElementKernel>("OptionalHasElement", cpu));
  return reg.Kernel<OptionalGetElementKernel>("OptionalGetElement", cpu);
}

}  // namespace cpu
}  // namespace loom
