// Origin records: every node the expander puts in says which call it came from (docs/semantics.md,
// "Origin records"). While passes run, the record rides on the node (NodeProto.metadata_props key
// `onnx-expand.origin`); at the end of a pipeline it stays there when the output's IR version has
// node metadata (10 and later), and otherwise moves to one JSON table in the model's
// metadata_props (key `onnx-expand.origins`): a list of runs, each the key of a node, how many
// consecutive nodes of its list from there share an origin, and the origin (tables written
// before runs, an object from node key to origin, are read too).
//
// An origin is a path of calls, outermost first, joined by " > "; each call is
// `<call>|<function>`: the calling node's name (its first output when it has none), then the
// function: `<domain>:<Op>:<version>` for an operator's body (ai.onnx written out, the version
// the op's `since`), `<domain>:<name>` for a model-local function (`@<overload>` after it when
// the function has one).

import type { FunctionId } from "../ir/functions.js";
import { someGraphNode, visitModel } from "../ir/visit.js";
import type { Function, Graph, MetadataProps, Model, Node } from "../ir/types.js";

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
  if (md === undefined) return undefined;
  for (let i = 0; i < md.length; i++) if (md[i]![0] === ORIGIN_KEY) return md[i]![1];
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
  markRecord(nodes, originRecord(call, fn));
}

/** markOrigin with the call's record made already (originRecord). */
export function markRecord(nodes: Node[], record: MetadataProps): void {
  markList(nodes, record[0]![1], record);
}

/**
 * The metadata of a node a call of `fn` puts in that carries no record of its own: the call's
 * origin, one list that such nodes share. Given to markOrigin with the nodes; a node made with
 * this very list (inlineBody's `record`) is marked already.
 */
export function originRecord(call: Node, fn: string): MetadataProps {
  const outer = originOf(call);
  const here = `${call.name || call.outputs.find((o) => o !== "") || ""}|${fn}`;
  const prefix = outer === undefined ? here : `${outer}${PATH_SEPARATOR}${here}`;
  return [[ORIGIN_KEY, prefix]];
}

function markList(list: Node[], prefix: string, plain: MetadataProps): void {
  someGraphNode({ nodes: list }, (n) => {
    if (n.metadataProps === plain) return;
    const own = originOf(n);
    if (own !== undefined)
      n.metadataProps = withOrigin(n.metadataProps, `${prefix}${PATH_SEPARATOR}${own}`);
    else if (!n.metadataProps?.length) n.metadataProps = plain;
    else n.metadataProps = withOrigin(n.metadataProps, prefix);
  });
}

/** The node without its origin (the node itself when it has none). */
export function withoutOrigin(n: Node): Node {
  if (originOf(n) === undefined) return n;
  return copyWithout(n);
}

/** Whether any node of the model (subgraphs and local functions included) carries an origin. */
export function hasNodeOrigins(model: Model): boolean {
  const marked = (owner: Graph | Function) =>
    someGraphNode(owner, (n) => originOf(n) !== undefined);
  return marked(model.graph) || model.functions.some(marked);
}

/** A copy of a node that has an origin, without it. */
function copyWithout(n: Node): Node {
  // Written out, not spread and deleted: the copy keeps a fast shape (nodes are many, and
  // encoding reads them all).
  const { opType, domain, inputs, outputs, attributes } = n;
  const out: Node =
    n.name === undefined
      ? { opType, domain, inputs, outputs, attributes }
      : { opType, domain, name: n.name, inputs, outputs, attributes };
  if (n.overload !== undefined) out.overload = n.overload;
  if (n.docString !== undefined) out.docString = n.docString;
  // Most nodes carry their origin alone.
  const own = n.metadataProps!;
  if (own.length > 1) out.metadataProps = own.filter(([k]) => k !== ORIGIN_KEY);
  if (n.deviceConfigurations !== undefined) out.deviceConfigurations = n.deviceConfigurations;
  return out;
}

/** A table entry: the origin of `count` consecutive nodes of one list, the keyed one first. */
interface Run {
  count: number;
  origin: string;
}

/**
 * Every node list of the model (main graph, subgraphs, local functions) given to f with the
 * prefix of its nodes' keys in the table (`<function>::` inside a local function), a list's
 * subgraphs before the list; the model itself when f changes nothing.
 */
function rewriteLists(model: Model, f: (nodes: Node[], prefix: string) => Node[]): Model {
  return visitModel<string>(model, {
    enter: (scope, parent) =>
      parent ??
      (scope.owner === model.graph ? "" : `${localFunctionName(scope.owner as Function)}::`),
    nodes: (nodes, _, prefix) => f(nodes, prefix),
  });
}

/**
 * The entries of a table (JSON text), by the key of their first node: a list of runs
 * `[key, count, origin]` (`[key, origin]` for one node), or, as written before, an object from
 * node key to origin. Undefined when the text is neither.
 */
export function tableRuns(text: string): Map<string, Run> | undefined {
  let t: unknown;
  try {
    t = JSON.parse(text);
  } catch {
    // Not ours to judge: a table that does not parse is left as it is.
    return undefined;
  }
  const out = new Map<string, Run>();
  if (Array.isArray(t)) {
    for (const e of t) {
      if (!Array.isArray(e) || typeof e[0] !== "string") continue;
      const count = e.length === 2 ? 1 : e[1];
      const origin = e[e.length - 1];
      if (typeof origin === "string" && Number.isInteger(count) && count > 0)
        out.set(e[0], { count: count as number, origin });
    }
    return out;
  }
  if (!t || typeof t !== "object") return undefined;
  for (const [k, v] of Object.entries(t))
    if (typeof v === "string") out.set(k, { count: 1, origin: v });
  return out;
}

