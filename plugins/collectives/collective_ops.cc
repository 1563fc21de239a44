// Caffe2's collective operators (caffe2/contrib/gloo): CreateCommonWorld
// makes the communicator, the others take its handle as input 0.
//   CreateCommonWorld() -> comm                int64 scalar handle
//   Allreduce(comm, X1..Xn) -> Y1..Yn          sum or mean over the ranks
//   Broadcast(comm, X1..Xn) -> Y1..Yn          rank `root`'s values
//   Barrier(comm)
//   AllreduceWait(comm, X1..Xn) -> Y1..Yn     after Allreduce with async = 1
// Allreduce packs its inputs into one flat buffer (one collective for many
// small gradients, as Horovod's fusion buffer and DDP's buckets) when
// there are several. CPU tensors over Gloo here; float32 and float64.
#include <cstring>
#include <memory>
#include <utility>
#include <string>
#include <vector>

#include "core/api/loom_sdk.h"
#include "plugins/collectives/collectives_ops.h"
#include "plugins/collectives/communicator.h"

namespace loom {
namespace collectives {
namespace {

class CreateCommonWorldKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = "CreateCommonWorld '" + info.op_name() + "'";
    spec_.rank = static_cast<int>(info.IntOr("rank", 0));
    spec_.size = static_cast<int>(info.IntOr("size", 1));
    spec_.rendezvous = info.StringOr("rendezvous", "");
    spec_.run_id = info.StringOr("run_id", "");
    spec_.timeout = std::chrono::milliseconds(info.IntOr("timeout_ms", 30000));
    spec_.hostname = info.StringOr("hostname", "127.0.0.1");
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    if (handle_ == 0) LOOM_SDK_RETURN_IF_ERROR(GlooCommonWorld(spec_, &handle_));
    Tensor out;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_INT64, std::vector<int64_t>{}, &out));
    *out.data<int64_t>() = handle_;
    return Status::Ok();
  }

 private:
  std::string label_;
  CommonWorldSpec spec_;
  int64_t handle_ = 0;
};

size_t Bytes(const Tensor& t) { return static_cast<size_t>(t.num_elements()) * sdk::DTypeSize(t.dtype()); }

// The communicator input 0 names.
Status World(KernelContext& ctx, const std::string& label, std::shared_ptr<Communicator>* out) {
  Tensor h = ctx.Input(0);
  if (!h.present() || h.dtype() != LOOM_DTYPE_INT64 || h.num_elements() != 1) {
    return sdk::InvalidArgument(label + ": input 0 must be a communicator (CreateCommonWorld's int64 output)");
  }
  *out = CommonWorld(*h.data<int64_t>());
  if (*out == nullptr) return sdk::InvalidArgument(label + ": input 0 is not a communicator of this process");
  return Status::Ok();
}

// Outputs 0..n-1 as inputs 1..n (copied unless the same buffer); checks
// that every tensor has `dtype` (when given).
Status CopyThrough(KernelContext& ctx, const std::string& label, std::vector<Tensor>* outs) {
  const size_t n = ctx.num_inputs() - 1;
  if (ctx.num_outputs() != n) {
    return sdk::InvalidArgument(label + ": " + std::to_string(n) + " tensors in, " + std::to_string(ctx.num_outputs()) +
                                " out; they must match");
  }
  for (size_t i = 0; i < n; ++i) {
    Tensor x = ctx.Input(i + 1);
    Tensor y;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(i, x.dtype(), x.shape(), &y));
    if (y.raw_data() != x.raw_data() && Bytes(x) > 0) std::memcpy(y.raw_data(), x.raw_data(), Bytes(x));
    outs->push_back(y);
  }
  return Status::Ok();
}

class AllreduceKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = "Allreduce '" + info.op_name() + "'";
    const std::string reduce = info.StringOr("reduce", "sum");
    if (reduce != "sum" && reduce != "mean") return sdk::InvalidArgument(label_ + ": reduce must be sum or mean; found '" + reduce + "'");
    op_ = reduce == "mean" ? ReduceOp::kMean : ReduceOp::kSum;
    async_ = info.IntOr("async", 0) != 0;
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    std::shared_ptr<Communicator> comm;
    LOOM_SDK_RETURN_IF_ERROR(World(ctx, label_, &comm));
    std::vector<Tensor> ys;
    LOOM_SDK_RETURN_IF_ERROR(CopyThrough(ctx, label_, &ys));
    if (ys.empty()) return Status::Ok();
    const LoomDataType dt = ys[0].dtype();
    size_t count = 0;
    for (const Tensor& y : ys) {
      if (y.dtype() != dt) {
        return sdk::InvalidArgument(label_ + ": every tensor must have one dtype; found " + sdk::DTypeName(dt) + " and " +
                                    sdk::DTypeName(y.dtype()));
      }
      count += static_cast<size_t>(y.num_elements());
    }
    if (ys.size() == 1) {
      if (!async_) return comm->Allreduce(ys[0].raw_data(), count, dt, op_);
      comm->AllreduceAsync(ys[0].raw_data(), count, dt, op_);
      return Status::Ok();
    }
    // Many tensors: one collective over a flat buffer, unpacked after.
    auto flat = std::make_shared<std::vector<char>>(count * sdk::DTypeSize(dt));
    std::vector<std::pair<void*, size_t>> parts;
    size_t at = 0;
    for (const Tensor& y : ys) {
      if (Bytes(y) > 0) std::memcpy(flat->data() + at, y.raw_data(), Bytes(y));
      parts.push_back({y.raw_data(), Bytes(y)});
      at += Bytes(y);
    }
    auto unpack = [flat, parts] {
      size_t from = 0;
      for (const auto& [dst, n] : parts) {
        if (n > 0) std::memcpy(dst, flat->data() + from, n);
        from += n;
      }
    };
    if (async_) {
      comm->AllreduceAsync(flat->data(), count, dt, op_, unpack);
      return Status::Ok();
    }
    LOOM_SDK_RETURN_IF_ERROR(comm->Allreduce(flat->data(), count, dt, op_));
    unpack();
    return Status::Ok();
  }

 private:
  std::string label_;
  ReduceOp op_ = ReduceOp::kSum;
  bool async_ = false;
};

// AllreduceWait(comm, X1..Xn) -> Y1..Yn: waits for the asynchronous
// Allreduce ops queued on comm so far, then passes the tensors through (in
// place where the planner allows); what reads Y reads the reduced values.
class AllreduceWaitKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = "AllreduceWait '" + info.op_name() + "'";
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    std::shared_ptr<Communicator> comm;
    LOOM_SDK_RETURN_IF_ERROR(World(ctx, label_, &comm));
    LOOM_SDK_RETURN_IF_ERROR(comm->Wait());
    std::vector<Tensor> ys;
    return CopyThrough(ctx, label_, &ys);
  }

 private:
  std::string label_;
};

class BroadcastKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = "Broadcast '" + info.op_name() + "'";
    root_ = static_cast<int>(info.IntOr("root", 0));
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    std::shared_ptr<Communicator> comm;
    LOOM_SDK_RETURN_IF_ERROR(World(ctx, label_, &comm));
    std::vector<Tensor> ys;
    LOOM_SDK_RETURN_IF_ERROR(CopyThrough(ctx, label_, &ys));
    for (Tensor& y : ys) LOOM_SDK_RETURN_IF_ERROR(comm->Broadcast(y.raw_data(), Bytes(y), root_));
    return Status::Ok();
  }

 private:
  std::string label_;
  int root_ = 0;
};

class BarrierKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = "Barrier '" + info.op_name() + "'";
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    std::shared_ptr<Communicator> comm;
    LOOM_SDK_RETURN_IF_ERROR(World(ctx, label_, &comm));
    return comm->Barrier();
  }

 private:
  std::string label_;
};

// Outputs k: input k + 1's dtype and shape.
Status InferThrough(sdk::InferenceContext& ctx) {
  for (size_t k = 0; k < ctx.num_outputs() && k + 1 < ctx.num_inputs(); ++k) {
    ctx.SetOutputDType(k, ctx.InputDType(k + 1));
    std::vector<int64_t> shape;
    if (ctx.InputShape(k + 1, &shape)) ctx.SetOutputShape(k, shape);
  }
  return Status::Ok();
}

Status InferWorld(sdk::InferenceContext& ctx) {
  ctx.SetOutputDType(0, LOOM_DTYPE_INT64);
  ctx.SetOutputShape(0, {});
  return Status::Ok();
}

// Y_k may be X_k itself (in place: a parameter broadcast, a gradient
// reduced where it lies), for the first kInPlacePairs tensors.
constexpr int kInPlacePairs = 4096;
void InPlacePairs(sdk::SchemaBuilder& s) {
  for (int k = 0; k < kInPlacePairs; ++k) s.InPlace(k + 1, k);
}

}  // namespace

