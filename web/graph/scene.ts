// The scene of one view (worker side, pure): a graph's nodes grouped into a tree by where they
// came from, with its constants set apart. Origins are read, first found first, from
//   (a) the expander's records: `onnx-expand.origin` in a node's metadata_props, or the model's
//       `onnx-expand.origins` table for IR versions before 10 (JSON: runs of consecutive nodes
//       with one origin, or, as written before, an object from node name to origin);
//   (b) torch's dynamo exporter: `pkg.torch.onnx.name_scopes` (a Python list of cumulative module
//       paths, the root '' first and the node's own name last) or `namespace` ("a: Class/a.b: …");
//   (c) torch's legacy names, `/encoder/layer.0/attention/MatMul`: the path less its last part.
// A node the expander put in is grouped under its call: the call's own scope, then the call. The
// expander records only the call, so a node without a scope of its own takes its calling node's
// (found by name in the view's graph, or in the graph it was expanded from).

import { listOrigins, tableRuns } from "../../src/inline/origin.js";
import { attributeGraphs } from "../../src/ir/visit.js";
import type { MetadataProps, Node } from "../../src/ir/types.js";
import type { Mark } from "./types.js";

export const ORIGIN_KEY = "onnx-expand.origin";
export const ORIGINS_KEY = "onnx-expand.origins";

/** What a scene is built from: one view's graph, with the worker's labels and types. */
export interface SceneSource {
  nodes: readonly Node[];
  inputs: readonly string[];
  outputs: readonly string[];
  /** Initializers of the view (names). */
  initializers: readonly string[];
  /** The model's metadata (read for the origins table). */
  modelMetadata?: MetadataProps;
  /**
   * The nodes of the graph this view was expanded from, when the page has it (the same view of
   * pane a): an expanded node's calling node is looked up there by name when it is gone from this
   * graph, for the scope torch recorded on it.
   */
  callers?: readonly Node[];
  /** In a local function's view: the function (`domain:name`) keying its nodes in that table. */
  tablePrefix?: string;
  /**
   * A start of node and value names to leave out of what is drawn (namePrefix): an inlined
   * branch's `If_0_else_branch__Inline_0__` before every torch path in it.
   */
  stripPrefix?: string;
  /** The text drawn on a node (its op), and under it (its name). */
  label(index: number): string;
  /** A value's type as text ("?" when not known). */
  typeOf(name: string): string;
}

export interface SceneGroup {
  /** `g` + the group's path, its segments joined by "/" ("/" inside a segment written %2F). */
  key: string;
  label: string;
  /** Index of the enclosing group, -1 for the root. */
  parent: number;
  depth: number;
  groups: number[];
  /** Nodes directly inside (node indices). */
  nodes: number[];
  /** Nodes inside at any depth. */
  count: number;
}

export interface Scene {
  /** Group 0 is the root (the whole view, never drawn as a box). */
  groups: SceneGroup[];
  /** Per node: the group it sits in. */
  groupOf: Int32Array;
  /** Per node: 1 for a Constant that can be folded into its consumers. */
  constant: Uint8Array;
  labels: string[];
  subs: string[];
  subgraphs: Int32Array;
  inputs: { name: string; sub: string; initializer: boolean }[];
  outputs: { name: string; sub: string }[];
  initializers: { name: string; text: string }[];
  /** Per node: its distinct non-empty inputs. */
  nodeInputs: string[][];
  /** The producer of each value: a node index (≥ 0), or -1 - k for the k-th graph input. */
  producer: Map<string, number>;
  /** Values held by constants (initializers and Constant outputs): their short text. */
  constants: Map<string, string>;
  /** Keys of groups by key → index. */
  byKey: Map<string, number>;
  typeOf(name: string): string;
  /** The start of names not drawn (SceneSource's stripPrefix). */
  stripPrefix?: string;
}

const pyList = /^\s*\[(.*)\]\s*$/s;

/** Parses a Python or JSON list of strings (`['', 'a', 'a.b']`). */
function parseStringList(text: string): string[] | undefined {
  const m = pyList.exec(text);
  if (!m) return undefined;
  const out: string[] = [];
  const re = /'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"/g;
  for (let x = re.exec(m[1]!); x; x = re.exec(m[1]!))
    out.push((x[1] ?? x[2] ?? "").replace(/\\(.)/g, "$1"));
  return out;
}

function meta(props: MetadataProps | undefined, key: string): string | undefined {
  if (!props) return undefined;
  for (const [k, v] of props) if (k === key) return v;
  return undefined;
}

