// Runs an ONNX model in ONNX Runtime (onnxruntime-node) on the inputs that
// tools/real_models/to_tensor wrote, and compares every output with Loom's
// raw output of the same name (loom_run --output_dir LOOM_OUT --output_raw):
//
//   node ort_compare.js ORT_DIR MODEL.onnx LOOM_OUT TOL name=PREFIX ...
//
// PREFIX.bin holds the input's raw data and PREFIX.json its dtype and dims.
// Prints one line per output: name, shape, ONNX Runtime's first values and
// the largest |ORT - Loom|; exits 1 if an output is missing in Loom, has
// another element count, or differs by more than TOL (absolute; NaN counts
// as a difference); 2 on a usage or ONNX Runtime error.
'use strict';
const fs = require('fs');
const path = require('path');

const ARRAYS = { float32: Float32Array, int64: BigInt64Array, int32: Int32Array };

function load(prefix) {
  const meta = JSON.parse(fs.readFileSync(prefix + '.json', 'utf8'));
  const Arr = ARRAYS[meta.dtype];
  if (!Arr) throw new Error(prefix + '.json: dtype ' + meta.dtype + ' not handled');
  const buf = fs.readFileSync(prefix + '.bin');
  // Copy into an aligned buffer: Buffer slices need not be 8-byte aligned.
  const data = new Arr(buf.byteLength / Arr.BYTES_PER_ELEMENT);
  new Uint8Array(data.buffer).set(buf);
  return { dtype: meta.dtype, dims: meta.dims, data };
}

async function main() {
  const [ortDir, model, loomOut, tolText, ...inputs] = process.argv.slice(2);
  if (!inputs.length) {
    console.error('usage: node ort_compare.js ORT_DIR MODEL.onnx LOOM_OUT TOL name=PREFIX ...');
    process.exit(2);
  }
  const ort = require(path.join(ortDir, 'node_modules', 'onnxruntime-node'));
  const tol = Number(tolText);
  const feeds = {};
  for (const spec of inputs) {
    const eq = spec.indexOf('=');
    const t = load(spec.slice(eq + 1));
    feeds[spec.slice(0, eq)] = new ort.Tensor(t.dtype, t.data, t.dims);
  }
  const session = await ort.InferenceSession.create(model, { intraOpNumThreads: 2, interOpNumThreads: 1, logSeverityLevel: 3 });
  const out = await session.run(feeds);
  let bad = false;
  for (const name of session.outputNames) {
    const t = out[name];
    const file = path.join(loomOut, name + '.bin');
    if (!fs.existsSync(file)) {
      console.log(`${name}: [${t.dims}] MISSING in Loom's output`);
      bad = true;
      continue;
    }
    const lb = fs.readFileSync(file);
    const Arr = t.data.constructor;
    const l = new Arr(lb.byteLength / Arr.BYTES_PER_ELEMENT);
    new Uint8Array(l.buffer).set(lb);
    if (l.length !== t.data.length) {
      console.log(`${name}: [${t.dims}] SIZE MISMATCH: ONNX Runtime ${t.data.length} elements, Loom ${l.length}`);
      bad = true;
      continue;
    }
    let d = 0;
    for (let i = 0; i < l.length; ++i) {
      const x = Number(l[i]) - Number(t.data[i]);
      d = Math.max(d, Number.isNaN(x) ? Infinity : Math.abs(x));
    }
    const ok = d <= tol;
    bad = bad || !ok;
    const head = Array.from(t.data.slice(0, 3), (v) => Number(v).toPrecision(4)).join(', ');
    console.log(`${name}: [${t.dims}] ORT [${head}${t.data.length > 3 ? ', ...' : ''}] ` +
                `max |ORT - Loom| = ${d.toExponential(3)} ${ok ? 'ok' : 'OVER ' + tol}`);
  }
  process.exit(bad ? 1 : 0);
}

main().catch((e) => {
  console.error('ort_compare: ' + e.message);
  process.exit(2);
});
