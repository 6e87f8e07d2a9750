// Function-call bombs for `expand`: models in ONNX text whose local functions call each other so
// that inlining multiplies nodes (f_k calling f_{k-1} `fanout` times makes fanout^k copies of the
// leaf), with the variations the expander's bound must see through: calls inside If branches and
// Loop bodies, schema function ops in the leaf (Celu, whose body calls Elu), a leaf of many nodes
// called many times, a cycle, kept functions (--keep), and small models that expand. The campaign
// (campaign.ts, `--generator bombs`) and the CLI tests build their models here.

import type { Random } from "../../src/interp/random.js";

export interface BombShape {
  /** Levels of functions above the leaf: f_depth ... f_1 call down to f_0, the leaf. */
  depth: number;
  /** Calls of f_{k-1} in f_k. */
  fanout: number;
  /** Nodes of the leaf. */
  leafNodes: number;
  /** Calls of the top function in the main graph. */
  graphCalls: number;
  /** The leaf's op: a primitive (Neg) or a schema function op (Celu, whose body calls Elu). */
  leafOp?: "Neg" | "Celu";
  /** Where the middle functions put their calls: a plain list, an If's branches or a Loop body. */
  wrap?: "none" | "if" | "loop";
  /** The leaf calls the top: a cycle, refused before anything is counted. */
  cycle?: boolean;
}

const HEADER = `< ir_version: 8, opset_import: ["" : 18, "local" : 1] >`;
const FN = `< domain: "local", opset_import: ["" : 18, "local" : 1] >`;

/** Calls of `callee` from `a` to `b`, one after the other (each on the last one's output). */
function callChain(callee: string, count: number, a: string, b: string, tag: string): string[] {
  const lines: string[] = [];
  let prev = a;
  for (let i = 0; i < count; i++) {
    const out = i === count - 1 ? b : `${tag}${i}`;
    lines.push(`${out} = local.${callee} (${prev})`);
    prev = out;
  }
  return lines;
}

/** The model of a shape, as ONNX text. */
export function bombText(s: BombShape): string {
  const leafOp = s.leafOp ?? "Neg";
  const wrap = s.wrap ?? "none";
  const parts: string[] = [];
  const main = callChain(`f${s.depth}`, s.graphCalls, "x", "y", "g");
  parts.push(`${HEADER}\nbomb (float[2] x) => (float[2] y) {\n  ${main.join("\n  ")}\n}`);
  // The leaf.
  const leaf: string[] = [];
  let prev = "a";
  for (let i = 0; i < s.leafNodes; i++) {
    const out = i === s.leafNodes - 1 && !s.cycle ? "b" : `t${i}`;
    leaf.push(`${out} = ${leafOp} (${prev})`);
    prev = out;
  }
  if (s.cycle) leaf.push(`b = local.f${s.depth} (${prev})`);
  parts.push(`${FN}\nf0 (a) => (b) {\n  ${leaf.join("\n  ")}\n}`);
  for (let k = 1; k <= s.depth; k++) {
    const calls = callChain(`f${k - 1}`, s.fanout, "a", "b", "c");
    let body: string;
    if (wrap === "if" && k % 2 === 1) {
      const branch = (name: string) =>
        `${name}: graph = ${name.slice(0, 2)}${k} () => (float[2] r) {\n    ${callChain(`f${k - 1}`, s.fanout, "a", "r", `${name}_`).join("\n    ")}\n  }`;
      body = `z = Constant <value: tensor = bool {1}> ()\n  b = If (z) <${branch("then_branch")}, ${branch("else_branch")}>`;
    } else if (wrap === "loop" && k % 2 === 1) {
      const inner = callChain(`f${k - 1}`, s.fanout, "v", "w", "l");
      body = `n = Constant <value: tensor = int64 {1}> ()\n  b = Loop (n, , a) <body = step (int64 i, bool cond, float[2] v) => (bool co, float[2] w) {\n    co = Identity (cond)\n    ${inner.join("\n    ")}\n  }>`;
    } else body = calls.join("\n  ");
    parts.push(`${FN}\nf${k} (a) => (b) {\n  ${body}\n}`);
  }
  return parts.join("\n") + "\n";
}

/** How many nodes inlining everything makes (the main graph's; schema bodies counted as 1). */
export function bombSize(s: BombShape): number {
  let size = s.leafNodes;
  for (let k = 1; k <= s.depth; k++) {
    const wrapped = (s.wrap === "if" || s.wrap === "loop") && k % 2 === 1;
    if (s.wrap === "if" && wrapped) size = 2 + 2 * s.fanout * size;
    else if (wrapped) size = 3 + s.fanout * size;
    else size = s.fanout * size;
  }
  return s.graphCalls * size;
}

/** A random shape: mostly bombs (small to astronomic), some that expand, a few cycles. */
export function randomBomb(rng: Random): BombShape {
  const kind = rng.int(10);
  const shape: BombShape = {
    depth: 1 + rng.int(kind < 3 ? 6 : 45),
    fanout: 1 + rng.int(kind < 3 ? 2 : 4),
    leafNodes: 1 + rng.int(rng.chance(0.2) ? 5000 : 4),
    graphCalls: 1 + rng.int(rng.chance(0.2) ? 1000 : 3),
    leafOp: rng.chance(0.3) ? "Celu" : "Neg",
    wrap: rng.pick(["none", "none", "if", "loop"] as const),
  };
  if (kind === 9) shape.cycle = true;
  return shape;
}

/** Extra CLI options a bomb case runs with: sometimes a --max-nodes, a --max-memory or a --keep. */
export function bombOptions(rng: Random, s: BombShape): string[] {
  const opts: string[] = [];
  if (rng.chance(0.25)) opts.push("--max-nodes", String(1 + rng.int(200000)));
  if (rng.chance(0.15)) opts.push("--max-memory", rng.pick(["1M", "64M", "512M"]));
  if (rng.chance(0.15)) opts.push("--keep", `local:f${rng.int(s.depth + 1)}`);
  return opts;
}
