// Which ops onnxruntime-web's C++ WebGPU execution provider places on WebGPU, and at which opsets,
// read from the release package.json pins (node_modules/onnxruntime-web) by asking it, op by op:
// its operator table (docs/webgpu-operators.md) is JSEP's, not this provider's.
//
// The candidates: every ai.onnx op of ONNX's own backend node tests (the single-node models of
// test/data/onnx-node-tests and, when installed, Debian's libonnx-testdata; their inputs are
// graph inputs, so nothing folds; a copy with double made float beside each), converted by this
// project's converter to each opset onnxruntime loads (7 to 26), and the com.microsoft ops (and
// onnxruntime's own ai.onnx registrations) below, written by hand. A case onnxruntime-node cannot
// make a session of is no case. Per opset, one model holds a node of every case (values renamed
// apart; a case with subgraphs alone); onnxruntime-web places it on WebGPU (webgpu-judge.ts, one
// page for every run) and its placement log says where each node went: on WebGPU, on CPU, or
// gone (optimized away). A model that makes no session is asked in halves, and a case that alone
// makes none is recorded as failed with onnxruntime's reason, not dropped.
//
//   npx tsx scripts/targets/webgpu-ops.ts       (writes test/data/targets/webgpu-ops.json)
//
// scripts/targets/from-ort-web.ts reads that file into targets/webgpu.json's ops and versions.

import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import * as ortNode from "onnxruntime-node";
import { convertModel } from "../../src/convert/index.js";
import { encodeModel, loadModel, saveModel } from "../../src/io/files.js";
import { emptyGraph } from "../../src/ir/builder.js";
import { DataType, type Model, type Node, type Type } from "../../src/ir/types.js";
import { SchemaRegistry } from "../../src/schema/registry.js";
import { parseModelText } from "../../src/text/parse.js";
import { ORT_WEB_VERSION, WebgpuJudge } from "./webgpu-judge.js";

const root = join(import.meta.dirname, "..", "..");
export const OPS_FILE = join(root, "test", "data", "targets", "webgpu-ops.json");

/** The ai.onnx opsets onnxruntime 1.30 loads (a model at 27 is refused). */
export const FIRST_OPSET = 7;
export const LAST_OPSET = 26;

/** Where the node tests are read from (those that exist here). */
const NODE_TEST_DIRS = [
  join(root, "test", "data", "onnx-node-tests"),
  process.env.LIBONNX_TESTDATA ?? "/usr/share/libonnx-testdata/data/node",
];

/** At most this many cases of an op per opset (float first, then one per signature). */
const PER_OP = 6;

const MS = "com.microsoft";
const rand = (n: number, scale = 1) =>
  Array.from({ length: n }, (_, i) => ((((i * 37) % 17) - 8) / 8) * scale).join(", ");

/**
 * Hand cases: the com.microsoft ops onnxruntime registers (contrib schemas, and the ones its
 * WebGPU provider names that this registry lacks: BiasSplitGelu, GatherBlockQuantized) and
 * onnxruntime's own ai.onnx registration SimplifiedLayerNormalization. Each a graph whose node is
 * `[op]`, in the text format, at any ai.onnx opset; keyed "Op" (ai.onnx) or "domain.Op".
 */
