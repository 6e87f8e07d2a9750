// The sizes random inputs take for the symbolic dims the user did not set, for `run --random` and
// the page's Run. A dim left to itself is 1, unless the graph's own shapes say it cannot be: type
// inference carries the input's symbols through the graph as expressions of one symbol each
// (check/dim-expr.ts: `floor((sequence-64)/128)`), so what the graph needs of a symbol can be read
// where it is used:
//
// - every dim computed from it is at least 1 (a Conv's window fits its input, a slice is not empty);
// - a Squeeze's axes are 1;
// - a Conv's input channels are the weight's (W[1]·group), a recurrent net's input size its
//   weight's (W[2]), a MatMul's or Gemm's inner dim the other factor's;
// - a Reshape to a constant shape gets a multiple of what the shape fixes (`[-1, 512]`), laid on
//   the innermost dim left to choose.
//
// Each symbol takes the smallest size (from 1) that meets what its uses ask; each choice is kept
// with the use that made it other than 1, for the caller to say. Unnamed dims go by
// `input[axis]`, as the user gives them.

import { OnnxError } from "../errors.js";
import { analysisOf } from "../check/infer.js";
import { evalDim, exprOf } from "../check/dim-expr.js";
import { walkNodes } from "../ir/visit.js";
import type { Dim, Model, Node, Type } from "../ir/types.js";
import { requiredInputs } from "./inputs.js";

/** A dim the user did not set, with the size taken and, when it is not 1, the use that asks for it. */
export interface TakenDim {
  name: string;
  value: number;
  why?: string;
}

/** One thing the graph asks of a symbol's size. */
interface Need {
  sym: string;
  ok: (v: number) => boolean;
  why: string;
}

/** The largest size tried for a symbol. */
const MAX_SIZE = 1 << 16;

const sizeOf = (d: Dim, sym: string, v: number) => evalDim(d, new Map([[sym, v]]));

function intAttr(n: Node, name: string, dflt: number): number {
  const a = n.attributes.find((x) => x.name === name);
  return a && a.type === "INT" ? Number(a.value) : dflt;
}

function intsAttr(n: Node, name: string): number[] | undefined {
  const a = n.attributes.find((x) => x.name === name);
  return a && a.type === "INTS" && a.value ? a.value.map(Number) : undefined;
}

const label = (n: Node) => `${n.opType}${n.name ? ` '${n.name}'` : ""}`;

/** The model as analysed: its unnamed input dims named `input[axis]` (a copy only when it has some). */
function named(model: Model, inputs: Set<string>): Model {
  let renamed = false;
  const graphInputs = model.graph.inputs.map((v) => {
    const t = v.type;
    if (!inputs.has(v.name) || !t || t.kind !== "tensor" || !t.shape?.some((d) => d === null))
      return v;
    renamed = true;
    const shape = t.shape.map((d, axis) => (d === null ? `${v.name}[${axis}]` : d));
    return { ...v, type: { ...t, shape } };
  });
  return renamed ? { ...model, graph: { ...model.graph, inputs: graphInputs } } : model;
}

/**
 * The sizes of the symbolic input dims not in `dims` (by name, or `input[axis]` for either kind),
 * in the order the inputs declare them; inputs in `given` are left out.
 */
export function randomDims(
  model: Model,
  dims: ReadonlyMap<string, number>,
  given: Iterable<string> = [],
): TakenDim[] {
  const skip = new Set(given);
  const open = new Map<string, string>(); // symbol → how the user would set it
  const inputs = requiredInputs(model).filter((v) => !skip.has(v.name));
  for (const v of inputs) {
    if (v.type?.kind !== "tensor") continue;
    (v.type.shape ?? []).forEach((d, axis) => {
      if (typeof d === "number") return;
      const pos = `${v.name}[${axis}]`;
      if (dims.has(pos) || (d !== null && dims.has(d))) return;
      const sym = d ?? pos;
      if (!open.has(sym)) open.set(sym, sym);
    });
  }
  if (!open.size) return [];
  const needs = graphNeeds(named(model, new Set(inputs.map((v) => v.name))), open);
  const taken = new Map<string, TakenDim>();
  for (const sym of open.keys()) taken.set(sym, choose(sym, needs.plain, 1));
  // Reshapes last: the innermost open dim of each takes a multiple of what its shape fixes.
  for (const r of needs.reshapes) {
    const sym = r.syms.at(-1)!;
    const at = taken.get(sym)!;
    const others = (v: number) =>
      r.dims.reduce(
        (p, d) => {
          const e = exprOf(d);
          const size =
            typeof d === "number"
              ? d
              : e && e.sym === sym
                ? sizeOf(d, sym, v)
                : e
                  ? evalDim(d, symSizes(taken, dims))
                  : undefined;
          return p === undefined || size === undefined ? undefined : p * size;
        },
        1 as number | undefined,
      );
    const fits = (v: number) => {
      const total = others(v);
      return (
        total !== undefined && total > 0 && (r.any ? total % r.fixed === 0 : total === r.fixed)
      );
    };
    if (fits(at.value)) continue;
    const next = choose(sym, [...needs.plain, { sym, ok: fits, why: r.why }], at.value);
    if (fits(next.value)) taken.set(sym, next);
  }
  return [...taken.values()];
}

