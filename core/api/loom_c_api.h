/* Loom plugin ABI (the version is LOOM_ABI_VERSION below; each member and
 * function is marked with the version that added it).
 *
 * The only interface between the Loom core and a plugin shared object. A
 * plugin exports one function, LoomPluginInit, which receives a function
 * table (LoomApi) from the core and registers schemas, kernels and devices
 * through it. Plugins compile against this header (and the header-only C++
 * SDK in loom_sdk.h) and link nothing from the core.
 *
 * Versioning (rules in core/api/README.md): every struct crossing the
 * boundary, array elements included, starts with struct_size, which the
 * writer sets to sizeof(the struct) as it compiled it (the
 * LOOM_<NAME>_STRUCT_SIZE macros). Members are only ever appended, each
 * marked with the version that added it; a reader uses a member only when
 * struct_size covers it and takes its default (zero/NULL) otherwise. Arrays
 * of structs are walked with a stride of their first element's struct_size.
 * LoomApi.abi_version is the newest ABI the core provides and
 * LoomApi.min_abi_version the oldest it accepts; a plugin declares the ABI it
 * was built for in LoomPluginInfo.abi_version and the core refuses one outside
 * that range, naming both. Version 1's array elements (LoomFormalParam,
 * LoomTypeConstraint, LoomAttrSpec) had no struct_size: the core reads a
 * version-1 plugin's arrays at their frozen version-1 layout.
 *
 * Errors: functions that can fail return LoomStatus*, NULL meaning success.
 * A non-NULL status is owned by whoever receives it: a plugin that gets one
 * from the core either returns it (handing it back) or releases it with
 * ReleaseStatus. C++ exceptions never cross this boundary.
 *
 * Data types use ONNX TensorProto.DataType codes. Tensors are dense,
 * row-major, and their data pointer is 64-byte aligned (unless the tensor is
 * an alias of a slice of another tensor).
 */
#ifndef LOOM_CORE_API_LOOM_C_API_H_
#define LOOM_CORE_API_LOOM_C_API_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LOOM_ABI_VERSION 11u
/* The operator domain of Loom's own operators (FusedConv, the NCHWc ops,
 * the gradient ops, RecurrentNetwork): LoomSchemaDef.domain. */
#define LOOM_OPS_DOMAIN "loom"
/* The oldest ABI version a core built from this header accepts. */
#define LOOM_ABI_MIN_VERSION 1u

#if defined(__GNUC__)
#define LOOM_EXPORT __attribute__((visibility("default")))
#else
#define LOOM_EXPORT
#endif

/* Status codes: the same numbers as absl::StatusCode. */
typedef enum LoomStatusCode {
  LOOM_OK = 0,
  LOOM_CANCELLED = 1,
  LOOM_UNKNOWN = 2,
  LOOM_INVALID_ARGUMENT = 3,
  LOOM_DEADLINE_EXCEEDED = 4, /* since 7: a collective's peers did not answer in time */
  LOOM_NOT_FOUND = 5,
  LOOM_ALREADY_EXISTS = 6,
  LOOM_RESOURCE_EXHAUSTED = 8,
  LOOM_FAILED_PRECONDITION = 9,
  LOOM_OUT_OF_RANGE = 11,
  LOOM_UNIMPLEMENTED = 12,
  LOOM_INTERNAL = 13,
  LOOM_UNAVAILABLE = 14,      /* since 7: a peer or a service went away */
} LoomStatusCode;

/* ONNX TensorProto.DataType codes. */
typedef int32_t LoomDataType;
#define LOOM_DTYPE_UNDEFINED 0
#define LOOM_DTYPE_FLOAT 1
#define LOOM_DTYPE_UINT8 2
#define LOOM_DTYPE_INT8 3
#define LOOM_DTYPE_UINT16 4
#define LOOM_DTYPE_INT16 5
#define LOOM_DTYPE_INT32 6
#define LOOM_DTYPE_INT64 7
#define LOOM_DTYPE_BOOL 9
#define LOOM_DTYPE_FLOAT16 10
#define LOOM_DTYPE_DOUBLE 11
#define LOOM_DTYPE_UINT32 12
#define LOOM_DTYPE_UINT64 13
#define LOOM_DTYPE_BFLOAT16 16
/* Since the values table: ONNX string tensors. A string tensor has a shape
 * but no bytes (TensorData is NULL); its elements are read and written with
 * LoomValueApi's String_At and String_Set. */
#define LOOM_DTYPE_STRING 8
/* Since the values table (LOOM_SUBAPI_VALUES): the types of ONNX's
 * non-tensor values, as flags over a tensor code. A sequence of tensors of
 * element type E is LOOM_DTYPE_SEQUENCE | E; an optional of type X (a
 * tensor or a sequence type) is LOOM_DTYPE_OPTIONAL | X. Such a value has
 * no bytes of its own (TensorData is NULL, TensorNumElements 0, shape [0]);
 * its tensors are read through LoomValueApi. */
#define LOOM_DTYPE_SEQUENCE 0x100
#define LOOM_DTYPE_OPTIONAL 0x200

/* Attribute types: ONNX AttributeProto.AttributeType codes (NET = GRAPH). */
typedef enum LoomAttrType {
  LOOM_ATTR_UNDEFINED = 0,
  LOOM_ATTR_FLOAT = 1,
  LOOM_ATTR_INT = 2,
  LOOM_ATTR_STRING = 3,
  LOOM_ATTR_TENSOR = 4,
  LOOM_ATTR_NET = 5,
  LOOM_ATTR_FLOATS = 6,
  LOOM_ATTR_INTS = 7,
  LOOM_ATTR_STRINGS = 8,
  LOOM_ATTR_NETS = 10,
} LoomAttrType;

