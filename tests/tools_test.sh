#!/usr/bin/env bash
# End-to-end checks of the command-line tools, as a user runs them.
#   $1 loom_inspect  $2 loom_run  $3 crashing plugin  $4 ABI-99 plugin  $5 example plugin
set -uo pipefail
inspect=$1 run=$2 crash=$3 abi=$4 example=$5
fail=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi; }

# The JSON is larger than one command-line argument may be: pass a file.
json=$(mktemp)
"$inspect" --json >"$json"
check "inspect --json lists the cpu, example, rnn and controlflow plugins, a CPU kernel for every standard op and where gradients come from" \
  "python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
names = {p[\"name\"] for p in d[\"plugins\"]}
assert {\"loom.std\", \"cpu\", \"example\", \"rnn\", \"controlflow\"} <= names, names
ops = {o[\"name\"]: o for o in d[\"ops\"]}
assert any(k[\"plugin\"] == \"example\" for k in ops[\"Swish\"][\"kernels\"])
cpu_ops = {n for n, o in ops.items() if any(k[\"plugin\"] == \"cpu\" and k[\"device\"] == \"CPU\" for k in o[\"kernels\"])}
want = set(\"Gemm MatMul Conv MaxPool AveragePool GlobalAveragePool GlobalMaxPool BatchNormalization Relu LeakyRelu PRelu Sigmoid HardSigmoid Tanh Elu Selu Softplus Softsign Softmax LogSoftmax Add Sub Mul Div Pow Max Min Sum Mean Exp Log Sqrt Reciprocal Neg Abs Floor Ceil Clip Erf Concat Split Slice Reshape Transpose Flatten Squeeze Unsqueeze Gather Cast Identity ReduceSum ReduceMean ReduceMax ReduceMin Constant Shape Dropout LSTM GRU RNN\".split())
assert want <= cpu_ops, sorted(want - cpu_ops)
rnn = {n for n, o in ops.items() if any(k[\"plugin\"] == \"rnn\" for k in o[\"kernels\"])}
assert {\"RecurrentNetwork\", \"RecurrentNetworkGradient\", \"LSTMUnit\", \"GRUUnit\", \"LSTMUnitGradient\", \"GRUUnitGradient\", \"LSTM\", \"GRU\", \"RNN\"} <= rnn, rnn
assert all(ops[n][\"gradient\"] == {\"source\": \"plugin\", \"plugin\": \"rnn\"} for n in (\"LSTM\", \"GRU\", \"RNN\")), [ops[n][\"gradient\"] for n in (\"LSTM\", \"GRU\", \"RNN\")]
assert ops[\"RecurrentNetwork\"][\"gradient\"][\"source\"] == \"schema\" and ops[\"Relu\"][\"gradient\"][\"source\"] == \"schema\"
cf = {n for n, o in ops.items() if any(k[\"plugin\"] == \"controlflow\" for k in o[\"kernels\"])}
assert {\"If\", \"Loop\", \"Scan\"} <= cf, cf
' \"\$json\""

out=$("$inspect" --op Swish)
check "inspect --op shows the schema, attribute default and kernel" \
  "grep -q 'attr   beta: float = 1' <<<\"\$out\" && grep -q \"from plugin 'example'\" <<<\"\$out\""

out=$("$inspect" --op com.example.Swish)
check "inspect --op takes a domain-qualified name" "grep -q '^Swish  \[com.example\]' <<<\"\$out\""

check "inspect --json is indented (and parses), --json_compact one line" \
  "[[ \$(\"$inspect\" --op Relu --json | wc -l) -gt 10 && \$(\"$inspect\" --op Relu --json --json_compact | wc -l) -eq 1 ]] &&
   \"$inspect\" --op Relu --json | python3 -c 'import json, sys; assert json.load(sys.stdin)[\"ops\"][0][\"name\"] == \"Relu\"'"

dotdir=$(mktemp -d)
"$run" --dot "$dotdir/plan.dot" >/dev/null 2>&1
check "loom_run --dot writes the plan (ops, tensors with shapes, packed weights) and renders it with graphviz" \
  "grep -q '^digraph' \"$dotdir/plan.dot\" && grep -q 'label=\"Conv\\\\nconv1\\\\nCPU' \"$dotdir/plan.dot\" &&
   grep -q 'c1\\\\nfloat32\[1, 16, 32, 32\]' \"$dotdir/plan.dot\" && grep -q 'packed by its kernel' \"$dotdir/plan.dot\" &&
   { ! command -v dot >/dev/null || [[ -s \"$dotdir/plan.png\" && -s \"$dotdir/plan.svg\" ]]; }"
"$run" --trace "$dotdir/trace.json" --iterations 2 >/dev/null 2>&1
check "loom_run --trace writes a Chrome trace with one event per op and run" \
  "python3 -c 'import json, sys; ev = [e for e in json.load(open(sys.argv[1]))[\"traceEvents\"] if e[\"ph\"] == \"X\"]; assert len(ev) == 20 and ev[0][\"name\"] == \"Conv conv1\", ev[:2]' \"$dotdir/trace.json\""
rm -rf "$dotdir"

"$inspect" --op NoSuchOp >/dev/null 2>&1
check "inspect --op with an unknown op fails" "[[ $? -ne 0 ]]"

out=$("$inspect" --check "$crash"); rc=$?
check "inspect --check survives a plugin that aborts while loading" "[[ $rc -eq 1 ]] && grep -q 'crashed while loading: signal 6' <<<\"\$out\""

out=$("$inspect" --check "$abi"); rc=$?
check "inspect --check reports an unsupported ABI version" "[[ $rc -eq 1 ]] && grep -q 'ABI version 99' <<<\"\$out\""

out=$("$inspect" --check "$example"); rc=$?
check "inspect --check accepts a good plugin" "[[ $rc -eq 0 ]] && grep -q \"OK plugin 'example'\" <<<\"\$out\""

out=$("$inspect" --plugin "$crash.missing" 2>&1); rc=$?
check "inspect --plugin with a missing file fails with a message" "[[ $rc -ne 0 ]] && grep -q 'no such file' <<<\"\$out\""

out=$("$run" --iterations 3 --profile 2>&1); rc=$?
echo "$out"
check "loom_run with no arguments runs the default model" \
  "[[ $rc -eq 0 ]] && grep -q 'output prob: float32 \[1, 10\]' <<<\"\$out\" && grep -q 'p50' <<<\"\$out\" && grep -q 'Conv' <<<\"\$out\""

probs=$(grep 'output prob' <<<"$out" | sed 's/.*\[1, 10\] \[//; s/, \.\.\.\]//; s/\]//')
check "default model's probabilities are in (0, 1)" \
  "python3 -c 'import sys; v=[float(x) for x in sys.argv[1].split(\",\")]; assert all(0 < x < 1 for x in v), v' \"\$probs\""

# An ONNX test model with its ONNX TensorProto inputs; the expected output is
# the test's (Conv with strides and padding: a 4x3 map starting 12, 27, 24).
D=/usr/share/libonnx-testdata/data/node/test_conv_with_strides_padding
outdir=$(mktemp -d)/new/dir
out=$("$run" "$D/model.onnx" "x=$D/test_data_set_0/input_0.pb" "W=$D/test_data_set_0/input_1.pb" --iterations 1 \
        --output_dir "$outdir" 2>&1); rc=$?
check "loom_run takes ONNX TensorProto inputs and creates --output_dir" \
  "[[ $rc -eq 0 ]] && grep -q 'output y: float32 \[1, 1, 4, 3\] \[12, 27, 24, 63' <<<\"\$out\" && [[ -f $outdir/y.pb ]]"
# The output is an ONNX TensorProto: ONNX's own reader gives the test's
# expected output back, and loom_run reads it as an input again.
check "--output_dir writes ONNX TensorProtos that onnx.load_tensor reads" \
  "/usr/bin/python3 -c 'import sys, onnx, numpy as np; from onnx import numpy_helper as h
y = onnx.load_tensor(sys.argv[1]); e = onnx.load_tensor(sys.argv[2])
assert y.name == \"y\", y.name
np.testing.assert_allclose(h.to_array(y), h.to_array(e), rtol=1e-6)' $outdir/y.pb $D/test_data_set_0/output_0.pb"
out=$("$run" "$D/model.onnx" "x=$outdir/y.pb" "W=$D/test_data_set_0/input_1.pb" --iterations 1 2>&1); rc=$?
check "loom_run reads an output it wrote as an input (the [1, 1, 4, 3] map through the conv again)" \
  "[[ $rc -eq 0 ]] && grep -q 'output y: float32 \[1, 1, 2, 2\]' <<<\"\$out\""

# A sequence in and out (ONNX's SequenceInsert test): the input is read as the
# test's SequenceProto, the output written as one, which ONNX's own reader
# compares with the test's expected output.
D=/usr/share/libonnx-testdata/data/node/test_sequence_insert_at_back
seqdir=$(mktemp -d)
out=$("$run" "$D/model.onnx" "sequence=$D/test_data_set_0/input_0.pb" "tensor=$D/test_data_set_0/input_1.pb" \
        --iterations 1 --output_dir "$seqdir" 2>&1); rc=$?
check "loom_run reads a SequenceProto input and writes a SequenceProto output" \
  "[[ $rc -eq 0 ]] && grep -q 'output output_sequence: seq(int64) of 4' <<<\"\$out\" && /usr/bin/python3 -c 'import sys, onnx, numpy as np
from onnx import numpy_helper as h
def load(p):
    s = onnx.SequenceProto(); s.ParseFromString(open(p, \"rb\").read()); return s
y, e = load(sys.argv[1]), load(sys.argv[2])
assert y.name == \"output_sequence\", y.name
ys, es = h.to_list(y), h.to_list(e)
assert len(ys) == len(es) == 4, (len(ys), len(es))
for a, b in zip(ys, es): np.testing.assert_array_equal(a, b)' $seqdir/output_sequence.pb $D/test_data_set_0/output_0.pb"

exit $fail
