// LoomApi::GetSubApi (ABI 11) and the kernel-context table's ResizeTensor
// and Prepare_FpMathMode:
// the table is found by kind and version (NULL past what the core has);
// ResizeTensor checks the limits of the kernel context's net, names its op
// and the blob, and takes memory from the context's pool, else the device;
// per-op resources are shared per workspace and key while held.
#include <cstdint>
#include <memory>
#include <string>

#include "core/buffer_pool.h"
#include "core/plugin_api/api_table.h"
#include "core/status_bridge.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

const LoomKernelContextApi* ContextTable(uint32_t version) {
  return static_cast<const LoomKernelContextApi*>(GetLoomApi()->GetSubApi(LOOM_SUBAPI_KERNEL_CONTEXT, version));
}

TEST(SubApi, FoundByKindAndVersion) {
  ASSERT_TRUE(LOOM_HAS_MEMBER(LoomApi, GetLoomApi()->struct_size, GetSubApi));
  const LoomKernelContextApi* t = ContextTable(1);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->struct_size, sizeof(LoomKernelContextApi));
  EXPECT_EQ(t->version, 2u);
  EXPECT_NE(t->ResizeTensor, nullptr);
  EXPECT_TRUE(LOOM_HAS_MEMBER(LoomKernelContextApi, t->struct_size, Prepare_FpMathMode));
  EXPECT_EQ(ContextTable(0), t);  // any version up to the newest
  EXPECT_EQ(ContextTable(2), t);
  EXPECT_EQ(ContextTable(3), nullptr);  // newer than the core has
  EXPECT_EQ(GetLoomApi()->GetSubApi(0, 1), nullptr);
  EXPECT_EQ(GetLoomApi()->GetSubApi(99, 1), nullptr);
}

TEST(SubApi, PrepareFpMathModeIsThePrepareContexts) {
  const LoomKernelContextApi* t = ContextTable(2);
  ASSERT_NE(t, nullptr);
  LoomPrepareContext ctx;
  EXPECT_EQ(t->Prepare_FpMathMode(&ctx), LOOM_FPMATH_MODE_STRICT);  // the default
  ctx.fpmath_mode = LOOM_FPMATH_MODE_BF16;
  EXPECT_EQ(t->Prepare_FpMathMode(&ctx), LOOM_FPMATH_MODE_BF16);
}

// Takes the status's message and releases it ("" for OK).
std::string Message(LoomStatus* s, LoomStatusCode* code) {
  *code = GetLoomApi()->StatusCode(s);
  std::string m = GetLoomApi()->StatusMessage(s);
  GetLoomApi()->ReleaseStatus(s);
  return m;
}

TEST(SubApi, ResizeTensorUsesTheContextsLimitsAndPool) {
  const LoomKernelContextApi* t = ContextTable(1);
  ASSERT_NE(t, nullptr);
  std::shared_ptr<BufferPool> pool = BufferPool::Create();
  NetLimits limits;
  limits.max_tensor_bytes = 4096;
  const std::string label = "Loop 'body_loop'";
  LoomKernelContext ctx;
  ctx.label = &label;
  ctx.limits = &limits;
  ctx.pool = pool.get();
  Tensor blob;
  const int64_t ok_dims[2] = {16, 64};  // 4096 bytes of float32: at the cap
  LoomStatusCode code;
  EXPECT_EQ(Message(t->ResizeTensor(&ctx, ToHandle(&blob), LOOM_DTYPE_FLOAT, ok_dims, 2, "carried value 0"), &code), "");
  EXPECT_EQ(blob.dims(), (Shape{16, 64}));
  EXPECT_EQ(pool->in_use_bytes(), BufferPool::BucketSize(4096));  // from the context's pool

  const int64_t big_dims[2] = {17, 64};
  const std::string m = Message(t->ResizeTensor(&ctx, ToHandle(&blob), LOOM_DTYPE_FLOAT, big_dims, 2, "carried value 0"), &code);
  EXPECT_EQ(code, LOOM_RESOURCE_EXHAUSTED);
  for (const char* needle : {"Loop 'body_loop'", "carried value 0", "4352", "4096"}) {
    EXPECT_NE(m.find(needle), std::string::npos) << "'" << needle << "' not in: " << m;
  }
  EXPECT_EQ(blob.dims(), (Shape{16, 64}));  // left as it was

  // No pool in the context: straight from the device.
  ctx.pool = nullptr;
  Tensor other;
  const int64_t small[1] = {8};
  EXPECT_EQ(Message(t->ResizeTensor(&ctx, ToHandle(&other), LOOM_DTYPE_INT64, small, 1, nullptr), &code), "");
  EXPECT_EQ(other.nbytes(), 64u);
  EXPECT_EQ(pool->in_use_bytes(), BufferPool::BucketSize(4096));

  EXPECT_EQ(Message(t->ResizeTensor(nullptr, ToHandle(&other), LOOM_DTYPE_FLOAT, small, 1, nullptr), &code).empty(), false);
  EXPECT_EQ(code, LOOM_INVALID_ARGUMENT);
}