const HAND: Record<string, { domain: string; text: string }> = {
  "com.microsoft.Attention": {
    domain: MS,
    text: `(float[1,4,8] x, float[8,24] w, float[24] b) => (float[1,4,8] y) {
  [op] y = com.microsoft.Attention <num_heads = 2> (x, w, b) }`,
  },
  "com.microsoft.MultiHeadAttention": {
    domain: MS,
    text: `(float[1,4,8] q, float[1,4,8] k, float[1,4,8] v) => (float[1,4,8] y) {
  [op] y = com.microsoft.MultiHeadAttention <num_heads = 2> (q, k, v) }`,
  },
  "com.microsoft.GroupQueryAttention": {
    domain: MS,
    text: `(float[1,4,8] q, float[1,4,4] k, float[1,4,4] v, float[1,1,4,4] pk, float[1,1,4,4] pv, int32[1] seqlens, int32 total)
  => (float[1,4,8] y, float[1,1,4,4] yk, float[1,1,4,4] yv) {
  [op] y, yk, yv = com.microsoft.GroupQueryAttention <num_heads = 2, kv_num_heads = 1> (q, k, v, pk, pv, seqlens, total) }`,
  },
  "com.microsoft.SkipLayerNormalization": {
    domain: MS,
    text: `(float[1,4,8] x, float[1,4,8] s, float[8] g, float[8] b) => (float[1,4,8] y) {
  [op] y = com.microsoft.SkipLayerNormalization <epsilon = 0.00001> (x, s, g, b) }`,
  },
  "com.microsoft.SkipSimplifiedLayerNormalization": {
    domain: MS,
    text: `(float[1,4,8] x, float[1,4,8] s, float[8] g) => (float[1,4,8] y) {
  [op] y = com.microsoft.SkipSimplifiedLayerNormalization <epsilon = 0.00001> (x, s, g) }`,
  },
  "com.microsoft.FastGelu": {
    domain: MS,
    text: `(float[2,8] x, float[8] b) => (float[2,8] y) {
  [op] y = com.microsoft.FastGelu (x, b) }`,
  },
  "com.microsoft.BiasGelu": {
    domain: MS,
    text: `(float[2,8] x, float[8] b) => (float[2,8] y) {
  [op] y = com.microsoft.BiasGelu (x, b) }`,
  },
  "com.microsoft.Gelu": {
    domain: MS,
    text: `(float[2,8] x) => (float[2,8] y) {
  [op] y = com.microsoft.Gelu (x) }`,
  },
  "com.microsoft.QuickGelu": {
    domain: MS,
    text: `(float[2,8] x) => (float[2,8] y) {
  [op] y = com.microsoft.QuickGelu <alpha = 1.702> (x) }`,
  },
  "com.microsoft.BiasAdd": {
    domain: MS,
    text: `(float[1,4,8] x, float[8] b, float[1,4,8] s) => (float[1,4,8] y) {
  [op] y = com.microsoft.BiasAdd (x, b, s) }`,
  },
  "com.microsoft.BiasSplitGelu": {
    domain: MS,
    text: `(float[1,4,16] x, float[16] b) => (float[1,4,8] y) {
  [op] y = com.microsoft.BiasSplitGelu (x, b) }`,
  },
  "com.microsoft.FusedConv": {
    domain: MS,
    text: `(float[1,1,4,4] x, float[1,1,2,2] w) => (float[1,1,3,3] y) {
  [op] y = com.microsoft.FusedConv <activation = "Relu"> (x, w) }`,
  },
  "com.microsoft.FusedMatMul": {
    domain: MS,
    text: `(float[2,4] a, float[4,3] b) => (float[2,3] y) {
  [op] y = com.microsoft.FusedMatMul <alpha = 1.0> (a, b) }`,
  },
  "com.microsoft.MatMulNBits": {
    domain: MS,
    text: `(float[2,16] a) => (float[2,8] y) <uint8[8,1,8] w = {${Array.from({ length: 64 }, (_, i) => (i * 29) % 256).join(", ")}}, float[8] sc = {${rand(8, 0.1)}}> {
  [op] y = com.microsoft.MatMulNBits <K = 16, N = 8, bits = 4, block_size = 16> (a, w, sc) }`,
  },
  "com.microsoft.RotaryEmbedding": {
    domain: MS,
    text: `(float[1,4,8] x, int64[1,4] p, float[8,2] c, float[8,2] s) => (float[1,4,8] y) {
  [op] y = com.microsoft.RotaryEmbedding <num_heads = 2> (x, p, c, s) }`,
  },
  "com.microsoft.GatherBlockQuantized": {
    domain: MS,
    text: `(int32[2] i) => (float[2,32] y) <uint8[4,16] d = {${Array.from({ length: 64 }, (_, i) => (i * 29) % 256).join(", ")}}, float[4,1] sc = {${rand(4, 0.1)}}> {
  [op] y = com.microsoft.GatherBlockQuantized <gather_axis = 0, quantize_axis = 1, block_size = 32, bits = 4> (d, i, sc) }`,
  },
  "com.microsoft.DequantizeLinear": {
    domain: MS,
    text: `(int8[2,8] x, float s, int8 z) => (float[2,8] y) {
  [op] y = com.microsoft.DequantizeLinear (x, s, z) }`,
  },
  "com.microsoft.QuantizeLinear": {
    domain: MS,
    text: `(float[2,8] x, float s, int8 z) => (int8[2,8] y) {
  [op] y = com.microsoft.QuantizeLinear (x, s, z) }`,
  },
  "com.microsoft.EmbedLayerNormalization": {
    domain: MS,
    text: `(int32[1,4] ids, int32[1,4] seg, float[10,8] we, float[8,8] pe, float[2,8] se, float[8] g, float[8] b) => (float[1,4,8] y, int32[1] m) {
  [op] y, m = com.microsoft.EmbedLayerNormalization (ids, seg, we, pe, se, g, b) }`,
  },
  "com.microsoft.QLinearAdd": {
    domain: MS,
    text: `(uint8[2,8] a, float sa, uint8 za, uint8[2,8] b, float sb, uint8 zb, float sc, uint8 zc) => (uint8[2,8] y) {
  [op] y = com.microsoft.QLinearAdd (a, sa, za, b, sb, zb, sc, zc) }`,
  },
  "com.microsoft.DynamicQuantizeMatMul": {
    domain: MS,
    text: `(float[2,4] a, int8[4,3] b, float s) => (float[2,3] y) {
  [op] y = com.microsoft.DynamicQuantizeMatMul (a, b, s) }`,
  },
  "com.microsoft.MatMulIntegerToFloat": {
    domain: MS,
    text: `(uint8[2,4] a, uint8[4,3] b, float sa, float sb) => (float[2,3] y) {
  [op] y = com.microsoft.MatMulIntegerToFloat (a, b, sa, sb) }`,
  },
  // ai.onnx ops no node test here holds (at the opsets where ONNX has them)
  Gelu: {
    domain: "",
    text: `(float[2,8] x) => (float[2,8] y) {
  [op] y = Gelu (x) }`,
  },
  Mish: {
    domain: "",
    text: `(float[2,8] x) => (float[2,8] y) {
  [op] y = Mish (x) }`,
  },
  Swish: {
    domain: "",
    text: `(float[2,8] x) => (float[2,8] y) {
  [op] y = Swish (x) }`,
  },
  Attention: {
    domain: "",
    text: `(float[1,2,4,4] q, float[1,2,4,4] k, float[1,2,4,4] v) => (float[1,2,4,4] y) {
  [op] y = Attention (q, k, v) }`,
  },
  RotaryEmbedding: {
    domain: "",
    text: `(float[1,2,4,8] x, float[1,4,4] c, float[1,4,4] s) => (float[1,2,4,8] y) {
  [op] y = RotaryEmbedding (x, c, s) }`,
  },
  RMSNormalization: {
    domain: "",
    text: `(float[2,8] x, float[8] g) => (float[2,8] y) {
  [op] y = RMSNormalization <axis = -1> (x, g) }`,
  },
  GroupNormalization: {
    domain: "",
    text: `(float[1,4,2,2] x, float[4] g, float[4] b) => (float[1,4,2,2] y) {
  [op] y = GroupNormalization <num_groups = 4> (x, g, b) }`,
  },
  BitwiseAnd: {
    domain: "",
    text: `(int32[2,8] a, int32[2,8] b) => (int32[2,8] y) {
  [op] y = BitwiseAnd (a, b) }`,
  },
  BitwiseOr: {
    domain: "",
    text: `(int32[2,8] a, int32[2,8] b) => (int32[2,8] y) {
  [op] y = BitwiseOr (a, b) }`,
  },
  BitwiseXor: {
    domain: "",
    text: `(int32[2,8] a, int32[2,8] b) => (int32[2,8] y) {
  [op] y = BitwiseXor (a, b) }`,
  },
  BitwiseNot: {
    domain: "",
    text: `(int32[2,8] a) => (int32[2,8] y) {
  [op] y = BitwiseNot (a) }`,
  },
  CumProd: {
    domain: "",
    text: `(float[2,4] x) => (float[2,4] y) <int64 ax = {1}> {
  [op] y = CumProd (x, ax) }`,
  },
  LpNormalization: {
    domain: "",
    text: `(float[2,8] x) => (float[2,8] y) {
  [op] y = LpNormalization <axis = 1, p = 2> (x) }`,
  },
  LpPool: {
    domain: "",
    text: `(float[1,1,4,4] x) => (float[1,1,3,3] y) {
  [op] y = LpPool <kernel_shape = [2, 2]> (x) }`,
  },
  GlobalLpPool: {
    domain: "",
    text: `(float[1,2,4,4] x) => (float[1,2,1,1] y) {
  [op] y = GlobalLpPool (x) }`,
  },
  Col2Im: {
    domain: "",
    text: `(float[1,4,9] x) => (float[1,1,4,4] y) <int64[2] im = {4, 4}, int64[2] bl = {2, 2}> {
  [op] y = Col2Im (x, im, bl) }`,
  },
  AffineGrid: {
    domain: "",
    text: `(float[1,2,3] t) => (float[1,4,4,2] y) <int64[4] sz = {1, 1, 4, 4}> {
  [op] y = AffineGrid (t, sz) }`,
  },
  CenterCropPad: {
    domain: "",
    text: `(float[4,4] x) => (float[2,2] y) <int64[2] sh = {2, 2}> {
  [op] y = CenterCropPad (x, sh) }`,
  },
  TensorScatter: {
    domain: "",
    text: `(float[1,2,8,4] c, float[1,2,1,4] u) => (float[1,2,8,4] y) {
  [op] y = TensorScatter (c, u) }`,
  },
  DeformConv: {
    domain: "",
    text: `(float[1,1,4,4] x, float[1,1,2,2] w, float[1,8,3,3] o) => (float[1,1,3,3] y) {
  [op] y = DeformConv (x, w, o) }`,
  },
  RandomUniformLike: {
    domain: "",
    text: `(float[2,8] x) => (float[2,8] y) {
  [op] y = RandomUniformLike (x) }`,
  },
  RandomNormalLike: {
    domain: "",
    text: `(float[2,8] x) => (float[2,8] y) {
  [op] y = RandomNormalLike (x) }`,
  },
  SimplifiedLayerNormalization: {
    domain: "",
    text: `(float[2,8] x, float[8] g) => (float[2,8] y) {
  [op] y = SimplifiedLayerNormalization <axis = -1, epsilon = 0.00001> (x, g) }`,
  },
};