/* Opaque handles. All are owned by the core. */
typedef struct LoomStatus LoomStatus;
typedef struct LoomTensor LoomTensor;
typedef struct LoomRegistrar LoomRegistrar;        /* one plugin's registration transaction */
typedef struct LoomKernelInfo LoomKernelInfo;      /* an operator's attributes and arity */
typedef struct LoomKernelContext LoomKernelContext;/* one run of one operator */
typedef struct LoomInferenceContext LoomInferenceContext;
typedef struct LoomWorkspace LoomWorkspace;        /* named blobs (Caffe2 Workspace) */
typedef struct LoomNet LoomNet;                    /* a checked, runnable NetDef */
typedef struct LoomPrepareContext LoomPrepareContext; /* since 2: one op's plan-time facts */
typedef struct LoomTimestepExecutor LoomTimestepExecutor; /* since 2: runs timesteps of a step net */
typedef struct LoomGradientContext LoomGradientContext; /* since 5: one op's gradient being made */
typedef struct LoomSharedPack LoomSharedPack;      /* since 8: a packed copy of a constant, shared */
typedef struct LoomOpResource LoomOpResource;      /* since 11: a hold on per-op state (LoomKernelContextApi) */

/* ---- Plugin identity ---------------------------------------------------- */
typedef struct LoomPluginInfo {
  size_t struct_size;     /* sizeof(LoomPluginInfo) */
  uint32_t abi_version;   /* the ABI the plugin was built for: LOOM_ABI_VERSION */
  const char* name;       /* unique, e.g. "cpu" */
  const char* version;    /* the plugin's own version, e.g. "0.1.0" */
} LoomPluginInfo;

/* ---- Schemas ------------------------------------------------------------ */
typedef enum LoomParamOption {
  LOOM_PARAM_SINGLE = 0,   /* exactly one */
  LOOM_PARAM_OPTIONAL = 1, /* zero or one; an empty name means absent */
  LOOM_PARAM_VARIADIC = 2, /* one or more (last parameter only) */
} LoomParamOption;

typedef struct LoomFormalParam {
  size_t struct_size;      /* since 2: sizeof(LoomFormalParam) */
  const char* name;
  const char* type_str;    /* a type constraint name ("T"), a fixed dtype ("tensor(int64)"), or "any":
                              any dtype, unchecked (heterogeneous variadics; inference sets outputs) */
  LoomParamOption option;
  const char* doc;
} LoomFormalParam;

typedef struct LoomTypeConstraint {
  size_t struct_size;             /* since 2: sizeof(LoomTypeConstraint) */
  const char* type_str;           /* "T" */
  const LoomDataType* allowed;    /* the dtypes it may bind to */
  size_t num_allowed;
  const char* doc;
} LoomTypeConstraint;

typedef struct LoomAttrSpec {
  size_t struct_size;  /* since 2: sizeof(LoomAttrSpec) */
  const char* name;
  LoomAttrType type;
  int required;        /* nonzero: the operator must give it */
  int has_default;     /* nonzero: the default_* field of the type applies */
  int64_t default_int;
  float default_float;
  const char* default_string;
  const int64_t* default_ints;
  size_t num_default_ints;
  const float* default_floats;
  size_t num_default_floats;
  const char* doc;
  const char* const* default_strings;  /* LOOM_ATTR_STRINGS defaults */
  size_t num_default_strings;
} LoomAttrSpec;

/* Infers output dtypes (required) and shapes (where known) from the input
 * dtypes, shapes and constant values. NULL in a schema means: each output
 * takes the dtype of the first input with the same type_str, shape unknown. */
typedef LoomStatus* (*LoomInferFn)(LoomInferenceContext* ctx);

/* Since 5. A gradient maker (Caffe2's GradientMakerBase): appends, with
 * Grad_AddOp, the ops that compute the gradients of the op's inputs (GI)
 * from its inputs (I), outputs (O) and output gradients (GO); see the
 * Grad_* functions of LoomApi. An input it cannot differentiate (an index,
 * a shape) it marks with Grad_NoGradient. UNIMPLEMENTED for a
 * configuration it does not handle; a schema without a maker means the
 * gradient is not implemented. */
typedef LoomStatus* (*LoomGradientFn)(LoomGradientContext* ctx);

/* Since 5: an in-place pair of both indices LOOM_INPLACE_SAME_SHAPE says
 * that any output may be written to the blob of any of the op's inputs: the
 * kernel sizes that output like that input and reads each element before it
 * writes it (optimizers updating parameters and states in place, Caffe2's
 * EnforceInplace). The memory planner does not use it. */
#define LOOM_INPLACE_SAME_SHAPE (-1)

typedef struct LoomSchemaDef {
  size_t struct_size;      /* sizeof(LoomSchemaDef) */
  const char* op_type;     /* ONNX name where ONNX has the op */
  const char* domain;      /* "" for the ONNX default domain */
  int since_version;       /* opset version the semantics follow */
  const char* doc;
  const LoomFormalParam* inputs;
  size_t num_inputs;
  const LoomFormalParam* outputs;
  size_t num_outputs;
  const LoomAttrSpec* attrs;
  size_t num_attrs;
  const LoomTypeConstraint* type_constraints;
  size_t num_type_constraints;
  const int32_t* inplace_pairs;   /* (input index, output index) pairs that may share memory;
                                   * since 5, the pair (LOOM_INPLACE_SAME_SHAPE, LOOM_INPLACE_SAME_SHAPE)
                                   * lets any output be the blob of any input (see below) */
  size_t num_inplace_pairs;
  LoomInferFn infer;
  int allow_unknown_attrs;        /* nonzero: attributes not in attrs are accepted (ignored) */
  LoomGradientFn gradient;        /* since 5; NULL: no gradient implemented */
  int32_t fold;                   /* since 11: a LoomFoldKind, when the planner may run the op at plan time */
} LoomSchemaDef;

/* Since 11: when the planner may compute an op once, at plan time, on the
 * host, and treat its outputs as constants of the plan (constant folding,
 * as ONNX Runtime's and TensorFlow's graph optimizers do; the outputs then
 * feed other folds and kernels' prepare steps). Only for ops that are
 * deterministic and cheap (shape arithmetic), whose kernel on the host
 * computes them. */
