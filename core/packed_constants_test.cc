// PackedConstants (core/packed_constants.h): one fill per constant and key
// while a holder keeps the copy, a new fill once every holder let go, keys
// and constants told apart, a size that disagrees with the live copy and a
// failing fill refused, a forgotten constant's entries dropped.
#include "core/packed_constants.h"

#include <cstring>
#include <memory>

#include "gtest/gtest.h"

namespace loom {
namespace {

// Fills a copy with the constant's floats doubled; counts the calls.
PackedConstants::Fill Doubled(const Tensor& t, int* calls) {
  return [&t, calls](void* data) {
    ++*calls;
    float* out = static_cast<float*>(data);
    for (int64_t i = 0; i < t.num_elements(); ++i) out[i] = 2 * t.data<float>()[i];
    return absl::OkStatus();
  };
}

TEST(PackedConstantsTest, OneFillPerConstantAndKeyWhileHeld) {
  PackedConstants store;
  Tensor w = Tensor::FromVector<float>({3}, {1, 2, 3});
  int calls = 0;
  auto a = store.GetOrFill(w, "layout A", 12, Doubled(w, &calls));
  auto b = store.GetOrFill(w, "layout A", 12, Doubled(w, &calls));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(a->get(), b->get());
  EXPECT_EQ(static_cast<float*>((*a)->data())[2], 6.0f);
  EXPECT_EQ(reinterpret_cast<uintptr_t>((*a)->data()) % 64, 0u);
  // Another key, or another constant: another copy.
  auto c = store.GetOrFill(w, "layout B", 12, Doubled(w, &calls));
  Tensor v = Tensor::FromVector<float>({3}, {4, 5, 6});
  auto d = store.GetOrFill(v, "layout A", 12, Doubled(v, &calls));
  ASSERT_TRUE(c.ok() && d.ok());
  EXPECT_EQ(calls, 3);
  EXPECT_NE(c->get(), a->get());
  EXPECT_EQ(static_cast<float*>((*d)->data())[0], 8.0f);
  EXPECT_EQ(store.live_entries(), 3u);
  EXPECT_EQ(store.live_bytes(), 36u);
  EXPECT_EQ(store.fills(), 3);
}

TEST(PackedConstantsTest, CopyGoesWithItsLastHolder) {
  PackedConstants store;
  Tensor w = Tensor::FromVector<float>({2}, {1, 2});
  int calls = 0;
  {
    auto a = store.GetOrFill(w, "k", 8, Doubled(w, &calls));
    ASSERT_TRUE(a.ok());
    std::shared_ptr<PackedConstant> keep = *a;
    a = absl::StatusOr<std::shared_ptr<PackedConstant>>();
    EXPECT_EQ(store.live_entries(), 1u);  // `keep` still holds it
  }
  EXPECT_EQ(store.live_entries(), 0u);
  EXPECT_EQ(store.live_bytes(), 0u);
  auto again = store.GetOrFill(w, "k", 8, Doubled(w, &calls));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(calls, 2);  // filled anew
}

// A net forgets a constant before freeing it: its holders keep their
// copies (and their data), a later request for the same address and key
// fills anew, and the entries of other constants stay.
TEST(PackedConstantsTest, ForgottenConstantIsFilledAnewWhileHoldersKeepTheirCopies) {
  PackedConstants store;
  Tensor w = Tensor::FromVector<float>({2}, {1, 2});
  Tensor v = Tensor::FromVector<float>({2}, {3, 4});
  int calls = 0;
  auto a = store.GetOrFill(w, "k", 8, Doubled(w, &calls));
  auto b = store.GetOrFill(w, "other key", 8, Doubled(w, &calls));
  auto c = store.GetOrFill(v, "k", 8, Doubled(v, &calls));
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  store.Forget(w);
  EXPECT_EQ(store.live_entries(), 1u) << "only v's";
  EXPECT_EQ(static_cast<float*>((*a)->data())[1], 4.0f) << "the holder's copy stays";
  // The same address and size: what a tensor made after w was freed might get.
  w.data<float>()[0] = 10;
  auto again = store.GetOrFill(w, "k", 8, Doubled(w, &calls));
  ASSERT_TRUE(again.ok());
  EXPECT_NE(again->get(), a->get());
  EXPECT_EQ(static_cast<float*>((*again)->data())[0], 20.0f);
  auto v_again = store.GetOrFill(v, "k", 8, Doubled(v, &calls));
  ASSERT_TRUE(v_again.ok());
  EXPECT_EQ(v_again->get(), c->get());
  EXPECT_EQ(calls, 4);
}

TEST(PackedConstantsTest, SizeMismatchAndFailedFillAreErrors) {
  PackedConstants store;
  Tensor w = Tensor::FromVector<float>({2}, {1, 2});
  int calls = 0;
  auto a = store.GetOrFill(w, "k", 8, Doubled(w, &calls));
  ASSERT_TRUE(a.ok());
  auto wrong = store.GetOrFill(w, "k", 16, Doubled(w, &calls));
  EXPECT_EQ(wrong.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(wrong.status().message().find("16 bytes asked for, the packed copy has 8"), std::string::npos)
      << wrong.status();
  auto failed = store.GetOrFill(w, "other", 8, [](void*) { return absl::InternalError("reorder failed"); });
  EXPECT_EQ(failed.status().code(), absl::StatusCode::kInternal);
  EXPECT_EQ(store.live_entries(), 1u);  // the failed fill left nothing
  EXPECT_EQ(store.fills(), 1);
}

}  // namespace
}  // namespace loom