/** The sizes of symbols, chosen and given, for evalDim. */
function symSizes(
  taken: ReadonlyMap<string, TakenDim>,
  dims: ReadonlyMap<string, number>,
): Map<string, number> {
  const out = new Map(dims);
  for (const [sym, t] of taken) out.set(sym, t.value);
  return out;
}

/** The smallest size from `from` that meets every need of `sym` (1, said, when none does). */
function choose(sym: string, needs: Need[], from: number): TakenDim {
  const mine = needs.filter((n) => n.sym === sym);
  const failing = mine.filter((n) => !n.ok(from));
  if (!failing.length) return from === 1 ? { name: sym, value: 1 } : { name: sym, value: from };
  for (let v = from + 1; v <= MAX_SIZE; v++)
    if (mine.every((n) => n.ok(v))) return { name: sym, value: v, why: failing[0]!.why };
  return {
    name: sym,
    value: from,
    why: `no size up to ${MAX_SIZE} meets what the graph asks (${failing[0]!.why})`,
  };
}

/** What the graph's uses ask of the open symbols: per-symbol needs, and Reshapes to constant shapes. */
function graphNeeds(
  model: Model,
  open: ReadonlyMap<string, string>,
): {
  plain: Need[];
  reshapes: { dims: Dim[]; syms: string[]; fixed: number; any: boolean; why: string }[];
} {
  const plain: Need[] = [];
  const reshapes: { dims: Dim[]; syms: string[]; fixed: number; any: boolean; why: string }[] = [];
  let types: Map<unknown, Map<string, Type>>;
  try {
    types = analysisOf(model).types;
  } catch {
    return { plain, reshapes };
  }
  const shapes = new Map<string, Dim[]>();
  for (const m of types.values())
    for (const [k, t] of m)
      if (t.kind === "tensor" && t.shape && !shapes.has(k)) shapes.set(k, t.shape);
  const constants = new Map<string, number[]>();
  for (const t of model.graph.initializers)
    if (t.dims.length <= 1 && t.dims.reduce((p, d) => p * d, 1) <= 16) {
      try {
        constants.set(t.name, t.numbers());
      } catch {
        // a tensor whose values cannot be read (external) says nothing here
      }
    }
  for (const { node } of walkNodes(model)) {
    if (node.opType !== "Constant" || (node.domain ?? "") !== "" || !node.outputs[0]) continue;
    const a = node.attributes[0];
    if (a?.type === "TENSOR" && a.value && a.value.dims.length <= 1) {
      try {
        constants.set(node.outputs[0], a.value.numbers());
      } catch {
        // as above
      }
    } else if (a?.type === "INTS" && a.value) constants.set(node.outputs[0], a.value.map(Number));
  }
  const symOf = (d: Dim) => {
    const e = exprOf(d);
    return e && open.has(e.sym) ? e.sym : undefined;
  };
  const producer = new Map<string, Node>();
  for (const { node } of walkNodes(model))
    for (const o of node.outputs) if (o) producer.set(o, node);
  const seen = new Set<string>();
  // Every dim computed from an open symbol is at least 1.
  for (const [value, shape] of shapes)
    for (const d of shape) {
      const sym = symOf(d);
      if (!sym || d === sym || seen.has(d as string)) continue;
      seen.add(d as string);
      const by = producer.get(value);
      plain.push({
        sym,
        ok: (v) => (sizeOf(d, sym, v) ?? 0) >= 1,
        why: `${by ? `${label(by)} makes` : `'${value}' has`} a dim ${d as string}, at least 1`,
      });
    }
  const equal = (d: Dim | undefined, want: number | undefined, why: string) => {
    if (d === undefined || want === undefined || typeof d === "number") return;
    const sym = symOf(d);
    if (sym) plain.push({ sym, ok: (v) => sizeOf(d, sym, v) === want, why: `${why} = ${want}` });
  };
  const num = (d: Dim | undefined) => (typeof d === "number" ? d : undefined);
  const atLeast = (d: Dim | undefined, min: number, why: string) => {
    if (d === undefined || typeof d === "number" || min <= 1) return;
    const sym = symOf(d);
    if (sym)
      plain.push({ sym, ok: (v) => (sizeOf(d, sym, v) ?? 0) >= min, why: `${why} ≥ ${min}` });
  };
  for (const { node } of walkNodes(model)) {
    const domain = node.domain ?? "";
    if (domain !== "" && domain !== "ai.onnx") continue;
    const x = shapes.get(node.inputs[0] ?? "");
    const w = shapes.get(node.inputs[1] ?? "");
    switch (node.opType) {
      case "Squeeze": {
        const axes = intsAttr(node, "axes") ?? constants.get(node.inputs[1] ?? "");
        if (x && axes)
          for (const a of axes) equal(x[a < 0 ? a + x.length : a], 1, `${label(node)} squeezes it`);
        break;
      }
      case "Conv":
        if (x && w) {
          equal(x[1], mul(num(w[1]), intAttr(node, "group", 1)), `${label(node)}'s input channels`);
          // Each spatial dim holds the dilated kernel, less the padding (auto_pad SAME pads it).
          const auto = String(
            node.attributes.find((a) => a.name === "auto_pad")?.value ?? "NOTSET",
          );
          if (auto === "NOTSET" || auto === "VALID") {
            const pads = intsAttr(node, "pads") ?? [];
            const dil = intsAttr(node, "dilations") ?? [];
            for (let j = 0; j + 2 < Math.min(x.length, w.length); j++) {
              const k = num(w[j + 2]);
              if (k === undefined) continue;
              const span = (dil[j] ?? 1) * (k - 1) + 1;
              const padded = auto === "VALID" ? 0 : (pads[j] ?? 0) + (pads[j + x.length - 2] ?? 0);
              atLeast(
                x[j + 2],
                span - padded,
                `${label(node)}'s window needs its spatial dim ${j}`,
              );
            }
          }
        }
        break;
      case "ConvTranspose":
        if (x && w) equal(x[1], num(w[0]), `${label(node)}'s input channels`);
        break;
      case "LSTM":
      case "GRU":
      case "RNN":
        if (x && w) equal(x[2], num(w[2]), `${label(node)}'s input size`);
        break;
      case "MatMul":
        if (x && w && w.length >= 2) equal(x.at(-1), num(w.at(-2)), `${label(node)}'s inner dim`);
        break;
      case "Gemm":
        if (x && w && x.length === 2 && w.length === 2)
          equal(
            x[intAttr(node, "transA", 0) ? 0 : 1],
            num(w[intAttr(node, "transB", 0) ? 1 : 0]),
            `${label(node)}'s inner dim`,
          );
        break;
      case "Reshape": {
        const to = constants.get(node.inputs[1] ?? "");
        const syms = (x ?? []).map(symOf).filter((s): s is string => s !== undefined);
        if (!x || !to || !syms.length || to.some((d) => d === 0 || d < -1)) break;
        const fixed = to.filter((d) => d !== -1).reduce((p, d) => p * d, 1);
        if (fixed <= 0) break;
        reshapes.push({
          dims: x,
          syms,
          fixed,
          any: to.includes(-1),
          why: `${label(node)} to [${to.join(",")}] needs ${to.includes(-1) ? "a multiple of" : ""} ${fixed} elements`,
        });
        break;
      }
    }
  }
  return { plain, reshapes };
}

const mul = (a: number | undefined, b: number) => (a === undefined ? undefined : a * b);

/** The dims taken, as the page and `run` say them: `sequence=192 (why), batch=1`. */
export function formatTaken(taken: TakenDim[]): string {
  return taken.map((t) => `${t.name}=${t.value}${t.why ? ` (${t.why})` : ""}`).join(", ");
}

/**
 * A run's failure with the dims it was given by default named (the user sets them with `how`):
 * a dim the graph needed other than the default is the likeliest cause.
 */
export function withTakenDims(e: unknown, taken: TakenDim[], how: string): unknown {
  if (!(e instanceof OnnxError) || !taken.length || e.code === "E_USAGE") return e;
  const list = taken.map((t) => `${t.name}=${t.value}`).join(", ");
  return new OnnxError(
    e.code,
    `${e.message} (the input dims not given were taken as ${list}: set them with ${how})`,
  );
}
