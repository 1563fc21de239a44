// Purpose-built broken plugins for the loader's tests. One source, one
// failure per build: the BUILD file compiles it with -DBAD_<KIND>.
#include <signal.h>

#include <cstdlib>

#include "core/api/loom_sdk.h"

namespace {

class NoopKernel {
 public:
  loom::sdk::Status Init(const loom::sdk::KernelInfo&) { return loom::sdk::Status::Ok(); }
  loom::sdk::Status Compute(loom::sdk::KernelContext&) { return loom::sdk::Status::Ok(); }
};

}  // namespace

#if defined(BAD_NO_ENTRY)
// A valid shared object without LoomPluginInit.
extern "C" LOOM_EXPORT int NotAPluginEntry() { return 42; }

#elif defined(BAD_ABI)
// Declares an ABI version from the future, through the raw C table.
extern "C" LOOM_EXPORT LoomStatus* LoomPluginInit(const LoomApi* api, LoomRegistrar* reg) {
  LoomPluginInfo info{sizeof(LoomPluginInfo), 99u, "future", "9.9.9"};
  return api->DeclarePlugin(reg, &info);
}

#elif defined(BAD_HALFWAY)
// Registers a schema and a kernel, then fails: nothing may remain.
LOOM_PLUGIN("halfway", "0.0.1", reg) {
  loom::sdk::SchemaBuilder s("HalfwayOp");
  s.Input("X", "T").Output("Y", "T").TypeConstraint("T", {LOOM_DTYPE_FLOAT});
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<NoopKernel>("HalfwayOp"));
  return loom::sdk::Internal("halfway plugin gives up after registering HalfwayOp");
}

#elif defined(BAD_DUP_SCHEMA)
// Registers a schema the standard op set owns.
LOOM_PLUGIN("dup_schema", "0.0.1", reg) {
  loom::sdk::SchemaBuilder mine("DupSchemaFresh");
  mine.Input("X", "T").Output("Y", "T").TypeConstraint("T", {LOOM_DTYPE_FLOAT});
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(mine));
  loom::sdk::SchemaBuilder s("Relu");
  s.Input("X", "T").Output("Y", "T").TypeConstraint("T", {LOOM_DTYPE_FLOAT});
  return reg.Register(s);
}

#elif defined(BAD_DUP_KERNEL)
// Registers a CPU Relu kernel for float32, a key the cpu plugin owns.
LOOM_PLUGIN("dup_kernel", "0.0.1", reg) {
  return reg.Kernel<NoopKernel>("Relu", {"CPU", "", 0, {{"T", {LOOM_DTYPE_FLOAT}}}});
}

#elif defined(BAD_UNKNOWN_OP)
// A kernel for an op no schema defines.
LOOM_PLUGIN("unknown_op", "0.0.1", reg) { return reg.Kernel<NoopKernel>("NoSuchOpAnywhere"); }

#elif defined(BAD_MISSING_DEP)
// Links against libloom_testdep.so, which the test hides.
extern "C" int LoomTestDepValue();
LOOM_PLUGIN("missing_dep", "0.0.1", reg) {
  return LoomTestDepValue() == 7 ? loom::sdk::Status::Ok() : loom::sdk::Internal("unexpected dep value");
}

#elif defined(BAD_CRASH)
// Crashes while loading (for loom_inspect --check).
LOOM_PLUGIN("crash", "0.0.1", reg) {
  (void)reg;
  std::abort();
}

#elif defined(BAD_SEGV)
// Dies of SIGSEGV while loading (raised, not a null store, which
// UndefinedBehaviorSanitizer would stop first under scripts/sanitize.sh).
LOOM_PLUGIN("segv", "0.0.1", reg) {
  (void)reg;
  raise(SIGSEGV);
  return loom::sdk::Status::Ok();
}

#elif defined(BAD_HANG)
// Never returns from LoomPluginInit: blocks every signal it can (so only
// SIGKILL ends it), then spins.
LOOM_PLUGIN("hang", "0.0.1", reg) {
  (void)reg;
  sigset_t all;
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, nullptr);
  volatile bool forever = true;
  while (forever) {
  }
  return loom::sdk::Status::Ok();
}

