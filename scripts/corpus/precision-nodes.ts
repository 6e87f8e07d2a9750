// bfloat16 checked node by node against the float64 reference (docs/semantics.md, "Precision
// lowering"). Whole-model comparison cannot tell a wrong op from a rounding flip: a float32 Conv
// whose sums differ by 2e-7 between two evaluators flips a few bfloat16 roundings of the next op
// by an ulp, and those compound through a CNN. So each node of the bfloat16 model is fed the
// reference's own values of its inputs (ONNX's reference evaluator in float64, each value the
// model holds in bfloat16 rounded to it: `precision.py values`), evaluated alone in the
// interpreter, and compared with the reference's output of that node:
//   - a bfloat16 output: every element within ULP_BOUND ulps of bfloat16 (the distance of the two
//     bit patterns in the type's order, +0 and −0 the same, NaN against NaN 0). An op computed
//     exactly and rounded once gives 0; one computed in float32 and rounded to bfloat16 can land
//     one ulp off, never more. MatMul and Conv sum their products in float32 (docs/semantics.md:
//     "accumulate in at least float32", as onnxruntime does), and where the sum cancels (an exact
//     −1.9e-9 from products whose magnitudes add up to 2.3) the float32 sum's own error is many
//     ulps of the small result. So an element of theirs beyond one ulp passes when
//     |got − ref| ≤ ulp(max(|got|, |ref|)) + γ_K · Σ|products|, γ_K = K·2⁻²⁴ / (1 − K·2⁻²⁴) the
//     bound of a float32 sum of K terms (each bfloat16 product is exact in float32), Σ|products|
//     computed in float64 by the same op on the inputs' magnitudes; counted apart;
//   - a float32 output (a node the pass keeps float32, or a Cast out of bfloat16): every element
//     within FLOAT32_BOUND times the output's largest magnitude (the reference computes these in
//     numpy's float32, the interpreter sums in another order);
//   - any other type: equal.

import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../src/interp/executor.js";
import { toFloat64 } from "../../src/interp/tensor.js";
import type { RTensor, RValue } from "../../src/interp/types.js";
import { decodeTensorProto, encodeTensorProto } from "../../src/interp/value-proto.js";
import type { Tensor } from "../../src/ir/tensor.js";
import { DataType, type Model, type Node } from "../../src/ir/types.js";
import { saveModel } from "../../src/io/files.js";
import { requiredInputs } from "../../src/app/inputs.js";
import { CORPUS_DIR } from "./python.js";

export const ULP_BOUND = 1;
export const FLOAT32_BOUND = 1e-5;

/** One node's comparison: the worst over its outputs. */
export interface NodeCheck {
  index: number;
  node: string;
  op: string;
  /**
   * Worst bfloat16 distance in ulps (0 when no output is bfloat16; Infinity: NaN against a
   * number), before the float32 sum's bound is allowed for.
   */
  ulps: number;
  /** Worst float32 difference over the output's largest magnitude (0 when none is float32). */
  float32: number;
  /**
   * Elements beyond one ulp within the float32 sum's bound (MatMul, Conv), and the largest
   * |got − ref| over that bound among them.
   */
  summed?: { elements: number; worst: number };
  /** Some bfloat16 element lies beyond one ulp (and beyond the float32 sum's bound). */
  beyond?: boolean;
  /** Outputs of another type that differ, or a shape, a type or a run that fails. */
  problem?: string;
  failed: boolean;
}

export interface NodesReport {
  checked: number;
  /** Elements beyond one ulp that the float32 sum's bound covers (MatMul, Conv), over all nodes. */
  summedElements: number;
  /** Nodes not checked, with why (Constants, subgraph holders). */
  skipped: { node: string; reason: string }[];
  failing: NodeCheck[];
  worstUlps: number;
  worstFloat32: number;
  /** How many bfloat16 elements sit exactly one ulp away, of all bfloat16 elements compared. */
  oneUlp: number;
  bf16Elements: number;
  nodes: NodeCheck[];
  /** The reference's values of the graph outputs, for the whole-model error. */
  outputs: Record<string, RTensor>;
}

const label = (n: Node, i: number) => `${n.name || `#${i}`} (${n.opType})`;