interface Case {
  /** "k:folder" (the k-th of NODE_TEST_DIRS; "+float": its double-made-float copy), or "hand". */
  key: string;
  op: string;
  domain: string;
  model: Model;
  /** The element types of the graph's inputs, for picking cases of different signatures. */
  signature: string;
}

const isTensor = (t: Type | undefined): t is Extract<Type, { kind: "tensor" }> =>
  t?.kind === "tensor";

/** A copy with every double tensor type made float, or undefined when it has none (or data). */
function floatCopy(m: Model): Model | undefined {
  const g = m.graph;
  const all = [...g.inputs, ...g.outputs, ...g.valueInfo];
  if (!all.some((v) => isTensor(v.type) && v.type.elemType === DataType.DOUBLE)) return undefined;
  if (
    g.initializers.length ||
    g.nodes.some((n) =>
      n.attributes.some(
        (a) =>
          a.type !== "INT" &&
          a.type !== "INTS" &&
          a.type !== "FLOAT" &&
          a.type !== "FLOATS" &&
          a.type !== "STRING" &&
          a.type !== "STRINGS",
      ),
    )
  )
    return undefined;
  const fix = <T extends { type?: Type }>(v: T): T =>
    isTensor(v.type) && v.type.elemType === DataType.DOUBLE
      ? { ...v, type: { ...v.type, elemType: DataType.FLOAT } }
      : v;
  const nodes = g.nodes.map((n) => ({
    ...n,
    attributes: n.attributes.map((a) =>
      // Cast's `to` double → float
      n.opType === "Cast" &&
      a.name === "to" &&
      a.type === "INT" &&
      a.value === BigInt(DataType.DOUBLE)
        ? { ...a, value: BigInt(DataType.FLOAT) }
        : a,
    ),
  }));
  return {
    ...m,
    graph: {
      ...g,
      nodes,
      inputs: g.inputs.map(fix),
      outputs: g.outputs.map(fix),
      valueInfo: g.valueInfo.map(fix),
    },
  };
}

