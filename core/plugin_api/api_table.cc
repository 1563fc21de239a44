// The LoomApi table the core gives every plugin: status objects,
// registration (into the loading plugin's transaction), tensors and
// logging here; the rest from the other files of core/plugin_api/.
#include "core/plugin_api/api_table.h"

#include <algorithm>
#include <cstdio>
#include <thread>

#include "absl/strings/str_cat.h"
#include "core/status_bridge.h"

namespace loom {
namespace {

LoomStatus* Err(LoomStatusCode code, const std::string& m) { return new LoomStatus{code, m}; }

LoomStatus* CreateStatus(LoomStatusCode code, const char* message) {
  return Err(code == LOOM_OK ? LOOM_UNKNOWN : code, message ? message : "");
}
LoomStatusCode StatusCode(const LoomStatus* s) { return s ? s->code : LOOM_OK; }
const char* StatusMessage(const LoomStatus* s) { return s ? s->message.c_str() : ""; }
void ReleaseStatus(LoomStatus* s) { delete s; }

LoomStatus* DeclarePlugin(LoomRegistrar* r, const LoomPluginInfo* info) {
  if (!r || !info) return Err(LOOM_INVALID_ARGUMENT, "DeclarePlugin: null argument");
  return ToLoomStatus(r->txn->Declare(*info));
}
LoomStatus* RegisterSchema(LoomRegistrar* r, const LoomSchemaDef* d) {
  if (!r || !d) return Err(LOOM_INVALID_ARGUMENT, "RegisterSchema: null argument");
  return ToLoomStatus(r->txn->AddSchema(*d));
}
LoomStatus* RegisterKernel(LoomRegistrar* r, const LoomKernelDef* d) {
  if (!r || !d) return Err(LOOM_INVALID_ARGUMENT, "RegisterKernel: null argument");
  return ToLoomStatus(r->txn->AddKernel(*d));
}
LoomStatus* RegisterGradient(LoomRegistrar* r, const char* op_type, LoomGradientFn fn) {
  if (!r || !op_type || !fn) return Err(LOOM_INVALID_ARGUMENT, "RegisterGradient: null argument");
  return ToLoomStatus(r->txn->AddGradient(op_type, fn));
}
LoomStatus* RegisterDevice(LoomRegistrar* r, const LoomDeviceDef* d) {
  if (!r || !d) return Err(LOOM_INVALID_ARGUMENT, "RegisterDevice: null argument");
  return ToLoomStatus(r->txn->AddDevice(*d));
}

LoomDataType TensorDType(const LoomTensor* t) { return static_cast<LoomDataType>(FromHandle(t)->dtype()); }
size_t TensorRank(const LoomTensor* t) { return FromHandle(t)->rank(); }
const int64_t* TensorDims(const LoomTensor* t) { return FromHandle(t)->dims().data(); }
int64_t TensorNumElements(const LoomTensor* t) { return FromHandle(t)->num_elements(); }
void* TensorData(const LoomTensor* t) { return FromHandle(t)->raw_data(); }
const char* TensorDevice(const LoomTensor* t) { return FromHandle(t)->device()->type().c_str(); }

void Log(int level, const char* message) {
  static const char* kLevels[] = {"I", "W", "E"};
  std::fprintf(stderr, "[loom %s] %s\n", kLevels[level < 0 ? 0 : level > 2 ? 2 : level], message ? message : "");
}

const void* GetSubApi(uint32_t kind, uint32_t version) {
  switch (kind) {
    case LOOM_SUBAPI_KERNEL_CONTEXT: {
      const LoomKernelContextApi* t = GetKernelContextApi();
      return version <= t->version ? t : nullptr;
    }
    case LOOM_SUBAPI_VALUES: {
      const LoomValueApi* t = GetValueApi();
      return version <= t->version ? t : nullptr;
    }
    default: return nullptr;
  }
}

LoomApi MakeApi() {
  LoomApi a{};
  a.struct_size = sizeof(LoomApi);
  a.abi_version = LOOM_ABI_VERSION;
  a.min_abi_version = LOOM_ABI_MIN_VERSION;
  a.CreateStatus = CreateStatus;
  a.StatusCode = StatusCode;
  a.StatusMessage = StatusMessage;
  a.ReleaseStatus = ReleaseStatus;
  a.DeclarePlugin = DeclarePlugin;
  a.RegisterSchema = RegisterSchema;
  a.RegisterKernel = RegisterKernel;
  a.RegisterDevice = RegisterDevice;
  a.RegisterGradient = RegisterGradient;
  a.TensorDType = TensorDType;
  a.TensorRank = TensorRank;
  a.TensorDims = TensorDims;
  a.TensorNumElements = TensorNumElements;
  a.TensorData = TensorData;
  a.TensorDevice = TensorDevice;
  a.Log = Log;
  a.GetSubApi = GetSubApi;
  FillAttributeApi(&a);
  FillKernelContextApi(&a);
  FillNestedNetApi(&a);
  FillGradientApi(&a);
  return a;
}

}  // namespace

const LoomApi* GetLoomApi() {
  static const LoomApi api = MakeApi();
  return &api;
}

}  // namespace loom
