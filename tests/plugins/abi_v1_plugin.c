/* A plugin written in C against the frozen ABI version 1 header
 * (tests/abi_v1/loom_c_api.h, a copy of the header as released). The core
 * must keep loading and running it as the header grows: it registers a
 * schema with formal parameters, type constraints and attributes with
 * defaults (the array layouts that version 2 changed) and a kernel without
 * prepare. Op "V1Scale" (domain "test.v1"): Y = X * scale + offset_by_tag,
 * where offset_by_tag is 0 unless attribute "tags" (default {"plain"}) has
 * first string "shift", then 1. */
#include <stdlib.h>
#include <string.h>

#include "tests/abi_v1/loom_c_api.h"

static const LoomApi* g_api;

typedef struct {
  float scale;
  float offset;
} V1Scale;

static void* Create(const LoomKernelInfo* info, LoomStatus** status) {
  V1Scale* k = (V1Scale*)calloc(1, sizeof(V1Scale));
  LoomStatus* s = g_api->Info_GetFloat(info, "scale", &k->scale);
  if (s == NULL) {
    const char* tag = NULL;
    size_t len = 0;
    s = g_api->Info_GetStringAt(info, "tags", 0, &tag, &len);
    if (s == NULL && len == 5 && memcmp(tag, "shift", 5) == 0) k->offset = 1.0f;
  }
  if (s != NULL) {
    free(k);
    *status = s;
    return NULL;
  }
  return k;
}

static void Destroy(void* k) { free(k); }

static LoomStatus* Compute(void* kernel, LoomKernelContext* ctx) {
  const V1Scale* k = (const V1Scale*)kernel;
  const LoomTensor* x = g_api->Ctx_Input(ctx, 0);
  LoomTensor* y = NULL;
  LoomStatus* s = g_api->Ctx_Output(ctx, 0, LOOM_DTYPE_FLOAT, g_api->TensorDims(x), g_api->TensorRank(x), &y);
  if (s != NULL) return s;
  const float* in = (const float*)g_api->TensorData(x);
  float* out = (float*)g_api->TensorData(y);
  int64_t n = g_api->TensorNumElements(x);
  for (int64_t i = 0; i < n; ++i) out[i] = in[i] * k->scale + k->offset;
  return NULL;
}

LOOM_EXPORT LoomStatus* LoomPluginInit(const LoomApi* api, LoomRegistrar* reg) {
  static const LoomDataType kFloat[] = {LOOM_DTYPE_FLOAT};
  static const char* const kTags[] = {"plain"};
  LoomFormalParam inputs[1] = {{"X", "T", LOOM_PARAM_SINGLE, "input"}};
  LoomFormalParam outputs[1] = {{"Y", "T", LOOM_PARAM_SINGLE, "X * scale (+ 1 when tags[0] is \"shift\")"}};
  LoomTypeConstraint tcs[1] = {{"T", kFloat, 1, "float32 only"}};
  LoomAttrSpec attrs[2];
  LoomPluginInfo info;
  LoomSchemaDef schema;
  LoomKernelDef kernel;
  LoomStatus* s;

  g_api = api;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof(LoomPluginInfo);
  info.abi_version = LOOM_ABI_VERSION; /* 1: this header's */
  info.name = "abi_v1";
  info.version = "1.0.0";
  s = api->DeclarePlugin(reg, &info);
  if (s != NULL) return s;

  memset(attrs, 0, sizeof attrs);
  attrs[0].name = "scale";
  attrs[0].type = LOOM_ATTR_FLOAT;
  attrs[0].has_default = 1;
  attrs[0].default_float = 3.0f;
  attrs[0].doc = "factor";
  attrs[1].name = "tags";
  attrs[1].type = LOOM_ATTR_STRINGS;
  attrs[1].has_default = 1;
  attrs[1].default_strings = kTags;
  attrs[1].num_default_strings = 1;
  attrs[1].doc = "\"shift\" first adds 1";

  memset(&schema, 0, sizeof schema);
  schema.struct_size = sizeof(LoomSchemaDef);
  schema.op_type = "V1Scale";
  schema.domain = "test.v1";
  schema.since_version = 1;
  schema.doc = "a version-1 plugin's op";
  schema.inputs = inputs;
  schema.num_inputs = 1;
  schema.outputs = outputs;
  schema.num_outputs = 1;
  schema.attrs = attrs;
  schema.num_attrs = 2;
  schema.type_constraints = tcs;
  schema.num_type_constraints = 1;
  s = api->RegisterSchema(reg, &schema);
  if (s != NULL) return s;

  memset(&kernel, 0, sizeof kernel);
  kernel.struct_size = sizeof(LoomKernelDef);
  kernel.op_type = "V1Scale";
  kernel.device = "CPU";
  kernel.engine = "";
  kernel.type_constraints = tcs;
  kernel.num_type_constraints = 1;
  kernel.create = Create;
  kernel.destroy = Destroy;
  kernel.compute = Compute;
  return api->RegisterKernel(reg, &kernel);
}