/** The bfloat16 bits in order: negative patterns below positive ones, ±0 the same. */
function ordered(bits: number): number {
  return bits & 0x8000 ? -(bits & 0x7fff) : bits;
}

/** The elements whose bits differ between two bfloat16 tensors: index, a's bits, b's bits. */
function* differing(a: RTensor, b: RTensor): Generator<[number, number, number]> {
  const x = a.data as Uint16Array;
  const y = b.data as Uint16Array;
  for (let i = 0; i < y.length; i++) if (x[i] !== y[i]) yield [i, x[i]!, y[i]!];
}

/** Worst ulps and the count of one-ulp elements between two bfloat16 tensors. */
export function bf16Ulps(a: RTensor, b: RTensor): { worst: number; one: number } {
  let worst = 0;
  let one = 0;
  for (const [, p, q] of differing(a, b)) {
    const nanP = (p & 0x7f80) === 0x7f80 && (p & 0x7f) !== 0;
    const nanQ = (q & 0x7f80) === 0x7f80 && (q & 0x7f) !== 0;
    if (nanP || nanQ) {
      if (!(nanP && nanQ)) return { worst: Infinity, one };
      continue;
    }
    const d = Math.abs(ordered(p) - ordered(q));
    if (d === 1) one++;
    if (d > worst) worst = d;
  }
  return { worst, one };
}

/** The largest |a − b| over the largest |b| (NaN against NaN 0; NaN against a number ∞). */
export function float32Gap(a: RTensor, b: RTensor): number {
  const x = toFloat64(a);
  const y = toFloat64(b);
  let d = 0;
  let scale = 0;
  for (let i = 0; i < y.length; i++) {
    const p = x[i]!;
    const q = y[i]!;
    if (Number.isFinite(q)) scale = Math.max(scale, Math.abs(q));
    if (p === q || (Number.isNaN(p) && Number.isNaN(q))) continue;
    if (!Number.isFinite(p - q)) return Infinity;
    d = Math.max(d, Math.abs(p - q));
  }
  return d === 0 ? 0 : scale > 0 ? d / scale : Infinity;
}

/** The ops whose bfloat16 form sums its products in float32. */
const SUMMED = new Set(["MatMul", "Conv"]);
const U32 = 2 ** -24;

/** The value of bfloat16 bits. */
function bf16Value(bits: number): number {
  const f = new Float32Array(new Uint32Array([bits << 16]).buffer);
  return f[0]!;
}

/** The gap from a bfloat16 magnitude's bits to the next one up. */
function bf16Ulp(bits: number): number {
  const m = bits & 0x7fff;
  return m >= 0x7f80 ? Infinity : bf16Value(m + 1) - bf16Value(m);
}

/**
 * For a MatMul or a Conv on bfloat16: of the elements beyond one ulp, how many lie within the
 * float32 sum's bound, and the largest |got − ref| / (ulp + γ_K Σ|products|) among all of them
 * (above 1: some element lies beyond it).
 */
function withinSumBound(
  model: Model,
  n: Node,
  feeds: Record<string, RValue>,
  initializers: Tensor[],
  have: RTensor,
  want: RTensor,
): { elements: number; worst: number } {
  // The same op on the inputs' magnitudes, in float64: Σ|products| (and |bias|) per element.
  const inputs = n.inputs.map((x, i) => (x ? `abs_${i}` : ""));
  const nodes: Node[] = [];
  n.inputs.forEach((x, i) => {
    if (!x) return;
    nodes.push({
      opType: "Cast",
      domain: "",
      inputs: [x],
      outputs: [`wide_${i}`],
      attributes: [{ name: "to", type: "INT", value: BigInt(DataType.DOUBLE) }],
    });
    nodes.push({
      opType: "Abs",
      domain: "",
      inputs: [`wide_${i}`],
      outputs: [`abs_${i}`],
      attributes: [],
    });
  });
  nodes.push({ ...n, inputs, outputs: ["sum_abs"] });
  const names = [...new Set(n.inputs.filter((x) => x))];
  const inits = new Set(initializers.map((t) => t.name));
  const mags = run(
    {
      ...model,
      graph: {
        nodes,
        inputs: names.filter((x) => !inits.has(x)).map((name) => ({ name })),
        outputs: [{ name: "sum_abs" }],
        initializers,
        sparseInitializers: [],
        valueInfo: [],
      },
    },
    feeds,
  ).sum_abs!;
  const shapeOf = (name: string): number[] => {
    const v = feeds[name];
    if (v && "shape" in v) return v.shape;
    return initializers.find((t) => t.name === name)!.dims.map(Number);
  };
  // The terms of each sum: MatMul's inner dimension; Conv's weights per output channel (and a bias).
  const K =
    n.opType === "MatMul"
      ? (shapeOf(n.inputs[0]!).at(-1) ?? 1)
      : shapeOf(n.inputs[1]!)
          .slice(1)
          .reduce((a, b) => a * b, 1) + (n.inputs[2] ? 1 : 0);
  const gamma = (K * U32) / (1 - K * U32);
  const s = toFloat64(mags);
  let elements = 0;
  let worst = 0;
  for (const [i, p, q] of differing(have, want)) {
    if (Math.abs(ordered(p) - ordered(q)) <= ULP_BOUND) continue;
    const allowed = Math.max(bf16Ulp(p), bf16Ulp(q)) + gamma * s[i]!;
    const r = Math.abs(bf16Value(p) - bf16Value(q)) / allowed;
    if (r <= 1) elements++;
    worst = Math.max(worst, r);
  }
  return { elements, worst };
}

