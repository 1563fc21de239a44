/* Loom's C API for programs that embed it: load a model and run it, from C
 * or any language with a C FFI (ONNX Runtime's OrtApi is the model). It is
 * loom::Session (session/session.h) behind a function table.
 *
 *   const LoomSessionApi* api = LoomGetSessionApi(LOOM_SESSION_API_VERSION);
 *   LoomSession* session;
 *   LoomStatus* st = api->CreateSessionFromOnnxFile("model.onnx", NULL, &session);
 *   if (st) { puts(api->StatusMessage(st)); api->ReleaseStatus(st); }
 *   int64_t dims[] = {1, 3, 32, 32};
 *   LoomValue* x;  api->CreateValueOver(LOOM_DTYPE_FLOAT, dims, 4, pixels, sizeof pixels, &x);
 *   const char* in[] = {"image"}, *out[] = {"prob"};
 *   LoomValue* y = NULL;  api->Run(session, in, (const LoomValue* const*)&x, 1, out, 1, &y);
 *   float* prob = api->ValueData(y);  ...  api->ReleaseValue(y); api->ReleaseValue(x);
 *   api->ReleaseSession(session);
 *
 * Versioning (as the plugin ABI, core/api/README.md): LoomSessionApi and
 * every struct passed in start with struct_size; members are only appended,
 * each marked with the version that added it. LoomGetSessionApi(v) returns
 * the table for any v from 1 to LOOM_SESSION_API_VERSION, NULL otherwise.
 *
 * Errors: functions that can fail return LoomStatus* (NULL: success), which
 * the caller releases with ReleaseStatus. Codes are absl::StatusCode's
 * (LoomStatusCode); messages name the op, input or option, the expected and
 * the found. No C++ exception crosses this boundary.
 *
 * Tensors (LoomValue) are dense, row-major, on the host, with ONNX
 * TensorProto.DataType codes (LOOM_DTYPE_*). Thread safety: Run may be called
 * from any number of threads on one session at once (the weights are held
 * once; session/session.h says how); a LoomValue is not to be used from
 * two threads at once while one of them writes it.
 */
#ifndef LOOM_SESSION_LOOM_SESSION_C_API_H_
#define LOOM_SESSION_LOOM_SESSION_C_API_H_

#include <stddef.h>
#include <stdint.h>

#include "core/api/loom_c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LOOM_SESSION_API_VERSION 2u

typedef struct LoomSession LoomSession; /* a loaded model */
typedef struct LoomValue LoomValue;     /* a host tensor */

/* SessionOptions::optimization_level. */
typedef enum LoomOptimizationLevel {
  LOOM_OPTIMIZE_DEFAULT = 0, /* = LOOM_OPTIMIZE_ALL */
  LOOM_OPTIMIZE_NONE = 1,    /* the ONNX graph's ops as written */
  LOOM_OPTIMIZE_ALL = 2,     /* BatchNormalization folded into Conv, Conv + activation fused, ... */
} LoomOptimizationLevel;

/* SessionOptions::plan_memory. */
typedef enum LoomMemoryMode {
  LOOM_MEMORY_DEFAULT = 0,    /* = LOOM_MEMORY_PLANNED */
  LOOM_MEMORY_PLANNED = 1,    /* intermediates share an arena by liveness (core/memory_plan.h) */
  LOOM_MEMORY_PER_TENSOR = 2, /* every output allocated as it is made */
} LoomMemoryMode;

/* Options for CreateSession*. A zero-filled struct (with struct_size set),
 * or a NULL pointer, gives every default. */