typedef enum LoomFoldKind {
  LOOM_FOLD_NEVER = 0,
  /* When every input is a constant (an initializer or a folded output). */
  LOOM_FOLD_CONSTANT_INPUTS = 1,
  /* When every input's shape is known at plan time: the kernel reads only
   * its inputs' dtypes and dims, never their data (ONNX Shape, Size); it
   * runs on inputs that have a dtype and dims and no memory (TensorData
   * is NULL). The outputs hold for that input signature only. */
  LOOM_FOLD_INPUT_SHAPES = 2
} LoomFoldKind;

/* ---- Kernels ------------------------------------------------------------ */
/* Creates the kernel's state from the operator's attributes (defaults are
 * already applied). Returns NULL and sets *status on error. */
typedef void* (*LoomKernelCreateFn)(const LoomKernelInfo* info, LoomStatus** status);
typedef void (*LoomKernelDestroyFn)(void* kernel);
/* Runs the kernel: reads inputs, sizes outputs with KernelContext_Output and
 * writes them. */
typedef LoomStatus* (*LoomKernelComputeFn)(void* kernel, LoomKernelContext* ctx);
/* Since 2. Called once per plan, after shape inference and before the first
 * compute, with the op's input dtypes, the shapes known at plan time and the
 * inputs that are constant (initializers, whose value never changes under a
 * plan). The kernel may check them (errors surface at plan time, naming the
 * op), build its primitives and prepack constant inputs; compute may then
 * rely on what prepare saw. A kernel state is prepared at most once. */
typedef LoomStatus* (*LoomKernelPrepareFn)(void* kernel, const LoomPrepareContext* ctx);

typedef struct LoomKernelDef {
  size_t struct_size;      /* sizeof(LoomKernelDef) */
  const char* op_type;
  const char* device;      /* "CPU", "CUDA" */
  const char* engine;      /* "" for the default engine, or e.g. "DNNL" */
  int32_t priority;        /* higher wins among kernels that fit */
  /* Per type constraint of the schema, the dtypes this kernel handles. A
   * constraint not listed here accepts whatever the schema allows. */
  const LoomTypeConstraint* type_constraints;
  size_t num_type_constraints;
  LoomKernelCreateFn create;
  LoomKernelDestroyFn destroy;
  LoomKernelComputeFn compute;
  LoomKernelPrepareFn prepare;  /* since 2; NULL: nothing to prepare */
  /* since 10: the domain of the schema this kernel implements ("" and
   * "ai.onnx": ONNX's default). NULL or "": the plugin's own schema of
   * op_type, else ONNX's, else the one schema of that type in any domain. */
  const char* domain;
} LoomKernelDef;

/* ---- Devices ------------------------------------------------------------ */
typedef enum LoomCopyKind {
  LOOM_COPY_HOST_TO_DEVICE = 0,
  LOOM_COPY_DEVICE_TO_HOST = 1,
  LOOM_COPY_DEVICE_TO_DEVICE = 2,
} LoomCopyKind;

/* A device registered by a plugin (the core has the CPU device built in).
 * Streams and events are opaque pointers owned by the device. A NULL stream
 * means the device's default stream. */
typedef struct LoomDeviceDef {
  size_t struct_size;      /* sizeof(LoomDeviceDef) */
  const char* name;        /* device_type in DeviceOption, e.g. "CUDA" */
  void* user_data;
  int (*device_count)(void* user_data);
  LoomStatus* (*allocate)(void* user_data, int device_id, size_t bytes, void** ptr);
  void (*deallocate)(void* user_data, int device_id, void* ptr);
  LoomStatus* (*copy)(void* user_data, int device_id, void* dst, const void* src,
                      size_t bytes, LoomCopyKind kind, void* stream);
  LoomStatus* (*create_stream)(void* user_data, int device_id, void** stream);
  void (*destroy_stream)(void* user_data, int device_id, void* stream);
  LoomStatus* (*synchronize_stream)(void* user_data, int device_id, void* stream);
  LoomStatus* (*create_event)(void* user_data, int device_id, void** event);
  void (*destroy_event)(void* user_data, int device_id, void* event);
  LoomStatus* (*record_event)(void* user_data, int device_id, void* event, void* stream);
  LoomStatus* (*stream_wait_event)(void* user_data, int device_id, void* stream, void* event);
  LoomStatus* (*synchronize_event)(void* user_data, int device_id, void* event);
} LoomDeviceDef;