Status RegisterCollectiveOps(sdk::Registrar& reg) {
  sdk::SchemaBuilder world("CreateCommonWorld");
  world.Domain(LOOM_OPS_DOMAIN);
  world.Doc("Caffe2's CreateCommonWorld: connects this process, rank `rank` of `size`, with the others through "
            "the folder `rendezvous` (run `run_id`), on Gloo over TCP; outputs the communicator's handle. "
            "Connects on its first run; later runs reuse the connection.")
      .Output("comm", "T", LOOM_PARAM_SINGLE, "int64 scalar: the communicator")
      .TypeConstraint("T", {LOOM_DTYPE_INT64})
      .AttrInt("rank", 0, "this process's rank, in [0, size)")
      .AttrInt("size", 1, "the number of ranks")
      .AttrString("rendezvous", "", "a folder every rank reaches (shared across machines)")
      .AttrString("run_id", "", "unique per run; the keys go in <rendezvous>/<run_id>/")
      .AttrInt("timeout_ms", 30000, "of the rendezvous and of every collective, ms")
      .AttrString("hostname", "127.0.0.1", "the address this rank listens on (another machine's ranks connect to it)")
      .Infer<&InferWorld>();
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(world));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<CreateCommonWorldKernel>("CreateCommonWorld"));

  sdk::SchemaBuilder allreduce("Allreduce");
  allreduce.Domain(LOOM_OPS_DOMAIN);
  allreduce.Doc("Caffe2's Allreduce: every rank's Y_i is the sum (reduce = sum) or mean (reduce = mean) of all "
                "ranks' X_i; same dtype (float32 or float64) for all; several tensors go in one collective.")
      .Input("comm", "C", LOOM_PARAM_SINGLE, "CreateCommonWorld's output")
      .Input("X", "T", LOOM_PARAM_VARIADIC, "tensors to reduce")
      .Output("Y", "T", LOOM_PARAM_VARIADIC, "reduced, shaped as X (may be X itself)")
      .TypeConstraint("C", {LOOM_DTYPE_INT64})
      .TypeConstraint("T", {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE})
      .AttrString("reduce", "sum", "sum or mean (mean: the sum divided by the number of ranks)")
      .AttrInt("async", 0,
               "1: queue the reduction on the communicator's thread and return at once; Y holds the reduced "
               "values only after an AllreduceWait on the same comm (which must come before anything reads Y)")
      .Infer<&InferThrough>();
  InPlacePairs(allreduce);
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(allreduce));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<AllreduceKernel>("Allreduce"));

  sdk::SchemaBuilder wait("AllreduceWait");
  wait.Domain(LOOM_OPS_DOMAIN);
  wait.Doc("Waits for the asynchronous Allreduce ops (async = 1) queued on comm so far, then passes X through: "
           "ops that read Y see the reduced values. The data-parallel transform puts one after the backward pass.")
      .Input("comm", "C", LOOM_PARAM_SINGLE, "CreateCommonWorld's output")
      .Input("X", "T", LOOM_PARAM_VARIADIC, "outputs of asynchronous Allreduce ops")
      .Output("Y", "T", LOOM_PARAM_VARIADIC, "the same tensors, reduced (may be X itself)")
      .TypeConstraint("C", {LOOM_DTYPE_INT64})
      .TypeConstraint("T", {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE})
      .Infer<&InferThrough>();
  InPlacePairs(wait);
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(wait));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<AllreduceWaitKernel>("AllreduceWait"));

  sdk::SchemaBuilder broadcast("Broadcast");
  broadcast.Domain(LOOM_OPS_DOMAIN);
  broadcast.Doc("Caffe2's Broadcast: every rank's Y_i is rank root's X_i.")
      .Input("comm", "C", LOOM_PARAM_SINGLE, "CreateCommonWorld's output")
      .Input("X", "any", LOOM_PARAM_VARIADIC, "tensors (root's are sent)")
      .Output("Y", "any", LOOM_PARAM_VARIADIC, "root's values, shaped as X (may be X itself)")
      .TypeConstraint("C", {LOOM_DTYPE_INT64})
      .AttrInt("root", 0, "the rank whose values everyone gets")
      .Infer<&InferThrough>();
  InPlacePairs(broadcast);
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(broadcast));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<BroadcastKernel>("Broadcast"));

  sdk::SchemaBuilder barrier("Barrier");
  barrier.Domain(LOOM_OPS_DOMAIN);
  barrier.Doc("Caffe2's Barrier: returns once every rank has reached it (or fails after the timeout).")
      .Input("comm", "C", LOOM_PARAM_SINGLE, "CreateCommonWorld's output")
      .TypeConstraint("C", {LOOM_DTYPE_INT64});
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(barrier));
  return reg.Kernel<BarrierKernel>("Barrier");
}

}  // namespace collectives
}  // namespace loom
