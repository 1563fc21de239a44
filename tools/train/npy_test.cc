// NumPy files (npy.h) and NumPy datasets (dataset.h) against files numpy
// wrote (tools/train/testdata, made by numpy 1.24: np.savez,
// np.savez_compressed, np.save): x = arange(24) / 4 as [2, 3, 2, 2], y =
// [3, 7]; pixels_u8 = arange(10) * 25 as uint8 [2, 5] with labels [1, 0].
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tools/train/dataset.h"
#include "tools/train/npy.h"

namespace loom {
namespace train {
namespace {

const std::string kDir = "tools/train/testdata/";

TEST(NpyTest, StoredAndDeflatedNpzHoldTheArrays) {
  for (const char* file : {"images.npz", "images_compressed.npz"}) {
    auto arrays = ReadNpz(kDir + file);
    ASSERT_TRUE(arrays.ok()) << file << ": " << arrays.status();
    ASSERT_EQ(arrays->size(), 2u) << file;
    const NpyArray& x = arrays->at("x");
    EXPECT_EQ(x.shape, (std::vector<int64_t>{2, 3, 2, 2})) << file;
    ASSERT_EQ(x.count, 24);
    for (int64_t i = 0; i < 24; ++i) EXPECT_EQ(x.At(i), static_cast<double>(i) / 4) << file << " " << i;
    const NpyArray& y = arrays->at("y");
    ASSERT_EQ(y.count, 2);
    EXPECT_EQ(y.At(0), 3);
    EXPECT_EQ(y.At(1), 7);
  }
  EXPECT_EQ(ReadNpz(kDir + "images.npz")->at("x").descr, "<f4");
  EXPECT_EQ(ReadNpz(kDir + "images_compressed.npz")->at("x").descr, "<f8");
}

TEST(NpyTest, DatasetsFromNpzAndNpyPairs) {
  auto d = ReadDataset(kDir + "images.npz", "", 2.0f);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->example_shape, (std::vector<int64_t>{3, 2, 2}));
  EXPECT_EQ(d->features, 12);
  EXPECT_EQ(d->label, (std::vector<int64_t>{3, 7}));
  EXPECT_EQ(d->x[5], 2.5f);  // 5 / 4 * 2
  Tensor x, y;
  Batch(*d, 1, 1, &x, &y);
  EXPECT_EQ(x.dims(), (Shape{1, 3, 2, 2}));
  EXPECT_EQ(x.data<float>()[0], 6.0f);  // 12 / 4 * 2
  EXPECT_EQ(y.data<int64_t>()[0], 7);

  auto u8 = ReadDataset(kDir + "pixels_u8.npy", kDir + "labels_i4.npy", 1.0f / 255);
  ASSERT_TRUE(u8.ok()) << u8.status();
  EXPECT_EQ(u8->example_shape, (std::vector<int64_t>{5}));
  EXPECT_FLOAT_EQ(u8->x[9], 225.0f / 255);
  EXPECT_EQ(u8->label, (std::vector<int64_t>{1, 0}));
}

TEST(NpyTest, ErrorsNameTheFileAndTheProblem) {
  auto no_y = ReadDataset(kDir + "no_y.npz", "", 1);
  ASSERT_EQ(no_y.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(no_y.status().message().find("needs arrays x (features) and y (labels)"), std::string::npos) << no_y.status();
  EXPECT_NE(no_y.status().message().find("found labels, x"), std::string::npos) << no_y.status();
  auto fortran = ReadNpy(kDir + "fortran.npy");
  ASSERT_EQ(fortran.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(fortran.status().message().find("Fortran"), std::string::npos) << fortran.status();
  // Labels whose count differs from the examples'.
  auto mismatch = ReadDataset(kDir + "pixels_u8.npy", kDir + "pixels_u8.npy", 1);
  ASSERT_EQ(mismatch.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(mismatch.status().message().find("labels must be [2]"), std::string::npos) << mismatch.status();
  EXPECT_EQ(ReadDataset(kDir + "pixels_u8.npy", "", 1).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ReadNpz(kDir + "missing.npz").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(ReadNpz(kDir + "labels_i4.npy").status().code(), absl::StatusCode::kInvalidArgument);  // not a zip
  EXPECT_EQ(ParseNpy(std::string("\x93NUMPY\x01\x00\x10\x00{'descr': '>f4'", 26), "t").status().code(),
            absl::StatusCode::kInvalidArgument);
  // A shape whose product would overflow, in a file of a few bytes.
  const std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }";
  std::string huge = std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size()) + '\0' + header + "abcd";
  auto overflow = ParseNpy(huge, "huge");
  ASSERT_EQ(overflow.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(overflow.status().message().find("more elements than the file has bytes"), std::string::npos)
      << overflow.status();
}

}  // namespace
}  // namespace train
}  // namespace loom