/**
 * The scope torch gives nodes made outside any module (its shape checks and size reads): not a
 * module of the model, so no group; those nodes sit at the top level.
 */
const NO_MODULE = "_empty_nn_module_stack";

/** The scope path the dynamo exporter recorded for a node, if any. */
export function dynamoScope(props: MetadataProps | undefined): string[] | undefined {
  const scopes = meta(props, "pkg.torch.onnx.name_scopes");
  if (scopes !== undefined) {
    const list = parseStringList(scopes);
    if (list) return list.slice(0, -1).filter((s) => s !== "" && !s.startsWith(NO_MODULE));
  }
  const ns = meta(props, "namespace");
  if (ns !== undefined && ns !== "") {
    const parts = ns.split("/").map((p) => p.replace(/:.*$/s, "").trim());
    return parts.slice(0, -1).filter((s) => s !== "" && !s.startsWith(NO_MODULE));
  }
  return undefined;
}

/** The scope of a name written the legacy exporter's way: `/a/b/Op_3` → [a, b]. */
export function legacyScope(name: string | undefined): string[] {
  if (!name || !name.startsWith("/")) return [];
  const parts = name.split("/").filter((s) => s !== "");
  return parts.slice(0, -1);
}

/**
 * An origin record as path segments: the calls, outermost first, joined by " > ", each
 * `<calling node>|<function>` (the expander's format); a JSON list of strings is read too.
 */
function originSegments(origin: string): string[] {
  const t = origin.trim();
  if (t.startsWith("[")) {
    try {
      const v: unknown = JSON.parse(t);
      if (Array.isArray(v)) return v.map((x) => (typeof x === "string" ? x : JSON.stringify(x)));
    } catch {
      // not JSON: the expander's format
    }
  }
  return t === "" ? [] : t.split(" > ");
}

/**
 * A segment less its parent's, for torch's cumulative module paths: `model.layers.3` under
 * `model` shows as `layers.3`: a layer's box names its layer without the path all boxes share.
 */
function ownPart(segment: string, parent: string | undefined): string {
  return parent !== undefined && segment.startsWith(`${parent}.`)
    ? segment.slice(parent.length + 1)
    : segment;
}

/** How a group shows one segment of its path: a call as `name (function)`. */
export function segmentLabel(segment: string): string {
  const bar = segment.lastIndexOf("|");
  return bar < 0 ? segment : `${segment.slice(0, bar)} (${segment.slice(bar + 1)})`;
}

/**
 * The origins the model's table gives the nodes of one list (node key → origin), if it has a
 * table: keys are node names, `<function>::<name>` in a local function (`prefix`).
 */
function originsTable(
  props: MetadataProps | undefined,
  nodes: readonly Node[],
  prefix: string | undefined,
): Map<string, string> | undefined {
  const t = meta(props, ORIGINS_KEY);
  const runs = t === undefined ? undefined : tableRuns(t);
  if (!runs) return undefined;
  const p = prefix === undefined ? "" : `${prefix}::`;
  const m = new Map<string, string>();
  listOrigins(runs, nodes, p).forEach((o, i) => {
    if (o !== undefined) m.set(p + (nodes[i]!.name ?? ""), o);
  });
  return m;
}

/**
 * The group path of a node: scope from torch's metadata or name, then the expander's calls.
 * `tableKey` is the node's key in the model's origins table (its name, or `<function>::<name>`).
 */
export function nodePath(
  node: Node,
  table?: Map<string, string>,
  tableKey?: string,
  callerScope?: (name: string) => string[] | undefined,
): string[] {
  const { scope, calls } = nodeOrigin(node, table, tableKey, callerScope);
  return [...scope, ...calls];
}

/**
 * Where a node came from: its module scope (torch's, or its call's), possibly empty, and the
 * expander's calls that made it.
 */
function nodeOrigin(
  node: Node,
  table?: Map<string, string>,
  tableKey?: string,
  callerScope?: (name: string) => string[] | undefined,
): { scope: string[]; calls: string[]; known: boolean } {
  const scope = dynamoScope(node.metadataProps);
  const key = tableKey ?? node.name;
  const origin = meta(node.metadataProps, ORIGIN_KEY) ?? (key ? table?.get(key) : undefined);
  if (origin) {
    const calls = originSegments(origin);
    if (scope) return { scope, calls, known: true };
    // The expander records only the call; the call's node carries torch's scope.
    const first = calls[0] ?? "";
    const bar = first.lastIndexOf("|");
    const inherited = callerScope?.(bar < 0 ? first : first.slice(0, bar));
    if (inherited?.length) return { scope: inherited, calls, known: true };
    // A call named the legacy way lends its scope to what it became.
    const caller = legacyScope(calls[0]?.split("|")[0]);
    if (caller.length) calls[0] = calls[0]!.slice(`/${caller.join("/")}/`.length);
    return { scope: caller, calls, known: caller.length > 0 };
  }
  // torch names every node it places "/module/…/Op" (a top-level one "/Op"); other names, and
  // no metadata, say nothing of where the node belongs.
  if (scope) return { scope, calls: [], known: true };
  return { scope: legacyScope(node.name), calls: [], known: !!node.name?.startsWith("/") };
}

