#include "core/proto_io.h"

#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/external_data.h"
#include "core/limits.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/text_format.h"

namespace loom {
namespace {

bool IsTextPath(const std::string& path) {
  return absl::EndsWith(path, ".pbtxt") || absl::EndsWith(path, ".txt") || absl::EndsWith(path, ".prototxt");
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open '", path, "'"));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

absl::Status WriteFile(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary);
  if (!out) return absl::PermissionDeniedError(absl::StrCat("cannot write '", path, "'"));
  out << data;
  return out ? absl::OkStatus() : absl::DataLossError(absl::StrCat("short write to '", path, "'"));
}

template <typename T, typename F>
void FillFrom(Tensor* t, const F& field) {
  T* d = t->data<T>();
  for (int64_t i = 0; i < t->num_elements(); ++i) d[i] = static_cast<T>(field.Get(static_cast<int>(i)));
}

// A tensor whose bytes are in a file (core/external_data.h).
absl::StatusOr<Tensor> ExternalTensorFromProto(const TensorProto& p, const std::string& label) {
  if (p.data_type() == static_cast<int32_t>(DataType::kString) || !IsSupportedDataType(p.data_type())) {
    return absl::InvalidArgumentError(absl::StrCat(label, ": external data of data_type ", p.data_type(),
                                                   " is not supported"));
  }
  if (p.has_raw_data() || p.float_data_size() || p.double_data_size() || p.int64_data_size() || p.int32_data_size()) {
    return absl::InvalidArgumentError(absl::StrCat(label, ": has both external_data and values"));
  }
  const DataType dt = static_cast<DataType>(p.data_type());
  Shape dims(p.dims().begin(), p.dims().end());
  absl::StatusOr<int64_t> bytes = CheckedNumBytes(dt, dims);
  if (!bytes.ok()) return absl::InvalidArgumentError(absl::StrCat(label, ": dims: ", bytes.status().message()));
  const ExternalData& e = p.external_data();
  if (e.has_length() && e.length() != *bytes) {
    return absl::InvalidArgumentError(absl::StrCat(label, ": external data length ", e.length(), " bytes; ",
                                                   DataTypeName(dt), ShapeToString(dims), " needs ", *bytes));
  }
  return LoadExternalTensor(label, dt, std::move(dims), e.location(), e.offset());
}

}  // namespace

std::string FolderOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

absl::StatusOr<Tensor> TensorFromProto(const TensorProto& p) {
  std::string label = absl::StrCat("tensor '", p.name(), "'");
  if (p.has_external_data()) return ExternalTensorFromProto(p, label);
  if (p.data_type() == static_cast<int32_t>(DataType::kString)) {
    Shape dims(p.dims().begin(), p.dims().end());
    absl::StatusOr<int64_t> n = CheckedNumBytes(DataType::kInt8, dims);  // the element count, checked
    if (!n.ok()) return absl::InvalidArgumentError(absl::StrCat(label, ": dims: ", n.status().message()));
    if (p.string_data_size() != *n) {
      return absl::InvalidArgumentError(absl::StrCat(label, ": string_data has ", p.string_data_size(), " values; string",
                                                     ShapeToString(dims), " needs ", *n));
    }
    auto t = Tensor::Create(DataType::kString, dims);
    if (!t.ok()) return absl::Status(t.status().code(), absl::StrCat(label, ": ", t.status().message()));
    for (int64_t i = 0; i < *n; ++i) (*t->mutable_strings())[i] = p.string_data(static_cast<int>(i));
    return t;
  }
  if (!IsSupportedDataType(p.data_type())) {
    return absl::InvalidArgumentError(absl::StrCat(label, ": unsupported data_type ", p.data_type()));
  }
  DataType dt = static_cast<DataType>(p.data_type());
  Shape dims(p.dims().begin(), p.dims().end());
  // Everything is checked against the data the proto holds before anything
  // is allocated: a proto cannot declare more than it carries.
  absl::StatusOr<int64_t> bytes = CheckedNumBytes(dt, dims);
  if (!bytes.ok()) return absl::InvalidArgumentError(absl::StrCat(label, ": dims: ", bytes.status().message()));
  const int64_t n = *bytes / static_cast<int64_t>(DataTypeSize(dt));
  if (p.has_raw_data()) {
    if (static_cast<int64_t>(p.raw_data().size()) != *bytes) {
      return absl::InvalidArgumentError(absl::StrCat(label, ": raw_data has ", p.raw_data().size(), " bytes; ",
                                                     DataTypeName(dt), ShapeToString(dims), " needs ", *bytes));
    }
    auto t = Tensor::Create(dt, dims);
    if (!t.ok()) return absl::Status(t.status().code(), absl::StrCat(label, ": ", t.status().message()));
    if (n) std::memcpy(t->raw_data(), p.raw_data().data(), t->nbytes());
    return t;
  }
  int64_t have = 0;
  switch (dt) {
    case DataType::kFloat32: have = p.float_data_size(); break;
    case DataType::kFloat64: have = p.double_data_size(); break;
    case DataType::kInt64: have = p.int64_data_size(); break;
    default: have = p.int32_data_size(); break;
  }
  if (have != n) {
    return absl::InvalidArgumentError(absl::StrCat(label, ": has ", have, " values; ", DataTypeName(dt),
                                                   ShapeToString(dims), " needs ", n));
  }
  auto t = Tensor::Create(dt, dims);
  if (!t.ok()) return absl::Status(t.status().code(), absl::StrCat(label, ": ", t.status().message()));
  switch (dt) {
    case DataType::kFloat32: FillFrom<float>(&*t, p.float_data()); break;
    case DataType::kFloat64: FillFrom<double>(&*t, p.double_data()); break;
    case DataType::kInt64: FillFrom<int64_t>(&*t, p.int64_data()); break;
    case DataType::kInt32: FillFrom<int32_t>(&*t, p.int32_data()); break;
    case DataType::kInt16: FillFrom<int16_t>(&*t, p.int32_data()); break;
    case DataType::kUInt16: case DataType::kFloat16: case DataType::kBFloat16: FillFrom<uint16_t>(&*t, p.int32_data()); break;
    case DataType::kInt8: FillFrom<int8_t>(&*t, p.int32_data()); break;
    case DataType::kUInt8: FillFrom<uint8_t>(&*t, p.int32_data()); break;
    case DataType::kBool: FillFrom<bool>(&*t, p.int32_data()); break;
    default:
      return absl::InvalidArgumentError(absl::StrCat(label, ": ", DataTypeName(dt), " values must be in raw_data"));
  }
  return t;
}

absl::StatusOr<Tensor> TensorFromProto(TensorProto&& p) {
  const DataType dt = static_cast<DataType>(p.data_type());
  if (p.has_raw_data() && IsSupportedDataType(p.data_type())) {
    Shape dims(p.dims().begin(), p.dims().end());
    absl::StatusOr<int64_t> bytes = CheckedNumBytes(dt, dims);
    auto held = std::make_shared<std::string>(std::move(*p.mutable_raw_data()));
    p.clear_raw_data();
    const bool fits = bytes.ok() && static_cast<int64_t>(held->size()) == *bytes;
    if (fits && *bytes > 0 && reinterpret_cast<uintptr_t>(held->data()) % DataTypeSize(dt) == 0) {
      void* data = held->data();
      absl::StatusOr<Tensor> t = Tensor::Borrow(dt, std::move(dims), data, std::move(held));
      if (t.ok()) return t;
      return absl::Status(t.status().code(), absl::StrCat("tensor '", p.name(), "': ", t.status().message()));
    }
    p.set_raw_data(std::move(*held));  // the copying path checks and says what is wrong
  }
  absl::StatusOr<Tensor> t = TensorFromProto(static_cast<const TensorProto&>(p));
  if (t.ok()) {
    TensorProto meta;  // values go now (Swap frees them)
    meta.set_name(p.name());
    p.Swap(&meta);
  }
  return t;
}

TensorProto TensorToProto(const Tensor& t, const std::string& name) {
  TensorProto p;
  if (!name.empty()) p.set_name(name);
  for (int64_t d : t.dims()) p.add_dims(d);
  p.set_data_type(static_cast<int32_t>(t.dtype()));
  if (t.dtype() == DataType::kString) {
    for (const std::string& s : t.strings()) p.add_string_data(s);
    return p;
  }
  p.set_raw_data(t.nbytes() ? std::string(static_cast<const char*>(t.raw_data()), t.nbytes()) : std::string());
  return p;
}

namespace {

// protobuf's default recursion limit (100 nested messages) allows about 33
// nested nets (NetDef > OperatorDef > Argument > NetDef); Loom's own limit,
// NetOptions::max_nesting_depth, says how deep is too deep, with a clear
// error, so the parsers allow more.
constexpr int kNetDefRecursionLimit = 1000;

bool ParseText(const std::string& text, google::protobuf::Message* m) {
  google::protobuf::TextFormat::Parser parser;
  parser.SetRecursionLimit(kNetDefRecursionLimit);
  return parser.ParseFromString(text, m);
}

}  // namespace

bool ParseBinaryProto(absl::string_view data, google::protobuf::Message* m) {
  if (data.size() > static_cast<size_t>(std::numeric_limits<int>::max())) return false;
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(data.data()), static_cast<int>(data.size()));
  in.SetRecursionLimit(kNetDefRecursionLimit);
  return m->ParseFromCodedStream(&in) && in.ConsumedEntireMessage();
}

