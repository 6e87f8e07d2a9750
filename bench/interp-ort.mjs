// onnxruntime-node as a user meets it: a fresh process loads a model and its input .pb files, runs
// once and writes output_<i>.pb (raw float data). Used by bench/interp-models.ts.
//   node bench/interp-ort.mjs MODEL OUT_DIR INPUT.pb...
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as ort from "onnxruntime-node";

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

/** The dims, type and raw data of a float32 TensorProto (what the export script writes). */
function readTensor(bytes) {
  const p = { at: 0 };
  const dims = [];
  let raw;
  while (p.at < bytes.length) {
    const key = varint(bytes, p);
    const field = Math.floor(key / 8);
    const wire = key & 7;
    if (wire === 0) {
      const v = varint(bytes, p);
      if (field === 1) dims.push(v);
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
  const data = new Float32Array(raw.byteLength / 4);
  new Uint8Array(data.buffer).set(raw);
  return new ort.Tensor("float32", data, dims);
}

const [model, outDir, ...inputs] = process.argv.slice(2);
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
