// Allreduce and Broadcast on CUDA tensors with NCCL (built with
// --config=cuda). NCCL is loaded when the first such op runs (dlopen of
// libnccl.so.2 from the CUDA toolkit), so the plugin costs nothing where no
// GPU trains. Each rank drives one GPU, the current device when its first
// collective runs; the NCCL communicator of a common world is made then:
// rank 0 draws the NCCL id and sends it to the others over the world's
// Gloo connection (CreateCommonWorld's), then ncclCommInitRank. The ops
// are queued on the op's stream (ncclAllReduce with ncclSum or ncclAvg,
// ncclBroadcast); errors name the NCCL call and its message.
#include <dlfcn.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/api/loom_sdk.h"
#include "nccl.h"
#include "plugins/collectives/collectives_ops.h"
#include "plugins/collectives/communicator.h"

#ifndef LOOM_CUDA_LIB_DIR
#define LOOM_CUDA_LIB_DIR "/usr/local/cuda/lib64"
#endif

namespace loom {
namespace collectives {
namespace {

// The NCCL entry points the kernels use, from libnccl.so.2.
struct Nccl {
  ncclResult_t (*GetUniqueId)(ncclUniqueId*) = nullptr;
  ncclResult_t (*CommInitRank)(ncclComm_t*, int, ncclUniqueId, int) = nullptr;
  ncclResult_t (*AllReduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t) = nullptr;
  ncclResult_t (*Broadcast)(const void*, void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t) = nullptr;
  const char* (*GetErrorString)(ncclResult_t) = nullptr;
  std::string error;  // why it did not load
};

const Nccl& LoadNccl() {
  static const Nccl* nccl = [] {
    auto* n = new Nccl();
    void* lib = dlopen(LOOM_CUDA_LIB_DIR "/libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      n->error = std::string("cannot load libnccl.so.2 (") + dlerror() + ")";
      return n;
    }
    n->GetUniqueId = reinterpret_cast<decltype(n->GetUniqueId)>(dlsym(lib, "ncclGetUniqueId"));
    n->CommInitRank = reinterpret_cast<decltype(n->CommInitRank)>(dlsym(lib, "ncclCommInitRank"));
    n->AllReduce = reinterpret_cast<decltype(n->AllReduce)>(dlsym(lib, "ncclAllReduce"));
    n->Broadcast = reinterpret_cast<decltype(n->Broadcast)>(dlsym(lib, "ncclBroadcast"));
    n->GetErrorString = reinterpret_cast<decltype(n->GetErrorString)>(dlsym(lib, "ncclGetErrorString"));
    if (!n->GetUniqueId || !n->CommInitRank || !n->AllReduce || !n->Broadcast || !n->GetErrorString) {
      n->error = "libnccl.so.2 lacks an entry point (ncclGetUniqueId, ncclCommInitRank, ncclAllReduce, ncclBroadcast)";
    }
    return n;
  }();
  return *nccl;
}

Status Check(const Nccl& nccl, ncclResult_t r, const std::string& label, const char* call) {
  if (r == ncclSuccess) return Status::Ok();
  return Status(LOOM_UNAVAILABLE, label + ": " + call + " failed: " + nccl.GetErrorString(r));
}

// The NCCL communicator of a common world (made once per handle).
Status NcclComm(int64_t handle, const std::string& label, ncclComm_t* out) {
  static std::mutex mu;
  static auto* comms = new std::map<int64_t, ncclComm_t>();
  std::lock_guard<std::mutex> lock(mu);
  auto it = comms->find(handle);
  if (it != comms->end()) {
    *out = it->second;
    return Status::Ok();
  }
  const Nccl& nccl = LoadNccl();
  if (!nccl.error.empty()) return Status(LOOM_UNAVAILABLE, label + ": " + nccl.error);
  std::shared_ptr<Communicator> world = CommonWorld(handle);
  if (world == nullptr) return sdk::InvalidArgument(label + ": input 0 is not a communicator of this process");
  ncclUniqueId id{};
  if (world->rank() == 0) LOOM_SDK_RETURN_IF_ERROR(Check(nccl, nccl.GetUniqueId(&id), label, "ncclGetUniqueId"));
  LOOM_SDK_RETURN_IF_ERROR(world->Broadcast(&id, sizeof(id), 0));
  ncclComm_t comm = nullptr;
  LOOM_SDK_RETURN_IF_ERROR(Check(nccl, nccl.CommInitRank(&comm, world->size(), id, world->rank()), label, "ncclCommInitRank"));
  (*comms)[handle] = comm;
  *out = comm;
  return Status::Ok();
}

// The communicator's handle, CreateCommonWorld's host scalar, which the
// planner copies to the op's device like any input: read back through a
// host tensor in `ws`.
Status Handle(KernelContext& ctx, const std::string& label, LoomWorkspace* ws, int64_t* handle) {
  Tensor h = ctx.Input(0);
  if (!h.present() || h.dtype() != LOOM_DTYPE_INT64 || h.num_elements() != 1) {
    return sdk::InvalidArgument(label + ": input 0 must be a communicator (CreateCommonWorld's int64 output)");
  }
  if (std::string(sdk::Api().TensorDevice(h.handle())) == "CPU") {
    *handle = *h.data<int64_t>();
    return Status::Ok();
  }
  LoomTensor* host = sdk::Api().Workspace_CreateBlob(ws, "__nccl_comm_handle");
  LOOM_SDK_RETURN_IF_ERROR(sdk::ResizeTensor(ctx.handle(), host, LOOM_DTYPE_INT64, nullptr, 0, "the communicator handle"));
  LOOM_SDK_RETURN_IF_ERROR(Status(sdk::Api().Tensor_Copy(host, h.handle())));
  *handle = *static_cast<const int64_t*>(sdk::Api().TensorData(host));
  return Status::Ok();
}

Status NcclType(LoomDataType dt, const std::string& label, ncclDataType_t* out) {
  switch (dt) {
    case LOOM_DTYPE_FLOAT: *out = ncclFloat32; return Status::Ok();
    case LOOM_DTYPE_DOUBLE: *out = ncclFloat64; return Status::Ok();
    case LOOM_DTYPE_FLOAT16: *out = ncclFloat16; return Status::Ok();
    case LOOM_DTYPE_BFLOAT16: *out = ncclBfloat16; return Status::Ok();
    default: return sdk::InvalidArgument(label + ": NCCL reduces float16, bfloat16, float32 or float64; found " + sdk::DTypeName(dt));
  }
}

template <bool kAllreduce>
class NcclKernel {
 public:
  ~NcclKernel() {
    if (ws_ != nullptr) sdk::Api().Workspace_Release(ws_);
  }
  Status Init(const KernelInfo& info) {
    label_ = std::string(kAllreduce ? "Allreduce" : "Broadcast") + " '" + info.op_name() + "' (CUDA, NCCL)";
    mean_ = info.StringOr("reduce", "sum") == "mean";
    root_ = static_cast<int>(info.IntOr("root", 0));
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    if (handle_ == 0) {
      if (ws_ == nullptr) ws_ = sdk::Api().Workspace_CreateChild(sdk::Api().Ctx_Workspace(ctx.handle()));
      LOOM_SDK_RETURN_IF_ERROR(Handle(ctx, label_, ws_, &handle_));
    }
    ncclComm_t comm = nullptr;
    LOOM_SDK_RETURN_IF_ERROR(NcclComm(handle_, label_, &comm));
    const Nccl& nccl = LoadNccl();
    cudaStream_t stream = static_cast<cudaStream_t>(ctx.stream());
    if (ctx.num_outputs() + 1 != ctx.num_inputs()) return sdk::InvalidArgument(label_ + ": inputs and outputs must match");
    for (size_t i = 0; i + 1 < ctx.num_inputs(); ++i) {
      Tensor x = ctx.Input(i + 1);
      Tensor y;
      LOOM_SDK_RETURN_IF_ERROR(ctx.Output(i, x.dtype(), x.shape(), &y));
      const size_t count = static_cast<size_t>(x.num_elements());
      if (kAllreduce) {
        ncclDataType_t type;
        LOOM_SDK_RETURN_IF_ERROR(NcclType(x.dtype(), label_, &type));
        LOOM_SDK_RETURN_IF_ERROR(Check(nccl, nccl.AllReduce(x.raw_data(), y.raw_data(), count, type, mean_ ? ncclAvg : ncclSum,
                                                            comm, stream), label_, "ncclAllReduce"));
      } else {
        LOOM_SDK_RETURN_IF_ERROR(Check(nccl, nccl.Broadcast(x.raw_data(), y.raw_data(), count * sdk::DTypeSize(x.dtype()),
                                                            ncclUint8, root_, comm, stream), label_, "ncclBroadcast"));
      }
    }
    return Status::Ok();
  }

 private:
  std::string label_;
  bool mean_ = false;
  int root_ = 0;
  int64_t handle_ = 0;  // read on the first run
  LoomWorkspace* ws_ = nullptr;
};

}  // namespace

Status RegisterNcclKernels(sdk::Registrar& reg) {
  // The communicator input stays on the host (CreateCommonWorld's output).
  const sdk::KernelOptions opts{"CUDA", "NCCL", 0, {}};
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<NcclKernel<true>>("Allreduce", opts));
  return reg.Kernel<NcclKernel<false>>("Broadcast", opts);
}

}  // namespace collectives
}  // namespace loom
