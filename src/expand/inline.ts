// Inlining one call of a function op: the op's body, with its formal inputs and outputs renamed to
// the call's values and every other name (in the body and in its subgraphs) made fresh in the
// caller's scope. The building block of the expander.

import { OnnxError, nodeLabel } from "../errors.js";
import type { NameScope } from "../ir/graph.js";
import { renameNode } from "../ir/rewrite.js";
import type { Function, Graph, Model, Node, OpsetId, Type } from "../ir/types.js";
import { inferScopeTypes, inferTypes, type InferOptions } from "../check/infer.js";
import { functionBody } from "../schema/body.js";
import type { OpVersion } from "../schema/types.js";

export interface InlineResult {
  nodes: Node[];
  /** The opsets the body's nodes are written for. */
  opsetImports: OpsetId[];
}

export interface InlineOptions {
  /** Allow a loop (Scan) where a loop-free body exists (see BodyContext.preferLoops). */
  preferLoops?: boolean;
}

/**
 * The types of a call's inputs as the checker infers them in the model: for a call in the main
 * graph or one of its subgraphs, or, given `owner`, in that function's body (typed by its calls).
 */
export function callInputTypes(
  model: Model,
  call: Node,
  owner?: Function,
  opts: InferOptions = {},
): (Type | undefined)[] {
  const types = owner ? inferScopeTypes(model, opts).get(owner) : inferTypes(model, opts);
  return call.inputs.map((name) => (name === "" ? undefined : types?.get(name)));
}

export function inlineCall(
  call: Node,
  op: OpVersion,
  inputTypes: (Type | undefined)[],
  scope: NameScope,
  opts: InlineOptions = {},
): InlineResult {
  const variadic =
    op.inputs.some((f) => f.option === "variadic") ||
    op.outputs.some((f) => f.option === "variadic");
  const upTo = (formals: number, given: number) =>
    Array.from({ length: variadic ? Math.max(formals, given) : formals }, (_, i) => i);
  const body = functionBody(op, {
    inputTypes,
    attributes: call.attributes,
    inputPresent: upTo(op.inputs.length, call.inputs.length).map(
      (i) => (call.inputs[i] ?? "") !== "",
    ),
    outputPresent: upTo(op.outputs.length, call.outputs.length).map(
      (i) => (call.outputs[i] ?? "") !== "",
    ),
    ...(opts.preferLoops !== undefined ? { preferLoops: opts.preferLoops } : {}),
  });
  // Ops with variadic formals: the body names its formals per position of the call.
  if (variadic && (!body.inputs || !body.outputs))
    throw new OnnxError(
      "E_UNSUPPORTED",
      `the body of ${op.name}-${op.since} does not name its variadic inputs and outputs`,
      nodeLabel(call),
    );
  const inputNames = body.inputs ?? op.inputs.map((f) => f.name);
  const outputNames = body.outputs ?? op.outputs.map((f) => f.name);
  const prefix = call.name || call.outputs[0] || op.name;
  const names = new Map<string, string>();
  inputNames.forEach((f, i) => names.set(f, call.inputs[i] ?? ""));
  outputNames.forEach((f, i) => names.set(f, call.outputs[i] || scope.fresh(`${prefix}__${f}`)));
  const rename = (name: string): string => {
    if (name === "") return "";
    let out = names.get(name);
    if (out === undefined) names.set(name, (out = scope.fresh(`${prefix}__${name}`)));
    return out;
  };
  const renaming = { value: rename, node: (name: string) => scope.fresh(`${prefix}__${name}`) };
  return { nodes: body.nodes.map((n) => renameNode(n, renaming)), opsetImports: body.opsetImports };
}
