// The caching allocator's bookkeeping with a host backend (malloc/free), so
// it runs without a GPU: bins, reuse, the limit, statistics, backend failure.
#include "plugins/cuda/caching_allocator.h"

#include <cstdlib>
#include <set>

#include "gtest/gtest.h"

namespace loom {
namespace cuda {
namespace {

struct Backend {
  int64_t allocs = 0, frees = 0;
  size_t fail_above = 0;  // fail requests larger than this (0: never)
  std::set<void*> live;
  CachingAllocator::BackendAlloc Alloc() {
    return [this](size_t bytes, std::string* error) -> void* {
      if (fail_above && bytes > fail_above) {
        *error = "out of memory";
        return nullptr;
      }
      ++allocs;
      void* p = std::malloc(bytes);
      live.insert(p);
      return p;
    };
  }
  CachingAllocator::BackendFree Free() {
    return [this](void* p) {
      ++frees;
      live.erase(p);
      std::free(p);
    };
  }
};

TEST(CachingAllocatorTest, RoundsIntoBins) {
  EXPECT_EQ(CachingAllocator::RoundUp(1), 512u);
  EXPECT_EQ(CachingAllocator::RoundUp(512), 512u);
  EXPECT_EQ(CachingAllocator::RoundUp(513), 1024u);
  EXPECT_EQ(CachingAllocator::RoundUp(1 << 20), size_t{1} << 20);
  EXPECT_EQ(CachingAllocator::RoundUp((1 << 20) + 1), size_t{2} << 20);
  EXPECT_EQ(CachingAllocator::RoundUp((5 << 20) + 7), size_t{6} << 20);
}

TEST(CachingAllocatorTest, FreedBlocksAreReusedWithoutTheBackend) {
  Backend b;
  CachingAllocator a(b.Alloc(), b.Free());
  std::string err;
  void* p = a.Allocate(1000, &err);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(a.stats().bytes_in_use, 1024u);
  EXPECT_TRUE(a.Free(p));
  EXPECT_EQ(a.stats().bytes_in_use, 0u);
  EXPECT_EQ(a.stats().bytes_reserved, 1024u);
  void* q = a.Allocate(900, &err);  // same bin
  EXPECT_EQ(q, p);
  EXPECT_EQ(b.allocs, 1);
  EXPECT_EQ(a.stats().cache_hits, 1);
  EXPECT_EQ(a.stats().allocations, 2);
}

TEST(CachingAllocatorTest, ABlockServesAtMostTwiceItsRequest) {
  Backend b;
  CachingAllocator a(b.Alloc(), b.Free());
  std::string err;
  void* big = a.Allocate(4096, &err);
  a.Free(big);
  void* small = a.Allocate(512, &err);  // 4096 > 2 * 512: not reused
  EXPECT_NE(small, big);
  void* mid = a.Allocate(2048, &err);   // 4096 <= 2 * 2048: reused
  EXPECT_EQ(mid, big);
  EXPECT_EQ(b.allocs, 2);
}

TEST(CachingAllocatorTest, PeakAndZeroBytes) {
  Backend b;
  CachingAllocator a(b.Alloc(), b.Free());
  std::string err;
  EXPECT_EQ(a.Allocate(0, &err), nullptr);
  EXPECT_TRUE(err.empty());
  void* p = a.Allocate(512, &err);
  void* q = a.Allocate(1024, &err);
  a.Free(p);
  a.Free(q);
  EXPECT_EQ(a.stats().peak_bytes_in_use, 1536u);
  EXPECT_FALSE(a.Free(reinterpret_cast<void*>(0x1234)));
}

TEST(CachingAllocatorTest, TheLimitEmptiesTheCacheThenFails) {
  Backend b;
  CachingAllocator a(b.Alloc(), b.Free(), /*limit_bytes=*/4096);
  std::string err;
  void* p = a.Allocate(3500, &err);  // bin 3584
  ASSERT_NE(p, nullptr);
  a.Free(p);
  // Bin 1024 cannot reuse the 3584 block (more than twice) and 3584 + 1024
  // exceeds the limit: the cache goes back to the backend, then it fits.
  void* q = a.Allocate(1000, &err);
  ASSERT_NE(q, nullptr) << err;
  EXPECT_EQ(b.frees, 1);
  EXPECT_EQ(a.stats().bytes_reserved, 1024u);
  void* r = a.Allocate(3500, &err);  // 1024 in use + 3584 > 4096
  EXPECT_EQ(r, nullptr);
  EXPECT_NE(err.find("limit of 4096"), std::string::npos) << err;
}

TEST(CachingAllocatorTest, BackendFailureRetriesAfterEmptyingTheCache) {
  Backend b;
  CachingAllocator a(b.Alloc(), b.Free());
  std::string err;
  void* p = a.Allocate(512, &err);
  a.Free(p);
  b.fail_above = 1 << 30;
  void* q = a.Allocate(size_t{2} << 30, &err);
  EXPECT_EQ(q, nullptr);
  EXPECT_NE(err.find("out of memory"), std::string::npos) << err;
  EXPECT_EQ(a.stats().bytes_reserved, 0u);  // the cache went back first
}

TEST(CachingAllocatorTest, DestructionReturnsEverything) {
  Backend b;
  {
    CachingAllocator a(b.Alloc(), b.Free());
    std::string err;
    a.Free(a.Allocate(100, &err));
    a.Allocate(5 << 20, &err);  // still in use at destruction
  }
  EXPECT_TRUE(b.live.empty());
  EXPECT_EQ(b.allocs, b.frees);
}

}  // namespace
}  // namespace cuda
}  // namespace loom