/* ---- The function table the core gives a plugin ------------------------- */
typedef struct LoomApi {
  size_t struct_size;      /* sizeof(LoomApi) in the core */
  uint32_t abi_version;    /* newest ABI the core provides */
  uint32_t min_abi_version;/* oldest ABI the core still accepts */

  /* Status objects. */
  LoomStatus* (*CreateStatus)(LoomStatusCode code, const char* message);
  LoomStatusCode (*StatusCode)(const LoomStatus* status);
  const char* (*StatusMessage)(const LoomStatus* status);
  void (*ReleaseStatus)(LoomStatus* status);

  /* Registration. DeclarePlugin must come first; it fails if the declared
   * ABI version is not provided. Everything registered is committed when
   * LoomPluginInit returns NULL and discarded otherwise. */
  LoomStatus* (*DeclarePlugin)(LoomRegistrar* reg, const LoomPluginInfo* info);
  LoomStatus* (*RegisterSchema)(LoomRegistrar* reg, const LoomSchemaDef* schema);
  LoomStatus* (*RegisterKernel)(LoomRegistrar* reg, const LoomKernelDef* kernel);
  LoomStatus* (*RegisterDevice)(LoomRegistrar* reg, const LoomDeviceDef* device);

  /* Tensors. Dims are int64 and rank may be 0 (a scalar, one element). */
  LoomDataType (*TensorDType)(const LoomTensor* t);
  size_t (*TensorRank)(const LoomTensor* t);
  const int64_t* (*TensorDims)(const LoomTensor* t);
  int64_t (*TensorNumElements)(const LoomTensor* t);
  void* (*TensorData)(const LoomTensor* t);
  const char* (*TensorDevice)(const LoomTensor* t);

  /* Operator attributes, at kernel creation and in inference. Getters return
   * a NOT_FOUND status when the attribute is absent and has no default, and
   * INVALID_ARGUMENT when it has another type. Returned pointers live as long
   * as the LoomKernelInfo's operator (the kernel's lifetime). */
  const char* (*Info_OpType)(const LoomKernelInfo* info);
  const char* (*Info_OpName)(const LoomKernelInfo* info);
  size_t (*Info_NumInputs)(const LoomKernelInfo* info);
  size_t (*Info_NumOutputs)(const LoomKernelInfo* info);
  int (*Info_HasAttr)(const LoomKernelInfo* info, const char* name);
  LoomStatus* (*Info_GetInt)(const LoomKernelInfo* info, const char* name, int64_t* out);
  LoomStatus* (*Info_GetFloat)(const LoomKernelInfo* info, const char* name, float* out);
  LoomStatus* (*Info_GetString)(const LoomKernelInfo* info, const char* name,
                                const char** data, size_t* size);
  LoomStatus* (*Info_GetInts)(const LoomKernelInfo* info, const char* name,
                              const int64_t** data, size_t* count);
  LoomStatus* (*Info_GetFloats)(const LoomKernelInfo* info, const char* name,
                                const float** data, size_t* count);
  LoomStatus* (*Info_GetStringsCount)(const LoomKernelInfo* info, const char* name, size_t* count);
  LoomStatus* (*Info_GetStringAt)(const LoomKernelInfo* info, const char* name, size_t index,
                                  const char** data, size_t* size);
  LoomStatus* (*Info_GetTensor)(const LoomKernelInfo* info, const char* name,
                                const LoomTensor** out);
  /* A NetDef attribute, serialized in protobuf binary format. */
  LoomStatus* (*Info_GetNetBytes)(const LoomKernelInfo* info, const char* name,
                                  const void** data, size_t* size);

  /* One run of a kernel. Input(i) is NULL for an absent optional input. */
  size_t (*Ctx_NumInputs)(const LoomKernelContext* ctx);
  const LoomTensor* (*Ctx_Input)(const LoomKernelContext* ctx, size_t index);
  size_t (*Ctx_NumOutputs)(const LoomKernelContext* ctx);
  /* Sizes output `index` and returns it. Keeps the buffer when it is large
   * enough, so steady-state runs do not allocate. Fails if the output is
   * absent (an empty name) or the dtype is not the one inferred. */
  LoomStatus* (*Ctx_Output)(LoomKernelContext* ctx, size_t index, LoomDataType dtype,
                            const int64_t* dims, size_t rank, LoomTensor** out);
  int (*Ctx_OutputRequested)(const LoomKernelContext* ctx, size_t index);
  /* Threads a kernel may use (OpenMP or its own). */
  int (*Ctx_NumThreads)(const LoomKernelContext* ctx);
  /* The stream the operator runs on (NULL for CPU). */
  void* (*Ctx_Stream)(const LoomKernelContext* ctx);

  /* Inference. InputShape returns 0 when the shape is unknown.
   * InputConstant returns NULL unless the input's value is known at
   * planning time (an initializer). */
  const LoomKernelInfo* (*Infer_Info)(const LoomInferenceContext* ctx);
  size_t (*Infer_NumInputs)(const LoomInferenceContext* ctx);
  size_t (*Infer_NumOutputs)(const LoomInferenceContext* ctx);
  LoomDataType (*Infer_InputDType)(const LoomInferenceContext* ctx, size_t index);
  int (*Infer_InputShape)(const LoomInferenceContext* ctx, size_t index,
                          const int64_t** dims, size_t* rank);
  const LoomTensor* (*Infer_InputConstant)(const LoomInferenceContext* ctx, size_t index);
  void (*Infer_SetOutputDType)(LoomInferenceContext* ctx, size_t index, LoomDataType dtype);
  void (*Infer_SetOutputShape)(LoomInferenceContext* ctx, size_t index,
                               const int64_t* dims, size_t rank);

  /* Logging to the core's log (level: 0 info, 1 warning, 2 error). */
  void (*Log)(int level, const char* message);

  /* ---- Nested nets, for control-flow and recurrent operators ----------- */
  /* The workspace the operator runs in. */
  LoomWorkspace* (*Ctx_Workspace)(LoomKernelContext* ctx);
  /* A new child workspace: it sees the parent's blobs; its own shadow them.
   * Release it (after the nets created in it) with Workspace_Release. */
  LoomWorkspace* (*Workspace_CreateChild)(LoomWorkspace* parent);
  void (*Workspace_Release)(LoomWorkspace* ws);
  /* The blob `name` in ws or an ancestor; NULL if none. */
  LoomTensor* (*Workspace_GetBlob)(LoomWorkspace* ws, const char* name);
  /* The blob `name` in ws itself, created empty if missing. */
  LoomTensor* (*Workspace_CreateBlob)(LoomWorkspace* ws, const char* name);
  /* Sizes a tensor (keeps its buffer when it fits; an alias must keep its
   * byte size). It has no kernel context: since 11 it checks the default
   * limits and takes new memory from the device. A kernel sizing a blob of
   * its nested nets' workspaces uses the kernel-context table's
   * ResizeTensor (LoomKernelContextApi, GetSubApi below), which checks the
   * net's limits and takes memory from the net's pool. */
  LoomStatus* (*Tensor_Resize)(LoomTensor* t, LoomDataType dtype, const int64_t* dims, size_t rank);
  /* Makes `dst` an alias (no copy) of rows [begin, end) of `src`'s leading
   * dimension. OUT_OF_RANGE for bad rows. */
  LoomStatus* (*Tensor_Alias)(LoomTensor* dst, const LoomTensor* src, int64_t begin, int64_t end);
  /* Copies src's bytes into dst (same byte size, any devices). */
  LoomStatus* (*Tensor_Copy)(LoomTensor* dst, const LoomTensor* src);
  /* Checks a NetDef (protobuf binary) against the registry of the running
   * operator and makes it runnable in ws; kernels get num_threads threads
   * (0: all cores). */
  LoomStatus* (*Net_Create)(LoomKernelContext* ctx, LoomWorkspace* ws, const void* netdef, size_t size,
                            int num_threads, LoomNet** out);
  LoomStatus* (*Net_Run)(LoomNet* net);
  void (*Net_Release)(LoomNet* net);
  /* Runs nets[0..count) as consecutive timesteps of one step net.
   * recurrent_pairs holds 2*num_pairs names: (read, written) pairs, the blob
   * a timestep reads that the previous one wrote. num_threads 0 runs them
   * one after another; otherwise the threaded timestep executor runs them
   * with that many workers and at most max_parallel timesteps in flight.
   * When the step net's ops run on a device with streams (CUDA), num_threads
   * is the number of streams instead: timestep t runs on stream
   * t mod num_threads, ordered by events (the multi-stream executor). */
  LoomStatus* (*RunTimesteps)(LoomNet* const* nets, size_t count, const char* const* recurrent_pairs,
                              size_t num_pairs, int num_threads, int max_parallel);
  /* Threads a kernel gets inside a threaded timestep executor of n workers. */
  int (*KernelThreadsFor)(int executor_threads);
  /* Blob names of the operator's inputs and outputs ("" when absent). */
  const char* (*Info_InputName)(const LoomKernelInfo* info, size_t index);
  const char* (*Info_OutputName)(const LoomKernelInfo* info, size_t index);
  /* Output `index` as it is, without sizing it (NULL if absent): for ops
   * that make an output an alias with Tensor_Alias. */
  LoomTensor* (*Ctx_OutputHandle)(LoomKernelContext* ctx, size_t index);

  /* ---- Since 2: the prepare step (see LoomKernelPrepareFn) -------------- */
  const LoomKernelInfo* (*Prepare_Info)(const LoomPrepareContext* ctx);
  size_t (*Prepare_NumInputs)(const LoomPrepareContext* ctx);
  size_t (*Prepare_NumOutputs)(const LoomPrepareContext* ctx);
  /* LOOM_DTYPE_UNDEFINED for an absent optional input. */
  LoomDataType (*Prepare_InputDType)(const LoomPrepareContext* ctx, size_t index);
  /* 1 and the dims when the shape is known at plan time, else 0. */
  int (*Prepare_InputShape)(const LoomPrepareContext* ctx, size_t index, const int64_t** dims, size_t* rank);
  /* The input's value when it is constant (an initializer), else NULL. The
   * tensor lives as long as the plan. */
  const LoomTensor* (*Prepare_InputConstant)(const LoomPrepareContext* ctx, size_t index);
  LoomDataType (*Prepare_OutputDType)(const LoomPrepareContext* ctx, size_t index);
  int (*Prepare_OutputShape)(const LoomPrepareContext* ctx, size_t index, const int64_t** dims, size_t* rank);
  /* Threads compute will get, and the op's device type ("CPU", "CUDA"). */
  int (*Prepare_NumThreads)(const LoomPrepareContext* ctx);
  const char* (*Prepare_Device)(const LoomPrepareContext* ctx);

  /* ---- Since 2: timestep executors owned by a kernel --------------------
   * An executor for RunTimesteps-style runs that a recurrent or control-flow
   * kernel keeps in its state (Caffe2 kept one executor per op) and
   * releases in its destroy: no process-wide pools, no global lock, so
   * recurrent ops of different nets run concurrently. num_threads and
   * max_parallel as for RunTimesteps (num_threads 0: sequential). */
  LoomStatus* (*TimestepExecutor_Create)(int num_threads, int max_parallel, LoomTimestepExecutor** out);
  void (*TimestepExecutor_Release)(LoomTimestepExecutor* executor);
  /* RunTimesteps on this executor. One run at a time per executor. */
  LoomStatus* (*TimestepExecutor_Run)(LoomTimestepExecutor* executor, LoomNet* const* nets, size_t count,
                                      const char* const* recurrent_pairs, size_t num_pairs);

  /* ---- Since 2: limits against hostile models ---------------------------
   * The value of limit `which` (a LoomLimit) for the net the operator runs
   * in (NetOptions in the core; loom_run's --max_* flags); <= 0 means no
   * limit, and an unknown `which` gives 0. A kernel that loops or grows a
   * buffer on its own (Loop's iterations and scan outputs) checks these;
   * outputs sized with Ctx_Output are checked by the core. Check for it with
   * LOOM_HAS_MEMBER(LoomApi, api->struct_size, Ctx_Limit) first. */
  int64_t (*Ctx_Limit)(const LoomKernelContext* ctx, int which);

  /* ---- Since 3: scratch memory for one compute call ---------------------
   * `bytes` (> 0) of memory on the op's device, aligned to 64 bytes, valid
   * until this compute call returns; the core takes it back then. It comes
   * from the net's buffer pool (the memory planner's: ops' scratch shares
   * memory instead of each kernel keeping its own for the net's life, and a
   * steady-state run allocates nothing). On a device with streams, work the
   * kernel queues on Ctx_Stream may use it until it completes in stream
   * order. NULL with *status set (RESOURCE_EXHAUSTED naming the op and the
   * bytes) when it cannot be had. Check for it with
   * LOOM_HAS_MEMBER(LoomApi, api->struct_size, Ctx_Scratch) first. */
  void* (*Ctx_Scratch)(LoomKernelContext* ctx, size_t bytes, LoomStatus** status);

  /* ---- Since 4: letting go of a prepacked constant ----------------------
   * From prepare: the kernel has what it needs of constant input `index`
   * (it packed it) and will not read that input again, in prepare or in
   * compute, not even its shape (it may be empty by then). Where every op
   * that reads the constant said so and the net's input signatures are
   * fixed (NetOptions::static_shape, loom_run's default), the core frees
   * the original once planning is done, so the weights are held once, in
   * the kernels' layouts (ONNX Runtime's PrePack frees initializers the
   * same way). Otherwise the original stays: a plan for another signature
   * creates new kernels that pack from it. Ignored for an input that is not
   * constant. Check for it with
   * LOOM_HAS_MEMBER(LoomApi, api->struct_size, Prepare_ReleaseConstant). */
  void (*Prepare_ReleaseConstant)(const LoomPrepareContext* ctx, size_t index);

  /* ---- Since 5: gradient makers (LoomGradientFn) -----------------------
   * The forward op: its attributes (defaults applied) and its input and
   * output blob names, through the Info_* functions. */
  const LoomKernelInfo* (*Grad_Info)(const LoomGradientContext* ctx);
  /* GO(index): the name of output `index`'s gradient, or NULL when none
   * flows into that output (it does not lead to the loss). */
  const char* (*Grad_OutputGradient)(const LoomGradientContext* ctx, size_t index);
  /* GI(index): the name to write input `index`'s gradient to, or NULL when
   * the backward pass does not need it (the maker may then skip it). */
  const char* (*Grad_InputGradient)(const LoomGradientContext* ctx, size_t index);
  /* Input `index` has no gradient (integer indices, shapes, a seed). */
  void (*Grad_NoGradient)(LoomGradientContext* ctx, size_t index);
  /* A prefix unique to this op's gradient, for temporary blob names. */
  const char* (*Grad_TempPrefix)(const LoomGradientContext* ctx);
  /* Appends op `type` (no domain: the core finds schemas by type, so a
   * plugin's own gradient op, whatever its domain, is found) reading `inputs` and writing
   * `outputs` ("" for an absent optional one), with a copy of the forward
   * op's arguments when copy_arguments is nonzero (Caffe2's default); the
   * Grad_Arg* functions then set arguments of the op just added. */
  LoomStatus* (*Grad_AddOp)(LoomGradientContext* ctx, const char* type, const char* const* inputs, size_t num_inputs,
                            const char* const* outputs, size_t num_outputs, int copy_arguments);
  void (*Grad_ArgInt)(LoomGradientContext* ctx, const char* name, int64_t value);
  void (*Grad_ArgFloat)(LoomGradientContext* ctx, const char* name, float value);
  void (*Grad_ArgInts)(LoomGradientContext* ctx, const char* name, const int64_t* values, size_t count);
  void (*Grad_ArgString)(LoomGradientContext* ctx, const char* name, const char* value);

  /* ---- Since 6: gradients of nested nets (recurrent step nets) ---------
   * The backward ops of `net` (a NetDef, protobuf binary) built by the
   * core's backward builder with the registry of the net being
   * differentiated, as Caffe2's recurrent.py derives a backward step net:
   * the gradients of `outputs[i]` are the blobs `output_grads[i]` (given by
   * the caller, instead of ones), and the gradients of `wrt[k]` are wanted.
   * On success *backward / *backward_size hold a NetDef with the backward
   * ops only, its external inputs being every blob they read and do not
   * write (forward blobs, the output gradients, parameters), and no external
   * outputs; wrt_grads[k] (*wrt_grads, num_wrt entries) names the blob
   * holding wrt[k]'s gradient,
   * "" where no output depends on it. Both stay valid until the next call or
   * until the maker returns. Errors are AddBackward's (an op of the nested
   * net without a gradient: UNIMPLEMENTED naming it). Check for it with
   * LOOM_HAS_MEMBER(LoomApi, api->struct_size, Grad_NetBackward). */
  LoomStatus* (*Grad_NetBackward)(LoomGradientContext* ctx, const void* net, size_t size, const char* const* outputs,
                                  const char* const* output_grads, size_t num_outputs, const char* const* wrt,
                                  size_t num_wrt, const void** backward, size_t* backward_size,
                                  const char* const** wrt_grads);
  /* Arguments of the op just added: a NetDef (protobuf binary) and a list of
   * strings. */
  void (*Grad_ArgNet)(LoomGradientContext* ctx, const char* name, const void* net, size_t size);
  void (*Grad_ArgStrings)(LoomGradientContext* ctx, const char* name, const char* const* values, size_t count);
  /* Timesteps run on `executor` keep their intermediates after the run
   * (keep nonzero) instead of returning them to the pool: a backward pass
   * (RecurrentNetworkGradient) runs in the same step workspaces and reads
   * them. They stay until Net_ReleaseTimestep lets them go (or the step
   * nets run again and reuse them). */
  void (*TimestepExecutor_KeepIntermediates)(LoomTimestepExecutor* executor, int keep);
  /* Returns to the pool the intermediates a timestep kept (its net's
   * current plan's, as a timestep run does when it does not keep them);
   * RecurrentNetworkGradient calls it once the backward pass is done. */
  void (*Net_ReleaseTimestep)(LoomNet* net);

  /* ---- Since 7 ----
   * A gradient maker for an op whose schema has none, registered by another
   * plugin than the schema's (Caffe2's REGISTER_GRADIENT, apart from
   * OPERATOR_SCHEMA): the RNN plugin differentiates the core's ONNX LSTM
   * through its step nets. `op_type` must have a schema (committed or
   * staged by this plugin); ALREADY_EXISTS when the schema has a maker or
   * another plugin registered one, NOT_FOUND without a schema. */
  LoomStatus* (*RegisterGradient)(LoomRegistrar* reg, const char* op_type, LoomGradientFn fn);
  /* Appends every op of a NetDef (protobuf binary), blob names as they are
   * (a maker names them from Grad_TempPrefix): a net made for the gradient
   * or one Grad_NetBackward returned. INVALID_ARGUMENT when it does not
   * parse. */
  LoomStatus* (*Grad_AddNet)(LoomGradientContext* ctx, const void* net, size_t size);
  /* Blobs of a timestep net that its backward pass recomputes (Caffe2's
   * recompute_blobs_on_backward): they go back to the pool after each
   * timestep even when the executor keeps intermediates. Replaces the
   * net's list. Only nets whose memory is planned (the default) release
   * anything; on others it changes nothing. */
  void (*Net_SetRecomputedOnBackward)(LoomNet* net, const char* const* names, size_t count);

  /* ---- Since 8: packed constants shared between kernels ----------------
   * A copy of constant input `index` in a kernel's own layout (weights
   * reordered for its primitive), made once and shared by every kernel of
   * this net and of the nets nested in it that asks for the same constant
   * with the same `key`: the step nets of a RecurrentNetwork (one per
   * timestep) then hold their weights once (core/packed_constants.h).
   * `key` must name everything the packed bytes depend on (layout, shapes,
   * dtype). The first request allocates `bytes` bytes (64-byte aligned) and
   * calls fill(user, data) to fill them; later ones return the same copy,
   * and fill is not called. The kernel keeps the handle while it uses the
   * copy and releases it with SharedPack_Release (in its destroy); the copy
   * goes when the last holder lets go. *out is NULL (and the status OK)
   * when input `index` is not constant. fill runs under the store's lock:
   * it must not call Prepare_SharedPack. A kernel that reads only the copy
   * may let go of the input (Prepare_ReleaseConstant; until ABI 9's core it
   * was ignored for an input with a shared pack): the copy is keyed by the
   * constant's address, and a net drops a constant's copies from the store
   * before it frees the constant, so no later tensor at that address meets
   * them (their holders keep them). Errors:
   * fill's status; INVALID_ARGUMENT when a live copy under the key has
   * another size; RESOURCE_EXHAUSTED when `bytes` cannot be allocated. */
  LoomStatus* (*Prepare_SharedPack)(const LoomPrepareContext* ctx, size_t index, const char* key, size_t bytes,
                                    LoomStatus* (*fill)(void* user, void* data), void* user, LoomSharedPack** out);
  void* (*SharedPack_Data)(const LoomSharedPack* pack);
  void (*SharedPack_Release)(LoomSharedPack* pack);

  /* ---- Since 9: letting go of a blob's memory -------------------------
   * t's memory goes back to the pool it came from (the running net's, or
   * the device) once no alias shares it, and t becomes empty (shape [0])
   * until something sizes it again (Tensor_Resize, an op's output,
   * Tensor_Alias). For a kernel that keeps blobs in a workspace of its own
   * between runs (a nested net's inputs, outputs and links) and needs none
   * of their values until the next run: the nets of consecutive ops then
   * share the same memory instead of each holding its own for the net's
   * life. Check for it with
   * LOOM_HAS_MEMBER(LoomApi, api->struct_size, Tensor_Release) first. */
  void (*Tensor_Release)(LoomTensor* t);

  /* ---- Since 11: tables grouped by concern -----------------------------
   * This table (LoomApi) stays as it was at version 9; what comes after
   * goes into separately versioned sub-tables, one per concern (ONNX
   * Runtime's versioned OrtApi, PJRT's extensions). GetSubApi returns the
   * core's table of `kind` (a LoomSubApiKind) if it provides at least
   * `version` of it, else NULL; the table starts with its struct_size and
   * its own version (the newest it provides), and a member a version added
   * is there when struct_size covers it, as for every struct here. Check
   * for GetSubApi itself with
   * LOOM_HAS_MEMBER(LoomApi, api->struct_size, GetSubApi). */
  const void* (*GetSubApi)(uint32_t kind, uint32_t version);
} LoomApi;

