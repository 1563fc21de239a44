// ONNX Cast-13 to and from string tensors, shared by every device's Cast:
// the text a number becomes and the numbers a text reads as.
//
// ONNX leaves the text undefined; we write what its reference
// implementation (numpy's str) writes, which ONNX's test data holds:
// floats as the shortest text that reads back to the same value,
// positional for 1e-4 <= |x| < 1e16 ("0.039187793", "3.0"), else
// scientific with a sign and at least two exponent digits ("1e-05",
// "1.5e+16"); NaN, INF and -INF as ONNX Runtime writes them (which reading
// back accepts); integers in decimal; bool as "True" / "False". Reading
// accepts what C's strtod / strtoll / strtoull accept over the whole text
// ("NaN", "INF", "+INF", "-INF" included) less C's hexadecimal floats
// ("0x10", which numpy refuses), integers only within the target
// type's range (unsigned ones without a sign; numpy refuses the rest too)
// and, for bool, "True"/"true"/"1" and "False"/"false"/"0".
#ifndef LOOM_OPS_SEMANTICS_CAST_STRING_H_
#define LOOM_OPS_SEMANTICS_CAST_STRING_H_

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace loom {
namespace semantics {

// `v` as text; `single`: v is a float32 value (shortest float32 digits).
inline std::string FloatToText(double v, bool single) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "INF" : "-INF";
  char buf[64];
  std::to_chars_result r = single ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(v), std::chars_format::scientific)
                                  : std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string s(buf, r.ptr);  // "-9.767611e-01"
  const bool negative = s[0] == '-';
  if (negative) s.erase(0, 1);
  const size_t e = s.find('e');
  const int exp = std::atoi(s.c_str() + e + 1);
  std::string digits;
  for (size_t i = 0; i < e; ++i) {
    if (s[i] != '.') digits += s[i];
  }
  std::string out;
  if (exp >= -4 && exp < 16) {
    if (exp >= 0) {
      const size_t whole = static_cast<size_t>(exp) + 1;
      if (digits.size() <= whole) {
        out = digits + std::string(whole - digits.size(), '0') + ".0";
      } else {
        out = digits.substr(0, whole) + "." + digits.substr(whole);
      }
    } else {
      out = "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
    }
  } else {
    out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char tail[16];
    std::snprintf(tail, sizeof tail, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    out += tail;
  }
  return negative ? "-" + out : out;
}

// The whole of `text` as a double; false when it is not a number.
inline bool TextToFloat(std::string_view text, double* out) {
  const std::string s(text);
  if (s.empty()) return false;
  // strtod reads C's hexadecimal floats ("0x10"); numpy's float() does not.
  const size_t digits = s.find_first_not_of(" \t\n\v\f\r+-");
  if (digits != std::string::npos && s.compare(digits, 2, "0x") == 0) return false;
  if (digits != std::string::npos && s.compare(digits, 2, "0X") == 0) return false;
  char* end = nullptr;
  errno = 0;
  *out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

// The whole of `text` as an int64; false when it is not an integer in range.
inline bool TextToInt(std::string_view text, long long* out) {
  const std::string s(text);
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  *out = std::strtoll(s.c_str(), &end, 10);
  return end == s.c_str() + s.size() && errno != ERANGE;
}

// The whole of `text` as an unsigned integer (no sign); false when it is
// not one or is out of range.
inline bool TextToUnsigned(std::string_view text, unsigned long long* out) {
  const std::string s(text);
  if (s.empty() || s.find('-') != std::string::npos) return false;
  char* end = nullptr;
  errno = 0;
  *out = std::strtoull(s.c_str(), &end, 10);
  return end == s.c_str() + s.size() && errno != ERANGE;
}

inline bool TextToBool(std::string_view text, bool* out) {
  if (text == "True" || text == "true" || text == "1") { *out = true; return true; }
  if (text == "False" || text == "false" || text == "0") { *out = false; return true; }
  return false;
}

}  // namespace semantics
}  // namespace loom

#endif  // LOOM_OPS_SEMANTICS_CAST_STRING_H_
