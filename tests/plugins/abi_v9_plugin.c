/* A plugin written in C against the frozen ABI version 9 header
 * (tests/abi_v9/loom_c_api.h, a copy of the header as released before
 * operator domains). The core must keep loading and running it as the ABI
 * grows: its LoomKernelDef has no domain member (added in 10), so its kernel
 * must bind to its own schema; it uses the members versions 2 to 9 added
 * (a prepare step, a schema's gradient maker, a separately registered
 * gradient, Prepare_ReleaseConstant's availability check).
 *
 * Op "V9Scale" (domain "test.v9"): Y = X * scale, float32, attribute
 * "scale" (default 2). Its prepare refuses an input whose rank is known and
 * above 4 and records that it ran; compute fails if it did not. Gradient
 * (the schema's maker): dX = V9Scale(dY) with the same scale.
 * Op "V9Offset" (domain "test.v9"): Y = X + 1; its gradient maker is
 * registered with RegisterGradient (since 6): dX = dY through V9Scale with
 * scale 1. */
#include <stdlib.h>
#include <string.h>

#include "tests/abi_v9/loom_c_api.h"

static const LoomApi* g_api;

typedef struct {
  float scale;
  int prepared;
} V9Scale;

static void* Create(const LoomKernelInfo* info, LoomStatus** status) {
  V9Scale* k = (V9Scale*)calloc(1, sizeof(V9Scale));
  k->scale = 1.0f;
  if (strcmp(g_api->Info_OpType(info), "V9Scale") == 0) {
    LoomStatus* s = g_api->Info_GetFloat(info, "scale", &k->scale);
    if (s != NULL) {
      free(k);
      *status = s;
      return NULL;
    }
  }
  return k;
}

static void Destroy(void* k) { free(k); }

static LoomStatus* Prepare(void* kernel, const LoomPrepareContext* ctx) {
  V9Scale* k = (V9Scale*)kernel;
  const int64_t* dims = NULL;
  size_t rank = 0;
  if (g_api->Prepare_InputShape(ctx, 0, &dims, &rank) && rank > 4) {
    return g_api->CreateStatus(LOOM_INVALID_ARGUMENT, "V9Scale: input X has rank above 4");
  }
  k->prepared = 1;
  return NULL;
}

static LoomStatus* Compute(void* kernel, LoomKernelContext* ctx) {
  const V9Scale* k = (const V9Scale*)kernel;
  const LoomTensor* x = g_api->Ctx_Input(ctx, 0);
  LoomTensor* y = NULL;
  LoomStatus* s;
  const float* in;
  float* out;
  int64_t i, n;
  if (!k->prepared) return g_api->CreateStatus(LOOM_FAILED_PRECONDITION, "V9Scale: compute before prepare");
  s = g_api->Ctx_Output(ctx, 0, LOOM_DTYPE_FLOAT, g_api->TensorDims(x), g_api->TensorRank(x), &y);
  if (s != NULL) return s;
  in = (const float*)g_api->TensorData(x);
  out = (float*)g_api->TensorData(y);
  n = g_api->TensorNumElements(x);
  for (i = 0; i < n; ++i) out[i] = in[i] * k->scale;
  return NULL;
}

static LoomStatus* OffsetCompute(void* kernel, LoomKernelContext* ctx) {
  const LoomTensor* x = g_api->Ctx_Input(ctx, 0);
  LoomTensor* y = NULL;
  const float* in;
  float* out;
  int64_t i, n;
  LoomStatus* s = g_api->Ctx_Output(ctx, 0, LOOM_DTYPE_FLOAT, g_api->TensorDims(x), g_api->TensorRank(x), &y);
  (void)kernel;
  if (s != NULL) return s;
  in = (const float*)g_api->TensorData(x);
  out = (float*)g_api->TensorData(y);
  n = g_api->TensorNumElements(x);
  for (i = 0; i < n; ++i) out[i] = in[i] + 1.0f;
  return NULL;
}

/* dX = V9Scale(dY), the forward's arguments copied (its scale). */
static LoomStatus* ScaleGradient(LoomGradientContext* ctx) {
  const char* in[1];
  const char* out[1];
  in[0] = g_api->Grad_OutputGradient(ctx, 0);
  out[0] = g_api->Grad_InputGradient(ctx, 0);
  if (in[0] == NULL || out[0] == NULL) return NULL;
  return g_api->Grad_AddOp(ctx, "V9Scale", in, 1, out, 1, /*copy_arguments=*/1);
}

