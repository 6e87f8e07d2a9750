// Differential testing on generated models: the interpreter against onnxruntime-node on the same
// model, and the interpreter before against after a pass (convert up, down, up-then-down; expand).
// Each case ends in one outcome; a disagreement is shrunk to the fewest generator steps that
// still disagree.

import * as ort from "onnxruntime-node";
import { checkModel } from "../../src/check/index.js";
import { formatProblem } from "../../src/check/report.js";
import { run } from "../../src/interp/executor.js";
import { toFloat64 } from "../../src/interp/tensor.js";
import { fromOrt, toOrt } from "../../test/helpers/ort-tensors.js";
import type { RTensor, RValue } from "../../src/interp/types.js";
import { encodeModel } from "../../src/io/files.js";
import type { Model } from "../../src/ir/types.js";
import { printModel } from "../../src/text/print.js";
import { generateModel, shrink, type GenOptions, type Generated } from "./model.js";
import { convertModel } from "../../src/app/transform.js";
import { conversionError } from "../../src/convert/index.js";
import { expandPipeline } from "../../src/expand/index.js";
import { runPass } from "../../src/passes/manager.js";
import { failureError, passContext } from "../../src/passes/pass.js";
import { hasFunctionBody } from "../../src/schema/index.js";
import { walkNodes } from "../../src/ir/visit.js";
import type { Node } from "../../src/ir/types.js";

export type Outcome =
  | "agree"
  | "disagree"
  | "invalid" // the generator made a model the checker rejects (a generator or checker bug)
  | "interp-error" // the interpreter refused or failed where the other side ran
  | "other-error" // onnxruntime-node (or the pass) failed where the interpreter ran
  | "refused" // the pass refused, with a reason
  | "skipped"; // not applicable (e.g. opset beyond onnxruntime-node's)

export interface CaseResult {
  seed: number;
  outcome: Outcome;
  detail?: string;
  /** For a disagreement: the shrunk model as ONNX text. */
  reproducer?: string;
  steps?: string[];
}

export async function runOrt(m: Model, feeds: Record<string, RTensor>): Promise<RTensor[]> {
  const session = await ort.InferenceSession.create(encodeModel(m));
  try {
    const f: Record<string, ort.Tensor> = {};
    for (const [k, t] of Object.entries(feeds)) f[k] = toOrt(t);
    const r = await session.run(f);
    return m.graph.outputs.map((o) => fromOrt(r[o.name]!));
  } finally {
    await session.release();
  }
}

export function runInterp(m: Model, feeds: Record<string, RTensor>): RTensor[] {
  const out = run(m, feeds as Record<string, RValue>);
  return m.graph.outputs.map((o) => out[o.name] as RTensor);
}

/** Where two results differ beyond tolerance (rtol 1e-3, atol 1e-5; NaN equals NaN), or undefined. */
export function difference(
  a: RTensor[],
  b: RTensor[],
  rtol = 1e-3,
  atol = 1e-5,
): string | undefined {
  if (a.length !== b.length) return `${a.length} outputs vs ${b.length}`;
  for (let k = 0; k < a.length; k++) {
    const x = a[k]!;
    const y = b[k]!;
    if (x.dtype !== y.dtype) return `output ${k}: dtype ${x.dtype} vs ${y.dtype}`;
    if (x.shape.join(",") !== y.shape.join(","))
      return `output ${k}: shape [${x.shape}] vs [${y.shape}]`;
    const xv = toFloat64(x);
    const yv = toFloat64(y);
    for (let i = 0; i < xv.length; i++) {
      const p = xv[i]!;
      const q = yv[i]!;
      if (Number.isNaN(p) && Number.isNaN(q)) continue;
      if (p === q) continue;
      if (Math.abs(p - q) <= atol + rtol * Math.abs(q)) continue;
      return `output ${k}[${i}]: ${p} vs ${q}`;
    }
  }
  return undefined;
}

export type Other = (g: Generated) => Promise<RTensor[] | { refused: string }>;

/** onnxruntime-node on the same model (opsets up to 26). */
export const ortSide: Other = (g) => runOrt(g.model, g.feeds);

/** The interpreter on the model a pass made (which must pass the checker), or the pass's refusal. */
function afterPass(make: (g: Generated) => Model | { refused: string }): Other {
  return async (g) => {
    const m = make(g);
    if ("refused" in m) return m;
    const report = checkModel(m);
    if (!report.ok)
      throw new Error(`the result fails check: ${formatProblem(report.problems[0]!)}`);
    return runInterp(m, g.feeds);
  };
}