/**
 * The start of names to leave out of a view's drawing: the first segment of node names (before
 * their first "/") when at least 4 in 5 named nodes share it and it is not torch's own empty
 * one; "" when there is none.
 */
export function namePrefix(nodes: readonly Node[]): string {
  const counts = new Map<string, number>();
  let named = 0;
  for (const n of nodes) {
    const k = n.name?.indexOf("/") ?? -1;
    if (!n.name) continue;
    named++;
    if (k > 0) counts.set(n.name.slice(0, k), (counts.get(n.name.slice(0, k)) ?? 0) + 1);
  }
  for (const [seg, c] of counts) if (c >= 2 && c * 5 >= named * 4) return seg;
  return "";
}

/** The longest common start of paths. */
function commonStart(paths: string[][]): string[] {
  if (!paths.length) return [];
  let n = paths[0]!.length;
  for (const p of paths)
    for (let k = 0; k < n; k++)
      if (p[k] !== paths[0]![k]) {
        n = k;
        break;
      }
  return paths[0]!.slice(0, n);
}

/**
 * Module scopes for the nodes whose origin says nothing of one (exporters leave shape arithmetic,
 * weight copies and the like unscoped; a lowered model opened alone has lost its calls' scopes).
 * From the last node back (consumers come after producers): the common scope of its consumers,
 * when all of them have one (shape arithmetic belongs to the module that uses it). Then forward,
 * for what is left: the common scope of its producers, or for an expansion (`calls`) that scope's
 * parent (the call was a module of its own, beside the one it follows). A node stays at the top
 * level only when nothing around it has a scope.
 */
function inheritScopes(
  scopes: string[][],
  known: boolean[],
  calls: boolean[],
  nodeInputs: string[][],
  producer: Map<string, number>,
): void {
  const n = scopes.length;
  const has = known.slice();
  const consumers: number[][] = Array.from({ length: n }, () => []);
  const producers: number[][] = Array.from({ length: n }, () => []);
  for (let i = 0; i < n; i++)
    for (const x of nodeInputs[i]!) {
      const j = producer.get(x);
      if (j === undefined || j < 0 || j === i) continue;
      consumers[j]!.push(i);
      producers[i]!.push(j);
    }
  for (let i = n - 1; i >= 0; i--) {
    const cs = consumers[i]!;
    if (has[i] || !cs.length || !cs.every((c) => has[c])) continue;
    scopes[i] = commonStart(cs.map((c) => scopes[c]!));
    has[i] = true;
  }
  for (let i = 0; i < n; i++) {
    const ps = producers[i]!;
    if (has[i] || !ps.length || !ps.every((j) => has[j])) continue;
    const common = commonStart(ps.map((j) => scopes[j]!));
    scopes[i] = calls[i] ? common.slice(0, -1) : common;
    has[i] = true;
  }
}