typedef struct LoomSessionOptions {
  size_t struct_size;          /* LOOM_SESSION_OPTIONS_STRUCT_SIZE */
  int32_t num_threads;         /* threads per kernel; 0: all cores */
  const char* device;          /* NULL or "": as the model says (CPU); "CPU", "CUDA", "CUDA:<id>" */
  const char* const* plugins;  /* plugin paths loaded after the default plugins */
  size_t num_plugins;
  /* int32_t rather than the enum types, so that any value a caller puts
   * there is defined to read (and an unknown one is an error). */
  int32_t optimization_level;  /* a LoomOptimizationLevel */
  int32_t memory_mode;         /* a LoomMemoryMode */
  int64_t max_tensor_bytes;    /* bytes one tensor may take; 0: the default (16 GiB); < 0: no limit */
  /* Read where struct_size covers it: a LoomFpMathMode (SessionOptions::
   * fpmath_mode); 0, LOOM_FPMATH_MODE_STRICT, is the default. */
  int32_t fpmath_mode;
  /* Read where struct_size covers it: SessionOptions::external_data_dir,
   * the folder CreateSessionFromOnnxBytes and CreateSessionFromNetDef read
   * a model's external data from (NULL or "": such a model is refused). */
  const char* external_data_dir;
} LoomSessionOptions;

/* A model input or output. Pointers stay valid while the session lives. */
typedef struct LoomTensorInfo {
  size_t struct_size;      /* set by the caller: LOOM_TENSOR_INFO_STRUCT_SIZE */
  const char* name;
  LoomDataType dtype;      /* LOOM_DTYPE_UNDEFINED: the model does not declare it (a NetDef) */
  int32_t shape_known;     /* 1: the model declares a shape; dims and dim_names are meaningful */
  size_t rank;
  const int64_t* dims;     /* rank entries; -1 for a dimension the model leaves open */
  const char* const* dim_names; /* rank entries: the open dimension's symbolic name ("batch") or "" */
} LoomTensorInfo;

