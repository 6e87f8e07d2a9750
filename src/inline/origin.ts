// Origin records: every node the expander puts in says which call it came from (docs/semantics.md,
// "Origin records"). While passes run, the record rides on the node (NodeProto.metadata_props key
// `onnx-expand.origin`); at the end of a pipeline it stays there when the output's IR version has
// node metadata (10 and later), and otherwise moves to one JSON table in the model's
// metadata_props (key `onnx-expand.origins`: node name -> origin).
//
// An origin is a path of calls, outermost first, joined by " > "; each call is
// `<call>|<function>`: the calling node's name (its first output when it has none), then the
// function: `<domain>:<Op>:<version>` for an operator's body (ai.onnx written out, the version
// the op's `since`), `<domain>:<name>` for a model-local function (`@<overload>` after it when
// the function has one).

import type { FunctionId } from "../ir/functions.js";
import { GraphScope, rewriteGraph, rewriteNodes } from "../ir/visit.js";
import type { Attribute, Graph, MetadataProps, Model, Node } from "../ir/types.js";

/** The key of a node's origin (NodeProto.metadata_props). */
export const ORIGIN_KEY = "onnx-expand.origin";
/** The key of the model's table of origins (ModelProto.metadata_props), below IR 10. */
export const ORIGINS_KEY = "onnx-expand.origins";
/** The first IR version whose NodeProto has metadata_props. */
export const NODE_METADATA_IR = 10;
/** Between the calls of a path. */
export const PATH_SEPARATOR = " > ";

/** How an origin names an operator's body: `ai.onnx:LayerNormalization:17`. */
export function schemaFunctionName(domain: string, op: string, since: number): string {
  return `${domain === "" || domain === "ai.onnx" ? "ai.onnx" : domain}:${op}:${since}`;
}

/** How an origin names a model-local function: `local:Scaled`, `pkg:F@v2`. */
export function localFunctionName(f: FunctionId): string {
  return `${f.domain}:${f.name}${f.overload ? `@${f.overload}` : ""}`;
}

/** A node's origin, if it has one. */
export function originOf(node: Node): string | undefined {
  const md = node.metadataProps;
  if (!md) return undefined;
  for (const [k, v] of md) if (k === ORIGIN_KEY) return v;
  return undefined;
}

/** The metadata with the origin set to `value` (other entries kept, in their order). */
function withOrigin(md: MetadataProps | undefined, value: string): MetadataProps {
  if (!md || md.length === 0) return [[ORIGIN_KEY, value]];
  const out: MetadataProps = md.filter(([k]) => k !== ORIGIN_KEY);
  out.push([ORIGIN_KEY, value]);
  return out;
}

/**
 * Nodes just made for a call (fresh objects, as inlineBody gives them) marked as coming from it:
 * each node's origin becomes the call's own origin, then the call, then what the node carried
 * (a call inside the body). Nodes of their subgraphs too. Mutates the nodes given.
 */
export function markOrigin(nodes: Node[], call: Node, fn: string): void {
  const outer = originOf(call);
  const here = `${call.name || call.outputs.find((o) => o !== "") || ""}|${fn}`;
  const prefix = outer === undefined ? here : `${outer}${PATH_SEPARATOR}${here}`;
  // Nodes without a record of their own share one list.
  const plain: MetadataProps = [[ORIGIN_KEY, prefix]];
  const mark = (list: Node[]) => {
    for (const n of list) {
      const own = originOf(n);
      if (own !== undefined)
        n.metadataProps = withOrigin(n.metadataProps, `${prefix}${PATH_SEPARATOR}${own}`);
      else if (!n.metadataProps?.length) n.metadataProps = plain;
      else n.metadataProps = withOrigin(n.metadataProps, prefix);
      for (const a of n.attributes) for (const g of graphsOf(a)) mark(g.nodes);
    }
  };
  mark(nodes);
}

function graphsOf(a: Attribute): Graph[] {
  if (a.type === "GRAPH" && a.value) return [a.value];
  if (a.type === "GRAPHS" && a.value) return a.value;
  return [];
}

