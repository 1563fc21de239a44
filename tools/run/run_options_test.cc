// ParseRunArgs on loom_run command lines: flags and positional arguments
// into RunOptions, and the errors for a bad flag value or --input_shape.
#include "tools/run/run_options.h"

#include <string>
#include <vector>

#include "absl/flags/reflection.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace loom {
namespace tools {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

// ParseRunArgs on "loom_run <args>". ParseCommandLine sets the process's
// flags: each test restores them (FlagSaver) so that none sees another's.
class ParseRunArgsTest : public ::testing::Test {
 protected:
  absl::StatusOr<RunOptions> Parse(std::vector<std::string> args) {
    args.insert(args.begin(), "loom_run");
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    return ParseRunArgs(static_cast<int>(args.size()), argv.data());
  }

 private:
  absl::FlagSaver saver_;
};

TEST_F(ParseRunArgsTest, NoArgumentsIsTheDefaultModelOnRandomInput) {
  auto o = Parse({});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->model, "");
  EXPECT_TRUE(o->random);
  EXPECT_TRUE(o->inputs.empty());
  EXPECT_EQ(o->iterations, 10);
  EXPECT_EQ(o->warmup, 1);
  EXPECT_FALSE(o->profile);
  EXPECT_EQ(o->output_dir, "");
  EXPECT_FALSE(o->output_raw);
  EXPECT_EQ(o->engine, "");
  EXPECT_TRUE(o->plugin.empty());
  EXPECT_TRUE(o->input_shape.empty());
  EXPECT_EQ(o->device, "");
  EXPECT_FALSE(o->device_option.has_value());
  EXPECT_EQ(o->executor, "");
  EXPECT_EQ(o->max_streams, 0);
  EXPECT_TRUE(o->device_fallback);
  EXPECT_TRUE(o->preload_weights);
  EXPECT_EQ(o->num_threads, 0);
  EXPECT_EQ(o->seed, 1);
  EXPECT_EQ(o->show, 8);
}

