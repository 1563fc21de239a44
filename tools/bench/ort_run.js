// Runs an ONNX model in ONNX Runtime (onnxruntime-node) the way loom_run
// runs it in Loom, for tools/bench/bench.sh:
//   node ort_run.js ORT_DIR MODEL.onnx INPUT.bin THREADS WARMUP RUNS OUT_DIR [LOOM_OUT_DIR]
// Feeds INPUT.bin (raw float32) as the model's first input, with the shape
// the model declares; prints one JSON line: ONNX Runtime's median ms and,
// with LOOM_OUT_DIR, the largest absolute difference between each output
// and Loom's raw output (LOOM_OUT_DIR/<name>.bin).
'use strict';
const fs = require('fs');
const path = require('path');

async function main() {
  const [ortDir, model, inputFile, threads, warmup, runs, outDir, loomOut] = process.argv.slice(2);
  const ort = require(path.join(ortDir, 'node_modules', 'onnxruntime-node'));
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: Number(threads),
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const name = session.inputNames[0];
  const buf = fs.readFileSync(inputFile);
  const data = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
  // The declared shape is in the model; recover it from the element count
  // and the model's metadata where available, else from an env override.
  const meta = session.inputMetadata ? session.inputMetadata.find((m) => m.name === name) : null;
  const dims = process.env.INPUT_DIMS ? process.env.INPUT_DIMS.split(',').map(Number) : meta.shape.map(Number);
  const feeds = { [name]: new ort.Tensor('float32', data, dims) };
  let out;
  for (let i = 0; i < Number(warmup); ++i) out = await session.run(feeds);
  const ms = [];
  for (let i = 0; i < Number(runs); ++i) {
    const t0 = process.hrtime.bigint();
    out = await session.run(feeds);
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  ms.sort((a, b) => a - b);
  const result = { median_ms: ms[Math.floor(ms.length / 2)], max_abs_diff: null };
  fs.mkdirSync(outDir, { recursive: true });
  for (const [k, t] of Object.entries(out)) {
    fs.writeFileSync(path.join(outDir, k + '.bin'), Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength));
    if (loomOut) {
      const lb = fs.readFileSync(path.join(loomOut, k + '.bin'));
      const l = new Float32Array(lb.buffer, lb.byteOffset, lb.byteLength / 4);
      if (l.length !== t.data.length) {
        result.max_abs_diff = 'size mismatch ' + l.length + ' vs ' + t.data.length;
        continue;
      }
      let d = 0;
      for (let i = 0; i < l.length; ++i) d = Math.max(d, Math.abs(l[i] - t.data[i]));
      if (typeof result.max_abs_diff !== 'string') result.max_abs_diff = Math.max(result.max_abs_diff || 0, d);
    }
  }
  console.log(JSON.stringify(result));
}

main().catch((e) => {
  console.error('ort_run: ' + e.message);
  process.exit(1);
});
