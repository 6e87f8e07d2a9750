// to-half, the plan: for each node of the main graph, which of its float32 inputs and outputs
// are computed in half (float16 or bfloat16), or why the node stays float32. The op's schema
// decides, by its type constraints at the opset the model imports: a type variable bound to
// float32 becomes half where the constraint allows the half type and an output carries the
// variable (Resize's roi, Pow's exponent and BatchNormalization's statistics vary apart from what
// the op computes, and stay float32; a concrete `tensor(float)` formal such as Resize's scales
// does too). A node stays float32 when asked (keep-ops, keep-nodes), when it holds a subgraph or
// calls a model-local function, when its schema at that opset takes no half type, when the target
// profile's element types for the op lack it, or when the verification says so (a value beyond
// half's range, the largest own error).

import type { Graph, Model, Node, Type } from "../../ir/types.js";
import { DataType } from "../../ir/types.js";
import { attributeGraphs } from "../../ir/visit.js";
import { outerNamesUsedBy } from "../../ir/graph.js";
import { dtypeName } from "../../ir/dtype.js";
import type { FormalSchema, OpVersion } from "../../schema/types.js";
import type { SchemaRegistry } from "../../schema/registry.js";
import { rowFor, type Profile } from "../../targets/profile.js";

export const F32 = DataType.FLOAT;
/** Largest finite float16. */
export const FLOAT16_MAX = 65504;
/** Largest finite bfloat16. */
export const BFLOAT16_MAX = 3.3895313892515355e38;

/** What the pass is asked for. */
export interface HalfOptions {
  /** DataType.FLOAT16 or DataType.BFLOAT16. */
  to: number;
  /**
   * Graph inputs and outputs that stay float32 (cast at the boundary): true (default) all of
   * them, false none, or the names of those that stay.
   */
  keepIo?: boolean | readonly string[];
  /** Op types that stay float32 (`Op` or `domain:Op`). */
  keepOps?: readonly string[];
  /** Node names that stay float32. */
  keepNodes?: readonly string[];
  /** The target: an op whose element types it states without the half type stays float32. */
  profile?: Profile;
  /** Initializer and Constant values beyond half's range clamped to it (else their readers stay float32). */
  clamp?: boolean;
}

/** One node's plan: the input and output slots made half, or why it stays float32. */
export interface NodePlan {
  inHalf: boolean[];
  outHalf: boolean[];
  /**
   * Input slots that take either type: a type variable no output carries, whose constraint
   * allows the half type (Shape's input, Cast's source, Resize's roi): read as the value is.
   */
  inFlex: boolean[];
  /**
   * Flex input slots bound to one type variable (Equal's two inputs, Where's two values): they
   * must be read in one type, so where their values' homes differ all are read as float32.
   */
  flexGroups?: number[][];
  /** Why the node stays float32 (its slots then all false). */
  kept?: string;
  /** The node reads or writes float32 but has nothing to make half, and needs nothing. */
  neutral?: boolean;
}

/** Ops whose output element type an attribute sets (no input carries it). */
export const ATTRIBUTE_TYPED = new Set([
  "Cast",
  "Constant",
  "ConstantOfShape",
  "RandomNormal",
  "RandomUniform",
  "RandomNormalLike",
  "RandomUniformLike",
  "EyeLike",
  "Bernoulli",
]);

export function halfName(to: number): string {
  return dtypeName(to);
}

export function halfMax(to: number): number {
  return to === DataType.FLOAT16 ? FLOAT16_MAX : BFLOAT16_MAX;
}

/** The smallest magnitude that rounds to infinity in the half type (its largest plus half an ulp). */
export function halfLimit(to: number): number {
  return to === DataType.FLOAT16 ? FLOAT16_MAX + 16 : BFLOAT16_MAX + 2 ** 119;
}

/** The element type of a tensor value, or undefined. */
export function elemOf(t: Type | undefined): number | undefined {
  return t && t.kind === "tensor" ? t.elemType : undefined;
}

function formalAt(formals: FormalSchema[], i: number): FormalSchema | undefined {
  if (i < formals.length) return formals[i];
  const last = formals[formals.length - 1];
  return last?.option === "variadic" ? last : undefined;
}

export function nodeLabel(n: Node, i: number): string {
  return `node '${n.name || `#${i}`}' (${n.opType})`;
}

/** The opset a node's domain is imported at (undefined: not imported). */
export function opsetOf(model: Model, domain: string): number | undefined {
  const d = domain === "ai.onnx" ? "" : domain;
  return model.opsetImports.find((o) => (o.domain === "ai.onnx" ? "" : o.domain) === d)?.version;
}

export interface PlanContext {
  model: Model;
  registry: SchemaRegistry;
  /** Types of the main graph's values (declared or inferred). */
  types: Map<string, Type>;
  options: HalfOptions;
  /** Nodes the verification keeps float32, by index, with the reason. */
  forced?: ReadonlyMap<number, string>;
}

const keepAll = (n: Node): NodePlan => ({
  inHalf: n.inputs.map(() => false),
  inFlex: n.inputs.map(() => false),
  outHalf: n.outputs.map(() => false),
});