bool ParseBinaryProto(google::protobuf::io::ZeroCopyInputStream* stream, google::protobuf::Message* m) {
  google::protobuf::io::CodedInputStream in(stream);
  in.SetRecursionLimit(kNetDefRecursionLimit);
  return m->ParseFromCodedStream(&in) && in.ConsumedEntireMessage();
}

absl::StatusOr<NetDef> ParseNetDefText(const std::string& text) {
  NetDef net;
  if (!ParseText(text, &net)) {
    return absl::InvalidArgumentError("NetDef text does not parse");
  }
  if (absl::Status s = ResolveExternalData(&net, ""); !s.ok()) return s;  // text has no folder
  return net;
}

absl::StatusOr<NetDef> ReadNetDef(const std::string& path) {
  auto data = ReadFile(path);
  if (!data.ok()) return data.status();
  NetDef net;
  bool parsed = !IsTextPath(path) && ParseBinaryProto(*data, &net);
  if (!parsed) {
    net.Clear();
    parsed = ParseText(*data, &net);
  }
  if (!parsed) return absl::InvalidArgumentError(absl::StrCat("'", path, "' is neither a binary nor a text-format NetDef"));
  if (absl::Status s = ResolveExternalData(&net, FolderOf(path)); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat(path, ": ", s.message()));
  }
  return net;
}

