// Reads the parts of a Loom NetDef (core/proto/loom.proto, protobuf binary)
// that control-flow kernels need — name, external inputs and outputs, and
// string arguments — without linking protobuf or the core (see
// netdef_writer.h for why).
#ifndef LOOM_PLUGINS_NESTED_NETDEF_READER_H_
#define LOOM_PLUGINS_NESTED_NETDEF_READER_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace loom {
namespace nested {

struct NetDefSummary {
  std::string name;
  std::vector<std::string> external_input;   // NetDef field 6
  std::vector<std::string> external_output;  // NetDef field 7
  std::map<std::string, std::string> string_args;  // Argument.s by Argument.name
};

namespace internal {

// A cursor over protobuf wire format; every read fails (returns false) on
// truncated or malformed input instead of reading past the end.
class WireReader {
 public:
  WireReader(const char* p, size_t n) : p_(p), end_(p + n) {}
  bool done() const { return p_ >= end_; }
  bool Varint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ >= end_) return false;
      uint8_t b = static_cast<uint8_t>(*p_++);
      *v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return true;
    }
    return false;
  }
  // Reads a tag; for a length-delimited field also its payload.
  bool Field(int* number, int* wire, std::string* payload) {
    uint64_t tag = 0;
    if (!Varint(&tag)) return false;
    *number = static_cast<int>(tag >> 3);
    *wire = static_cast<int>(tag & 7);
    uint64_t v = 0;
    switch (*wire) {
      case 0: return Varint(&v);
      case 1: return Skip(8);
      case 5: return Skip(4);
      case 2:
        if (!Varint(&v) || v > static_cast<uint64_t>(end_ - p_)) return false;
        payload->assign(p_, v);
        p_ += v;
        return true;
      default: return false;  // groups are not used by loom.proto
    }
  }

 private:
  bool Skip(size_t n) {
    if (static_cast<size_t>(end_ - p_) < n) return false;
    p_ += n;
    return true;
  }
  const char* p_;
  const char* end_;
};

}  // namespace internal

// Parses `bytes` (a serialized loom.NetDef). Returns false if it is not
// well-formed protobuf.
inline bool ReadNetDefSummary(const std::string& bytes, NetDefSummary* out) {
  internal::WireReader r(bytes.data(), bytes.size());
  int number = 0, wire = 0;
  std::string payload;
  while (!r.done()) {
    if (!r.Field(&number, &wire, &payload)) return false;
    if (wire != 2) continue;
    if (number == 1) out->name = payload;
    if (number == 6) out->external_input.push_back(payload);
    if (number == 7) out->external_output.push_back(payload);
    if (number == 5) {  // Argument: name = 1, s = 4
      internal::WireReader a(payload.data(), payload.size());
      std::string name, s, field;
      int n = 0, w = 0;
      while (!a.done()) {
        if (!a.Field(&n, &w, &field)) return false;
        if (w == 2 && n == 1) name = field;
        if (w == 2 && n == 4) s = field;
      }
      if (!s.empty()) out->string_args[name] = s;
    }
  }
  return true;
}

}  // namespace nested
}  // namespace loom

#endif  // LOOM_PLUGINS_NESTED_NETDEF_READER_H_
