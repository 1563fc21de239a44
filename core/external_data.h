// External data: tensors whose bytes live in a file beside the model, as
// ONNX stores weights (TensorProto.data_location EXTERNAL, keys `location`,
// `offset`, `length`) and as a Loom NetDef may (TensorProto.external_data,
// core/proto/loom.proto; loom_import writes them).
//
// A location in a model file is relative to the model's folder and confined
// to it, where ONNX and ONNX Runtime had path-traversal reports (onnx#3991,
// onnx#7686, onnxruntime#26776): refused, with INVALID_ARGUMENT naming the
// tensor and the location, are an empty or absolute location, one whose
// `..` leaves the folder, one that resolves (through symlinks) outside it, a
// file that is not a regular file (a device, a FIFO, a folder), a file with
// more than one hard link (a link to a file elsewhere), a `length` other
// than the tensor's byte size, and a file too short for offset + length. A
// model given as bytes has no folder: its external data is refused unless
// the caller names one (onnxruntime#27430 was that hole).
//
// Once checked, a location is held as the file's absolute path: that is the
// form TensorFromProto maps (core/proto_io.h), and only a loader that has
// checked it writes it (a NetDef read from a file or bytes never keeps an
// absolute location: ResolveExternalData refuses them). The path is
// realpath's, with no symlinks in it, and is opened with openat2's
// RESOLVE_NO_SYMLINKS: a folder swapped for a symlink after the check is
// not followed (before Linux 5.6, O_NOFOLLOW guards the last part only).
#ifndef LOOM_CORE_EXTERNAL_DATA_H_
#define LOOM_CORE_EXTERNAL_DATA_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/proto/loom.pb.h"
#include "core/tensor.h"

namespace loom {

// External tensors at least this large (bytes) whose offset is a multiple
// of their element size are mapped (mmap) rather than read; smaller or
// misaligned ones are read with pread into memory of their own.
inline constexpr int64_t kMapExternalDataMinBytes = 64 << 10;

// The absolute path of `location` in `folder`, checked as above (the path's
// parts and where its symlinks lead; the file's kind is checked when it is
// opened). `label` ("tensor 'w'") starts every message. `folder` "": the
// model has none, INVALID_ARGUMENT saying so. NOT_FOUND for a missing
// folder or file.
absl::StatusOr<std::string> ResolveDataLocation(const std::string& label, const std::string& folder,
                                                const std::string& location);

// Checks that the regular, single-link file at absolute `path` holds
// `bytes` bytes at `offset` (the errors above; `location` is the name the
// model gave it, for messages). Returns the file's size.
absl::StatusOr<int64_t> CheckDataFile(const std::string& label, const std::string& path, const std::string& location,
                                      int64_t offset, int64_t bytes);

// A CPU tensor of `dtype` `dims` from `bytes` bytes at `offset` of the
// file at absolute `path`: mapped private and copy-on-write (writes, e.g. a
// training update, never reach the file) when kMapExternalDataMinBytes and
// the offset's alignment allow, read otherwise. The file is checked as in
// CheckDataFile. A mapped file must not shrink while the tensor lives
// (reading a page past its end is SIGBUS, as for every mmap).
absl::StatusOr<Tensor> LoadExternalTensor(const std::string& label, DataType dtype, Shape dims,
                                          const std::string& path, int64_t offset);

// Makes every external_data location in `net` (initializers and tensor
// attributes, in nested nets too) the absolute path of the file it names
// in `folder`, checked as above; absolute locations are refused. `folder`
// "": the NetDef came as bytes with no folder named, and any external
// tensor is refused saying so.
absl::Status ResolveExternalData(NetDef* net, const std::string& folder);

// Puts the bytes of every external tensor of `net` (nested nets too) back
// into raw_data: for a NetDef handed on as bytes, which keep no absolute
// locations (ResolveExternalData refuses them there). Errors as
// TensorFromProto's.
absl::Status InlineExternalData(NetDef* net);

// Writes `net` to `path` (WriteNetDef's formats) with every initializer of
// at least `min_bytes` bytes (in nested nets too) moved into the file
// `data_file` (a bare file name, no '/') beside it, each at a 64-byte-aligned
// offset so the tensors map aligned. Tensors are copied one at a time (external ones are
// mapped, not read whole), so peak memory stays near the largest tensor.
// The NetDef names `data_file` relative to its folder, as
// ResolveExternalData expects; ReadNetDef(path) reads it back.
// INVALID_ARGUMENT for a data_file with a '/'; file errors name the file.
absl::Status WriteNetDefWithExternalData(NetDef net, const std::string& path, const std::string& data_file,
                                         int64_t min_bytes = 1024);

}  // namespace loom

#endif  // LOOM_CORE_EXTERNAL_DATA_H_
