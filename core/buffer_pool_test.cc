// BufferPool (core/buffer_pool.h): reuse within 2x for one signature, and
// after NewSignature (a bucketed net switching buckets) stale buffers serve
// smaller requests or go back to the device for larger ones, so the pool
// holds about what the largest signature needs.
#include "core/buffer_pool.h"

#include <memory>
#include <vector>

#include "core/tensor.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

std::shared_ptr<Buffer> Take(BufferPool& pool, size_t bytes) {
  absl::StatusOr<std::shared_ptr<Buffer>> b = pool.Allocate(CpuDevice(), bytes);
  EXPECT_TRUE(b.ok()) << b.status();
  return b.ok() ? *b : nullptr;
}

// Bytes the pool holds from the device: handed out plus waiting.
size_t Footprint(const BufferPool& pool) { return pool.in_use_bytes() + pool.free_bytes(); }

TEST(BufferPoolTest, OneSignatureReusesWithinTwiceTheSizeOnly) {
  std::shared_ptr<BufferPool> pool = BufferPool::Create();
  Take(*pool, 4 * kMiB).reset();  // back to the free list
  EXPECT_EQ(pool->free_bytes(), 4 * kMiB);
  std::shared_ptr<Buffer> half = Take(*pool, 2 * kMiB + 1);  // within 2x: reused
  EXPECT_EQ(half->size(), 4 * kMiB);
  EXPECT_EQ(pool->device_allocations(), 1);
  half.reset();
  std::shared_ptr<Buffer> quarter = Take(*pool, kMiB);  // 4x: a new one
  EXPECT_EQ(quarter->size(), kMiB);
  EXPECT_EQ(pool->device_allocations(), 2);
  EXPECT_EQ(pool->free_bytes(), 4 * kMiB);  // kept for its own size
}

TEST(BufferPoolTest, AfterASwitchASmallerRequestTakesAStaleBufferOfUpToEightTimes) {
  std::shared_ptr<BufferPool> pool = BufferPool::Create();
  Take(*pool, 16 * kMiB).reset();
  pool->NewSignature();
  std::shared_ptr<Buffer> quarter = Take(*pool, 4 * kMiB);
  EXPECT_EQ(quarter->size(), 16 * kMiB);
  EXPECT_EQ(pool->device_allocations(), 1);
  quarter.reset();
  // A 16x smaller request does not: its own buffer.
  std::shared_ptr<Buffer> tiny = Take(*pool, kMiB);
  EXPECT_EQ(tiny->size(), kMiB);
  EXPECT_EQ(pool->device_allocations(), 2);
}

TEST(BufferPoolTest, AfterASwitchALargerRequestReleasesStaleSmallerBuffers) {
  std::shared_ptr<BufferPool> pool = BufferPool::Create();
  {
    std::vector<std::shared_ptr<Buffer>> shorter;
    for (int i = 0; i < 4; ++i) shorter.push_back(Take(*pool, 4 * kMiB));
  }
  EXPECT_EQ(Footprint(*pool), 16 * kMiB);
  pool->NewSignature();
  // A longer bucket's 8 MiB tensors: each sends back two stale 4 MiB
  // buffers before it is allocated, so the pool does not grow.
  std::vector<std::shared_ptr<Buffer>> longer;
  for (int i = 0; i < 2; ++i) longer.push_back(Take(*pool, 8 * kMiB));
  EXPECT_EQ(Footprint(*pool), 16 * kMiB);
  EXPECT_EQ(pool->free_bytes(), 0u);
}

TEST(BufferPoolTest, WithoutASwitchNothingIsStale) {
  std::shared_ptr<BufferPool> pool = BufferPool::Create();
  Take(*pool, 16 * kMiB).reset();
  Take(*pool, 4 * kMiB).reset();
  EXPECT_EQ(pool->free_bytes(), 20 * kMiB);
  // No switch: a 4x larger buffer is not taken, smaller ones not released.
  std::shared_ptr<Buffer> a = Take(*pool, 4 * kMiB);
  std::shared_ptr<Buffer> b = Take(*pool, 4 * kMiB);
  EXPECT_EQ(b->size(), 4 * kMiB);
  std::shared_ptr<Buffer> c = Take(*pool, 32 * kMiB);
  EXPECT_EQ(pool->free_bytes(), 16 * kMiB);
}

TEST(BufferPoolTest, ABufferTakenBeforeTheSwitchIsStaleWhenItComesBackAfter) {
  std::shared_ptr<BufferPool> pool = BufferPool::Create();
  std::shared_ptr<Buffer> held = Take(*pool, 4 * kMiB);  // a workspace blob kept across runs
  pool->NewSignature();
  held.reset();  // overwritten by the next bucket's run
  std::shared_ptr<Buffer> larger = Take(*pool, 8 * kMiB);
  EXPECT_EQ(pool->free_bytes(), 0u);  // the 4 MiB one went back to the device
  EXPECT_EQ(Footprint(*pool), 8 * kMiB);
}

}  // namespace
}  // namespace loom