/** Ops whose output ONNX's shape inference types from the first input, apart from the schema. */
const FIRST_INPUT_TYPED = new Set(["RMSNormalization"]);

/** The plan of one node, from its schema alone (before the node-wide reasons to keep it). */
function schemaPlan(n: Node, v: OpVersion, ctx: PlanContext): NodePlan {
  const { types } = ctx;
  const to = ctx.options.to;
  const vars = new Map(v.type_constraints.map((c) => [c.name, c.allowed]));
  // Each type variable bound to float32 here: the input and output slots that bind it.
  const bound = new Map<string, { ins: number[]; outs: number[] }>();
  const bind = (
    formal: FormalSchema | undefined,
    name: string,
    side: "ins" | "outs",
    i: number,
  ) => {
    if (!name || !formal || !vars.has(formal.type)) return;
    if (elemOf(types.get(name)) !== F32) return;
    let b = bound.get(formal.type);
    if (!b) bound.set(formal.type, (b = { ins: [], outs: [] }));
    b[side].push(i);
  };
  n.inputs.forEach((x, i) => bind(formalAt(v.inputs, i), x, "ins", i));
  n.outputs.forEach((x, i) => bind(formalAt(v.outputs, i), x, "outs", i));
  const plan = keepAll(n);
  const want = `tensor(${halfName(to)})`;
  const refused: string[] = [];
  for (const [name, b] of bound) {
    const allowed = vars.get(name)!.includes(want);
    if (!b.outs.length) {
      if (allowed) for (const i of b.ins) plan.inFlex[i] = true;
      if (allowed && b.ins.length > 1) (plan.flexGroups ??= []).push(b.ins);
      continue;
    }
    if (!b.ins.length && !ATTRIBUTE_TYPED.has(n.opType)) continue;
    if (!allowed) {
      refused.push(name);
      continue;
    }
    for (const i of b.ins) plan.inHalf[i] = true;
    for (const i of b.outs) plan.outHalf[i] = true;
  }
  if (plan.outHalf.some(Boolean)) {
    // ONNX's shape inference gives RMSNormalization's Y the type of X, though the schema binds Y
    // to V (the scale's type) and X to T: a half Y beside a float32 X fails ONNX's full checker
    // ("Y has inconsistent type tensor(float)"), so X is read in Y's type.
    if (FIRST_INPUT_TYPED.has(n.opType) && n.domain === "" && plan.inFlex[0]) {
      plan.inFlex[0] = false;
      plan.inHalf[0] = true;
    }
    return plan;
  }
  if (refused.length)
    return {
      ...plan,
      kept: `${n.opType}-${v.since} takes no ${halfName(to)} for ${refused.join(", ")}`,
    };
  return { ...plan, neutral: true };
}

/** Whether a node is named by a keep-ops entry (`Op` or `domain:Op`). */
function opListed(n: Node, list: readonly string[]): boolean {
  const d = n.domain === "ai.onnx" ? "" : n.domain;
  return list.some((e) => {
    const k = e.lastIndexOf(":");
    return k < 0 ? e === n.opType : e.slice(0, k) === d && e.slice(k + 1) === n.opType;
  });
}

function hasSubgraph(n: Node): boolean {
  return n.attributes.some((a) => attributeGraphs(a).length > 0);
}

/** The plan of each node of the main graph. */
export function planNodes(ctx: PlanContext): NodePlan[] {
  const { model, registry, options } = ctx;
  const g: Graph = model.graph;
  const half = halfName(options.to);
  // Values a subgraph reads from outside keep their type: their producers stay float32.
  const readInside = new Set<string>();
  for (const n of g.nodes)
    if (hasSubgraph(n)) for (const x of outerNamesUsedBy(n)) readInside.add(x);
  return g.nodes.map((n, i) => {
    const kept = (why: string): NodePlan => ({ ...keepAll(n), kept: why });
    const floaty =
      n.inputs.some((x) => x && elemOf(ctx.types.get(x)) === F32) ||
      n.outputs.some((x) => x && elemOf(ctx.types.get(x)) === F32);
    if (!floaty) return { ...keepAll(n), neutral: true };
    const forced = ctx.forced?.get(i);
    if (forced) return kept(forced);
    if (n.name && options.keepNodes?.includes(n.name)) return kept("named by --keep-nodes");
    if (options.keepOps && opListed(n, options.keepOps))
      return kept("its op is named by --keep-ops");
    if (hasSubgraph(n)) return kept("it holds a subgraph (If, Loop and Scan bodies stay float32)");
    const inside = n.outputs.find((o) => readInside.has(o));
    if (inside) return kept(`its output '${inside}' is read inside a subgraph`);
    const opset = opsetOf(model, n.domain);
    const v = opset === undefined ? undefined : registry.tryResolve(n.domain, n.opType, opset);
    if (!v)
      return kept(
        model.functions.some((f) => f.name === n.opType && f.domain === n.domain)
          ? "it calls a model-local function"
          : "its op has no schema here",
      );
    if (options.profile) {
      const types = rowFor(options.profile, n.domain, n.opType)?.types;
      if (types && !types.includes(half))
        return kept(`target ${options.profile.name} runs ${n.opType} in ${types.join(", ")} only`);
    }
    return schemaPlan(n, v, ctx);
  });
}