/**
 * The origin a table gives each node of one list (its nodes keyed `prefix + name`): a run
 * covers its keyed node and the ones after it, up to its count or the list's end. Keys found are
 * added to `found`.
 */
export function listOrigins(
  runs: Map<string, Run>,
  nodes: readonly Node[],
  prefix: string,
  found?: Set<string>,
): (string | undefined)[] {
  const out = new Array<string | undefined>(nodes.length);
  let left = 0;
  let origin = "";
  for (let i = 0; i < nodes.length; i++) {
    const key = prefix + (nodes[i]!.name ?? "");
    const run = runs.get(key);
    if (run) {
      left = run.count;
      origin = run.origin;
      found?.add(key);
    }
    if (left > 0) {
      out[i] = origin;
      left--;
    }
  }
  return out;
}

function modelTable(model: Model): Map<string, Run> | undefined {
  const text = model.metadataProps?.find(([k]) => k === ORIGINS_KEY)?.[1];
  return text === undefined ? undefined : tableRuns(text);
}

/** The model's metadata without the table (undefined when nothing is left). */
function withoutTable(model: Model): Model {
  const md = (model.metadataProps ?? []).filter(([k]) => k !== ORIGINS_KEY);
  const result: Model = { ...model };
  if (md.length) result.metadataProps = md;
  else delete result.metadataProps;
  return result;
}

/**
 * The model with the origins of its table put on the nodes that have none (the table kept).
 * `found` collects the keys of the entries that met a node.
 */
function tableOnNodes(model: Model, runs: Map<string, Run>, found?: Set<string>): Model {
  return rewriteLists(model, (nodes, prefix) => {
    const origins = listOrigins(runs, nodes, prefix, found);
    let out = nodes;
    for (let i = 0; i < nodes.length; i++) {
      const v = origins[i];
      const n = nodes[i]!;
      if (v === undefined || originOf(n) !== undefined) continue;
      if (out === nodes) out = nodes.slice();
      out[i] = { ...n, metadataProps: withOrigin(n.metadataProps, v) };
    }
    return out;
  });
}

/**
 * The origin of each node of the model that has one, by its key in the table (its name; in a
 * local function `<function>::<name>`): from the nodes, else from the model's table.
 */
export function modelOrigins(model: Model): Map<string, string> {
  const runs = modelTable(model);
  const out = new Map<string, string>();
  rewriteLists(model, (nodes, prefix) => {
    const fromTable = runs ? listOrigins(runs, nodes, prefix) : [];
    nodes.forEach((n, i) => {
      const v = originOf(n) ?? fromTable[i];
      if (v !== undefined) out.set(prefix + (n.name ?? ""), v);
    });
    return nodes;
  });
  return out;
}

/**
 * Below IR 10: the origins of a model's table put back on its nodes and the table removed, so
 * that expanding again extends the paths (the output places them again: placeOrigins). The model
 * itself when it has no table.
 */
export function originsFromTable(model: Model): Model {
  if (model.irVersion >= NODE_METADATA_IR) return model;
  const runs = modelTable(model);
  if (!runs) return model;
  return withoutTable(tableOnNodes(model, runs));
}

/**
 * Origins placed for the output's IR version: on the nodes from IR 10, else moved to the model's
 * table, one run per stretch of consecutive nodes of a list with the same origin. Nodes without
 * a record of their own keep what a table the model already has gives them; its entries that
 * meet no node are kept. The model itself when nothing moves. `own`: every node that carries a
 * record is the caller's own (made since the model was read, and shared with nothing), and loses
 * it in place rather than being copied.
 */
export function placeOrigins(model: Model, own = false): Model {
  if (model.irVersion >= NODE_METADATA_IR) return model;
  if (!hasNodeOrigins(model)) return model;
  const old = modelTable(model);
  const found = new Set<string>();
  const input = old ? tableOnNodes(model, old, found) : model;
  const runs: (string | number)[][] = [];
  const out = rewriteLists(input, (nodes, prefix) => {
    let list = nodes;
    let run: (string | number)[] | undefined;
    let origin: string | undefined;
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i]!;
      const v = originOf(n);
      if (v === undefined) {
        origin = undefined;
        continue;
      }
      if (v === origin) (run![1] as number)++;
      else {
        origin = v;
        runs.push((run = [prefix + (n.name ?? ""), 1, v]));
      }
      if (own) {
        // markOrigin adds metadataProps last: deleting it gives back the node's first shape.
        const md = n.metadataProps!;
        if (md.length === 1) delete n.metadataProps;
        else n.metadataProps = md.filter(([k]) => k !== ORIGIN_KEY);
        continue;
      }
      if (list === nodes) list = nodes.slice();
      list[i] = copyWithout(n);
    }
    return list;
  });
  if (old) for (const [k, r] of old) if (!found.has(k)) runs.push([k, r.count, r.origin]);
  // A run of one node is written without its count.
  for (const r of runs) if (r[1] === 1) r.splice(1, 1);
  const md = (model.metadataProps ?? []).filter(([k]) => k !== ORIGINS_KEY);
  md.push([ORIGINS_KEY, JSON.stringify(runs)]);
  return { ...out, metadataProps: md };
}

/** The model with every origin record removed (nodes and table). */
export function withoutOrigins(model: Model): Model {
  const out = rewriteLists(model, (nodes) => {
    let own = nodes;
    nodes.forEach((n, i) => {
      const m = withoutOrigin(n);
      if (m !== n) (own === nodes ? (own = nodes.slice()) : own)[i] = m;
    });
    return own;
  });
  if (!model.metadataProps?.some(([k]) => k === ORIGINS_KEY)) return out;
  return withoutTable(out);
}