struct Counted {
  static inline int made = 0, destroyed = 0;
};
void* MakeCounted(void* user, LoomStatus** status) {
  if (user != nullptr) {  // the test's way to ask for a failure
    *status = GetLoomApi()->CreateStatus(LOOM_RESOURCE_EXHAUSTED, "no room");
    return nullptr;
  }
  ++Counted::made;
  return new Counted();
}
void DestroyCounted(void* p) {
  ++Counted::destroyed;
  delete static_cast<Counted*>(p);
}

// Per-op resources: one per (workspace, key), shared by every hold,
// destroyed once with the last hold, even after the workspace is gone; a
// failing create names the op and the key.
TEST(SubApi, OpResourcesAreSharedPerWorkspaceAndKeyUntilTheLastHold) {
  const LoomKernelContextApi* t = ContextTable(1);
  ASSERT_NE(t, nullptr);
  Counted::made = Counted::destroyed = 0;
  const std::string label = "RecurrentNetwork 'rnn'";
  auto ws = std::make_unique<Workspace>();
  Workspace other;
  LoomKernelContext a, b, elsewhere;
  a.label = b.label = elsewhere.label = &label;
  a.workspace = b.workspace = ws.get();
  elsewhere.workspace = &other;
  LoomStatus* st = nullptr;
  LoomOpResource* h1 = t->OpResource_Acquire(&a, "test.state", MakeCounted, DestroyCounted, nullptr, &st);
  LoomOpResource* h2 = t->OpResource_Acquire(&b, "test.state", MakeCounted, DestroyCounted, nullptr, &st);
  LoomOpResource* h3 = t->OpResource_Acquire(&elsewhere, "test.state", MakeCounted, DestroyCounted, nullptr, &st);
  LoomOpResource* h4 = t->OpResource_Acquire(&a, "test.other", MakeCounted, DestroyCounted, nullptr, &st);
  ASSERT_TRUE(h1 && h2 && h3 && h4);
  EXPECT_EQ(t->OpResource_Data(h1), t->OpResource_Data(h2)) << "one per workspace and key";
  EXPECT_NE(t->OpResource_Data(h1), t->OpResource_Data(h3)) << "another workspace has its own";
  EXPECT_NE(t->OpResource_Data(h1), t->OpResource_Data(h4)) << "another key is another resource";
  EXPECT_EQ(Counted::made, 3);
  t->OpResource_Release(h1);
  EXPECT_EQ(Counted::destroyed, 0) << "h2 still holds it";
  ws.reset();  // the workspace keeps no hold, and the resource outlives it
  EXPECT_EQ(Counted::destroyed, 0);
  t->OpResource_Release(h2);
  EXPECT_EQ(Counted::destroyed, 1);
  t->OpResource_Release(h3);
  t->OpResource_Release(h4);
  EXPECT_EQ(Counted::destroyed, 3);

  // Released: the next acquire makes a new one.
  LoomOpResource* again = t->OpResource_Acquire(&elsewhere, "test.state", MakeCounted, DestroyCounted, nullptr, &st);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(Counted::made, 4);
  t->OpResource_Release(again);

  int fail = 1;
  EXPECT_EQ(t->OpResource_Acquire(&elsewhere, "test.state", MakeCounted, DestroyCounted, &fail, &st), nullptr);
  LoomStatusCode code;
  const std::string m = Message(st, &code);
  EXPECT_EQ(code, LOOM_RESOURCE_EXHAUSTED);
  for (const char* needle : {"RecurrentNetwork 'rnn'", "test.state", "no room"}) {
    EXPECT_NE(m.find(needle), std::string::npos) << "'" << needle << "' not in: " << m;
  }
  EXPECT_EQ(t->OpResource_Acquire(&elsewhere, "", MakeCounted, DestroyCounted, nullptr, &st), nullptr);
  EXPECT_EQ(Message(st, &code).empty(), false);
  EXPECT_EQ(code, LOOM_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace loom
