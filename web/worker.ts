// The inspector's Web Worker: everything slow happens here (decoding, type inference, conversion,
// expansion, the diff, the grouping and layout of graphs (graph/), runs of the interpreter), so the page never
// freezes. Messages are typed by protocol.ts; the work itself is the app layer's session (the same
// steps as the command line's), and what is here is presentation: views, layout, marks, details.

import { RefusedError, formatNote } from "../src/app/notes.js";
import { Session, type Loaded } from "../src/app/session.js";
import type { ExpandOptions } from "../src/expand/context.js";
import { analyzeModel } from "../src/check/analyze.js";
import { modelFunctions } from "../src/check/functions.js";
import { formatProblem, type Problem } from "../src/check/report.js";
import { diffCounts, diffModels, type DiffCounts, type GraphDiff } from "../src/diff/index.js";
import { OnnxError } from "../src/errors.js";
import { parseOpList } from "../src/expand/select.js";
import { gemmArena } from "../src/interp/kernels/wasm/gemm.js";
import { gemmThreadStats, startGemmHelpers } from "../src/interp/kernels/wasm/gemm-threads.js";
import { helperPlatform, setHelperScript } from "../src/interp/kernels/wasm/threads.js";
import { storageBytes, toFloat64 } from "../src/interp/tensor.js";
import type { RTensor, RValue } from "../src/interp/types.js";
import { encodeModel } from "../src/io/codec.js";
import { modelInfo, type ModelInfo } from "../src/ir/info.js";
import { functionLabel, functionWhere } from "../src/ir/functions.js";
import { functionOpsets, opsetMap } from "../src/ir/opsets.js";
import { visitModel } from "../src/ir/visit.js";
import { attributeGraphs } from "../src/ir/traverse.js";
import type { Attribute, Function, Graph, Model, Node, Type } from "../src/ir/types.js";
import type { Note } from "../src/passes/pass.js";
import { SchemaRegistry, domainLabel, normaliseDomain } from "../src/schema/registry.js";
import { printAttribute, printModel, printType } from "../src/text/print.js";
import { buildScene, enclosingGroups, type Scene } from "./graph/scene.js";
import { layoutScene } from "./graph/layout.js";
import type { Layout, LayoutOptions } from "./graph/types.js";
import type {
  Answers,
  Envelope,
  NodeDetails,
  Op,
  Reply,
  Request,
  RequestOf,
  SideName,
  Summary,
  TransformAnswer,
  ValueStats,
} from "./protocol.js";
import { findInView, nodeValues, pairNodes, problemNodes, schemaSummary } from "./queries.js";

/** One drawable graph of a model: the main graph, a subgraph of a node, or a local function. */
interface View {
  id: string;
  title: string;
  owner: Graph | Function;
  opsets: Map<string, number>;
}

interface Side {
  name: string;
  model: Model;
  info: ModelInfo;
  views: Map<string, View>;
  types: Map<Graph | Function, Map<string, Type>>;
  problems: string[];
  /** The checker's problems, with their places. */
  found: Problem[];
  /** Diff marks per view: node index -> added / removed / changed. */
  marks: Map<string, Map<number, string>>;
  /** The diff's pairing per view: node index -> the other side's view and node index. */
  pairs: Map<string, { view: string; map: Map<number, number> }>;
  /** Scenes built so far, by view. */
  scenes: Map<string, Scene>;
}

const sides: Record<SideName, Side | undefined> = { a: undefined, b: undefined };
const registry = (): SchemaRegistry => SchemaRegistry.default();

function post(reply: Reply): void {
  postMessage(reply);
}

function progress(text: string): void {
  post({ progress: text });
}

const session = new Session(progress);

// The interpreter's helper threads (nested workers running helper.js, of this origin): started
// now, so that they run by the time a model does; only where the page is cross-origin isolated
// (threads.ts decides), else products run on this worker's thread alone.
setHelperScript(new URL("helper.js", import.meta.url));
if (helperPlatform()) {
  const ar = gemmArena();
  if (ar) startGemmHelpers(ar);
}

