// StringNormalizer-10 kernel (ops/nn_string_normalizer.cc): stopwords are
// read once at Init; ASCII case rules.
#include <cctype>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "plugins/cpu/cpu_common.h"
#include "plugins/cpu/kernels.h"

namespace loom {
namespace cpu {
namespace {

std::string AsciiCase(std::string_view s, int (*change)(int)) {
  std::string out(s);
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x80) c = static_cast<char>(change(static_cast<unsigned char>(c)));
  }
  return out;
}

class StringNormalizerKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    const std::string action = info.StringOr("case_change_action", "NONE");
    if (action == "LOWER") change_ = &::tolower;
    else if (action == "UPPER") change_ = &::toupper;
    else if (action != "NONE") {
      return sdk::InvalidArgument(label_ + ": attribute 'case_change_action' must be NONE, LOWER or UPPER; found '" +
                                  action + "'");
    }
    case_sensitive_ = info.IntOr("is_case_sensitive", 0) != 0;
    std::vector<std::string> words;
    (void)info.GetStrings("stopwords", &words);
    for (const std::string& w : words) stopwords_.insert(case_sensitive_ ? w : AsciiCase(w, &::tolower));
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    const Tensor x = ctx.Input(0);
    const std::vector<int64_t> xs = x.shape();
    if (!(xs.size() == 1 || (xs.size() == 2 && xs[0] == 1))) {
      return sdk::InvalidArgument(label_ + ": input 'X' must be [C] or [1, C]; found " + ShapeStr(xs));
    }
    std::vector<std::string> kept;
    for (int64_t i = 0; i < x.num_elements(); ++i) {
      const std::string_view s = sdk::StringAt(x, static_cast<size_t>(i));
      if (stopwords_.count(case_sensitive_ ? std::string(s) : AsciiCase(s, &::tolower))) continue;
      kept.push_back(change_ != nullptr ? AsciiCase(s, change_) : std::string(s));
    }
    if (kept.empty()) kept.emplace_back();  // ONNX: [""] when everything is removed
    std::vector<int64_t> ys = xs;
    ys.back() = static_cast<int64_t>(kept.size());
    Tensor y;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_STRING, ys, &y));
    for (size_t i = 0; i < kept.size(); ++i) {
      LOOM_SDK_RETURN_IF_ERROR(sdk::SetStringAt(y, i, kept[i]));
    }
    return Status::Ok();
  }

 private:
  std::string label_;
  int (*change_)(int) = nullptr;
  bool case_sensitive_ = false;
  std::set<std::string> stopwords_;
};

}  // namespace

Status RegisterNnStringNormalizerKernels(sdk::Registrar& reg) {
  return reg.Kernel<StringNormalizerKernel>("StringNormalizer", {"CPU", "", 0, {}});
}

}  // namespace cpu
}  // namespace loom
