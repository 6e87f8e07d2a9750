// What the op legalizations share (legalize-gather, legalize-pad, … : one rewrite a file): a
// legalization rewrites each ai.onnx node of the main graph whose op the target lacks into
// nodes of ops it has, exactly (the same numbers for every input), or leaves it. The rewrite sees
// the node through a Site: the inferred types, the values of small constants, what the target
// has, and makes fresh names and constants. The new nodes end in the node's own outputs, so
// nothing after them changes. `lower --target` runs them (legalize.ts) where the profile lacks
// an op and has what its rewrite needs, until nothing changes.

import { constFromTensor, type ConstVal } from "../check/consts.js";
import { analysisOf } from "../check/infer.js";
import { node as makeNode, type AttrInput } from "../ir/builder.js";
import { onnxOpset } from "../ir/opsets.js";
import { Tensor } from "../ir/tensor.js";
import { staticShape, type Model, type Node, type Type } from "../ir/types.js";
import { constantTensor } from "./lift-constants.js";
import type { Note, Pass } from "./pass.js";

/** What a target has: an ai.onnx op at the model's opset. */
export type HasOp = (op: string) => boolean;
/** Whether the target runs an op it has on data of an element type (its profile's types). */
export type TakesType = (op: string, elemType: number) => boolean;

/** A node being rewritten, and what the rewrite may ask and make. */
export interface Site {
  readonly node: Node;
  /** The ai.onnx opset of the model. */
  readonly opset: number;
  has: HasOp;
  /** Whether the target runs the op on data of the type (without types: whether it has the op). */
  takes: TakesType;
  type(x: string): Type | undefined;
  /** The dims when all are static. */
  shape(x: string): number[] | undefined;
  /** The element type, when inferred. */
  elem(x: string): number | undefined;
  /** How many node inputs and graph outputs read a value. */
  uses(x: string): number;
  /** The node that computes a value (undefined for inputs and initializers). */
  producer(x: string): Node | undefined;
  /** A small constant's values (an initializer or a Constant's). */
  value(x: string): ConstVal | undefined;
  /** A new initializer; its name. */
  constant(
    base: string,
    dataType: number,
    dims: number[],
    values: ArrayLike<number | bigint | boolean>,
  ): string;
  /** A new node (its outputs named from `base` unless given); its first output. */
  add(op: string, inputs: string[], attrs?: Record<string, AttrInput>, outputs?: string[]): string;
  /** The name of the node's k-th output, for the last node of the rewrite. */
  readonly out: readonly string[];
  /** A copy of a node (attributes, subgraphs and domain as they are) on the given values. */
  emit(n: Node, inputs: string[], outputs: string[]): void;
  /** A new value name (for the outputs of a node with several). */
  fresh(base: string): string;
  /** Returns false, noting why the node is left (for nodes a target lacks that stay). */
  leave(why: string): false;
}

/** Gives the new nodes through site.add and returns true, or returns false (node left). */
export type Rewrite = (site: Site) => boolean;

export interface LegalizeOptions {
  /** What the target has (the rewrites use nothing else). */
  has: HasOp;
  /** The element types it runs each op on (absent: every type of the ops it has). */
  takes?: TakesType;
  /**
   * Which nodes of a model's main graph the target refuses in their form only: it has the op and
   * the element types, but a constraint fails (a partial verdict: a 1D Conv, computed int64
   * indices), judged on that model. For the rewrites of such nodes into a form it takes; without
   * it they do nothing.
   */
  refuses?: (model: Model) => (node: Node) => boolean;
}

/**
 * A legalization pass: each ai.onnx node of the main graph whose op is one of `ops` and that the
 * target lacks is given to `rewrite`. `what` names the change in the note ("Gather made
 * GatherND or Slice").
 */
