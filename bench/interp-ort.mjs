// onnxruntime-node as a user meets it: a fresh process loads a model and its input .pb files, runs
// once and writes output_<i>.raw (the output's raw data). Used by bench/interp-models.ts. With
// --web, onnxruntime-web's WebAssembly backend (SIMD, as many threads as cores) instead: the
// runtime closest to ours, as an anchor.
//   node bench/interp-ort.mjs [--web] MODEL OUT_DIR INPUT.pb...
import { readFileSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";

const args = process.argv.slice(2);
const web = args[0] === "--web";
if (web) args.shift();
const ort = web ? await import("onnxruntime-web") : await import("onnxruntime-node");
if (web) ort.env.wasm.numThreads = availableParallelism();

function varint(b, p) {
  let v = 0;
  let m = 1;
  for (;;) {
    const x = b[p.at++];
    v += (x & 127) * m;
    m *= 128;
    if (x < 128) return v;
  }
}

/** The dims, type and raw data of a TensorProto with raw data (what the export scripts write). */
function readTensor(bytes) {
  const p = { at: 0 };
  const dims = [];
  let raw;
  let type = 1;
  while (p.at < bytes.length) {
    const key = varint(bytes, p);
    const field = Math.floor(key / 8);
    const wire = key & 7;
    if (wire === 0) {
      const v = varint(bytes, p);
      if (field === 1) dims.push(v);
      else if (field === 2) type = v;
    } else if (wire === 2) {
      const len = varint(bytes, p);
      const body = bytes.subarray(p.at, p.at + len);
      p.at += len;
      if (field === 1) {
        const q = { at: 0 };
        while (q.at < body.length) dims.push(varint(body, q));
      } else if (field === 9) raw = body;
    } else if (wire === 5) p.at += 4;
    else if (wire === 1) p.at += 8;
  }
  const copy = new Uint8Array(raw?.byteLength ?? 0);
  if (raw) copy.set(raw);
  const [name, Ctor] = TYPES[type] ?? TYPES[1];
  return new ort.Tensor(name, type === 9 ? copy : new Ctor(copy.buffer), dims);
}

/** ONNX element types (raw data) as onnxruntime's tensor type names and typed arrays. */
const TYPES = {
  1: ["float32", Float32Array],
  2: ["uint8", Uint8Array],
  3: ["int8", Int8Array],
  6: ["int32", Int32Array],
  7: ["int64", BigInt64Array],
  9: ["bool", Uint8Array],
  10: ["float16", Uint16Array],
  11: ["float64", Float64Array],
};

const [model, outDir, ...inputs] = args;
const session = await ort.InferenceSession.create(model);
const feeds = {};
inputs.forEach((f, i) => (feeds[session.inputNames[i]] = readTensor(readFileSync(f))));
const out = await session.run(feeds);
session.outputNames.forEach((n, i) => {
  const d = out[n].data;
  writeFileSync(
    join(outDir, `output_${i}.raw`),
    new Uint8Array(d.buffer, d.byteOffset, d.byteLength),
  );
});
