// bfloat16 checked node by node against the float64 reference (docs/semantics.md, "Precision
// lowering"). Whole-model comparison cannot tell a wrong op from a rounding flip: a float32 Conv
// whose sums differ by 2e-7 between two evaluators flips a few bfloat16 roundings of the next op
// by an ulp, and those compound through a CNN. So each node of the bfloat16 model is fed the
// reference's own values of its inputs (ONNX's reference evaluator in float64, each value the
// model holds in bfloat16 rounded to it: `precision.py values`), evaluated alone in the
// interpreter, and compared with the reference's output of that node:
//   - a bfloat16 output: every element within ULP_BOUND ulps of bfloat16 (the distance of the two
//     bit patterns in the type's order, +0 and −0 the same, NaN against NaN 0). An op computed
//     exactly and rounded once gives 0; one that sums in float32 first (Conv, MatMul) or computes
//     in float32 and rounds to bfloat16 can land one ulp off, never more;
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
import { DataType, type Model, type Node } from "../../src/ir/types.js";
import { encodeModel } from "../../src/io/files.js";
import { requiredInputs } from "../../src/app/inputs.js";
import { CORPUS_DIR } from "./python.js";

export const ULP_BOUND = 1;
export const FLOAT32_BOUND = 1e-5;

/** One node's comparison: the worst over its outputs. */
export interface NodeCheck {
  index: number;
  node: string;
  op: string;
  /** Worst bfloat16 distance in ulps (0 when no output is bfloat16; Infinity: NaN against a number). */
  ulps: number;
  /** Worst float32 difference over the output's largest magnitude (0 when none is float32). */
  float32: number;
  /** Outputs of another type that differ, or a shape, a type or a run that fails. */
  problem?: string;
  failed: boolean;
}

export interface NodesReport {
  checked: number;
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

/** Worst ulps and the count of one-ulp elements between two bfloat16 tensors. */
export function bf16Ulps(a: RTensor, b: RTensor): { worst: number; one: number } {
  const x = a.data as Uint16Array;
  const y = b.data as Uint16Array;
  let worst = 0;
  let one = 0;
  for (let i = 0; i < y.length; i++) {
    const p = x[i]!;
    const q = y[i]!;
    if (p === q) continue;
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
  writeFileSync(file, encodeModel(model));
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
          check.ulps = Math.max(check.ulps, u.worst);
          report.oneUlp += u.one;
          report.bf16Elements += want.shape.reduce((a, b) => a * b, 1);
        } else if (want.dtype === DataType.FLOAT || want.dtype === DataType.DOUBLE)
          check.float32 = Math.max(check.float32, float32Gap(have, want));
        else if (!equal(have, want)) check.problem = `'${o}' differs`;
        if (!readers.get(o) && !(o in outputs)) cache.delete(o);
      }
      check.failed = !!check.problem || check.ulps > ULP_BOUND || check.float32 > FLOAT32_BOUND;
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