function collectViews(model: Model): Map<string, View> {
  const views = new Map<string, View>();
  const opsets = opsetMap(model.opsetImports);
  let fn = 0; // function bodies are entered in model order
  visitModel<View>(model, {
    enter(scope, parent) {
      const owner = scope.owner;
      let view: View;
      if (parent && scope.site) {
        const { node: n, index, attribute, k } = scope.site;
        const at = `${attribute}${k === undefined ? "" : `[${k}]`}`;
        view = {
          id: `${parent.id}/${index}.${at}`,
          title: `${parent.title} › ${n.name || n.opType} (${n.opType}).${at}`,
          owner,
          opsets: parent.opsets,
        };
      } else if (owner === model.graph)
        view = {
          id: "main",
          title: owner.name ? `graph ${owner.name}` : "main graph",
          owner,
          opsets,
        };
      else {
        const f = owner as Function;
        view = {
          id: `fn${fn++}`,
          title: `function ${f.domain ? `${f.domain}.` : ""}${f.name}`,
          owner,
          opsets: functionOpsets(f, opsets),
        };
      }
      views.set(view.id, view);
      return view;
    },
  });
  return views;
}

function loadSide(name: string, model: Model): Side {
  progress("inferring types…");
  const analysis = analyzeModel(model, { registry: registry() });
  return {
    name,
    model,
    info: modelInfo(model, 0),
    views: collectViews(model),
    types: analysis.types,
    problems: analysis.problems.map((p) => `${p.code}: ${formatProblem(p)}`),
    found: analysis.problems,
    marks: new Map(),
    pairs: new Map(),
    scenes: new Map(),
  };
}

/** The local function a node calls (an operator of the imported opset wins over one of its name). */
function localFunction(model: Model, n: Node): Function | undefined {
  return modelFunctions(model, registry()).called(n);
}

function opLabel(side: Side, view: View, n: Node): string {
  const d = normaliseDomain(n.domain);
  const name = `${d ? `${d}.` : ""}${n.opType}`;
  if (localFunction(side.model, n)) return `${name} (local fn)`;
  const opset = view.opsets.get(d);
  const v = opset === undefined ? undefined : registry().tryResolve(d, n.opType, opset);
  return v ? `${name} v${v.since}` : `${name} ?`;
}

function typeOf(side: Side, view: View, name: string): string {
  const t = side.types.get(view.owner)?.get(name);
  return t ? printType(t) : "?";
}

function viewOf(side: Side, viewId: string): View {
  const view = side.views.get(viewId);
  if (!view) throw new OnnxError("E_USAGE", `no view '${viewId}'`);
  return view;
}

/** The scene of a view (its nodes grouped by origin), built once per loaded model. */
function sceneOf(side: Side, viewId: string): Scene {
  let scene = side.scenes.get(viewId);
  if (scene) return scene;
  const view = viewOf(side, viewId);
  const owner = view.owner;
  const isGraph = "initializers" in owner;
  const from = side === sides.b ? sides.a?.views.get(viewId)?.owner : undefined;
  scene = buildScene({
    ...(from ? { callers: from.nodes } : {}),
    nodes: owner.nodes,
    inputs: isGraph ? owner.inputs.map((v) => v.name) : owner.inputs,
    outputs: isGraph ? owner.outputs.map((v) => v.name) : owner.outputs,
    initializers: isGraph ? owner.initializers.map((t) => t.name) : [],
    ...(side.model.metadataProps ? { modelMetadata: side.model.metadataProps } : {}),
    ...(isGraph
      ? {}
      : {
          tablePrefix: `${owner.domain}:${owner.name}${owner.overload ? `@${owner.overload}` : ""}`,
        }),
    label: (i) => opLabel(side, view, owner.nodes[i]!),
    typeOf: (name) => typeOf(side, view, name),
  });
  side.scenes.set(viewId, scene);
  return scene;
}

function layout(side: Side, viewId: string, options: LayoutOptions): Layout {
  const t0 = performance.now();
  const view = viewOf(side, viewId);
  const scene = sceneOf(side, viewId);
  const l = layoutScene(scene, options, side.marks.get(viewId), view);
  l.ms = performance.now() - t0;
  return l;
}

