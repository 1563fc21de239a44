// Runs an ONNX model in ONNX Runtime (onnxruntime-node) the way loom_run
// runs it in Loom, for tools/bench/bench.sh. Two call forms:
//
//   node ort_run.js ORT_DIR MODEL.onnx THREADS WARMUP RUNS OUT_DIR LOOM_OUT_DIR|- name=FILE.bin[:DIMS[:DTYPE]] ...
//   node ort_run.js ORT_DIR MODEL.onnx INPUT.bin THREADS WARMUP RUNS OUT_DIR [LOOM_OUT_DIR]   (the first form)
//
// Each name=FILE.bin feeds FILE.bin (raw little-endian data) as the input
// `name`. Its dtype and dims come from, first match wins: DIMS (comma
// separated, empty for a scalar) and DTYPE (float32, int64 or int32; default
// float32) after the file; FILE.json next to it ({"dtype", "dims"}, as
// tools/real_models/to_tensor writes); the shape the model declares, float32.
// The first form feeds INPUT.bin as the model's first input (dims from the
// INPUT_DIMS environment variable, else the model's declared shape).
//
// Runs WARMUP untimed and RUNS timed session.run calls with THREADS intra-op
// threads (one inter-op thread, sequential; graph optimizations at
// $ORT_OPT_LEVEL: disabled, basic, extended or all, the default), writes
// every output to OUT_DIR/<name>.bin, and prints one JSON line:
//   {"median_ms": M, "max_abs_diff": D, "outputs": {"<name>": d, ...}, "also": [D2, ...]}
// With LOOM_OUT_DIR, D is the largest |ONNX Runtime - Loom| over every
// output the model declares, against Loom's raw output LOOM_OUT_DIR/<name>.bin
// (loom_run --output_dir --output_raw); a NaN on one side only counts as
// Infinity. A missing output or an element-count mismatch makes D a string
// naming it ("missing <name>", "size mismatch <name> ..."). LOOM_OUT_DIR may
// name more directories after a comma (DIR,DIR2,...): `also` gives D for
// each of those. Without LOOM_OUT_DIR (or with "-"), D is null.
'use strict';
const fs = require('fs');
const path = require('path');

const ARRAYS = { float32: Float32Array, int64: BigInt64Array, int32: Int32Array };

// Raw bytes into a fresh (hence aligned) typed array of the dtype.
function readRaw(file, dtype) {
  const Arr = ARRAYS[dtype];
  if (!Arr) throw new Error(`${file}: dtype ${dtype} not handled (float32, int64, int32)`);
  const buf = fs.readFileSync(file);
  if (buf.byteLength % Arr.BYTES_PER_ELEMENT) throw new Error(`${file}: ${buf.byteLength} bytes is not a whole number of ${dtype}`);
  const data = new Arr(buf.byteLength / Arr.BYTES_PER_ELEMENT);
  new Uint8Array(data.buffer).set(buf);
  return data;
}

function declaredDims(session, name) {
  const meta = session.inputMetadata ? session.inputMetadata.find((m) => m.name === name) : null;
  if (!meta || !meta.shape || meta.shape.some((d) => typeof d !== 'number')) {
    throw new Error(`input ${name}: the model declares no fixed shape; give it as ${name}=FILE.bin:d0,d1,...`);
  }
  return meta.shape;
}

// name=FILE.bin[:DIMS[:DTYPE]] -> [name, ort.Tensor].
function parseInput(ort, session, spec) {
  const eq = spec.indexOf('=');
  if (eq <= 0) throw new Error(`input '${spec}': expected name=FILE.bin[:dims[:dtype]]`);
  const name = spec.slice(0, eq);
  const [file, dimsText, dtypeText] = spec.slice(eq + 1).split(':');
  let dtype = dtypeText || 'float32', dims = null;
  if (dimsText !== undefined) {
    dims = dimsText === '' ? [] : dimsText.split(',').map(Number);
  } else {
    const json = file.replace(/\.bin$/, '') + '.json';
    if (fs.existsSync(json)) {
      const meta = JSON.parse(fs.readFileSync(json, 'utf8'));
      dtype = meta.dtype;
      dims = meta.dims;
    } else {
      dims = declaredDims(session, name);
    }
  }
  const data = readRaw(file, dtype);
  const count = dims.reduce((a, b) => a * b, 1);
  if (count !== data.length) throw new Error(`input ${name}: ${file} holds ${data.length} ${dtype}, dims [${dims}] need ${count}`);
  return [name, new ort.Tensor(dtype, data, dims)];
}