#elif defined(BAD_EXIT)
// Calls exit(3) while loading.
LOOM_PLUGIN("exit", "0.0.1", reg) {
  (void)reg;
  std::exit(3);
}

#elif defined(BAD_EXIT0)
// Calls exit(0) while loading: a "success" exit code, still not a load.
LOOM_PLUGIN("exit0", "0.0.1", reg) {
  (void)reg;
  std::exit(0);
}

#elif defined(BAD_NO_DECLARE)
// Returns success without declaring itself.
extern "C" LOOM_EXPORT LoomStatus* LoomPluginInit(const LoomApi*, LoomRegistrar*) { return nullptr; }

#elif defined(BAD_EDITED_HEADER)
// Built against an edited header: its LoomAttrSpec has a field of its own
// appended, so struct_size is larger than version LOOM_ABI_VERSION's. The
// core must refuse the schema by name, not read the array field by field.
namespace {
struct EditedAttrSpec {
  LoomAttrSpec spec;
  int64_t extra;
};
}  // namespace
extern "C" LOOM_EXPORT LoomStatus* LoomPluginInit(const LoomApi* api, LoomRegistrar* reg) {
  LoomPluginInfo info{sizeof(LoomPluginInfo), LOOM_ABI_VERSION, "edited", "0.0.1"};
  if (LoomStatus* s = api->DeclarePlugin(reg, &info)) return s;
  static const LoomDataType kFloat[] = {LOOM_DTYPE_FLOAT};
  static LoomFormalParam params[2] = {{sizeof(LoomFormalParam), "X", "T", LOOM_PARAM_SINGLE, ""},
                                      {sizeof(LoomFormalParam), "Y", "T", LOOM_PARAM_SINGLE, ""}};
  static LoomTypeConstraint t{sizeof(LoomTypeConstraint), "T", kFloat, 1, ""};
  static EditedAttrSpec attr{};
  attr.spec.struct_size = sizeof(EditedAttrSpec);
  attr.spec.name = "n";
  attr.spec.type = LOOM_ATTR_INT;
  LoomSchemaDef def{};
  def.struct_size = sizeof(LoomSchemaDef);
  def.op_type = "EditedOp";
  def.inputs = &params[0];
  def.num_inputs = 1;
  def.outputs = &params[1];
  def.num_outputs = 1;
  def.attrs = &attr.spec;
  def.num_attrs = 1;
  def.type_constraints = &t;
  def.num_type_constraints = 1;
  return api->RegisterSchema(reg, &def);
}

#elif defined(BAD_MISREAD)
// A kernel whose attribute getter disagrees with its schema: it reads "n",
// declared int (default 3), as a float. Loads fine; `loom_inspect --check`
// creates the kernel with the defaults and reports it.
namespace {
class MisreadKernel {
 public:
  loom::sdk::Status Init(const loom::sdk::KernelInfo& info) { return info.GetFloat("n", &n_); }
  loom::sdk::Status Compute(loom::sdk::KernelContext&) { return loom::sdk::Status::Ok(); }

 private:
  float n_ = 0;
};
}  // namespace
LOOM_PLUGIN("misread", "0.0.1", reg) {
  loom::sdk::SchemaBuilder s("AcmeMisread");
  s.Domain("com.acme").Input("X", "T").Output("Y", "T").TypeConstraint("T", {LOOM_DTYPE_FLOAT}).AttrInt("n", 3);
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  return reg.Kernel<MisreadKernel>("AcmeMisread");
}

#elif defined(BAD_EXPORTS)
// A good plugin that also exports a function of its own (built without
// loom_plugin's version script): `loom_inspect --check` warns.
extern "C" LOOM_EXPORT int AcmeHelper() { return 7; }
LOOM_PLUGIN("exports", "0.0.1", reg) {
  loom::sdk::SchemaBuilder s("AcmeExports");
  s.Input("X", "T").Output("Y", "T").TypeConstraint("T", {LOOM_DTYPE_FLOAT});
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  return reg.Kernel<NoopKernel>("AcmeExports");
}

#else
#error "compile with one -DBAD_<KIND>"
#endif