/* Since 11: the sub-tables GetSubApi hands out. */
typedef enum LoomSubApiKind {
  LOOM_SUBAPI_KERNEL_CONTEXT = 1, /* LoomKernelContextApi */
  LOOM_SUBAPI_VALUES = 2          /* LoomValueApi */
} LoomSubApiKind;

/* Since 11 (its version 1; version 2 adds Prepare_FpMathMode): what a
 * kernel does through its run's and its prepare's context beyond LoomApi's
 * Ctx_* and Prepare_* functions. */
typedef struct LoomKernelContextApi {
  size_t struct_size;  /* sizeof(LoomKernelContextApi) in the core */
  uint32_t version;    /* the newest version of this table the core provides */
  /* Version 1. Sizes `t` (a blob of a workspace the kernel keeps: its
   * nested nets' inputs, links and outputs) as Ctx_Output sizes an output:
   * RESOURCE_EXHAUSTED past the running net's max_tensor_bytes (the
   * message names ctx's op and `what`), INVALID_ARGUMENT for a negative
   * dim or an overflowing size; new memory from the running net's pool
   * (returned there by Tensor_Release or when the blob is resized again),
   * else from the device. Keeps the buffer when it fits; an alias must keep
   * its byte size (FAILED_PRECONDITION). `what` (may be NULL) says which
   * blob, for the message. */
  LoomStatus* (*ResizeTensor)(LoomKernelContext* ctx, LoomTensor* t, LoomDataType dtype, const int64_t* dims,
                              size_t rank, const char* what);

  /* Version 1: per-op state. State that the kernels of one op share (one
   * kernel per plan of its net: each input signature, each bucket) with
   * each other and with its gradient op's kernels, kept in the workspace
   * the op runs in (Ctx_Workspace) under `key`, instead of a plugin's
   * process-wide map or a sentinel blob. Acquire returns a hold on the
   * resource under `key` in ctx's workspace, making it with
   * create(user, status) when none is live; the resource lives while some
   * hold does, on whatever thread, and destroy(resource) runs when the last
   * hold is released (the workspace keeps no hold: a resource may outlive
   * it). Keys are the plugin's: prefix them with its name. NULL and
   * *status on bad arguments (INVALID_ARGUMENT) or create's error. */
  LoomOpResource* (*OpResource_Acquire)(LoomKernelContext* ctx, const char* key,
                                        void* (*create)(void* user, LoomStatus** status),
                                        void (*destroy)(void* resource), void* user, LoomStatus** status);
  void* (*OpResource_Data)(const LoomOpResource* hold);
  void (*OpResource_Release)(LoomOpResource* hold);

  /* Version 2: the net's floating-point math mode (a LoomFpMathMode;
   * NetOptions::fpmath_mode, oneDNN's fpmath_mode): how a kernel may
   * compute float32 convolutions and matrix products. LOOM_FPMATH_MODE_BF16
   * allows rounding their float32 inputs and weights to bfloat16 (float32
   * accumulation and outputs) where the device has bf16 arithmetic. Nested
   * nets inherit their enclosing net's mode. */
  int (*Prepare_FpMathMode)(const LoomPrepareContext* ctx);
} LoomKernelContextApi;