TEST_F(ParseRunArgsTest, ReadsTheModelInputFilesAndEveryFlag) {
  auto o = Parse({"model.onnx", "x=x.pb", "--iterations", "100", "--warmup=0", "W=w.pb", "--profile",
                  "--output_dir", "/tmp/out", "--output_raw", "--engine=DNNL", "--plugin", "a.so,b.so",
                  "--device", "CUDA:1", "--executor", "multi_stream", "--max_streams=2", "--nodevice_fallback",
                  "--nopreload_weights", "--num_threads", "3", "--seed", "7", "--show", "2"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->model, "model.onnx");
  EXPECT_FALSE(o->random);  // a model is given and --random is not
  EXPECT_THAT(o->inputs, ElementsAre(Pair("x", "x.pb"), Pair("W", "w.pb")));
  EXPECT_EQ(o->iterations, 100);
  EXPECT_EQ(o->warmup, 0);
  EXPECT_TRUE(o->profile);
  EXPECT_EQ(o->output_dir, "/tmp/out");
  EXPECT_TRUE(o->output_raw);
  EXPECT_EQ(o->engine, "DNNL");
  EXPECT_THAT(o->plugin, ElementsAre("a.so", "b.so"));
  EXPECT_EQ(o->device, "CUDA:1");
  ASSERT_TRUE(o->device_option.has_value());
  EXPECT_EQ(o->device_option->device_type(), "CUDA");
  EXPECT_EQ(o->device_option->device_id(), 1);
  EXPECT_EQ(o->executor, "multi_stream");
  EXPECT_EQ(o->max_streams, 2);
  EXPECT_FALSE(o->device_fallback);
  EXPECT_FALSE(o->preload_weights);
  EXPECT_EQ(o->num_threads, 3);
  EXPECT_EQ(o->seed, 7);
  EXPECT_EQ(o->show, 2);
}

TEST_F(ParseRunArgsTest, DeviceWithoutIdIsIdZero) {
  auto o = Parse({"m.pb", "--device=CPU"});
  ASSERT_TRUE(o.ok()) << o.status();
  ASSERT_TRUE(o->device_option.has_value());
  EXPECT_EQ(o->device_option->device_type(), "CPU");
  EXPECT_EQ(o->device_option->device_id(), 0);
}

TEST_F(ParseRunArgsTest, EveryInputShapeOccurrenceAndFormCounts) {
  auto o = Parse({"m.pb", "--random", "--input_shape", "x=1,3,48,320,y=2x5", "--input_shape=z=7", "-input_shape",
                  "w=1X2"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->random);
  EXPECT_THAT(o->input_shape, ElementsAre(Pair("x", Shape{1, 3, 48, 320}), Pair("y", Shape{2, 5}),
                                          Pair("z", Shape{7}), Pair("w", Shape{1, 2})));
}

TEST_F(ParseRunArgsTest, ArgumentsAfterDoubleDashArePositional) {
  auto o = Parse({"--iterations=2", "--", "m.pb", "x=--input_shape"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->model, "m.pb");
  EXPECT_THAT(o->inputs, ElementsAre(Pair("x", "--input_shape")));
  EXPECT_TRUE(o->input_shape.empty());
}

TEST_F(ParseRunArgsTest, BadExecutorNamesTheFlagTheExpectedAndTheFound) {
  auto o = Parse({"m.pb", "--executor", "parallel"});
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(o.status().message(), "--executor 'parallel': expected sequential or multi_stream");
}

TEST_F(ParseRunArgsTest, BadDeviceNamesTheFlagTheExpectedAndTheFound) {
  for (const char* bad : {"CUDA:x", "CUDA:-1", "CUDA:"}) {
    auto o = Parse({"m.pb", "--device", bad});
    ASSERT_FALSE(o.ok()) << bad;
    EXPECT_EQ(o.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(o.status().message(),
                AllOf(HasSubstr(std::string("--device '") + bad + "'"), HasSubstr("expected TYPE or TYPE:<id>")));
  }
}

TEST_F(ParseRunArgsTest, MalformedInputShapeNamesTheFlagTheExpectedAndTheFound) {
  auto bad_dim = Parse({"m.pb", "--input_shape", "x=1xax3"});
  ASSERT_FALSE(bad_dim.ok());
  EXPECT_EQ(bad_dim.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad_dim.status().message(),
              AllOf(HasSubstr("--input_shape 'x=1xax3'"), HasSubstr("bad dim 'a'"),
                    HasSubstr("expected a non-negative integer")));

  auto negative = Parse({"m.pb", "--input_shape=x=2,-1"});
  ASSERT_FALSE(negative.ok());
  EXPECT_THAT(negative.status().message(), AllOf(HasSubstr("--input_shape"), HasSubstr("bad dim '-1'")));

  auto no_name = Parse({"m.pb", "--input_shape", "3,4"});
  ASSERT_FALSE(no_name.ok());
  EXPECT_EQ(no_name.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(no_name.status().message(), HasSubstr("--input_shape '3,4': expected NAME=d0xd1x... first"));
}

TEST_F(ParseRunArgsTest, SecondModelIsAnUnexpectedArgument) {
  auto o = Parse({"a.pb", "b.pb"});
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(o.status().message(), "unexpected argument 'b.pb'");
}

// absl rejects an unknown flag or a value of the wrong type itself, by
// exiting as every absl tool does.
TEST_F(ParseRunArgsTest, UnknownFlagOrUnparsableValueExitsWithAbslsMessage) {
  EXPECT_EXIT(Parse({"--bogus"}), ::testing::ExitedWithCode(1), "Unknown command line flag 'bogus'");
  EXPECT_EXIT(Parse({"--iterations=ten"}), ::testing::ExitedWithCode(1),
              "Illegal value 'ten' specified for flag 'iterations'");
}

}  // namespace
}  // namespace tools
}  // namespace loom