// The largest |ONNX Runtime - other| per output and over all outputs, the
// other side's raw outputs read from DIR/<name>.bin. A NaN on one side only
// counts as Infinity; a missing output, a dtype not read here or an element
// count mismatch makes the overall figure a string naming it.
function compare(names, out, dir) {
  const problems = [];
  const outputs = {};
  let worst = 0;
  for (const name of names) {
    const t = out[name];
    const file = path.join(dir, name + '.bin');
    if (!fs.existsSync(file)) {
      problems.push('missing ' + name);
      outputs[name] = 'missing';
      continue;
    }
    const dtype = Object.keys(ARRAYS).find((k) => t.data instanceof ARRAYS[k]);
    if (!dtype) {
      problems.push(`${name}: dtype ${t.type} not compared`);
      outputs[name] = 'dtype ' + t.type;
      continue;
    }
    const l = readRaw(file, dtype);
    if (l.length !== t.data.length) {
      problems.push(`size mismatch ${name} ${l.length} vs ORT ${t.data.length}`);
      outputs[name] = 'size mismatch';
      continue;
    }
    let d = 0;
    for (let i = 0; i < l.length; ++i) {
      const a = Number(l[i]), b = Number(t.data[i]);
      if (Number.isNaN(a) && Number.isNaN(b)) continue;
      const x = Math.abs(a - b);
      d = Math.max(d, Number.isNaN(x) ? Infinity : x);
    }
    outputs[name] = d;
    worst = Math.max(worst, d);
  }
  return { max: problems.length ? problems.join('; ') : worst, outputs };
}

async function main() {
  const args = process.argv.slice(2);
  // The first form has the input file third; the second has THREADS there.
  const firstForm = args.length >= 7 && !/^\d+$/.test(args[2]);
  let ortDir, model, threads, warmup, runs, outDir, loomOut, inputs;
  if (firstForm) {
    [ortDir, model] = args;
    [threads, warmup, runs, outDir, loomOut] = args.slice(3);
  } else {
    [ortDir, model, threads, warmup, runs, outDir, loomOut, ...inputs] = args;
    if (!inputs.length) {
      console.error('usage: node ort_run.js ORT_DIR MODEL.onnx THREADS WARMUP RUNS OUT_DIR LOOM_OUT_DIR|- name=FILE.bin[:dims[:dtype]] ...\n' +
                    '       node ort_run.js ORT_DIR MODEL.onnx INPUT.bin THREADS WARMUP RUNS OUT_DIR [LOOM_OUT_DIR]');
      process.exit(2);
    }
  }
  const compareDirs = !loomOut || loomOut === '-' ? [] : loomOut.split(',');
  const ort = require(path.join(ortDir, 'node_modules', 'onnxruntime-node'));
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: Number(threads),
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: process.env.ORT_OPT_LEVEL || 'all',
    logSeverityLevel: 3,
  });
  const feeds = {};
  if (firstForm) {
    const name = session.inputNames[0];
    const dims = process.env.INPUT_DIMS ? process.env.INPUT_DIMS.split(',').map(Number) : declaredDims(session, name);
    feeds[name] = new ort.Tensor('float32', readRaw(args[2], 'float32'), dims);
  } else {
    for (const spec of inputs) {
      const [name, t] = parseInput(ort, session, spec);
      feeds[name] = t;
    }
  }
  const missingFeeds = session.inputNames.filter((n) => !(n in feeds));
  if (missingFeeds.length) throw new Error(`no input given for ${missingFeeds.join(', ')}`);

  let out;
  for (let i = 0; i < Number(warmup); ++i) out = await session.run(feeds);
  const ms = [];
  for (let i = 0; i < Number(runs); ++i) {
    const t0 = process.hrtime.bigint();
    out = await session.run(feeds);
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  if (!out) out = await session.run(feeds);  // RUNS = WARMUP = 0: still write and compare outputs.
  ms.sort((a, b) => a - b);
  const result = { median_ms: ms.length ? ms[Math.floor(ms.length / 2)] : null, max_abs_diff: null, outputs: {} };
  fs.mkdirSync(outDir, { recursive: true });
  for (const name of session.outputNames) {
    const t = out[name];
    fs.writeFileSync(path.join(outDir, name + '.bin'), Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength));
  }
  if (compareDirs.length) {
    const first = compare(session.outputNames, out, compareDirs[0]);
    result.max_abs_diff = first.max;
    result.outputs = first.outputs;
    result.also = compareDirs.slice(1).map((dir) => compare(session.outputNames, out, dir).max);
  }
  // JSON has no Infinity: write it as the string "Infinity".
  console.log(JSON.stringify(result, (k, v) => (v === Infinity ? 'Infinity' : v)));
}

main().catch((e) => {
  console.error('ort_run: ' + e.message);
  process.exit(1);
});