/* Sequence and optional values (ONNX sequence(tensor) and optional types),
 * version 1. A value is a LoomTensor whose dtype has LOOM_DTYPE_SEQUENCE or
 * LOOM_DTYPE_OPTIONAL set; it holds a list of tensors (a sequence: any
 * number, all of its element type; an optional: none, or one value of its
 * inner type). Values are immutable once made: ops make new ones, and a
 * sequence's tensors are shared between the sequences made from it. */
typedef struct LoomValueApi {
  size_t struct_size;  /* sizeof(LoomValueApi) in the core */
  uint32_t version;    /* the newest version of this table the core provides */
  /* How many values `v` holds: a sequence's length, 1 or 0 for an optional
   * (0: "none"), 0 for a tensor. */
  size_t (*Value_Count)(const LoomTensor* v);
  /* Value i of `v` (a tensor, or an optional's sequence); NULL when i is
   * out of range. Valid while `v` keeps its value. */
  const LoomTensor* (*Value_At)(const LoomTensor* v, size_t i);
  /* Makes `v` the value of type `type` (a sequence or optional code)
   * holding `n` values: for a sequence, tensors of its element type; for
   * an optional, n <= 1 values of its inner type. Tensors are copied into
   * memory of the value's own (a blob's memory may be reused by the next
   * op), except those read with Value_At from another value, which are
   * shared. INVALID_ARGUMENT names the mismatched type. */
  LoomStatus* (*Value_Set)(LoomTensor* v, LoomDataType type, const LoomTensor* const* values, size_t n);
  /* Makes `dst` hold the same value as `src`, a sequence or optional (no
   * copy: values are immutable). INVALID_ARGUMENT when `src` is a tensor. */
  LoomStatus* (*Value_Assign)(LoomTensor* dst, const LoomTensor* src);
  /* A CPU tensor of `dtype` and `dims` (uninitialized) that the caller owns
   * and frees with Value_FreeTensor: contents for Value_Set that no blob
   * holds (SplitToSequence's pieces). NULL and *status on a bad dtype or
   * shape, or when memory runs out. */
  LoomTensor* (*Value_NewTensor)(LoomDataType dtype, const int64_t* dims, size_t rank, LoomStatus** status);
  void (*Value_FreeTensor)(LoomTensor* t);
  /* Element i (flat, row-major) of a string tensor (LOOM_DTYPE_STRING):
   * its bytes (UTF-8, not NUL-terminated) and length, valid until the
   * tensor is resized or set. 0 and nothing written when `t` is not a
   * string tensor or i is out of range, else 1. */
  int (*String_At)(const LoomTensor* t, size_t i, const char** data, size_t* len);
  /* Sets element i of a string tensor (an op's output sized with dtype
   * LOOM_DTYPE_STRING) to `len` bytes at `data`. INVALID_ARGUMENT when `t`
   * is not a string tensor or i is out of range. */
  LoomStatus* (*String_Set)(LoomTensor* t, size_t i, const char* data, size_t len);
} LoomValueApi;

