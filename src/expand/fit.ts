// Bodies made valid at a caller's opsets, and older versions lowered, through the opset converter.
// A body (a schema body, or a local function) written for another opset than the caller's is
// converted when an op it uses means something else at the caller's opset. A version that is not
// a function but whose later version is (ReduceLogSum-13, whose version 18 is) is lowered as one
// call: the node alone in a model is converted up to that version, expanded, and converted back.

import { OnnxError } from "../errors.js";
import { graph } from "../ir/builder.js";
import { walkGraphNodes } from "../ir/visit.js";
import type { Graph, Model, Node, OpsetId, ValueInfo } from "../ir/types.js";
import { callPrefix, inlineBody } from "../inline/inline.js";
import { withoutOrigin } from "../inline/origin.js";
import type { PassContext } from "../passes/pass.js";
import { normaliseDomain } from "../schema/registry.js";
import type { OpVersion } from "../schema/types.js";
import {
  opsetMap,
  type Blocked,
  type FunctionTable,
  type OpsetConverter,
  type Unit,
} from "./context.js";

export interface FitContext {
  ctx: PassContext;
  converter?: OpsetConverter;
  functions: FunctionTable;
  irVersion: number;
}

/**
 * The common cases, where a body needs nothing: a schema body for opsets the caller has (at a
 * version no older), or a body written for exactly the caller's opsets.
 */
export function fitsAsIs(
  imports: OpsetId[],
  opsets: Map<string, number>,
  schemaBody: boolean,
): boolean {
  return imports.every((o) => {
    const have = opsets.get(normaliseDomain(o.domain));
    return have !== undefined && (have === o.version || (schemaBody && have > o.version));
  });
}

/**
 * Body nodes written for `imports` made valid in the unit: a domain the unit lacks is imported;
 * a domain imported at another version needs nothing when every op of the body means the same
 * at both (or when a schema body is written for an older opset: its ops keep their meaning),
 * else the body is converted (or, without a converter, refused for this node).
 */
export function fitOpsets(
  fit: FitContext,
  call: Node,
  nodes: Node[],
  imports: OpsetId[],
  unit: Unit,
  schemaBody = false,
): Node[] | Blocked {
  if (fitsAsIs(imports, unit.opsets, schemaBody)) return nodes;
  const registry = fit.ctx.registry;
  const body = opsetMap(imports);
  const used = new Set<string>();
  for (const { node } of walkGraphNodes(graph({ nodes }))) used.add(normaliseDomain(node.domain));
  let convertFrom: number | undefined;
  for (const d of used) {
    const want = body.get(d);
    const have = unit.opsets.get(d) ?? unit.added.get(d);
    if (want === undefined) continue; // the caller's own imports apply (local functions without imports)
    if (have === undefined) {
      unit.added.set(d, want);
      continue;
    }
    // A schema body keeps its meaning at every later opset (src/schema/body.ts).
    if (want === have || (schemaBody && want < have)) continue;
    const differs = [...walkGraphNodes(graph({ nodes }))].find(({ node }) => {
      if (normaliseDomain(node.domain) !== d || fit.functions.called(node)) return false;
      const a = registry.tryResolve(d, node.opType, want);
      const b = registry.tryResolve(d, node.opType, have);
      return a?.since !== b?.since;
    });
    if (!differs) continue;
    if (d !== "" || !fit.converter) {
      const op = differs.node.opType;
      throw new OnnxError(
        "E_UNSUPPORTED",
        `the body is written for opset ${want} of ${d === "" ? "ai.onnx" : d}, and ${op} means something else at the caller's opset ${have}${d === "" ? " (the opset converter is needed)" : ""}`,
      );
    }
    convertFrom = want;
  }
  if (convertFrom === undefined) return nodes;
  const sub = subModel(fit, call, unit, convertFrom);
  sub.model.graph.nodes = nodes;
  const down = fit.converter!(sub.model, unit.opsets.get("")!, fit.ctx);
  if ("blocked" in down) return down;
  return splice(call, down.model, sub.shared, unit, call.opType);
}

/**
 * An older version lowered through the converter: the node alone in a model at the unit's
 * opset, converted up to the version that has a body, expanded by `expand` (which expands the
 * op and, in `down`, what else the caller selects), and converted back.
 */
export function lowerByConversion(
  fit: FitContext,
  node: Node,
  later: OpVersion,
  unit: Unit,
  expand: {
    up: (model: Model) => Model;
    down: (model: Model) => { model: Model; added: Map<string, number> };
  },
): Node[] | Blocked {
  const here = unit.opsets.get("")!;
  const sub = subModel(fit, node, unit, here);
  const up = fit.converter!(sub.model, later.since, fit.ctx);
  if ("blocked" in up) return up;
  const converted = fit.converter!(expand.up(up.model), here, fit.ctx);
  if ("blocked" in converted) return converted;
  const down = expand.down(converted.model);
  for (const [d, v] of down.added)
    if (!unit.opsets.has(d) && !unit.added.has(d)) unit.added.set(d, v);
  return splice(node, down.model, sub.shared, unit, later.name);
}

/** A call's inputs as a graph's: typed inputs, and the unit's constants as initializers. */
export function callInputs(
  node: Node,
  unit: Unit,
): { inputs: ValueInfo[]; initializers: Graph["initializers"]; shared: Set<string> } {
  const inputs: ValueInfo[] = [];
  const initializers: Graph["initializers"] = [];
  const shared = new Set<string>();
  for (const name of node.inputs) {
    if (name === "" || shared.has(name)) continue;
    shared.add(name);
    const c = unit.constant(name);
    if (c) initializers.push(c);
    else {
      const type = unit.typeOf(name);
      inputs.push(type ? { name, type } : { name });
    }
  }
  return { inputs, initializers, shared };
}

/** A model holding just the call (typed inputs, the unit's constants it reads as initializers). */
function subModel(
  fit: FitContext,
  node: Node,
  unit: Unit,
  opset: number,
): { model: Model; shared: Set<string> } {
  const { inputs, initializers, shared } = callInputs(node, unit);
  const outputs = node.outputs
    .filter((o) => o !== "")
    .map((name) => {
      const type = unit.typeOf(name);
      return type ? { name, type } : { name };
    });
  return {
    model: {
      irVersion: fit.irVersion,
      opsetImports: [{ domain: "", version: opset }],
      // The call's own origin is put back on what replaces it (markOrigin), not carried inside.
      graph: graph({ nodes: [withoutOrigin(node)], inputs, outputs, initializers }),
      functions: [],
    },
    shared,
  };
}

/** A converted sub-model's nodes put in place of the call, intermediate names made fresh. */
function splice(call: Node, m: Model, shared: Set<string>, unit: Unit, fallback: string): Node[] {
  const g = m.graph;
  const extra = g.initializers.filter((t) => !shared.has(t.name));
  const consts: Node[] = extra.map((t) => ({
    opType: "Constant",
    domain: "",
    inputs: [],
    outputs: [t.name],
    attributes: [{ name: "value", type: "TENSOR", value: t }],
  }));
  const formals = [...shared];
  return inlineBody(
    { ...call, inputs: formals },
    { inputs: formals, outputs: call.outputs, nodes: [...consts, ...g.nodes] },
    unit.scope(),
    callPrefix(call, fallback),
    { prefixed: false },
  );
}
