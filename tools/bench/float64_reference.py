#!/usr/bin/python3
"""A float64 reference for a float32 ONNX model's outputs (BENCHMARKS.md).

When two float32 runtimes disagree on an output, the same model computed in
float64 tells which one is nearer the exact result. `convert` writes the
model with every float32 initializer, Constant and graph input/output in
float64 (Resize's roi and scales stay float32, as ONNX requires), and each
float32 input given as raw data (the .bin files bench.sh makes) and its
shape as a float64 ONNX TensorProto, which loom_run reads. Run the converted model with `loom_run --nchwc_block 0` (Loom's
float64 kernels are plain loops, independent of oneDNN), then `compare`
prints, for each float32 output file (raw little-endian, loom_run
--output_raw or tools/bench/ort_run.js), its max and RMS |difference| from
the float64 one and how many elements differ by more than 1e-4.

  float64_reference.py convert MODEL.onnx OUT.onnx IN.bin:D0,D1,...:OUT64.pb ...
  float64_reference.py compare REF64.bin A.bin [B.bin ...]

To find the op where two runtimes part, `expose` writes the model with
intermediate tensors as extra graph outputs (NAME, or op:TYPE for the input
and output of every node of that type), which loom_run --output_dir
--output_raw and tools/bench/ort_run.js then write as files; `pool` checks
GlobalAveragePool outputs so written against the float64 mean of their own
inputs (DIR/X.bin [N, C, H, W] and DIR/Y.bin [N, C, 1, 1], float32):

  float64_reference.py expose MODEL.onnx OUT.onnx NAME|op:TYPE ...
  float64_reference.py pool DIR X Y [X Y ...]

Needs Python's onnx and numpy: Debian's python3-onnx and python3-numpy,
which scripts/setup.sh installs (hence /usr/bin/python3).
"""
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def to_float64(t):
  return numpy_helper.from_array(numpy_helper.to_array(t).astype(np.float64), t.name)


def convert(model_path, out_path, inputs):
  model = onnx.load(model_path)
  g = model.graph
  keep = set()  # Resize's roi and scales: float32 by the ONNX schema
  for n in g.node:
    if n.op_type == "Resize":
      keep.update(n.input[1:])
  for i, t in enumerate(g.initializer):
    if t.data_type == onnx.TensorProto.FLOAT and t.name not in keep:
      g.initializer[i].CopyFrom(to_float64(t))
  for n in g.node:
    if n.output and n.output[0] in keep:
      continue
    for a in n.attribute:
      if a.type == onnx.AttributeProto.TENSOR and a.t.data_type == onnx.TensorProto.FLOAT:
        a.t.CopyFrom(to_float64(a.t))
  for v in list(g.input) + list(g.output):
    if v.type.tensor_type.elem_type == onnx.TensorProto.FLOAT:
      v.type.tensor_type.elem_type = onnx.TensorProto.DOUBLE
  del g.value_info[:]  # intermediate types are re-inferred
  onnx.save(model, out_path)
  for spec in inputs:
    src, dims, dst = spec.split(":")
    name = src.rsplit("/", 1)[-1].split(".")[0]
    x = np.fromfile(src, dtype=np.float32).astype(np.float64).reshape([int(d) for d in dims.split(",")])
    with open(dst, "wb") as f:
      f.write(numpy_helper.from_array(x, name).SerializeToString())


def compare(ref_path, others):
  ref = np.fromfile(ref_path, dtype=np.float64)
  for path in others:
    x = np.fromfile(path, dtype=np.float32).astype(np.float64)
    if x.shape != ref.shape:
      print(f"{path}: {x.size} values, the reference has {ref.size}")
      continue
    d = np.abs(x - ref)
    print(f"{path}: max |diff| {d.max():.3g}, RMS {np.sqrt((d * d).mean()):.3g}, "
          f"{int((d > 1e-4).sum())} of {d.size} above 1e-4")


def expose(model_path, out_path, names):
  model = onnx.load(model_path)
  g = model.graph
  wanted = []
  for name in names:
    if name.startswith("op:"):
      for n in g.node:
        if n.op_type == name[3:]:
          wanted += [n.input[0], n.output[0]]
    else:
      wanted.append(name)
  have = {o.name for o in g.output}
  for name in wanted:
    if name not in have:
      g.output.append(onnx.helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, None))
      have.add(name)
  onnx.save(model, out_path)
  print(f"{out_path}: {len(g.output)} outputs")


def pool(directory, pairs):
  for x_name, y_name in zip(pairs[0::2], pairs[1::2]):
    y = np.fromfile(f"{directory}/{y_name}.bin", dtype=np.float32).astype(np.float64)
    x = np.fromfile(f"{directory}/{x_name}.bin", dtype=np.float32).astype(np.float64).reshape(y.size, -1)
    ref = x.mean(axis=1)
    d = np.abs(y - ref)
    print(f"{y_name}: mean of {x.shape[1]} values per channel; max |diff| {d.max():.3g}, max relative "
          f"{(d / np.maximum(np.abs(ref), 1e-30)).max():.3g}, RMS relative {np.sqrt(((d / np.maximum(np.abs(ref), 1e-30)) ** 2).mean()):.3g}")


def main(argv):
  if len(argv) >= 3 and argv[1] == "convert":
    convert(argv[2], argv[3], argv[4:])
  elif len(argv) >= 4 and argv[1] == "compare":
    compare(argv[2], argv[3:])
  elif len(argv) >= 5 and argv[1] == "expose":
    expose(argv[2], argv[3], argv[4:])
  elif len(argv) >= 5 and argv[1] == "pool" and len(argv) % 2 == 1:
    pool(argv[2], argv[3:])
  else:
    sys.stderr.write(__doc__)
    return 2
  return 0


if __name__ == "__main__":
  sys.exit(main(sys.argv))