typedef struct LoomSessionApi {
  size_t struct_size; /* sizeof(LoomSessionApi) in the library */
  uint32_t version;   /* LOOM_SESSION_API_VERSION of the library */

  /* Status objects (the same LoomStatus as the plugin ABI's). */
  LoomStatusCode (*StatusCode)(const LoomStatus* status);
  const char* (*StatusMessage)(const LoomStatus* status);
  void (*ReleaseStatus)(LoomStatus* status);

  /* Sessions. Loads the standard ops, the default plugins and
   * options->plugins, imports the model and plans it once (a model that
   * cannot run fails here). Errors: NOT_FOUND (no such file; a device or
   * kernel missing, named), INVALID_ARGUMENT (a model that does not parse or
   * import, naming the node; a bad option, naming it). `*out` is set only on
   * success. A NetDef is Loom's binary NetDef (core/proto/loom.proto). */
  LoomStatus* (*CreateSessionFromOnnxFile)(const char* path, const LoomSessionOptions* options, LoomSession** out);
  LoomStatus* (*CreateSessionFromOnnxBytes)(const void* model, size_t bytes, const LoomSessionOptions* options,
                                            LoomSession** out);
  LoomStatus* (*CreateSessionFromNetDef)(const void* netdef, size_t bytes, const LoomSessionOptions* options,
                                         LoomSession** out);
  void (*ReleaseSession)(LoomSession* session);

  size_t (*SessionInputCount)(const LoomSession* session);
  size_t (*SessionOutputCount)(const LoomSession* session);
  /* OUT_OF_RANGE for an index past the count. */
  LoomStatus* (*SessionInputInfo)(const LoomSession* session, size_t index, LoomTensorInfo* info);
  LoomStatus* (*SessionOutputInfo)(const LoomSession* session, size_t index, LoomTensorInfo* info);

  /* Values. CreateValue allocates (64-byte aligned, uninitialized);
   * CreateValueOver uses the caller's `bytes` at `data` without copying:
   * they must be the value's exact byte size and stay valid until the value
   * is released (and no Run using it is in flight). INVALID_ARGUMENT for a
   * negative dim, an unknown dtype or a byte size that does not match,
   * naming both. */
  LoomStatus* (*CreateValue)(LoomDataType dtype, const int64_t* dims, size_t rank, LoomValue** out);
  LoomStatus* (*CreateValueOver)(LoomDataType dtype, const int64_t* dims, size_t rank, void* data, size_t bytes,
                                 LoomValue** out);
  void (*ReleaseValue)(LoomValue* value);
  LoomDataType (*ValueDType)(const LoomValue* value);
  size_t (*ValueRank)(const LoomValue* value);
  const int64_t* (*ValueDims)(const LoomValue* value);
  int64_t (*ValueNumElements)(const LoomValue* value);
  void* (*ValueData)(const LoomValue* value); /* NULL when it has no elements */

  /* Runs the model on `inputs` (every model input, by name) and fetches
   * `output_names` (num_outputs == 0: every output, in SessionOutputInfo
   * order; `outputs` then has SessionOutputCount entries). For each
   * outputs[i] that is NULL a new value is made (the caller releases it);
   * one that is not NULL is the caller's buffer: it gets the values in one
   * copy and must have the output's dtype and element count (it keeps its
   * own dims). Errors: an unknown or missing input or output (naming it and
   * those expected), a buffer that does not fit (naming the output, the
   * expected and found), and the run's own (naming the op). On an error no
   * new value is left in `outputs`. */
  LoomStatus* (*Run)(const LoomSession* session, const char* const* input_names, const LoomValue* const* inputs,
                     size_t num_inputs, const char* const* output_names, size_t num_outputs, LoomValue** outputs);

  /* Version 2: string tensors and ONNX's sequence and optional values, as
   * ONNX Runtime's C API has them (FillStringTensor /
   * GetStringTensorElement, sequence and optional OrtValues). A sequence's
   * ValueDType is LOOM_DTYPE_SEQUENCE | its element dtype, an optional's
   * LOOM_DTYPE_OPTIONAL | its inner type (core/api/loom_c_api.h); such a
   * value has rank 1, dims [0] and no data (ValueData NULL), and a string
   * tensor has no data either: read them with the functions below. Run
   * takes them as inputs and returns them as new values (an output buffer
   * the caller passes for one is INVALID_ARGUMENT). SessionInputInfo's dtype
   * says which an input takes. */

  /* A string tensor of `dims` holding a copy of its num_elements strings
   * (row-major): strings[i] of lengths[i] bytes (`lengths` NULL: each is
   * NUL-terminated). INVALID_ARGUMENT for a negative dim or a NULL string. */
  LoomStatus* (*CreateStringValue)(const int64_t* dims, size_t rank, const char* const* strings,
                                   const size_t* lengths, LoomValue** out);
  /* Element `index` (flat) of a string tensor: `*data` (not NUL-terminated)
   * and `*length` bytes, valid while the value lives. INVALID_ARGUMENT for a
   * value that is not a string tensor, OUT_OF_RANGE for an index past its
   * elements. */
  LoomStatus* (*ValueString)(const LoomValue* value, int64_t index, const char** data, size_t* length);
  /* A sequence of `count` tensors of dtype `element` (copies of `items`;
   * count 0: an empty sequence). INVALID_ARGUMENT naming the item whose
   * dtype differs, or one that is itself a sequence or optional. */
  LoomStatus* (*CreateSequenceValue)(LoomDataType element, const LoomValue* const* items, size_t count,
                                     LoomValue** out);
  /* An optional of type `inner` (a tensor dtype or a sequence type) holding
   * a copy of `item`, or none when `item` is NULL. INVALID_ARGUMENT when
   * item's type is not `inner`. */
  LoomStatus* (*CreateOptionalValue)(LoomDataType inner, const LoomValue* item, LoomValue** out);
  /* The values a sequence holds; 0 or 1 for an optional (0: none); 0 for a
   * tensor. */
  size_t (*ValueCount)(const LoomValue* value);
  /* A new value for item `index` of a sequence or optional (shared, read
   * only: ValueData of it must not be written); the caller releases it.
   * OUT_OF_RANGE past ValueCount. */
  LoomStatus* (*ValueItem)(const LoomValue* value, size_t index, LoomValue** out);
} LoomSessionApi;

#define LOOM_SESSION_OPTIONS_STRUCT_SIZE sizeof(LoomSessionOptions)
#define LOOM_TENSOR_INFO_STRUCT_SIZE sizeof(LoomTensorInfo)

/* The table for API `version` (1 to LOOM_SESSION_API_VERSION); NULL for
 * another. */
LOOM_EXPORT const LoomSessionApi* LoomGetSessionApi(uint32_t version);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* LOOM_SESSION_LOOM_SESSION_C_API_H_ */
