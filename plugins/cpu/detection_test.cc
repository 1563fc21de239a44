// NonMaxSuppression (detection.cc) against hand-worked cases: corner order,
// center-point boxes, suppression by IoU, the score threshold, equal scores
// (the lower index first), zero-area boxes, the per-class limit, batches
// and classes in order; errors name the input.
#include <cstdint>
#include <string>
#include <vector>

#include "plugins/cpu/kernel_test_util.h"
#include "testing/op_runner.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

std::vector<int64_t> Nms(const Tensor& boxes, const Tensor& scores, int64_t max_out, float iou, const float* score_min,
                         int center = 0) {
  std::string op = R"(type: "NonMaxSuppression" input: "b" input: "s" input: "m" input: "i" )";
  op += score_min ? R"(input: "t" )" : "";
  op += R"(output: "y" arg { name: "center_point_box" i: )" + std::to_string(center) + " }";
  std::vector<Tensor> in = {boxes, scores, Tensor::FromVector<int64_t>({1}, {max_out}), F32({1}, {iou})};
  if (score_min) in.push_back(F32({1}, {*score_min}));
  auto y = testing::RunSingleOp(testing::ParseOp(op), in);
  EXPECT_TRUE(y.ok()) << y.status();
  if (!y.ok()) return {};
  EXPECT_EQ((*y)[0].rank(), 2u);
  return std::vector<int64_t>((*y)[0].data<int64_t>(), (*y)[0].data<int64_t>() + (*y)[0].num_elements());
}

TEST(NonMaxSuppression, GreedyByScoreWithIouSuppression) {
  // Box 0 [0, 0, 1, 1]; box 1 the same with its corners swapped (IoU 1 with
  // box 0); box 2 [0, 0.5, 1, 1.5] (IoU 1/3 with box 0); box 3 far away;
  // box 4 of zero area (overlaps nothing).
  const Tensor boxes = F32({1, 5, 4}, {0, 0, 1, 1, 1, 1, 0, 0, 0, 0.5f, 1, 1.5f, 5, 5, 6, 6, 0, 0, 0, 1});
  const Tensor scores = F32({1, 1, 5}, {0.9f, 0.95f, 0.8f, 0.3f, 0.99f});
  // Box 4 first (highest), then 1; 0 is suppressed by 1 (IoU 1 > 0.5); 2's
  // IoU with 1 is 1/3: kept; then 3.
  EXPECT_EQ(Nms(boxes, scores, 10, 0.5f, nullptr), (std::vector<int64_t>{0, 0, 4, 0, 0, 1, 0, 0, 2, 0, 0, 3}));
  // iou 0.3: 2 goes too (1/3 > 0.3); at most 2 per class.
  EXPECT_EQ(Nms(boxes, scores, 10, 0.3f, nullptr), (std::vector<int64_t>{0, 0, 4, 0, 0, 1, 0, 0, 3}));
  EXPECT_EQ(Nms(boxes, scores, 2, 0.5f, nullptr), (std::vector<int64_t>{0, 0, 4, 0, 0, 1}));
  // Scores must exceed the threshold (0.8 is not above 0.8); 0 boxes: none.
  const float t = 0.8f;
  EXPECT_EQ(Nms(boxes, scores, 10, 0.5f, &t), (std::vector<int64_t>{0, 0, 4, 0, 0, 1}));
  EXPECT_TRUE(Nms(boxes, scores, 0, 0.5f, nullptr).empty());
}

TEST(NonMaxSuppression, CenterPointBoxesTiesBatchesAndClasses) {
  // Center-point form: (0.5, 0.5, 1, 1) is box [0, 0, 1, 1]; the second is
  // the same box; equal scores: the lower index wins.
  const Tensor boxes = F32({2, 2, 4}, {0.5f, 0.5f, 1, 1, 0.5f, 0.5f, 1, 1, 0.5f, 0.5f, 1, 1, 3, 3, 1, 1});
  const Tensor scores = F32({2, 2, 2}, {0.5f, 0.5f, 0.1f, 0.7f, 0.2f, 0.9f, 0.6f, 0.4f});
  EXPECT_EQ(Nms(boxes, scores, 5, 0.5f, nullptr, 1),
            (std::vector<int64_t>{0, 0, 0, 0, 1, 1, 1, 0, 1, 1, 0, 0, 1, 1, 0, 1, 1, 1}));
}

TEST(NonMaxSuppression, ErrorsNameTheInput) {
  auto y = testing::RunSingleOp(testing::ParseOp(R"(type: "NonMaxSuppression" input: "b" input: "s" output: "y")"),
                                {F32({1, 2, 4}, std::vector<float>(8, 0)), F32({1, 1, 3}, {0, 0, 0})});
  ASSERT_FALSE(y.ok());
  EXPECT_NE(y.status().message().find("found boxes [1, 2, 4], scores [1, 1, 3]"), std::string::npos) << y.status();
}

}  // namespace
}  // namespace loom