function equal(a: RTensor, b: RTensor): boolean {
  const x = a.data as ArrayLike<unknown>;
  const y = b.data as ArrayLike<unknown>;
  if (x.length !== y.length) return false;
  for (let i = 0; i < y.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

/**
 * Runs `precision.py values` on the half model: writes the model and the inputs into `dir`, the
 * reference's values into `dir`/values. Returns that folder, or throws with Python's last line.
 */
export function referenceValues(
  python: string,
  model: Model,
  inputs: Record<string, RValue>,
  dir: string,
  timeoutMs = 1_800_000,
): string {
  const file = join(dir, "model.onnx");
  saveModel(model, file);
  requiredInputs(model).forEach((v, i) =>
    writeFileSync(join(dir, `input_${i}.pb`), encodeTensorProto(inputs[v.name] as RTensor, v.name)),
  );
  const out = join(dir, "values");
  spawnSync("mkdir", ["-p", out]);
  const r = spawnSync(python, [join(CORPUS_DIR, "precision.py"), "values", file, dir, out], {
    encoding: "utf8",
    timeout: timeoutMs,
    maxBuffer: 1 << 26,
  });
  if (r.status !== 0)
    throw new Error(
      `precision.py values: ${(r.stderr || String(r.error)).trim().split("\n").pop()}`,
    );
  return out;
}

/**
 * Checks every node of `model` against the reference's values in `valuesDir` (from
 * referenceValues on the same model and inputs).
 */
export function checkNodes(
  model: Model,
  inputs: Record<string, RValue>,
  valuesDir: string,
): NodesReport {
  const index = JSON.parse(readFileSync(join(valuesDir, "values.json"), "utf8")) as Record<
    string,
    string
  >;
  const g = model.graph;
  const inits = new Map(g.initializers.map((t) => [t.name, t]));
  // Each reference value is read once and dropped after its last reader.
  const readers = new Map<string, number>();
  for (const n of g.nodes)
    for (const x of new Set(n.inputs)) readers.set(x, (readers.get(x) ?? 0) + 1);
  const cache = new Map<string, RTensor>();
  const refValue = (name: string): RTensor | undefined => {
    const hit = cache.get(name);
    if (hit) return hit;
    const file = index[name];
    if (!file) return undefined;
    const t = decodeTensorProto(readFileSync(join(valuesDir, file))).tensor;
    cache.set(name, t);
    return t;
  };
  const release = (name: string) => {
    const left = (readers.get(name) ?? 1) - 1;
    readers.set(name, left);
    if (left <= 0) cache.delete(name);
  };
  const outputs: Record<string, RTensor> = {};
  for (const o of g.outputs) {
    const t = refValue(o.name);
    if (t) outputs[o.name] = t;
  }
  const report: NodesReport = {
    checked: 0,
    skipped: [],
    failing: [],
    worstUlps: 0,
    worstFloat32: 0,
    oneUlp: 0,
    bf16Elements: 0,
    summedElements: 0,
    nodes: [],
    outputs,
  };
  g.nodes.forEach((n, i) => {
    const names = [...new Set(n.inputs.filter((x) => x))];
    try {
      if (n.opType === "Constant" && n.domain === "")
        return report.skipped.push({ node: label(n, i), reason: "a Constant" });
      if (n.attributes.some((a) => a.type === "GRAPH" || a.type === "GRAPHS"))
        return report.skipped.push({ node: label(n, i), reason: "it holds a subgraph" });
      const feeds: Record<string, RValue> = {};
      for (const x of names) {
        if (inits.has(x)) continue;
        const v = inputs[x] ?? refValue(x);
        if (!v)
          return report.skipped.push({ node: label(n, i), reason: `no reference for '${x}'` });
        feeds[x] = v;
      }
      const mini: Model = {
        ...model,
        graph: {
          nodes: [n],
          inputs: names.filter((x) => !inits.has(x)).map((name) => ({ name })),
          outputs: n.outputs.filter((o) => o).map((name) => ({ name })),
          initializers: names.filter((x) => inits.has(x)).map((x) => inits.get(x)!),
          sparseInitializers: [],
          valueInfo: [],
        },
      };
      const check: NodeCheck = {
        index: i,
        node: label(n, i),
        op: n.opType,
        ulps: 0,
        float32: 0,
        failed: false,
      };
      let got: Record<string, RTensor>;
      try {
        got = run(mini, feeds);
      } catch (e) {
        got = {};
        check.problem = `the interpreter fails: ${(e as Error).message.slice(0, 120)}`;
      }
      for (const o of n.outputs) {
        if (!o || check.problem) continue;
        const want = refValue(o);
        const have = got[o];
        if (!want || !have) {
          if (want && !have) check.problem = `no output '${o}'`;
          continue;
        }
        if (have.dtype !== want.dtype)
          check.problem = `'${o}' is type ${have.dtype}, the reference's ${want.dtype}`;
        else if (have.shape.join(",") !== want.shape.join(","))
          check.problem = `'${o}' has shape [${have.shape}], the reference's [${want.shape}]`;
        else if (want.dtype === DataType.BFLOAT16) {
          const u = bf16Ulps(have, want);
          if (u.worst > ULP_BOUND && SUMMED.has(n.opType) && n.domain === "") {
            const within = withinSumBound(model, n, feeds, mini.graph.initializers, have, want);
            check.summed = within;
            report.summedElements += within.elements;
            if (within.worst > 1) check.beyond = true;
          } else if (u.worst > ULP_BOUND) check.beyond = true;
          check.ulps = Math.max(check.ulps, u.worst);
          report.oneUlp += u.one;
          report.bf16Elements += want.shape.reduce((a, b) => a * b, 1);
        } else if (want.dtype === DataType.FLOAT || want.dtype === DataType.DOUBLE)
          check.float32 = Math.max(check.float32, float32Gap(have, want));
        else if (!equal(have, want)) check.problem = `'${o}' differs`;
        if (!readers.get(o) && !(o in outputs)) cache.delete(o);
      }
      check.failed = !!check.problem || !!check.beyond || check.float32 > FLOAT32_BOUND;
      report.checked++;
      report.nodes.push(check);
      if (check.failed) report.failing.push(check);
      report.worstUlps = Math.max(report.worstUlps, check.ulps);
      report.worstFloat32 = Math.max(report.worstFloat32, check.float32);
    } finally {
      for (const x of names) release(x);
    }
  });
  return report;
}

/** The failing nodes by op, each with its count and worst ulps (or its problem). */
export function failingByOp(r: NodesReport): string {
  const by = new Map<string, { count: number; ulps: number; float32: number; problem?: string }>();
  for (const f of r.failing) {
    const e = by.get(f.op) ?? { count: 0, ulps: 0, float32: 0 };
    e.count++;
    e.ulps = Math.max(e.ulps, f.ulps);
    e.float32 = Math.max(e.float32, f.float32);
    e.problem ??= f.problem;
    by.set(f.op, e);
  }
  return [...by]
    .map(
      ([op, e]) =>
        `${e.count} ${op} (${e.problem ?? (e.ulps > ULP_BOUND ? `${e.ulps} ulps` : `float32 ${e.float32.toExponential(1)}`)})`,
    )
    .join(", ");
}
