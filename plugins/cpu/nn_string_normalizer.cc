// StringNormalizer-10 kernel (ops/nn_string_normalizer.cc): stopwords are
// read once at Init; Unicode's simple case mappings on UTF-8 text.
#include <locale.h>
#include <wchar.h>
#include <wctype.h>

#include <cctype>
#include <climits>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "plugins/cpu/cpu_common.h"
#include "plugins/cpu/kernels.h"

namespace loom {
namespace cpu {
namespace {

// Unicode's simple case mappings of UTF-8 text, by glibc's C.UTF-8 tables
// (towupper_l / towlower_l: what ONNX Runtime's std::towupper gives, "é" to
// "É", "σ" to "Σ"); one code point to one, so "ß" stays. ASCII rules only
// where the C library has no C.UTF-8.
class CaseMapping {
 public:
  CaseMapping() : utf8_(newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr))) {}
  ~CaseMapping() {
    if (utf8_ != nullptr) freelocale(utf8_);
  }
  CaseMapping(const CaseMapping&) = delete;
  CaseMapping& operator=(const CaseMapping&) = delete;

  // `s` with every code point mapped up or down; false for text that is
  // not UTF-8.
  bool Change(std::string_view s, bool upper, std::string* out) const {
    out->clear();
    if (utf8_ == nullptr) {
      for (char c : s) out->push_back(static_cast<unsigned char>(c) < 0x80 ? static_cast<char>(
                                          upper ? std::toupper(static_cast<unsigned char>(c))
                                                : std::tolower(static_cast<unsigned char>(c)))
                                                                            : c);
      return true;
    }
    const locale_t previous = uselocale(utf8_);  // mbrtowc / wcrtomb read the thread's locale
    mbstate_t in{}, back{};
    bool ok = true;
    for (size_t at = 0; at < s.size();) {
      wchar_t wc = 0;
      const size_t n = mbrtowc(&wc, s.data() + at, s.size() - at, &in);
      if (n == static_cast<size_t>(-1) || n == static_cast<size_t>(-2)) {
        ok = false;
        break;
      }
      wc = static_cast<wchar_t>(upper ? towupper_l(static_cast<wint_t>(wc), utf8_)
                                      : towlower_l(static_cast<wint_t>(wc), utf8_));
      char buf[MB_LEN_MAX];
      const size_t k = wcrtomb(buf, wc, &back);
      if (k == static_cast<size_t>(-1)) {
        ok = false;
        break;
      }
      out->append(buf, k);
      at += n == 0 ? 1 : n;  // n 0: an embedded NUL, one byte
    }
    uselocale(previous);
    return ok;
  }

 private:
  locale_t utf8_;
};

class StringNormalizerKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    action_ = info.StringOr("case_change_action", "NONE");
    if (action_ != "NONE" && action_ != "LOWER" && action_ != "UPPER") {
      return sdk::InvalidArgument(label_ + ": attribute 'case_change_action' must be NONE, LOWER or UPPER; found '" +
                                  action_ + "'");
    }
    case_sensitive_ = info.IntOr("is_case_sensitive", 0) != 0;
    std::vector<std::string> words;
    (void)info.GetStrings("stopwords", &words);
    std::string lower;
    for (size_t i = 0; i < words.size(); ++i) {
      if (!case_sensitive_ && !case_.Change(words[i], /*upper=*/false, &lower)) {
        return sdk::InvalidArgument(label_ + ": stopwords[" + std::to_string(i) + "] is not UTF-8");
      }
      stopwords_.insert(case_sensitive_ ? words[i] : lower);
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    const Tensor x = ctx.Input(0);
    const std::vector<int64_t> xs = x.shape();
    if (!(xs.size() == 1 || (xs.size() == 2 && xs[0] == 1))) {
      return sdk::InvalidArgument(label_ + ": input 'X' must be [C] or [1, C]; found " + ShapeStr(xs));
    }
    std::vector<std::string> kept;
    std::string lower, changed;
    for (int64_t i = 0; i < x.num_elements(); ++i) {
      const std::string_view s = sdk::StringAt(x, static_cast<size_t>(i));
      const bool need_lower = !case_sensitive_ || action_ == "LOWER";
      if (need_lower && !case_.Change(s, /*upper=*/false, &lower)) {
        return sdk::InvalidArgument(label_ + ": element " + std::to_string(i) + " of input 'X' is not UTF-8");
      }
      if (stopwords_.count(case_sensitive_ ? std::string(s) : lower)) continue;
      if (action_ == "UPPER") {
        if (!case_.Change(s, /*upper=*/true, &changed)) {
          return sdk::InvalidArgument(label_ + ": element " + std::to_string(i) + " of input 'X' is not UTF-8");
        }
        kept.push_back(changed);
      } else {
        kept.push_back(action_ == "LOWER" ? lower : std::string(s));
      }
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
  std::string action_;  // NONE, LOWER or UPPER
  CaseMapping case_;
  bool case_sensitive_ = false;
  std::set<std::string> stopwords_;
};

}  // namespace

Status RegisterNnStringNormalizerKernels(sdk::Registrar& reg) {
  return reg.Kernel<StringNormalizerKernel>("StringNormalizer", {"CPU", "", 0, {}});
}

}  // namespace cpu
}  // namespace loom