function details(side: Side, viewId: string, index: number): NodeDetails {
  const view = side.views.get(viewId)!;
  const n = view.owner.nodes[index]!;
  const d = normaliseDomain(n.domain);
  const local = localFunction(side.model, n);
  const opset = view.opsets.get(d);
  const schema = opset === undefined ? undefined : registry().tryResolve(d, n.opType, opset);
  const subviews: { id: string; title: string }[] = [];
  for (const [id, v] of side.views)
    if (id.startsWith(`${viewId}/${index}.`) && !id.slice(viewId.length + 1).includes("/"))
      subviews.push({ id, title: v.title });
  const fnIndex = local ? side.model.functions.indexOf(local) : -1;
  if (fnIndex >= 0)
    subviews.push({ id: `fn${fnIndex}`, title: side.views.get(`fn${fnIndex}`)!.title });
  return {
    op: n.opType,
    domain: domainLabel(d),
    name: n.name ?? "",
    opset: opset ?? null,
    schema: local
      ? { kind: "local function", since: null, function: true }
      : schema
        ? {
            kind: "schema",
            since: schema.since,
            function: schema.function,
            inputs: schema.inputs.map((f) => f.name),
            outputs: schema.outputs.map((f) => f.name),
          }
        : {
            kind: opset === undefined ? "domain not imported" : "unknown operator",
            since: null,
            function: false,
          },
    mark: side.marks.get(viewId)?.get(index) ?? null,
    inputs: n.inputs.map((x) => ({ name: x, type: x ? typeOf(side, view, x) : "(omitted)" })),
    outputs: n.outputs.map((x) => ({ name: x, type: x ? typeOf(side, view, x) : "(omitted)" })),
    attributes: n.attributes.map((a) => {
      if (attributeGraphs(a).length)
        return `${a.name}: ${a.type.toLowerCase()} (${attributeGraphs(a)
          .map((g) => g.nodes.length)
          .join(", ")} nodes)`;
      try {
        const t = printAttribute(a);
        return t.length > 400 ? `${t.slice(0, 400)}…` : t;
      } catch {
        return `${a.name}: ${a.type}`;
      }
    }),
    subviews,
    ...(schema && !local ? { about: schemaSummary(schema) } : {}),
    values: nodeValues(view.owner, index),
  };
}

// ---- diff marks ----

function markGraph(diff: GraphDiff, aView: string, bView: string): void {
  const a = sides.a!;
  const b = sides.b!;
  const ma = a.marks.get(aView) ?? new Map<number, string>();
  const mb = b.marks.get(bView) ?? new Map<number, string>();
  a.marks.set(aView, ma);
  b.marks.set(bView, mb);
  const ga = a.views.get(aView)?.owner;
  const gb = b.views.get(bView)?.owner;
  if (ga && gb) {
    const map = pairNodes(ga, gb, diff);
    a.pairs.set(aView, { view: bView, map });
    b.pairs.set(bView, { view: aView, map: new Map([...map].map(([i, j]) => [j, i])) });
  }
  for (const h of diff.hunks) {
    for (const r of h.removed) ma.set(r.index, "removed");
    for (const r of h.added) mb.set(r.index, "added");
  }
  for (const c of diff.changed) {
    ma.set(c.a.index, "changed");
    mb.set(c.b.index, "changed");
    for (const s of c.subgraphs)
      markGraph(
        s.diff,
        `${aView}/${c.a.index}.${s.attribute}`,
        `${bView}/${c.b.index}.${s.attribute}`,
      );
  }
}

function applyDiff(): DiffCounts {
  progress("comparing…");
  const a = sides.a!;
  const b = sides.b!;
  a.marks.clear();
  b.marks.clear();
  a.pairs.clear();
  b.pairs.clear();
  const d = diffModels(a.model, b.model);
  markGraph(d.graph, "main", "main");
  const fnIndex = (m: Model, name: string) =>
    m.functions.findIndex((f) => functionLabel(f) === name);
  for (const f of d.functions) {
    const ia = fnIndex(a.model, f.name);
    const ib = fnIndex(b.model, f.name);
    if (f.diff && ia >= 0 && ib >= 0) markGraph(f.diff, `fn${ia}`, `fn${ib}`);
    const all = (s: Side, i: number, mark: string) => {
      if (i < 0) return;
      s.marks.set(`fn${i}`, new Map(s.model.functions[i]!.nodes.map((_, k) => [k, mark] as const)));
    };
    if (f.change === "removed") all(a, ia, "removed");
    if (f.change === "added") all(b, ib, "added");
  }
  return diffCounts(d);
}