/** The node without its origin (the node itself when it has none). */
export function withoutOrigin(n: Node): Node {
  if (originOf(n) === undefined) return n;
  // Written out, not spread and deleted: the copy keeps a fast shape (nodes are many, and
  // encoding reads them all).
  const { opType, domain, inputs, outputs, attributes } = n;
  const out: Node =
    n.name === undefined
      ? { opType, domain, inputs, outputs, attributes }
      : { opType, domain, name: n.name, inputs, outputs, attributes };
  if (n.overload !== undefined) out.overload = n.overload;
  if (n.docString !== undefined) out.docString = n.docString;
  const md = n.metadataProps!.filter(([k]) => k !== ORIGIN_KEY);
  if (md.length) out.metadataProps = md;
  if (n.deviceConfigurations !== undefined) out.deviceConfigurations = n.deviceConfigurations;
  return out;
}

/** The key of a node in the model's table: its name; in a local function, `<function>::<name>`. */
function tableKey(node: Node, fn: FunctionId | undefined): string {
  return fn ? `${localFunctionName(fn)}::${node.name ?? ""}` : (node.name ?? "");
}

/** Every node of the model (subgraphs included) rewritten by f, told its function if any. */
function rewriteAll(model: Model, f: (n: Node, fn: FunctionId | undefined) => Node): Model {
  const graph = rewriteGraph(model.graph, GraphScope.main(model), (n) => f(n, undefined));
  let functions: Model["functions"] | undefined;
  model.functions.forEach((fn, i) => {
    const nodes = rewriteNodes(fn.nodes, GraphScope.function(fn), (n) => f(n, fn));
    if (nodes !== fn.nodes) (functions ??= model.functions.slice())[i] = { ...fn, nodes };
  });
  if (graph === model.graph && !functions) return model;
  return { ...model, graph, functions: functions ?? model.functions };
}

function readTable(model: Model): Record<string, string> | undefined {
  const text = model.metadataProps?.find(([k]) => k === ORIGINS_KEY)?.[1];
  if (text === undefined) return undefined;
  try {
    const t = JSON.parse(text) as unknown;
    if (t && typeof t === "object" && !Array.isArray(t)) {
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(t)) if (typeof v === "string") out[k] = v;
      return out;
    }
  } catch {
    // Not ours to judge: a table that does not parse is left as it is.
  }
  return undefined;
}

/**
 * Below IR 10: the origins of a model's table put back on its nodes and the table removed, so
 * that expanding again extends the paths (the output places them again: placeOrigins). The model
 * itself when it has no table.
 */
export function originsFromTable(model: Model): Model {
  if (model.irVersion >= NODE_METADATA_IR) return model;
  const table = readTable(model);
  if (!table) return model;
  const out = rewriteAll(model, (n, fn) => {
    const v = table[tableKey(n, fn)];
    if (v === undefined || originOf(n) !== undefined) return n;
    return { ...n, metadataProps: withOrigin(n.metadataProps, v) };
  });
  const md = (model.metadataProps ?? []).filter(([k]) => k !== ORIGINS_KEY);
  const result: Model = { ...out };
  if (md.length) result.metadataProps = md;
  else delete result.metadataProps;
  return result;
}

/**
 * Origins placed for the output's IR version: on the nodes from IR 10, else moved to the model's
 * table (entries of a table the model already has are kept unless a node now names its own).
 * The model itself when nothing moves.
 */
export function placeOrigins(model: Model): Model {
  if (model.irVersion >= NODE_METADATA_IR) return model;
  // A Map, and the JSON written by hand: an object of 100,000 keys is slow to build.
  const table = new Map<string, string>();
  const out = rewriteAll(model, (n, fn) => {
    const v = originOf(n);
    if (v === undefined) return n;
    table.set(tableKey(n, fn), v);
    return withoutOrigin(n);
  });
  if (table.size === 0) return model;
  const old = readTable(model);
  const parts: string[] = [];
  if (old)
    for (const [k, v] of Object.entries(old))
      if (!table.has(k)) parts.push(`${JSON.stringify(k)}:${JSON.stringify(v)}`);
  for (const [k, v] of table) parts.push(`${JSON.stringify(k)}:${JSON.stringify(v)}`);
  const md = (model.metadataProps ?? []).filter(([k]) => k !== ORIGINS_KEY);
  md.push([ORIGINS_KEY, `{${parts.join(",")}}`]);
  return { ...out, metadataProps: md };
}

/** The model with every origin record removed (nodes and table). */
export function withoutOrigins(model: Model): Model {
  const out = rewriteAll(model, withoutOrigin);
  if (!model.metadataProps?.some(([k]) => k === ORIGINS_KEY)) return out;
  const md = model.metadataProps.filter(([k]) => k !== ORIGINS_KEY);
  const result: Model = { ...out };
  if (md.length) result.metadataProps = md;
  else delete result.metadataProps;
  return result;
}