const signatureOf = (m: Model) =>
  m.graph.inputs
    .map((v) => (isTensor(v.type) ? String(v.type.elemType) : (v.type?.kind ?? "?")))
    .join(",");

/** The single-node ai.onnx node tests (no expanded ones), and their float copies. */
function nodeTestCases(): Case[] {
  const cases: Case[] = [];
  for (const [d, dir] of NODE_TEST_DIRS.entries()) {
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).sort()) {
      const file = join(dir, name, "model.onnx");
      if (name.includes("expanded") || !existsSync(file)) continue;
      let m: Model;
      try {
        m = loadModel(file);
      } catch {
        continue;
      }
      const nodes = m.graph.nodes;
      if (nodes.length !== 1 || nodes[0]!.domain !== "") continue;
      if (m.functions.length) continue;
      const op = nodes[0]!.opType;
      const key = `${d}:${name}`;
      cases.push({ key, op, domain: "", model: m, signature: signatureOf(m) });
      const f = floatCopy(m);
      if (f)
        cases.push({ key: `${key}+float`, op, domain: "", model: f, signature: signatureOf(f) });
    }
  }
  return cases;
}

function handCases(): Case[] {
  return Object.entries(HAND).map(([key, h]) => {
    const op = h.domain ? key.slice(h.domain.length + 1) : key;
    const m = parseModelText(`<ir_version: 9, opset_import: ["" : 17, "${MS}" : 1]>
probe ${h.text}`);
    return { key: "hand", op, domain: h.domain, model: m, signature: signatureOf(m) };
  });
}

