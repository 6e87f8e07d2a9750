// What a user of onnxruntime-node writes to do what `onnx-expand run MODEL X.pb --output-dir DIR`
// does: read the model and a TensorProto input file, run, write each output as a TensorProto file
// (raw_data) and print its first values. bench/whole.ts times it against `run` on the same files.
//
//   node bench/ort-run.mjs MODEL INPUT.pb OUTDIR

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as ort from "onnxruntime-node";

const [model, input, outDir] = process.argv.slice(2);

/** A varint at `pos`: [value, next position] (values below 2^53). */
function varint(b, pos) {
  let v = 0;
  let mul = 1;
  for (;;) {
    const c = b[pos++];
    v += (c & 0x7f) * mul;
    if (c < 0x80) return [v, pos];
    mul *= 128;
  }
}

/** The dims, data type, name and raw_data of a TensorProto (what a float input file holds). */
function readTensorProto(b) {
  const t = { dims: [], dataType: 0, name: "", raw: undefined };
  let pos = 0;
  while (pos < b.length) {
    let tag;
    [tag, pos] = varint(b, pos);
    const field = tag >>> 3;
    const wire = tag & 7;
    if (wire === 0) {
      let v;
      [v, pos] = varint(b, pos);
      if (field === 1) t.dims.push(v);
      else if (field === 2) t.dataType = v;
    } else if (wire === 2) {
      let len;
      [len, pos] = varint(b, pos);
      const body = b.subarray(pos, pos + len);
      pos += len;
      if (field === 1)
        for (let p = 0; p < body.length;) [t.dims[t.dims.length], p] = varint(body, p);
      else if (field === 8) t.name = new TextDecoder().decode(body);
      else if (field === 9) t.raw = body;
    } else if (wire === 5) pos += 4;
    else if (wire === 1) pos += 8;
    else throw new Error(`unexpected wire type ${wire}`);
  }
  return t;
}

function varintBytes(v) {
  const out = [];
  while (v >= 0x80) {
    out.push((v % 128) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return out;
}

function writeTensorProto(path, name, dims, data) {
  const raw = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const nameBytes = new TextEncoder().encode(name);
  const head = [];
  for (const d of dims) head.push(0x08, ...varintBytes(d));
  head.push(0x10, 1, 0x42, ...varintBytes(nameBytes.length), ...nameBytes);
  head.push(0x4a, ...varintBytes(raw.length));
  writeFileSync(path, Buffer.concat([Uint8Array.from(head), raw]));
}

const session = await ort.InferenceSession.create(readFileSync(model));
const t = readTensorProto(readFileSync(input));
if (t.dataType !== 1 || !t.raw) throw new Error("the bench's input is float32 raw_data");
// Float32Array needs a 4-aligned offset: a file read into a Buffer gives no such promise.
const x =
  t.raw.byteOffset % 4 === 0
    ? new Float32Array(t.raw.buffer, t.raw.byteOffset, t.raw.length / 4)
    : new Float32Array(t.raw.slice().buffer);
const feeds = { [session.inputNames[0]]: new ort.Tensor("float32", x, t.dims) };
const results = await session.run(feeds);
session.outputNames.forEach((name, i) => {
  const y = results[name];
  writeTensorProto(join(outDir, `output_${i}.pb`), name, y.dims, y.data);
  process.stdout.write(`${name}: ${[...y.data.subarray(0, 8)].join(", ")}\n`);
});
