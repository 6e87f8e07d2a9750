// One call of a schema function op replaced by the op's body: the body made for the call's input
// types and attributes (schema/body.ts), in terms of its formals, then inlined (src/inline). The
// expansion passes and the tests share these steps.

import { OnnxError, nodeLabel } from "../errors.js";
import { inferScopeTypes, inferTypes, type InferOptions } from "../check/infer.js";
import type { NameScope } from "../ir/graph.js";
import type { Attribute, Function, Model, Node, OpsetId, Type } from "../ir/types.js";
import { callPrefix, inlineBody, type BodyNodes } from "../inline/inline.js";
import { functionBody, type FunctionBody } from "../schema/body.js";
import type { OpVersion } from "../schema/types.js";

export { inlineBody, callPrefix, type BodyNodes } from "../inline/inline.js";

export interface InlineResult {
  nodes: Node[];
  /** The opsets the body's nodes are written for. */
  opsetImports: OpsetId[];
}

export interface InlineOptions {
  /** Allow a loop (Scan) where a loop-free body exists (see BodyContext.preferLoops). */
  preferLoops?: boolean;
  /** See BodyContext.standardQuantOps. */
  standardQuantOps?: boolean;
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

interface Formals {
  variadic: boolean;
  inputs: string[];
  outputs: string[];
}
const formalsOf = new WeakMap<OpVersion, Formals>();

/** The op's formal names, and whether any formal is variadic (worked out once per op). */
export function opFormals(op: OpVersion): Formals {
  let f = formalsOf.get(op);
  if (!f) {
    f = {
      variadic:
        op.inputs.some((x) => x.option === "variadic") ||
        op.outputs.some((x) => x.option === "variadic"),
      inputs: op.inputs.map((x) => x.name),
      outputs: op.outputs.map((x) => x.name),
    };
    formalsOf.set(op, f);
  }
  return f;
}

/** How many inputs and outputs a call's body has: the op's, or the call's for a variadic op. */
export function bodyArity(op: OpVersion, call: Node): { inputs: number; outputs: number } {
  const variadic = opFormals(op).variadic;
  return {
    inputs: variadic ? Math.max(op.inputs.length, call.inputs.length) : op.inputs.length,
    outputs: variadic ? Math.max(op.outputs.length, call.outputs.length) : op.outputs.length,
  };
}

/** The op's body for a call with these input types (schema/body.ts's functionBody). */
export function callBody(
  op: OpVersion,
  call: { inputs: string[]; outputs: string[]; attributes: Attribute[] },
  inputTypes: (Type | undefined)[],
  opts: InlineOptions = {},
): FunctionBody {
  const n = bodyArity(op, call as Node);
  const present = (count: number, given: string[]) =>
    Array.from({ length: count }, (_, i) => (given[i] ?? "") !== "");
  return functionBody(op, {
    inputTypes,
    attributes: call.attributes,
    inputPresent: present(n.inputs, call.inputs),
    outputPresent: present(n.outputs, call.outputs),
    ...(opts.preferLoops !== undefined ? { preferLoops: opts.preferLoops } : {}),
    ...(opts.standardQuantOps !== undefined ? { standardQuantOps: opts.standardQuantOps } : {}),
  });
}

/** A body in terms of its formals; an op with variadic formals needs a body that names them. */
export function bodyNodes(op: OpVersion, body: FunctionBody, call?: Node): BodyNodes {
  const f = opFormals(op);
  if (f.variadic && (!body.inputs || !body.outputs))
    throw new OnnxError(
      "E_UNSUPPORTED",
      `the body of ${op.name}-${op.since} does not name its variadic inputs and outputs`,
      call ? nodeLabel(call) : undefined,
    );
  return {
    inputs: body.inputs ?? f.inputs,
    outputs: body.outputs ?? f.outputs,
    nodes: body.nodes,
  };
}

/** One call of a schema function op, replaced by the op's body for the call's input types. */
export function inlineCall(
  call: Node,
  op: OpVersion,
  inputTypes: (Type | undefined)[],
  scope: NameScope,
  opts: InlineOptions = {},
): InlineResult {
  const body = callBody(op, call, inputTypes, opts);
  const nodes = inlineBody(call, bodyNodes(op, body, call), scope, callPrefix(call, op.name));
  return { nodes, opsetImports: body.opsetImports };
}