absl::Status WriteNetDef(const NetDef& net, const std::string& path) {
  std::string out;
  if (IsTextPath(path)) {
    google::protobuf::TextFormat::PrintToString(net, &out);
  } else {
    net.SerializeToString(&out);
  }
  return WriteFile(path, out);
}

absl::StatusOr<TensorProto> ReadTensorProto(const std::string& path) {
  auto data = ReadFile(path);
  if (!data.ok()) return data.status();
  TensorProto t;
  bool parsed = !IsTextPath(path) && t.ParseFromString(*data);
  if (!parsed) {
    t.Clear();
    parsed = google::protobuf::TextFormat::ParseFromString(*data, &t);
  }
  if (!parsed) return absl::InvalidArgumentError(absl::StrCat("'", path, "' is not a TensorProto"));
  if (t.has_external_data()) {  // beside the tensor's file, as a NetDef's
    absl::StatusOr<std::string> full =
        ResolveDataLocation(absl::StrCat("tensor '", t.name(), "'"), FolderOf(path), t.external_data().location());
    if (!full.ok()) return absl::Status(full.status().code(), absl::StrCat(path, ": ", full.status().message()));
    t.mutable_external_data()->set_location(*full);
  }
  return t;
}

absl::Status WriteTensorProto(const TensorProto& t, const std::string& path) {
  std::string out;
  if (IsTextPath(path)) {
    google::protobuf::TextFormat::PrintToString(t, &out);
  } else {
    t.SerializeToString(&out);
  }
  return WriteFile(path, out);
}

}  // namespace loom
