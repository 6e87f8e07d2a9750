// Large decoder-like models for the any-size benchmark (bench/large.ts) and tests: opset 13, a
// stack of RMS-norm + MatMul + Softmax + residual layers whose weights live in external data
// files beside model.onnx (or inline in one file), filled with real bytes, sparse zeros, or
// small distinct values that run to finite numbers.
//
// Each layer l holds gamma_l [H] and W_l [H, H] (float32); the layers are spread over `files`
// data files in turn. The graph ends in ReduceSum (axes an input at 13) and ReduceLogSum (axes an
// attribute at 13, an input at 18; a function op at 18), so that converting up and down adapts
// nodes and expanding lowers one.

import { randomFillSync } from "node:crypto";
import { closeSync, ftruncateSync, mkdirSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { saveModel } from "../src/io/files.js";
import { resolveExternalData, DataFiles } from "../src/io/external.js";
import { graph, model, node, valueInfo } from "../src/ir/builder.js";
import { Tensor } from "../src/ir/tensor.js";
import { DataType, type Model, type Node } from "../src/ir/types.js";

export interface LargeModelOptions {
  /** Hidden size H. */
  hidden: number;
  /** Layers L (weights: L * (H*H + H) floats). */
  layers: number;
  /** Data files the layers are spread over (0: weights inline in model.onnx). */
  files: number;
  /**
   * What the weights hold: "random" (random bytes, each float's top exponent bit cleared so that
   * every value is finite, below 2 in magnitude), "sparse" (holes in sparse files: zeros
   * that cost no disk; external data only), "values" (small distinct floats from a seeded
   * generator, different in every tensor and position, that run to finite numbers).
   */
  fill: "random" | "sparse" | "values";
  /** Seed of "values". */
  seed?: number;
}

/** The bytes of the weights of a model of these options. */
export function weightBytes(o: Pick<LargeModelOptions, "hidden" | "layers">): number {
  return o.layers * (o.hidden * o.hidden + o.hidden) * 4;
}

/** A deterministic generator of small distinct floats (xorshift32), for "values". */
export function fillValues(out: Float32Array, seed: number): void {
  let s = (seed * 2654435761 + 1) >>> 0 || 1;
  for (let i = 0; i < out.length; i++) {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    out[i] = (s / 4294967296 - 0.5) * 0.02;
  }
}

const CHUNK = 8 << 20;

/** Writes a weight's bytes to fd at `at`, chunk by chunk. */
function writeWeight(fd: number, at: number, bytes: number, o: LargeModelOptions, k: number): void {
  if (o.fill === "sparse") return;
  const buf = new Float32Array(Math.min(CHUNK, bytes) / 4);
  for (let done = 0, part = 0; done < bytes; part++) {
    const n = Math.min(CHUNK, bytes - done);
    const view = buf.subarray(0, n / 4);
    if (o.fill === "random") {
      // Random bytes with each float's top exponent bit cleared: finite values of magnitude
      // below 2 (subnormals included), so that the model runs to comparable numbers.
      randomFillSync(view);
      const bits = new Uint32Array(view.buffer, 0, view.length);
      for (let i = 0; i < bits.length; i++) bits[i] = bits[i]! & 0xbfffffff;
    } else fillValues(view, (o.seed ?? 1) * 1000003 + k * 7919 + part);
    const u8 = new Uint8Array(view.buffer, 0, n);
    let w = 0;
    while (w < n) w += writeSync(fd, u8, w, n - w, at + done + w);
    done += n;
  }
}

/** The graph of the model, weights named gamma_l and w_l. */
function decoderGraph(o: LargeModelOptions, weights: Tensor[]): Model {
  const H = o.hidden;
  const nodes: Node[] = [];
  let x = "x";
  for (let l = 0; l < o.layers; l++) {
    const p = `l${l}_`;
    nodes.push(
      node("Mul", [x, x], [`${p}sq`]),
      node("ReduceMean", [`${p}sq`], [`${p}ms`], { axes: [-1], keepdims: 1 }),
      node("Add", [`${p}ms`, "eps"], [`${p}rs`]),
      node("Sqrt", [`${p}rs`], [`${p}r`]),
      node("Div", [x, `${p}r`], [`${p}n`]),
      node("Mul", [`${p}n`, `gamma_${l}`], [`${p}g`]),
      node("MatMul", [`${p}g`, `w_${l}`], [`${p}h`]),
      node("Softmax", [`${p}h`], [`${p}s`], { axis: -1 }),
      node("Add", [x, `${p}s`], [`${p}out`]),
    );
    x = `${p}out`;
  }
  nodes.push(
    node("ReduceSum", [x, "sum_axes"], ["y"], { keepdims: 0 }),
    node("ReduceLogSum", [x], ["z"], { axes: [-1], keepdims: 0 }),
  );
  const small = [
    Tensor.from(DataType.FLOAT, [], [1e-6], "eps"),
    Tensor.from(DataType.INT64, [1], [-1n], "sum_axes"),
  ];
  return model(
    graph({
      name: "decoder",
      nodes,
      inputs: [valueInfo("x", "float", [1, "seq", H])],
      outputs: [valueInfo("y", "float", [1, "seq"]), valueInfo("z", "float", [1, "seq"])],
      initializers: [...small, ...weights],
    }),
    13,
    8,
  );
}

/**
 * Writes `dir/model.onnx` and its data files (`weights_<i>.bin`), or with `files: 0` one
 * `model.onnx` holding the weights inline (written through a data file that is removed: the
 * model's raw data is copied from it). Returns the model's path.
 */
export function makeLargeModel(dir: string, o: LargeModelOptions): string {
  mkdirSync(dir, { recursive: true });
  const H = o.hidden;
  const nfiles = Math.max(1, o.files);
  const names = Array.from({ length: nfiles }, (_, i) => `weights_${i}.bin`);
  const fds = names.map((n) => openSync(join(dir, n), "w"));
  const sizes = new Array<number>(nfiles).fill(0);
  const weights: Tensor[] = [];
  const external = (name: string, dims: number[], f: number, k: number): Tensor => {
    const bytes = dims.reduce((a, b) => a * b, 1) * 4;
    const at = Math.ceil(sizes[f]! / 4096) * 4096;
    writeWeight(fds[f]!, at, bytes, o, k);
    sizes[f] = at + bytes;
    return new Tensor(
      DataType.FLOAT,
      dims,
      {
        kind: "external",
        entries: [
          ["location", names[f]!],
          ["offset", String(at)],
          ["length", String(bytes)],
        ],
        baseDir: dir,
      },
      name,
    );
  };
  for (let l = 0; l < o.layers; l++) {
    const f = l % nfiles;
    weights.push(external(`gamma_${l}`, [H], f, 2 * l), external(`w_${l}`, [H, H], f, 2 * l + 1));
  }
  fds.forEach((fd, i) => {
    ftruncateSync(fd, sizes[i]!);
    closeSync(fd);
  });
  const m = decoderGraph(o, weights);
  const path = join(dir, "model.onnx");
  if (o.files > 0) saveModel(m, path);
  else {
    // Inline: each weight's range of the data file, streamed into the model's raw data.
    const files = new DataFiles();
    for (const t of weights) resolveExternalData(t, path, files);
    saveModel(m, path, { inlineData: true });
    for (const n of names) rmSync(join(dir, n));
  }
  return path;
}