/** The case's model at the opset: converted (its op kept, one node of it), or undefined. */
function atOpset(c: Case, opset: number): Model | undefined {
  if (c.domain !== "" || c.key === "hand") {
    return {
      ...c.model,
      opsetImports: c.model.opsetImports.map((o) =>
        o.domain === "" ? { ...o, version: opset } : o,
      ),
    };
  }
  let r;
  try {
    r = convertModel(c.model, opset);
  } catch {
    return undefined;
  }
  if (!r.model) return undefined;
  const ofOp = r.model.graph.nodes.filter((n) => n.opType === c.op && n.domain === "");
  if (ofOp.length !== 1) return undefined;
  return r.model;
}

async function makesSession(m: Model): Promise<boolean> {
  try {
    const s = await ortNode.InferenceSession.create(encodeModel(m), {
      graphOptimizationLevel: "disabled",
    });
    await s.release();
    return true;
  } catch {
    return false;
  }
}

const hasGraphs = (m: Model) =>
  m.graph.nodes.some((n) => n.attributes.some((a) => a.type === "GRAPH" || a.type === "GRAPHS"));

interface Entry {
  c: Case;
  model: Model;
}

/** One model of the entries: values renamed apart (e<k>_…), the case's node named e<k>. */
function batchOf(entries: Entry[], opset: number): { model: Model; names: Map<string, Entry> } {
  const names = new Map<string, Entry>();
  const graph = emptyGraph("probe");
  let ir = 7;
  const domains = new Map<string, number>([["", opset]]);
  for (const [k, e] of entries.entries()) {
    const m = e.model;
    ir = Math.max(ir, m.irVersion);
    for (const o of m.opsetImports)
      if (o.domain !== "" && o.domain !== "ai.onnx") domains.set(o.domain, o.version);
    const alone = entries.length === 1;
    const r = (x: string) => (x === "" || alone ? x : `e${k}_${x}`);
    const g = m.graph;
    // every dim of a node test's graph input symbolic: nothing computed from shapes folds (Shape,
    // Size); the hand cases' contrib schemas need theirs
    graph.inputs.push(
      ...g.inputs.map((v) => ({
        ...v,
        name: r(v.name),
        type:
          isTensor(v.type) &&
          v.type.shape &&
          e.c.key !== "hand" &&
          !g.initializers.some((t) => t.name === v.name)
            ? { ...v.type, shape: v.type.shape.map((_, a) => `d${k}_${r(v.name)}_${a}`) }
            : v.type,
      })),
    );
    graph.outputs.push(...g.outputs.map((v) => ({ ...v, name: r(v.name) })));
    graph.valueInfo.push(...g.valueInfo.map((v) => ({ ...v, name: r(v.name) })));
    graph.initializers.push(...g.initializers.map((t) => ({ ...t, name: r(t.name) })));
    for (const [j, n] of g.nodes.entries()) {
      const mine =
        n.opType === e.c.op &&
        (n.domain === e.c.domain || (e.c.domain === "" && n.domain === "ai.onnx"));
      const name = mine ? `e${k}` : `e${k}_${j}`;
      const node: Node = { ...n, name, inputs: n.inputs.map(r), outputs: n.outputs.map(r) };
      graph.nodes.push(node);
      if (mine) names.set(name, e);
    }
  }
  const model: Model = {
    irVersion: ir,
    opsetImports: [...domains].map(([domain, version]) => ({ domain, version })),
    producerName: "webgpu-ops",
    graph,
    functions: [],
  };
  return { model, names };
}