/* dX = dY, through V9Scale with scale 1 (no arguments copied). */
static LoomStatus* OffsetGradient(LoomGradientContext* ctx) {
  const char* in[1];
  const char* out[1];
  LoomStatus* s;
  in[0] = g_api->Grad_OutputGradient(ctx, 0);
  out[0] = g_api->Grad_InputGradient(ctx, 0);
  if (in[0] == NULL || out[0] == NULL) return NULL;
  s = g_api->Grad_AddOp(ctx, "V9Scale", in, 1, out, 1, /*copy_arguments=*/0);
  if (s != NULL) return s;
  g_api->Grad_ArgFloat(ctx, "scale", 1.0f);
  return NULL;
}

static LoomStatus* RegisterOp(LoomRegistrar* reg, const char* op_type, LoomGradientFn gradient,
                              const LoomAttrSpec* attrs, size_t num_attrs, LoomKernelComputeFn compute,
                              LoomKernelPrepareFn prepare) {
  static const LoomDataType kFloat[] = {LOOM_DTYPE_FLOAT};
  LoomFormalParam inputs[1];
  LoomFormalParam outputs[1];
  LoomTypeConstraint tcs[1];
  LoomSchemaDef schema;
  LoomKernelDef kernel;
  LoomStatus* s;

  memset(inputs, 0, sizeof inputs);
  inputs[0].struct_size = sizeof(LoomFormalParam);
  inputs[0].name = "X";
  inputs[0].type_str = "T";
  inputs[0].option = LOOM_PARAM_SINGLE;
  memset(outputs, 0, sizeof outputs);
  outputs[0].struct_size = sizeof(LoomFormalParam);
  outputs[0].name = "Y";
  outputs[0].type_str = "T";
  outputs[0].option = LOOM_PARAM_SINGLE;
  memset(tcs, 0, sizeof tcs);
  tcs[0].struct_size = sizeof(LoomTypeConstraint);
  tcs[0].type_str = "T";
  tcs[0].allowed = kFloat;
  tcs[0].num_allowed = 1;

  memset(&schema, 0, sizeof schema);
  schema.struct_size = sizeof(LoomSchemaDef);
  schema.op_type = op_type;
  schema.domain = "test.v9";
  schema.since_version = 1;
  schema.doc = "a version-9 plugin's op";
  schema.inputs = inputs;
  schema.num_inputs = 1;
  schema.outputs = outputs;
  schema.num_outputs = 1;
  schema.attrs = attrs;
  schema.num_attrs = num_attrs;
  schema.type_constraints = tcs;
  schema.num_type_constraints = 1;
  schema.gradient = gradient;
  s = g_api->RegisterSchema(reg, &schema);
  if (s != NULL) return s;

  memset(&kernel, 0, sizeof kernel);
  kernel.struct_size = sizeof(LoomKernelDef); /* version 9's: no domain member */
  kernel.op_type = op_type;
  kernel.device = "CPU";
  kernel.engine = "";
  kernel.create = Create;
  kernel.destroy = Destroy;
  kernel.compute = compute;
  kernel.prepare = prepare;
  return g_api->RegisterKernel(reg, &kernel);
}

LOOM_EXPORT LoomStatus* LoomPluginInit(const LoomApi* api, LoomRegistrar* reg) {
  LoomAttrSpec scale[1];
  LoomPluginInfo info;
  LoomStatus* s;

  g_api = api;
  /* A version-9 plugin checks the members it uses against the core's table. */
  if (!LOOM_HAS_MEMBER(LoomApi, api->struct_size, Prepare_ReleaseConstant)) {
    return api->CreateStatus(LOOM_FAILED_PRECONDITION, "abi_v9: the core's table lacks version 9's members");
  }
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof(LoomPluginInfo);
  info.abi_version = LOOM_ABI_VERSION; /* 9: this header's */
  info.name = "abi_v9";
  info.version = "9.0.0";
  s = api->DeclarePlugin(reg, &info);
  if (s != NULL) return s;

  memset(scale, 0, sizeof scale);
  scale[0].struct_size = sizeof(LoomAttrSpec);
  scale[0].name = "scale";
  scale[0].type = LOOM_ATTR_FLOAT;
  scale[0].has_default = 1;
  scale[0].default_float = 2.0f;
  scale[0].doc = "factor";
  s = RegisterOp(reg, "V9Scale", ScaleGradient, scale, 1, Compute, Prepare);
  if (s != NULL) return s;
  s = RegisterOp(reg, "V9Offset", NULL, NULL, 0, OffsetCompute, NULL);
  if (s != NULL) return s;
  return api->RegisterGradient(reg, "V9Offset", OffsetGradient);
}