export function legalizePass(
  name: string,
  ops: readonly string[],
  what: string,
  rewrite: Rewrite,
  options: LegalizeOptions,
  /** Which nodes of those ops to give the rewrite (default: every one, where the target lacks the op). */
  lacking: (n: Node) => boolean = (n) => !options.has(n.opType),
): Pass {
  return {
    name,
    run(model: Model, ctx) {
      const g = model.graph;
      const wanted = (n: Node) =>
        ((n.domain ?? "") === "" || n.domain === "ai.onnx") && ops.includes(n.opType) && lacking(n);
      if (!g.nodes.some(wanted)) return { ok: true, model, modified: false, notes: [] };
      const types = analysisOf(model, { registry: ctx.registry }).types.get(g) ?? new Map();
      const opset = onnxOpset(model.opsetImports) ?? 1;
      const inits = new Map(g.initializers.map((t) => [t.name, t] as const));
      const consts = new Map<string, Tensor>();
      for (const n of g.nodes)
        if (n.opType === "Constant" && (n.domain ?? "") === "" && n.outputs[0]) {
          const t = constantTensor(n, n.outputs[0]);
          if (t) consts.set(n.outputs[0], t);
        }
      const names = new Set<string>([
        ...g.inputs.map((v) => v.name),
        ...g.initializers.map((t) => t.name),
        ...g.nodes.flatMap((n) => [...n.outputs, ...(n.name ? [n.name] : [])]),
      ]);
      const fresh = (base: string) => {
        let s = base;
        for (let k = 1; names.has(s); k++) s = `${base}_${k}`;
        names.add(s);
        return s;
      };
      const producers = new Map<string, Node>();
      for (const n of g.nodes) for (const o of n.outputs) if (o) producers.set(o, n);
      const uses = new Map<string, number>();
      for (const x of [...g.nodes.flatMap((n) => n.inputs), ...g.outputs.map((o) => o.name)])
        if (x) uses.set(x, (uses.get(x) ?? 0) + 1);
      const added: Tensor[] = [];
      const nodes: Node[] = [];
      const left: Note[] = [];
      let changed = 0;
      for (const n of g.nodes) {
        if (!wanted(n)) {
          nodes.push(n);
          continue;
        }
        const base = n.name || n.outputs[0] || n.opType;
        const mine: Node[] = [];
        const mineInits: Tensor[] = [];
        const site: Site = {
          node: n,
          opset,
          has: options.has,
          takes: options.takes ?? ((op) => options.has(op)),
          out: n.outputs,
          type: (x) => types.get(x),
          shape: (x) => staticShape(types.get(x)),
          elem: (x) => {
            const t = types.get(x);
            return t?.kind === "tensor" ? t.elemType : undefined;
          },
          producer: (x) => producers.get(x),
          uses: (x) => uses.get(x) ?? 0,
          value: (x) => {
            const t = inits.get(x) ?? consts.get(x);
            return t ? constFromTensor(t) : undefined;
          },
          constant: (b, dt, dims, values) => {
            const nm = fresh(`${base}_${b}`);
            mineInits.push(Tensor.from(dt, dims, values, nm));
            return nm;
          },
          fresh: (b) => fresh(`${base}_${b}`),
          emit: (m, inputs, outputs) => {
            mine.push({ ...m, inputs, outputs, name: fresh(`${base}_${m.opType}`) });
          },
          leave: (why) => {
            left.push({
              level: "info",
              where: `graph > node '${n.name ?? ""}' (${n.opType})`,
              message: `${n.opType} left: ${why}`,
            });
            return false;
          },
          add: (op, inputs, attrs = {}, outputs) => {
            const outs = outputs ?? [fresh(`${base}_${op.toLowerCase()}`)];
            mine.push({ ...makeNode(op, inputs, outs, attrs), name: fresh(`${base}_${op}`) });
            return outs[0]!;
          },
        };
        if (rewrite(site)) {
          nodes.push(...mine);
          added.push(...mineInits);
          changed++;
        } else nodes.push(n);
      }
      if (!changed) return { ok: true, model, modified: false, notes: left };
      return {
        ok: true,
        model: { ...model, graph: { ...g, nodes, initializers: [...g.initializers, ...added] } },
        modified: true,
        notes: [{ level: "info", message: `${changed} ${what}` }, ...left],
      };
    },
  };
}

/** An axis counted from the end made positive (undefined when outside the rank). */
export function normAxis(axis: number, rank: number): number | undefined {
  const a = axis < 0 ? axis + rank : axis;
  return a >= 0 && a < rank ? a : undefined;
}

/** int64 values as a constant for an op's int64 input (axes, starts, shape). */
export function ints(site: Site, base: string, values: number[]): string {
  return site.constant(base, 7, [values.length], values.map(BigInt));
}

/**
 * Squeeze or Unsqueeze by `axes` in the form the opset takes (an attribute before 13, an input
 * from 13 on); undefined when the target lacks the op.
 */
export function squeezeLike(
  site: Site,
  op: "Squeeze" | "Unsqueeze",
  x: string,
  axes: number[],
  outputs?: string[],
): string | undefined {
  if (!site.has(op)) return undefined;
  if (site.opset >= 13) return site.add(op, [x, ints(site, "axes", axes)], {}, outputs);
  return site.add(op, [x], { axes }, outputs);
}

/** Slice along axes (the input form: opset 10 on); undefined when the target lacks Slice. */
export function slice(
  site: Site,
  x: string,
  starts: number[],
  ends: number[],
  axes: number[],
  steps?: number[],
  outputs?: string[],
): string | undefined {
  if (!site.has("Slice") || site.opset < 10) return undefined;
  const inputs = [
    x,
    ints(site, "starts", starts),
    ints(site, "ends", ends),
    ints(site, "axes", axes),
  ];
  if (steps) inputs.push(ints(site, "steps", steps));
  return site.add("Slice", inputs, {}, outputs);
}