type Where = "webgpu" | "cpu" | "gone";
interface Outcome {
  entry: Entry;
  where?: Where;
  error?: string;
}

/** Places the entries at the opset; halves on a model that makes no session. */
async function place(
  judge: WebgpuJudge,
  dir: string,
  entries: Entry[],
  opset: number,
  file: string,
): Promise<Outcome[]> {
  const { model, names } = batchOf(entries, opset);
  const path = join(dir, `${file}.onnx`);
  saveModel(model, path);
  try {
    const r = await judge.run(path);
    const eps = Object.keys(r.byProvider);
    const of = new Map<string, string>();
    // the layout transformer's NHWC nodes are named after the node they replace (e3_token_7)
    for (const [ep, ns] of Object.entries(r.names))
      for (const n of ns) {
        const k = /^(e\d+)(?:_token_\d+)?$/.exec(n)?.[1];
        if (k && (!of.has(k) || ep !== "CPUExecutionProvider")) of.set(k, ep);
      }
    // "All nodes placed on [EP]" names none
    const only = eps.length === 1 && !(r.names[eps[0]!] ?? []).length ? eps[0] : undefined;
    return [...names].map(([n, entry]) => {
      const ep = of.get(n) ?? only;
      const where: Where =
        ep === undefined ? "gone" : ep === "CPUExecutionProvider" ? "cpu" : "webgpu";
      return { entry, where };
    });
  } catch (e) {
    if (entries.length === 1)
      return [
        {
          entry: entries[0]!,
          error: String((e as Error).message ?? e)
            .replace(/\/\S*\/onnxruntime\//g, "")
            .slice(0, 300),
        },
      ];
    const half = Math.ceil(entries.length / 2);
    return [
      ...(await place(judge, dir, entries.slice(0, half), opset, `${file}a`)),
      ...(await place(judge, dir, entries.slice(half), opset, `${file}b`)),
    ];
  }
}

export interface OpPlacement {
  domain: string;
  /** Opsets at which a case of the op was placed on WebGPU. */
  webgpu: number[];
  /** Opsets at which every case was placed on CPU. */
  cpu: number[];
  /** Opsets at which the op's cases were optimized away (none placed anywhere). */
  gone: number[];
  /** Opsets at which the op exists and no case made a session on onnxruntime-node. */
  noCase: number[];
  /** Cases onnxruntime-web made no session of (onnxruntime-node did): opset, case, reason. */
  failed: { opset: number; case: string; error: string }[];
}

export interface OpsProbe {
  release: string;
  opsets: number[];
  /** The node-test folders read (a case's key is `index:folder`), relative to the repository. */
  sources: string[];
  /** Per op ("Op" for ai.onnx, "domain.Op" otherwise). */
  ops: Record<string, OpPlacement>;
}

/** Probes the ops (all, or `select.ops`) at the opsets (7 to 26, or `select.opsets`). */
export async function probeOps(
  judge: WebgpuJudge,
  select: { ops?: string[]; opsets?: number[] } = {},
): Promise<OpsProbe> {
  const registry = SchemaRegistry.default();
  const all = [...nodeTestCases(), ...handCases()];
  const byOp = new Map<string, Case[]>();
  for (const c of all) {
    const k = c.domain ? `${c.domain}.${c.op}` : c.op;
    if (select.ops && !select.ops.includes(k)) continue;
    byOp.set(k, [...(byOp.get(k) ?? []), c]);
  }
  // float first, then the rest in order
  const FLOAT = String(DataType.FLOAT);
  for (const cs of byOp.values())
    cs.sort(
      (a, b) =>
        Number(!a.signature.split(",").includes(FLOAT)) -
        Number(!b.signature.split(",").includes(FLOAT)),
    );
  const ops: Record<string, OpPlacement> = {};
  const opsets = select.opsets
    ? select.opsets
    : Array.from({ length: LAST_OPSET - FIRST_OPSET + 1 }, (_, i) => FIRST_OPSET + i);
  const dir = mkdtempSync(join(tmpdir(), "webgpu-ops-"));
  try {
    for (const opset of opsets) {
      const entries: Entry[] = [];
      const alone: Entry[] = [];
      for (const [key, cs] of byOp) {
        const domain = cs[0]!.domain;
        const row = (ops[key] ??= {
          domain,
          webgpu: [],
          cpu: [],
          gone: [],
          noCase: [],
          failed: [],
        });
        // an ai.onnx op that ONNX (or onnxruntime's own registration) has not at the opset
        if (domain === "" && !registry.tryResolve("", cs[0]!.op, opset)) continue;
        const picked: Entry[] = [];
        const sigs = new Set<string>();
        for (const c of cs) {
          if (picked.length >= PER_OP) break;
          if (sigs.has(c.signature)) continue;
          const m = atOpset(c, opset);
          // a hand case goes to the browser as it is (BiasAdd, BiasSplitGelu: no CPU kernel)
          if (!m || (c.key !== "hand" && !(await makesSession(m)))) continue;
          sigs.add(c.signature);
          picked.push({ c, model: m });
        }
        if (!picked.length) row.noCase.push(opset);
        for (const e of picked) (hasGraphs(e.model) ? alone : entries).push(e);
      }
      const outcomes: Outcome[] = [...(await place(judge, dir, entries, opset, `o${opset}`))];
      for (const [k, e] of alone.entries())
        outcomes.push(...(await place(judge, dir, [e], opset, `o${opset}g${k}`)));
      const seen = new Map<string, Outcome[]>();
      for (const o of outcomes) {
        const c = o.entry.c;
        const key = c.domain ? `${c.domain}.${c.op}` : c.op;
        seen.set(key, [...(seen.get(key) ?? []), o]);
      }
      for (const [key, os] of seen) {
        const row = ops[key]!;
        for (const o of os)
          if (o.error) row.failed.push({ opset, case: o.entry.c.key, error: o.error });
        const placed = os.filter((o) => o.where);
        if (placed.some((o) => o.where === "webgpu")) row.webgpu.push(opset);
        else if (placed.some((o) => o.where === "cpu")) row.cpu.push(opset);
        else if (placed.length) row.gone.push(opset);
      }
      console.error(
        `opset ${opset}: ${entries.length + alone.length} cases, ${outcomes.filter((o) => o.where === "webgpu").length} on WebGPU, ${outcomes.filter((o) => o.error).length} failed`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // the ai.onnx ops no case reached: reported, with the opsets they exist at
  for (const op of registry.operators().filter((o) => !o.includes(".")))
    if (!ops[op] && !select.ops) {
      const at = opsets.filter((o) => registry.tryResolveStandard("", op, o));
      if (at.length)
        ops[op] = { domain: "", webgpu: [], cpu: [], gone: [], noCase: at, failed: [] };
    }
  const sorted = Object.fromEntries(
    Object.keys(ops)
      .sort()
      .map((k) => [k, ops[k]!]),
  );
  return {
    release: ORT_WEB_VERSION,
    opsets,
    sources: NODE_TEST_DIRS.filter(existsSync).map((d) =>
      d.startsWith(root) ? d.slice(root.length + 1) : d,
    ),
    ops: sorted,
  };
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const judge = await WebgpuJudge.open();
  try {
    // PROBE_OPSETS=17,21: those opsets only (a trial; the file is written for all)
    const opsets = process.env.PROBE_OPSETS?.split(",").map(Number);
    const p = await probeOps(judge, opsets ? { opsets } : {});
    // one line per op
    const { ops, ...head } = p;
    const lines = Object.entries(ops).map(
      ([k, r]) => `    ${JSON.stringify(k)}: ${JSON.stringify(r)}`,
    );
    const top = JSON.stringify(head, null, 2).slice(0, -2);
    writeFileSync(
      process.env.PROBE_OUT ?? OPS_FILE,
      `${top},\n  "ops": {\n${lines.join(",\n")}\n  }\n}\n`,
    );
    for (const [op, r] of Object.entries(p.ops))
      console.log(
        `${op}: webgpu ${r.webgpu.join(",") || "-"}; cpu ${r.cpu.join(",") || "-"}${r.gone.length ? `; gone ${r.gone.join(",")}` : ""}${r.failed.length ? `; failed ${r.failed.length}` : ""}`,
      );
  } finally {
    await judge.close();
  }
}