function summary(side: Side): Summary {
  return {
    name: side.name,
    info: side.info,
    problems: side.problems,
    views: [...side.views.values()].map((v) => ({
      id: v.id,
      title: v.title,
      nodes: v.owner.nodes.length,
    })),
  };
}

// ---- actions ----

/** The new result as side b; anything failing on the way leaves the session as it was. */
function transformed(step: () => { result: Loaded; notes: Note[] }): TransformAnswer {
  const before = { b: session.b, side: sides.b };
  try {
    const r = step();
    sides.b = loadSide(r.result.name, r.result.model);
    return { summary: summary(sides.b), diff: applyDiff(), notes: r.notes.map(formatNote) };
  } catch (e) {
    session.b = before.b;
    sides.b = before.side;
    if (sides.b) applyDiff();
    throw e;
  }
}

function stats(name: string, v: RValue): ValueStats {
  if (!("dtype" in v)) return { name, shape: [], dtype: 0, head: v.kind };
  let head: string;
  try {
    const f = toFloat64(v);
    head = Array.from(f.subarray(0, 6), (x) => String(Number(x.toPrecision(6)))).join(", ");
    if (f.length > 6) head += ", …";
  } catch {
    head = "(not numeric)";
  }
  return { name, shape: v.shape, dtype: v.dtype, head, digest: digest(v) };
}

/** FNV-1a (32 bits, hex) of a numeric tensor's bytes: two runs' outputs compared byte for byte. */
function digest(v: RTensor): string | undefined {
  let bytes: Uint8Array;
  try {
    bytes = storageBytes(v);
  } catch {
    return undefined;
  }
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return (h >>> 0).toString(16).padStart(8, "0");
}

function side(name: SideName): Side {
  const s = sides[name];
  if (!s) throw new OnnxError("E_USAGE", "nothing loaded");
  return s;
}

const EXPAND_OPTIONS: Record<string, (ops: string) => ExpandOptions> = {
  all: () => ({}),
  only: (ops) => ({ only: parseOpList(ops, "only") }),
  keep: (ops) => ({ keep: parseOpList(ops, "keep") }),
};

