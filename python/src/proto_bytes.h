// Protos across the binding as serialized bytes (the Python side holds
// loom_pb2 messages, generated from the same core/proto/loom.proto).
#ifndef LOOM_PYTHON_SRC_PROTO_BYTES_H_
#define LOOM_PYTHON_SRC_PROTO_BYTES_H_

#include <pybind11/pybind11.h>

#include <string>
#include <type_traits>

#include "absl/status/status.h"
#include "core/external_data.h"
#include "core/proto_io.h"
#include "python/src/status.h"

namespace loom {
namespace python {

// `bytes` parsed as a `Message`; INVALID_ARGUMENT naming `what` otherwise.
template <typename Message>
Message ParseBytes(const pybind11::bytes& bytes, const std::string& what) {
  Message m;
  const std::string data = bytes;
  if (!ParseBinaryProto(data, &m)) {
    Check(absl::InvalidArgumentError("loom: " + what + " does not parse as a " + m.GetTypeName()));
  }
  if constexpr (std::is_same_v<Message, NetDef>) {
    Check(ResolveExternalData(&m, ""));  // bytes have no folder: external data is refused
  }
  return m;
}

template <typename Message>
pybind11::bytes ToBytes(const Message& m) {
  return pybind11::bytes(m.SerializeAsString());
}

}  // namespace python
}  // namespace loom

#endif  // LOOM_PYTHON_SRC_PROTO_BYTES_H_
