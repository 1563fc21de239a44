// CPU kernel of Einsum (ONNX opset 12; schema in ops/math_einsum.cc).
//
// A plain loop implementation: every dim of every operand gets a label id
// (the letters, and one id per ellipsis dim, right-aligned across operands as
// numpy broadcasting does). Each output element is the sum, over every
// combination of the labels not in the output, of the product of the operands'
// elements. An operand's offset moves by the sum of its strides over the dims
// with a label, which takes diagonals for labels repeated in one operand and
// gives stride 0 on broadcast (size-1) dims. Ellipsis dims left out of an
// explicit output are summed, like any label missing from it.
#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "plugins/cpu/cpu_common.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/parallel_for.h"
#include "plugins/cpu/tensor_util.h"

namespace loom {
namespace cpu {
namespace {

constexpr int kEllipsis = -1;
constexpr int kLetters = 52;  // 'A'..'Z' as 0..25, 'a'..'z' as 26..51: ASCII order

// Parses one term ("ij", "...ij", "i...j", "") into letter codes with
// kEllipsis for "..."; false on another character or a second ellipsis.
bool ParseTerm(const std::string& t, std::vector<int>* out, std::string* error) {
  out->clear();
  bool seen_ellipsis = false;
  for (size_t i = 0; i < t.size(); ++i) {
    const char ch = t[i];
    if (ch == '.') {
      if (t.compare(i, 3, "...") != 0 || seen_ellipsis) {
        *error = "term '" + t + "' has a '.' that is not one '...'";
        return false;
      }
      seen_ellipsis = true;
      out->push_back(kEllipsis);
      i += 2;
    } else if (ch >= 'A' && ch <= 'Z') {
      out->push_back(ch - 'A');
    } else if (ch >= 'a' && ch <= 'z') {
      out->push_back(26 + ch - 'a');
    } else {
      *error = "term '" + t + "' has the character '" + std::string(1, ch) + "'; expected letters or '...'";
      return false;
    }
  }
  return true;
}

// Accumulator of the sum of products: double for the float dtypes, 64-bit
// integers for the integer ones (wrapping as the storage type would).
template <typename S>
using Acc = std::conditional_t<std::is_floating_point_v<typename Num<S>::C>, double,
                               std::conditional_t<std::is_signed_v<S>, int64_t, uint64_t>>;

// Einsum over the numeric dtypes. Errors (InvalidArgument): a malformed
// equation (at Init), an operand count or rank that does not match its term,
// label sizes that differ (other than 1, which broadcasts), an output label
// not in any input or repeated, differing dims under one repeated label.
class EinsumKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    std::string eq;
    LOOM_SDK_RETURN_IF_ERROR(info.GetString("equation", &eq));
    std::string s;
    for (char ch : eq) {
      if (ch != ' ' && ch != '\t') s.push_back(ch);
    }
    const size_t arrow = s.find("->");
    explicit_ = arrow != std::string::npos;
    const std::string lhs = explicit_ ? s.substr(0, arrow) : s;
    std::string error;
    size_t begin = 0;
    while (true) {
      const size_t comma = lhs.find(',', begin);
      std::vector<int> term;
      if (!ParseTerm(lhs.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin), &term,
                     &error)) {
        return sdk::InvalidArgument(label_ + ": attribute 'equation' \"" + eq + "\": " + error);
      }
      terms_.push_back(term);
      if (comma == std::string::npos) break;
      begin = comma + 1;
    }
    if (explicit_ && !ParseTerm(s.substr(arrow + 2), &out_term_, &error)) {
      return sdk::InvalidArgument(label_ + ": attribute 'equation' \"" + eq + "\" output: " + error);
    }
    equation_ = eq;
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    const size_t k = terms_.size();
    if (ctx.num_inputs() != k) {
      return sdk::InvalidArgument(label_ + ": equation \"" + equation_ + "\" has " + std::to_string(k) +
                                  " operand(s); found " + std::to_string(ctx.num_inputs()) + " input(s)");
    }
    std::vector<Tensor> in(k);
    // Ellipsis dims of each operand, and their most (E): ids 0..E-1.
    std::vector<int64_t> ell(k, 0);
    int64_t e_max = 0;
    for (size_t i = 0; i < k; ++i) {
      in[i] = ctx.Input(i);
      if (in[i].dtype() != in[0].dtype()) {
        return sdk::InvalidArgument(label_ + ": input " + std::to_string(i) + " is " + sdk::DTypeName(in[i].dtype()) +
                                    "; expected " + sdk::DTypeName(in[0].dtype()) + " as input 0");
      }
      int64_t letters = 0;
      bool has_ell = false;
      for (int c : terms_[i]) {
        if (c == kEllipsis) has_ell = true;
        else ++letters;
      }
      const int64_t rank = static_cast<int64_t>(in[i].rank());
      if (has_ell ? rank < letters : rank != letters) {
        return sdk::InvalidArgument(label_ + ": input " + std::to_string(i) + " has shape " +
                                    ShapeStr(in[i].shape()) + "; its term in \"" + equation_ + "\" needs rank " +
                                    (has_ell ? "at least " : "") + std::to_string(letters));
      }
      ell[i] = rank - letters;
      e_max = std::max(e_max, ell[i]);
    }
    const int64_t num_ids = e_max + kLetters;
    // Label ids of each operand's dims, and each id's size (-1: unseen).
    std::vector<std::vector<int64_t>> ids(k);
    std::vector<int64_t> size(num_ids, -1), count(num_ids, 0);
    for (size_t i = 0; i < k; ++i) {
      for (int c : terms_[i]) {
        if (c == kEllipsis) {
          for (int64_t j = e_max - ell[i]; j < e_max; ++j) ids[i].push_back(j);
        } else {
          ids[i].push_back(e_max + c);
          ++count[e_max + c];
        }
      }
      const std::vector<int64_t> shape = in[i].shape();
      for (size_t dd = 0; dd < shape.size(); ++dd) {
        int64_t& sz = size[ids[i][dd]];
        if (sz == -1 || sz == 1) sz = shape[dd];
        else if (shape[dd] != sz && shape[dd] != 1) {
          return sdk::InvalidArgument(label_ + ": input " + std::to_string(i) + " of shape " + ShapeStr(shape) +
                                      " has size " + std::to_string(shape[dd]) + " on dim " + std::to_string(dd) +
                                      "; its label has size " + std::to_string(sz) + " elsewhere in \"" +
                                      equation_ + "\"");
        }
      }
    }
    // Output ids: explicit, or the ellipsis dims then the letters seen once.
    std::vector<int64_t> out_ids;
    std::vector<bool> in_out(num_ids, false);
    if (explicit_) {
      for (int c : out_term_) {
        if (c == kEllipsis) {
          for (int64_t j = 0; j < e_max; ++j) out_ids.push_back(j);
          continue;
        }
        const int64_t id = e_max + c;
        if (size[id] == -1 || in_out[id]) {
          return sdk::InvalidArgument(label_ + ": equation \"" + equation_ + "\" has the output label '" +
                                      std::string(1, c < 26 ? 'A' + c : 'a' + c - 26) + "' " +
                                      (in_out[id] ? "twice" : "in no input"));
        }
        in_out[id] = true;
        out_ids.push_back(id);
      }
    } else {
      for (int64_t j = 0; j < e_max; ++j) out_ids.push_back(j);
      for (int64_t id = e_max; id < num_ids; ++id) {
        if (count[id] == 1) out_ids.push_back(id);
      }
    }
    for (int64_t id : out_ids) in_out[id] = true;
    std::vector<int64_t> red_ids;
    for (int64_t id = 0; id < num_ids; ++id) {
      if (!in_out[id] && size[id] != -1) red_ids.push_back(id);
    }
    // Per operand and id: the stride of the offset (0 on broadcast dims).
    std::vector<std::vector<int64_t>> stride(k, std::vector<int64_t>(num_ids, 0));
    for (size_t i = 0; i < k; ++i) {
      const std::vector<int64_t> shape = in[i].shape(), rm = RowMajorStrides(shape);
      for (size_t dd = 0; dd < shape.size(); ++dd) {
        const int64_t id = ids[i][dd];
        if (shape[dd] == 1 && size[id] != 1) continue;  // broadcast
        // A label repeated in one operand (a diagonal) needs equal dims.
        for (size_t d2 = 0; d2 < dd; ++d2) {
          if (ids[i][d2] == id && shape[d2] != shape[dd]) {
            return sdk::InvalidArgument(label_ + ": input " + std::to_string(i) + " of shape " + ShapeStr(shape) +
                                        " repeats a label over dims of different sizes in \"" + equation_ + "\"");
          }
        }
        stride[i][id] += rm[dd];
      }
    }
    std::vector<int64_t> out_shape, red_size;
    for (int64_t id : out_ids) out_shape.push_back(size[id]);
    for (int64_t id : red_ids) red_size.push_back(size[id]);
    Tensor y;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, in[0].dtype(), out_shape, &y));
    const int64_t n_out = Product(out_shape), n_red = Product(red_size);
    return DispatchNumeric(in[0].dtype(), label_, [&](auto tag) -> Status {
      using S = decltype(tag);
      using A = Acc<S>;
      std::vector<const S*> src(k);
      for (size_t i = 0; i < k; ++i) src[i] = in[i].data<S>();
      S* dst = y.data<S>();
      const size_t no = out_ids.size(), nr = red_ids.size();
      ParallelRange(n_out, n_out * n_red * static_cast<int64_t>(k), ctx.num_threads(), [&](int64_t lo, int64_t hi) {
        std::vector<int64_t> off(k), idx(nr);
        for (int64_t o = lo; o < hi; ++o) {
          // The operands' offsets at this output coordinate.
          std::fill(off.begin(), off.end(), 0);
          int64_t rest = o;
          for (size_t d = no; d-- > 0;) {
            const int64_t c = rest % out_shape[d];
            rest /= out_shape[d];
            for (size_t i = 0; i < k; ++i) off[i] += c * stride[i][out_ids[d]];
          }
          std::fill(idx.begin(), idx.end(), 0);
          A acc = 0;
          for (int64_t r = 0; r < n_red; ++r) {
            A p = 1;
            for (size_t i = 0; i < k; ++i) p *= static_cast<A>(Num<S>::Load(src[i][off[i]]));
            acc += p;
            // Odometer step over the summed labels, last fastest.
            for (size_t d = nr; d-- > 0;) {
              const int64_t id = red_ids[d];
              for (size_t i = 0; i < k; ++i) off[i] += stride[i][id];
              if (++idx[d] < red_size[d]) break;
              for (size_t i = 0; i < k; ++i) off[i] -= stride[i][id] * red_size[d];
              idx[d] = 0;
            }
          }
          dst[o] = Num<S>::Store(static_cast<typename Num<S>::C>(acc));
        }
      });
      return Status::Ok();
    });
  }

 private:
  std::string label_, equation_;
  std::vector<std::vector<int>> terms_;
  std::vector<int> out_term_;
  bool explicit_ = false;
};

}  // namespace

Status RegisterMathEinsumKernels(sdk::Registrar& reg) { return reg.Kernel<EinsumKernel>("Einsum"); }

}  // namespace cpu
}  // namespace loom