const escapeSegment = (s: string) => s.replace(/%/g, "%25").replace(/\//g, "%2F");

const isConstantNode = (n: Node) =>
  n.opType === "Constant" && (n.domain === "" || n.domain === "ai.onnx") && n.inputs.length === 0;

/**
 * The scope torch recorded on a node found by name: in the view's own graph first, then in the
 * graph it was expanded from. The table of names is made on the first call.
 */
function callerScopes(
  nodes: readonly Node[],
  callers: readonly Node[] | undefined,
): (name: string) => string[] | undefined {
  let byName: Map<string, Node> | undefined;
  return (name) => {
    if (!byName) {
      byName = new Map();
      for (const list of [callers ?? [], nodes])
        for (const n of list) if (n.name) byName.set(n.name, n);
    }
    const n = byName.get(name);
    return n ? dynamoScope(n.metadataProps) : undefined;
  };
}

export function buildScene(src: SceneSource): Scene {
  const table = originsTable(src.modelMetadata, src.nodes, src.tablePrefix);
  const callerScope = callerScopes(src.nodes, src.callers);
  const n = src.nodes.length;
  const groups: SceneGroup[] = [
    { key: "g", label: "", parent: -1, depth: 0, groups: [], nodes: [], count: 0 },
  ];
  const byPath = new Map<string, number>([["", 0]]);
  const groupOf = new Int32Array(n);
  const constant = new Uint8Array(n);
  const labels: string[] = new Array<string>(n);
  const subs: string[] = new Array<string>(n);
  const subgraphs = new Int32Array(n);
  const nodeInputs: string[][] = new Array<string[]>(n);
  const producer = new Map<string, number>();
  const constants = new Map<string, string>();
  const inits = new Set(src.initializers);
  src.inputs.forEach((name, k) => producer.set(name, -1 - k));
  for (const name of src.initializers) constants.set(name, src.typeOf(name));
  const outputs = new Set(src.outputs);

  // Where each node came from; unscoped nodes then take their neighbours' scope.
  const strip = (name: string | undefined) =>
    src.stripPrefix && name?.startsWith(src.stripPrefix)
      ? name.slice(src.stripPrefix.length)
      : name;
  const origins = src.nodes.map((node) =>
    nodeOrigin(
      src.stripPrefix ? { ...node, name: strip(node.name) } : node,
      table,
      src.tablePrefix !== undefined ? `${src.tablePrefix}::${node.name ?? ""}` : undefined,
      callerScope,
    ),
  );
  const scopes = origins.map((o) => o.scope);
  {
    const inputsOf = src.nodes.map((node) => node.inputs.filter((x) => x !== ""));
    const made = new Map<string, number>();
    src.nodes.forEach((node, i) => {
      for (const o of node.outputs) if (o !== "") made.set(o, i);
    });
    inheritScopes(
      scopes,
      origins.map((o) => o.known),
      origins.map((o) => o.calls.length > 0),
      inputsOf,
      made,
    );
  }

  for (let i = 0; i < n; i++) {
    const node = src.nodes[i]!;
    labels[i] = src.label(i);
    subs[i] = strip(node.name) ?? "";
    let k = 0;
    for (const a of node.attributes) k += attributeGraphs(a).length;
    subgraphs[i] = k;
    const seen: string[] = [];
    for (const x of node.inputs) if (x !== "" && !seen.includes(x)) seen.push(x);
    nodeInputs[i] = seen;
    for (const o of node.outputs) if (o !== "") producer.set(o, i);
    if (isConstantNode(node) && !node.outputs.some((o) => outputs.has(o))) {
      constant[i] = 1;
      for (const o of node.outputs) if (o !== "") constants.set(o, src.typeOf(o));
    }
    // the group: find or make each level of the path
    const path = [...scopes[i]!, ...origins[i]!.calls];
    let g = 0;
    let key = "";
    for (let k = 0; k < path.length; k++) {
      const seg = path[k]!;
      key = key === "" ? escapeSegment(seg) : `${key}/${escapeSegment(seg)}`;
      let c = byPath.get(key);
      if (c === undefined) {
        c = groups.length;
        const parent = groups[g]!;
        groups.push({
          key: `g${key}`,
          label: segmentLabel(ownPart(seg, path[k - 1])),
          parent: g,
          depth: parent.depth + 1,
          groups: [],
          nodes: [],
          count: 0,
        });
        parent.groups.push(c);
        byPath.set(key, c);
      }
      g = c;
    }
    groupOf[i] = g;
    groups[g]!.nodes.push(i);
  }
  const scene: Scene = {
    groups,
    groupOf,
    constant,
    labels,
    subs,
    subgraphs,
    inputs: src.inputs.map((name) => ({
      name,
      sub: src.typeOf(name),
      initializer: inits.has(name),
    })),
    outputs: src.outputs.map((name) => ({ name, sub: src.typeOf(name) })),
    initializers: src.initializers.map((name) => ({ name, text: constants.get(name) ?? "?" })),
    nodeInputs,
    producer,
    constants,
    byKey: new Map(),
    typeOf: src.typeOf,
    ...(src.stripPrefix ? { stripPrefix: src.stripPrefix } : {}),
  };
  compact(scene);
  return scene;
}

/**
 * Counts every group, and merges trivial levels: a group holding nothing but one group becomes
 * that group (its label the two joined), so no box ever holds a single box and nothing else.
 */
function compact(scene: Scene): void {
  const { groups } = scene;
  // children after parents in creation order: count bottom-up by walking backwards
  for (let g = groups.length - 1; g >= 0; g--) {
    const grp = groups[g]!;
    grp.count += grp.nodes.length;
    if (grp.parent >= 0) groups[grp.parent]!.count += grp.count;
  }
  const alive = new Uint8Array(groups.length).fill(1);
  for (let g = 0; g < groups.length; g++) {
    const grp = groups[g]!;
    if (!alive[g]) continue;
    while (grp.nodes.length === 0 && grp.groups.length === 1) {
      const c = grp.groups[0]!;
      const child = groups[c]!;
      alive[c] = 0;
      grp.groups = child.groups;
      grp.nodes = child.nodes;
      if (g !== 0) {
        grp.label = `${grp.label}/${child.label}`;
        grp.key = child.key;
      }
      for (const x of child.groups) groups[x]!.parent = g;
      for (const i of child.nodes) scene.groupOf[i] = g;
    }
  }
  // renumber the groups that remain, parents first
  const index = new Int32Array(groups.length).fill(-1);
  const kept: SceneGroup[] = [];
  for (let g = 0; g < groups.length; g++)
    if (alive[g]) {
      index[g] = kept.length;
      kept.push(groups[g]!);
    }
  for (const grp of kept) {
    grp.parent = grp.parent < 0 ? -1 : index[grp.parent]!;
    grp.groups = grp.groups.map((c) => index[c]!);
    grp.depth = grp.parent < 0 ? 0 : kept[grp.parent]!.depth + 1;
  }
  for (let i = 0; i < scene.groupOf.length; i++) scene.groupOf[i] = index[scene.groupOf[i]!]!;
  scene.groups = kept;
  scene.byKey = new Map(kept.map((grp, k) => [grp.key, k] as const));
}

/** Groups with more nodes than this start collapsed (when their level is itself large). */
export const COLLAPSE_AT = 2;
/** A level with no more visible nodes than this leaves its groups open. */
export const SMALL_LEVEL = 60;

/**
 * A group holding this share of its parent's nodes or more is a wrapper (the exporter's module
 * around the model, a model around its decoder) and opens by default: a decoder then shows its
 * layers, not one box of nearly everything.
 */
export const WRAPPER_SHARE = 0.9;

/**
 * Which groups are open: those the user opened, and by default those of a small level, and a
 * group holding (nearly) everything its parent holds; a user's close wins over both.
 */
export function openGroups(
  scene: Scene,
  open: readonly string[] = [],
  closed: readonly string[] = [],
): Uint8Array {
  const { groups } = scene;
  const isOpen = new Uint8Array(groups.length);
  const opened = new Set(open);
  const shut = new Set(closed);
  isOpen[0] = 1;
  for (let g = 1; g < groups.length; g++) {
    const grp = groups[g]!;
    const parent = groups[grp.parent]!;
    const byDefault =
      grp.count < COLLAPSE_AT ||
      parent.count <= SMALL_LEVEL ||
      grp.count >= parent.count * WRAPPER_SHARE;
    isOpen[g] = shut.has(grp.key) ? 0 : opened.has(grp.key) || byDefault ? 1 : 0;
  }
  return isOpen;
}

/** Keys of the groups enclosing a node, outermost first. */
export function enclosingGroups(scene: Scene, index: number): string[] {
  const keys: string[] = [];
  for (let g = scene.groupOf[index] ?? 0; g > 0; g = scene.groups[g]!.parent)
    keys.push(scene.groups[g]!.key);
  return keys.reverse();
}

/** Every node inside a group, at any depth. */
export function groupNodes(scene: Scene, g: number): number[] {
  const out: number[] = [];
  const stack = [g];
  while (stack.length) {
    const x = scene.groups[stack.pop()!]!;
    out.push(...x.nodes);
    stack.push(...x.groups);
  }
  return out;
}

/**
 * A group's mark from the marks of the nodes inside: "added" or "removed" when every node is,
 * "changed" when any node has a mark, none otherwise.
 */
export function groupMark(
  scene: Scene,
  key: string,
  marks: ReadonlyMap<number, string> | undefined,
): Mark | undefined {
  const g = scene.byKey.get(key);
  if (g === undefined || !marks || marks.size === 0) return undefined;
  return marksOf(groupNodes(scene, g), marks);
}

export function marksOf(
  nodes: readonly number[],
  marks: ReadonlyMap<number, string>,
): Mark | undefined {
  let added = 0;
  let removed = 0;
  let any = 0;
  for (const i of nodes) {
    const m = marks.get(i);
    if (!m) continue;
    any++;
    if (m === "added") added++;
    else if (m === "removed") removed++;
  }
  if (!any) return undefined;
  if (added === nodes.length) return "added";
  if (removed === nodes.length) return "removed";
  return "changed";
}