function converted(m: Model, target: number): Model | { refused: string } {
  const r = convertModel(m, target);
  if (!r.model) return { refused: conversionError(r).message };
  return r.model;
}

/** A target opset drawn from the model's seed (so the case stays reproducible). */
function targetOf(g: Generated, lo: number, hi: number): number {
  return lo + (g.seed % (hi - lo + 1));
}

/** The interpreter before and after converting up to a newer opset (up to 29). */
export const convertUpSide: Other = afterPass((g) =>
  g.opset >= 29 ? g.model : converted(g.model, targetOf(g, g.opset + 1, 29)),
);

/** Before and after converting down to an older opset (7 and up); refusals are counted, not failures. */
export const convertDownSide: Other = afterPass((g) =>
  g.opset <= 7 ? g.model : converted(g.model, targetOf(g, 7, g.opset - 1)),
);

/** Before and after converting up and back down to the model's own opset. */
export const convertRoundTripSide: Other = afterPass((g) => {
  if (g.opset >= 29) return g.model;
  const up = converted(g.model, targetOf(g, g.opset + 1, 29));
  return "refused" in up ? up : converted(up, g.opset);
});

/** Before and after expanding every function op (none may be left). */
export const expandSide: Other = afterPass((g) => {
  const ctx = passContext();
  const r = runPass(expandPipeline(), g.model, ctx);
  if (!r.ok) throw failureError(r);
  // A function op may stay only where the pass said why (its body needs an op the opset lacks).
  const warned = r.notes.filter((n) => n.level === "warning").map((n) => n.where ?? "");
  const left = [...walkNodes(r.model)].filter(
    (v) =>
      isFunctionOp(r.model, v.node, ctx) &&
      !warned.some((w) => v.node.name !== undefined && w.includes(`'${v.node.name}'`)),
  );
  if (left.length)
    throw new Error(`function ops left after expand: ${left.map((v) => v.node.opType)}`);
  return r.model;
});

function isFunctionOp(m: Model, n: Node, ctx: ReturnType<typeof passContext>): boolean {
  if (m.functions.some((f) => f.name === n.opType && f.domain === n.domain)) return true;
  if (n.domain !== "" && n.domain !== "ai.onnx") return false;
  const opset = m.opsetImports.find((o) => o.domain === "" || o.domain === "ai.onnx")?.version ?? 1;
  const v = ctx.registry.tryResolve("", n.opType, opset);
  return v !== undefined && hasFunctionBody(v);
}

async function compare(g: Generated, other: Other): Promise<{ outcome: Outcome; detail?: string }> {
  const report = checkModel(g.model);
  if (!report.ok) return { outcome: "invalid", detail: formatProblem(report.problems[0]!) };
  let mine: RTensor[];
  try {
    mine = runInterp(g.model, g.feeds);
  } catch (e) {
    return { outcome: "interp-error", detail: (e as Error).message };
  }
  let theirs: RTensor[] | { refused: string };
  try {
    theirs = await other(g);
  } catch (e) {
    const msg = (e as Error).message.split("\n")[0]!;
    // onnxruntime-node lacks kernels for some valid (op, type) pairs (double Softsign, ...).
    if (/Could not find an implementation/.test(msg)) return { outcome: "skipped", detail: msg };
    return { outcome: "other-error", detail: msg };
  }
  if ("refused" in theirs) return { outcome: "refused", detail: theirs.refused };
  const d = difference(mine, theirs);
  return d ? { outcome: "disagree", detail: d } : { outcome: "agree" };
}

export async function differentialCase(
  seed: number,
  other: Other,
  opts: GenOptions = {},
): Promise<CaseResult> {
  const g = generateModel(seed, opts);
  const r = await compare(g, other);
  if (r.outcome !== "disagree") return { seed, ...r };
  const small = await shrink(seed, opts, g.steps.length, async (h) => {
    const s = await compare(h, other);
    return s.outcome === "disagree";
  });
  const again = await compare(small, other);
  return {
    seed,
    outcome: "disagree",
    detail: again.detail ?? r.detail,
    reproducer: printModel(small.model),
    steps: small.steps,
  };
}