/* Version 2 of LoomKernelContextApi: what Prepare_FpMathMode reports. */
typedef enum LoomFpMathMode {
  LOOM_FPMATH_MODE_STRICT = 0, /* float32 arithmetic as written (the default) */
  LOOM_FPMATH_MODE_BF16 = 1    /* float32 convolutions and matmuls may take bf16 inputs */
} LoomFpMathMode;

/* Since 2: what Ctx_Limit reports. */
typedef enum LoomLimit {
  LOOM_LIMIT_MAX_TENSOR_BYTES = 1,    /* bytes one tensor may take */
  LOOM_LIMIT_MAX_NESTING_DEPTH = 2,   /* nets nested in nets */
  LOOM_LIMIT_MAX_LOOP_ITERATIONS = 3, /* iterations of one Loop op per run */
  LOOM_LIMIT_NESTING_DEPTH = 4        /* the depth of the running net (0: top level) */
} LoomLimit;

/* ---- Struct sizes -------------------------------------------------------
 * What a writer puts in struct_size for this header's layouts. A reader
 * tells an older layout by a smaller struct_size. */
#define LOOM_PLUGIN_INFO_STRUCT_SIZE sizeof(LoomPluginInfo)
#define LOOM_FORMAL_PARAM_STRUCT_SIZE sizeof(LoomFormalParam)
#define LOOM_TYPE_CONSTRAINT_STRUCT_SIZE sizeof(LoomTypeConstraint)
#define LOOM_ATTR_SPEC_STRUCT_SIZE sizeof(LoomAttrSpec)
#define LOOM_SCHEMA_DEF_STRUCT_SIZE sizeof(LoomSchemaDef)
#define LOOM_KERNEL_DEF_STRUCT_SIZE sizeof(LoomKernelDef)
#define LOOM_DEVICE_DEF_STRUCT_SIZE sizeof(LoomDeviceDef)
#define LOOM_API_STRUCT_SIZE sizeof(LoomApi)

/* True when a struct of the given struct_size holds `member` of `type`
 * (e.g. LOOM_HAS_MEMBER(LoomApi, api->struct_size, TimestepExecutor_Run)). */
#define LOOM_HAS_MEMBER(type, struct_size, member) \
  (offsetof(type, member) + sizeof(((type*)0)->member) <= (struct_size))

/* The one symbol a plugin exports. The plugin calls api->DeclarePlugin first,
 * then registers. Returning non-NULL rolls back everything it registered. */
typedef LoomStatus* (*LoomPluginInitFn)(const LoomApi* api, LoomRegistrar* reg);
#define LOOM_PLUGIN_INIT_SYMBOL "LoomPluginInit"

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* LOOM_CORE_API_LOOM_C_API_H_ */
