// Inlining one call: a body (an operator's function body, or a model-local function) put in place
// of the call node, its formal inputs and outputs renamed to the call's values and every other
// name (values and nodes, in the body and in its subgraphs) made fresh in the caller's scope, so
// that nothing the body defines can capture or shadow a name of the caller. The building block of
// the expander.

import { OnnxError, nodeLabel } from "../errors.js";
import type { NameScope } from "../ir/graph.js";
import type { Tensor } from "../ir/tensor.js";
import type { Attribute, Graph, Node, OpsetId, Type } from "../ir/types.js";
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

/** A body in terms of its formal names: what inlineBody renames. */
export interface BodyNodes {
  inputs: string[];
  outputs: string[];
  nodes: Node[];
}

/** The readable prefix of names introduced for a call: its node name, else its first output. */
export function callPrefix(call: Node, fallback: string): string {
  return call.name || call.outputs.find((o) => o !== "") || fallback;
}

/**
 * The body's nodes with formal inputs renamed to the call's inputs ("" where the call omits
 * one), formal outputs to the call's outputs (fresh where it omits one), and every other value
 * and node name fresh in `scope`, starting with `prefix__`. Names a subgraph defines get names
 * of their own (siblings never share one); names a subgraph reads from the body follow the body.
 */
export function inlineBody(
  call: Node,
  body: BodyNodes,
  scope: NameScope,
  prefix: string,
  opts: { prefixed?: boolean } = {},
): Node[] {
  // prefixed false: the body's names already carry a prefix (a body inlined before); they are
  // kept where they are free, else numbered.
  const prefixed = opts.prefixed ?? true;
  const freshName = (name: string) =>
    scope.fresh(prefixed ? `${prefix}__${name.replace(/^_+/, "")}` : name);
  const top = new Map<string, string>();
  body.inputs.forEach((f, i) => {
    if (f !== "") top.set(f, call.inputs[i] ?? "");
  });
  body.outputs.forEach((f, i) => {
    if (f !== "" && !top.has(f)) top.set(f, call.outputs[i] || freshName(f));
  });

  type Names = { map: Map<string, string>; parent?: Names };
  const lookup = (names: Names, name: string): string => {
    if (name === "") return "";
    for (let s: Names | undefined = names; s; s = s.parent) {
      const v = s.map.get(name);
      if (v !== undefined) return v;
    }
    // Not defined in any enclosing subgraph: a value of the body itself (perhaps defined later).
    let out = top.get(name);
    if (out === undefined) top.set(name, (out = freshName(name)));
    return out;
  };

  const renameNode = (n: Node, names: Names): Node => {
    const inputs = n.inputs.map((x) => lookup(names, x));
    // An omitted optional input at the end is left out rather than written as "".
    while (inputs.length && inputs[inputs.length - 1] === "") inputs.pop();
    const copy: Node = {
      ...n,
      inputs,
      outputs: n.outputs.map((x) => lookup(names, x)),
      attributes: n.attributes.some((a) => a.type === "GRAPH" || a.type === "GRAPHS")
        ? n.attributes.map((a) => renameAttribute(a, names))
        : n.attributes,
      name: scope.fresh(
        prefixed ? `${prefix}__${n.name || n.opType}` : n.name || `${prefix}__${n.opType}`,
      ),
    };
    return copy;
  };

  const renameGraph = (g: Graph, parent: Names): Graph => {
    const names: Names = { map: new Map(), parent };
    const define = (name: string) => {
      if (name !== "" && !names.map.has(name)) names.map.set(name, freshName(name));
    };
    g.inputs.forEach((v) => define(v.name));
    g.initializers.forEach((t) => define(t.name));
    g.sparseInitializers.forEach((s) => define(s.values.name));
    for (const n of g.nodes) n.outputs.forEach(define);
    const renameTensor = (t: Tensor): Tensor => {
      const c = Object.assign(Object.create(Object.getPrototypeOf(t)), t) as Tensor;
      c.name = lookup(names, t.name);
      return c;
    };
    return {
      ...g,
      inputs: g.inputs.map((v) => ({ ...v, name: lookup(names, v.name) })),
      outputs: g.outputs.map((v) => ({ ...v, name: lookup(names, v.name) })),
      valueInfo: g.valueInfo
        .filter((v) => names.map.has(v.name))
        .map((v) => ({ ...v, name: lookup(names, v.name) })),
      initializers: g.initializers.map(renameTensor),
      sparseInitializers: g.sparseInitializers.map((s) => ({
        ...s,
        values: renameTensor(s.values),
      })),
      nodes: g.nodes.map((n) => renameNode(n, names)),
    };
  };

  const renameAttribute = (a: Attribute, names: Names): Attribute => {
    if (a.type === "GRAPH" && a.value) return { ...a, value: renameGraph(a.value, names) };
    if (a.type === "GRAPHS" && a.value)
      return { ...a, value: a.value.map((g) => renameGraph(g, names)) };
    return a;
  };

  const root: Names = { map: top };
  return body.nodes.map((n) => renameNode(n, root));
}

/** One call of a schema function op, replaced by the op's body for the call's input types. */
export function inlineCall(
  call: Node,
  op: OpVersion,
  inputTypes: (Type | undefined)[],
  scope: NameScope,
  opts: InlineOptions = {},
): InlineResult {
  if (
    op.inputs.some((f) => f.option === "variadic") ||
    op.outputs.some((f) => f.option === "variadic")
  )
    throw new OnnxError(
      "E_UNSUPPORTED",
      `inlining ops with variadic inputs or outputs is not supported`,
      nodeLabel(call),
    );
  const body = functionBody(op, {
    inputTypes,
    attributes: call.attributes,
    inputPresent: op.inputs.map((_, i) => (call.inputs[i] ?? "") !== ""),
    outputPresent: op.outputs.map((_, i) => (call.outputs[i] ?? "") !== ""),
    ...(opts.preferLoops !== undefined ? { preferLoops: opts.preferLoops } : {}),
  });
  const nodes = inlineBody(
    call,
    {
      inputs: op.inputs.map((f) => f.name),
      outputs: op.outputs.map((f) => f.name),
      nodes: body.nodes,
    },
    scope,
    callPrefix(call, op.name),
  );
  return { nodes, opsetImports: body.opsetImports };
}
