// Writes Loom NetDef protos (core/proto/loom.proto) in protobuf binary form
// without linking protobuf or the core: plugins must not carry their own copy
// of loom.proto's descriptors (they would clash with the core's). Covers the
// fields a plugin needs to build step nets (the rnn plugin's ONNX LSTM/GRU/RNN).
#ifndef LOOM_PLUGINS_NESTED_NETDEF_WRITER_H_
#define LOOM_PLUGINS_NESTED_NETDEF_WRITER_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace loom {
namespace nested {

class ProtoWriter {
 public:
  const std::string& bytes() const { return out_; }
  void Varint(uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<char>(v | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<char>(v));
  }
  void Tag(int field, int wire) { Varint(static_cast<uint64_t>(field) << 3 | wire); }
  void Int(int field, int64_t v) {
    Tag(field, 0);
    Varint(static_cast<uint64_t>(v));
  }
  void Float(int field, float v) {
    Tag(field, 5);
    char b[4];
    std::memcpy(b, &v, 4);
    out_.append(b, 4);
  }
  void Bytes(int field, const std::string& s) {
    Tag(field, 2);
    Varint(s.size());
    out_ += s;
  }

 private:
  std::string out_;
};

// loom.Argument
struct ArgSpec {
  std::string name;
  enum Kind { kInt, kFloat, kString, kInts, kStrings, kNet, kFloats } kind = kInt;
  int64_t i = 0;
  float f = 0;
  std::string s;  // string, or serialized NetDef for kNet
  std::vector<int64_t> ints;
  std::vector<float> floats;
  std::vector<std::string> strings;

  std::string Serialize() const {
    ProtoWriter w;
    w.Bytes(1, name);
    switch (kind) {
      case kInt: w.Int(3, i); break;
      case kFloat: w.Float(2, f); break;
      case kString: w.Bytes(4, s); break;
      case kNet: w.Bytes(6, s); break;
      case kInts: for (int64_t v : ints) w.Int(8, v); break;
      case kFloats: for (float v : floats) w.Float(7, v); break;
      case kStrings: for (const auto& v : strings) w.Bytes(9, v); break;
    }
    return w.bytes();
  }
};

// loom.OperatorDef
struct OpSpec {
  std::string type, name;
  std::vector<std::string> inputs, outputs;
  std::vector<ArgSpec> args;

  std::string Serialize() const {
    ProtoWriter w;
    for (const auto& in : inputs) w.Bytes(1, in);
    for (const auto& out : outputs) w.Bytes(2, out);
    w.Bytes(3, name);
    w.Bytes(4, type);
    for (const auto& a : args) w.Bytes(5, a.Serialize());
    return w.bytes();
  }
};

// loom.NetDef
struct NetSpec {
  std::string name;
  std::vector<OpSpec> ops;
  std::vector<std::string> external_inputs, external_outputs;

  std::string Serialize() const {
    ProtoWriter w;
    w.Bytes(1, name);
    for (const auto& op : ops) w.Bytes(2, op.Serialize());
    for (const auto& in : external_inputs) w.Bytes(6, in);
    for (const auto& out : external_outputs) w.Bytes(7, out);
    return w.bytes();
  }
};

inline ArgSpec IntArg(std::string n, int64_t v) { ArgSpec a; a.name = std::move(n); a.kind = ArgSpec::kInt; a.i = v; return a; }
inline ArgSpec StringArg(std::string n, std::string v) { ArgSpec a; a.name = std::move(n); a.kind = ArgSpec::kString; a.s = std::move(v); return a; }
inline ArgSpec IntsArg(std::string n, std::vector<int64_t> v) { ArgSpec a; a.name = std::move(n); a.kind = ArgSpec::kInts; a.ints = std::move(v); return a; }
inline ArgSpec StringsArg(std::string n, std::vector<std::string> v) { ArgSpec a; a.name = std::move(n); a.kind = ArgSpec::kStrings; a.strings = std::move(v); return a; }
inline ArgSpec NetArg(std::string n, const NetSpec& net) { ArgSpec a; a.name = std::move(n); a.kind = ArgSpec::kNet; a.s = net.Serialize(); return a; }

}  // namespace nested
}  // namespace loom

#endif  // LOOM_PLUGINS_NESTED_NETDEF_WRITER_H_