/** One handler per request op, each typed by the protocol. */
const handlers: { [K in Op]: (msg: RequestOf<K>) => Answers[K] | Promise<Answers[K]> } = {
  load(msg) {
    // A load that fails leaves the session as it was.
    const before = { a: session.a, b: session.b };
    try {
      const a = session.load(msg.name, msg.bytes);
      const loaded = loadSide(a.name, a.model);
      sides.a = loaded;
      sides.b = undefined;
      return summary(loaded);
    } catch (e) {
      session.a = before.a;
      session.b = before.b;
      throw e;
    }
  },
  limits: () => ({ maxOpset: registry().maxOpset("") }),
  find(msg) {
    const s = side(msg.side);
    const view = s.views.get(msg.view);
    if (!view) throw new OnnxError("E_USAGE", `no view '${msg.view}'`);
    const scene = sceneOf(s, msg.view);
    return findInView(view.owner, msg.query, (i) => enclosingGroups(scene, i));
  },
  groups: (msg) => enclosingGroups(sceneOf(side(msg.side), msg.view), msg.index),
  pair(msg) {
    const p = sides[msg.side]?.pairs.get(msg.view);
    const j = p?.map.get(msg.index);
    return p && j !== undefined ? { view: p.view, index: j } : null;
  },
  layout(msg) {
    const s = side(msg.side);
    progress(`laying out ${s.views.get(msg.view)?.title ?? msg.view}…`);
    return layout(s, msg.view, msg.options ?? { open: [], constantsAsNodes: false });
  },
  marks: (msg) => [...(sides[msg.side]?.marks.get(msg.view)?.entries() ?? [])],
  details: (msg) => details(side(msg.side), msg.view, msg.index),
  convert(msg) {
    const opset = Number(msg.opset);
    const max = registry().maxOpset("");
    if (Number.isInteger(opset) && (opset < 1 || opset > max))
      throw new OnnxError(
        "E_USAGE",
        `target opset ${opset} is not one this tool knows (ai.onnx 1 to ${max})`,
      );
    if (!Number.isInteger(opset) || opset < 1)
      throw new OnnxError(
        "E_USAGE",
        `the target opset must be a positive integer, not '${msg.opset}'`,
      );
    return transformed(() => session.convert(opset));
  },
  expand(msg) {
    if (msg.mode === "only" && parseOpList(msg.ops).length === 0)
      throw new OnnxError(
        "E_USAGE",
        "expand only: name at least one op to expand (Gelu, or domain:Op:version)",
      );
    const options = (EXPAND_OPTIONS[msg.mode] ?? EXPAND_OPTIONS.all!)(msg.ops);
    return transformed(() =>
      session.expand(options, `expanded${msg.mode !== "all" ? ` ${msg.mode} ${msg.ops}` : ""}`),
    );
  },
  check() {
    const out: Answers["check"] = {};
    for (const k of ["a", "b"] as const) {
      const s = sides[k];
      if (!s) continue;
      const wheres = s.found.map((p) => p.where);
      const nodes: { view: string; index: number; line: number }[] = [];
      for (const [id, v] of s.views) {
        if (id.includes("/")) continue;
        const prefix = "initializers" in v.owner ? "" : functionWhere(v.owner);
        for (const [line, index] of problemNodes(v.owner, prefix, wheres))
          nodes.push({ view: id, index, line });
      }
      out[k] = { lines: s.problems, nodes };
    }
    return out;
  },
  download(msg) {
    const s = side(msg.side);
    return msg.format === "text"
      ? new TextEncoder().encode(printModel(s.model))
      : encodeModel(s.model);
  },
  run(msg) {
    const before = gemmThreadStats().tasks;
    const t0 = performance.now();
    const r = session.run(msg);
    const ms = performance.now() - t0;
    const after = gemmThreadStats().tasks;
    const helped = after.filter((n, i) => n > (before[i] ?? 0)).length;
    return {
      threads: 1 + helped,
      ms,
      inputs: Object.entries(r.inputs).map(([name, v]) => stats(name, v)),
      outputs: r.outputs.map((o) => ({
        name: o.name,
        a: stats(o.name, o.a),
        ...(o.b ? { b: stats(o.name, o.b) } : {}),
        ...(o.difference ?? {}),
        ...(o.note ? { note: o.note } : {}),
      })),
    };
  },
};

function handle(msg: Request): Answers[Op] | Promise<Answers[Op]> {
  const h = handlers[msg.op] as (m: Request) => Answers[Op] | Promise<Answers[Op]>;
  if (!h) throw new OnnxError("E_USAGE", `unknown request '${msg.op}'`);
  return h(msg);
}

/** Slices of a layout's arrays the page parses in one task each (protocol.ts, Reply). */
const PART = 400;

function postInParts(id: number, layout: Answers["layout"]): void {
  const enc = new TextEncoder();
  const send = (reply: Reply & { json: Uint8Array }) =>
    postMessage(reply, { transfer: [reply.json.buffer] });
  const rest: Record<string, unknown> = { ...layout };
  for (const key of ["items", "edges", "frames"] as const) {
    const list: unknown[] = layout[key];
    for (let i = 0; i < list.length; i += PART)
      send({ id, part: key, json: enc.encode(JSON.stringify(list.slice(i, i + PART))) });
    rest[key] = [];
  }
  send({ id, ok: true, json: enc.encode(JSON.stringify(rest)) });
}

onmessage = async (ev: MessageEvent<Envelope>) => {
  const msg = ev.data;
  try {
    const result = await handle(msg);
    if (msg.op === "layout") postInParts(msg.id, result as Answers["layout"]);
    else post({ id: msg.id, ok: true, result });
  } catch (e) {
    post({
      id: msg.id,
      ok: false,
      error: e instanceof Error ? e.message : String(e),
      notes: e instanceof RefusedError ? e.lines : [],
    });
  }
};
