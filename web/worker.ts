// The inspector's Web Worker: everything slow happens here (decoding, type inference, conversion,
// expansion, the diff, the graph layout with elkjs, runs of the interpreter), so the page never
// freezes. Requests are { id, op, ... }; answers { id, ok, result } or { id, ok: false, error };
// { progress } messages say what is being done.

import ElkModule from "elkjs/lib/elk.bundled.js";
import { analyzeModel } from "../src/check/analyze.js";
import { formatProblem } from "../src/check/report.js";
import { convertPass } from "../src/convert/index.js";
import { OnnxError } from "../src/errors.js";
import { diffModels, type GraphDiff, type ModelDiff } from "../src/expand/diff.js";
import { expandPass, type ExpandOptions } from "../src/expand/expand.js";
import { parseOpList } from "../src/expand/select.js";
import { run } from "../src/interp/executor.js";
import { parseJsonTensor } from "../src/interp/json-tensor.js";
import { decodeNpy } from "../src/interp/npy.js";
import { deriveSeed, randomTensor, seededRandom } from "../src/interp/random.js";
import { toFloat64 } from "../src/interp/tensor.js";
import type { RTensor, RValue } from "../src/interp/types.js";
import { decodeValueProto } from "../src/interp/value-proto.js";
import { decodeModel, encodeModel } from "../src/io/codec.js";
import { modelInfo, type ModelInfo } from "../src/ir/info.js";
import type { Attribute, Function, Graph, Model, Node, Type } from "../src/ir/types.js";
import { DataType } from "../src/ir/types.js";
import { passContext, runPass, type Note } from "../src/passes/pass.js";
import { SchemaRegistry, domainLabel, normaliseDomain } from "../src/schema/registry.js";
import { parseModelText } from "../src/text/parse.js";
import { printAttribute, printModel, printType } from "../src/text/print.js";

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
  /** Diff marks per view: node index -> added / removed / changed. */
  marks: Map<string, Map<number, string>>;
}

export interface DrawnNode {
  id: string;
  kind: "op" | "in" | "out";
  index: number;
  label: string;
  sub: string;
  x: number;
  y: number;
  w: number;
  h: number;
  mark?: string;
  subgraphs?: number;
}
export interface DrawnEdge {
  points: number[];
  title: string;
}
export interface Drawing {
  view: string;
  title: string;
  nodes: DrawnNode[];
  edges: DrawnEdge[];
  width: number;
  height: number;
  ms: number;
}

const sides: Record<"a" | "b", Side | undefined> = { a: undefined, b: undefined };
interface ElkNode {
  id: string;
  x?: number;
  y?: number;
  width?: number;
  height?: number;
  children?: ElkNode[];
  edges?: {
    sections?: {
      startPoint: { x: number; y: number };
      endPoint: { x: number; y: number };
      bendPoints?: { x: number; y: number }[];
    }[];
  }[];
}
// elkjs is CommonJS: its default import is the constructor (or carries it as .default).
const Elk = ((ElkModule as unknown as { default?: unknown }).default ?? ElkModule) as new () => {
  layout(graph: unknown): Promise<ElkNode>;
};
const elk = new Elk();
const registry = (): SchemaRegistry => SchemaRegistry.default();

function progress(text: string): void {
  postMessage({ progress: text });
}

function opsetMap(list: { domain: string; version: number }[]): Map<string, number> {
  return new Map(list.map((o) => [normaliseDomain(o.domain), o.version] as const));
}

function subgraphsOf(a: Attribute): Graph[] {
  if (a.type === "GRAPH" && a.value) return [a.value];
  if (a.type === "GRAPHS" && a.value) return a.value;
  return [];
}

function collectViews(model: Model): Map<string, View> {
  const views = new Map<string, View>();
  const opsets = opsetMap(model.opsetImports);
  const visit = (owner: Graph | Function, id: string, title: string, o: Map<string, number>) => {
    views.set(id, { id, title, owner, opsets: o });
    owner.nodes.forEach((n, i) => {
      for (const a of n.attributes)
        subgraphsOf(a).forEach((g, k) => {
          const many = a.type === "GRAPHS";
          visit(
            g,
            `${id}/${i}.${a.name}${many ? `[${k}]` : ""}`,
            `${title} › ${n.name || n.opType} (${n.opType}).${a.name}${many ? `[${k}]` : ""}`,
            o,
          );
        });
    });
  };
  visit(model.graph, "main", model.graph.name ? `graph ${model.graph.name}` : "main graph", opsets);
  model.functions.forEach((f, i) =>
    visit(
      f,
      `fn${i}`,
      `function ${f.domain ? `${f.domain}.` : ""}${f.name}`,
      opsetMap(f.opsetImports),
    ),
  );
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
    marks: new Map(),
  };
}

function decode(bytes: Uint8Array, name: string): Model {
  const text = name.endsWith(".onnxtxt") || name.endsWith(".txt");
  if (text) return parseModelText(new TextDecoder().decode(bytes), name);
  return decodeModel(bytes, { where: name });
}

function localFunction(model: Model, n: Node): Function | undefined {
  return model.functions.find(
    (f) =>
      f.name === n.opType &&
      normaliseDomain(f.domain) === normaliseDomain(n.domain) &&
      (f.overload ?? "") === (n.overload ?? ""),
  );
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

const CHAR = 7.2;

async function layout(side: Side, viewId: string): Promise<Drawing> {
  const view = side.views.get(viewId);
  if (!view) throw new OnnxError("E_USAGE", `no view '${viewId}'`);
  const t0 = performance.now();
  const owner = view.owner;
  const marks = side.marks.get(viewId);
  const nodes: DrawnNode[] = [];
  const box = (label: string, sub: string) => ({
    w: Math.max(label.length, Math.min(sub.length, 28)) * CHAR + 20,
    h: sub ? 38 : 26,
  });
  const graphInputs = "initializers" in owner ? owner.inputs.map((v) => v.name) : owner.inputs;
  const graphOutputs = "initializers" in owner ? owner.outputs.map((v) => v.name) : owner.outputs;
  const producer = new Map<string, string>();
  graphInputs.forEach((name, i) => {
    const sub = typeOf(side, view, name);
    nodes.push({
      id: `in${i}`,
      kind: "in",
      index: i,
      label: name,
      sub,
      x: 0,
      y: 0,
      ...box(name, sub),
    });
    producer.set(name, `in${i}`);
  });
  owner.nodes.forEach((n, i) => {
    const label = opLabel(side, view, n);
    const sub = n.name ?? "";
    const subgraphs = n.attributes.reduce((k, a) => k + subgraphsOf(a).length, 0);
    const d: DrawnNode = {
      id: `n${i}`,
      kind: "op",
      index: i,
      label,
      sub,
      x: 0,
      y: 0,
      ...box(label, sub),
    };
    const m = marks?.get(i);
    if (m) d.mark = m;
    if (subgraphs) d.subgraphs = subgraphs;
    nodes.push(d);
    for (const o of n.outputs) if (o !== "") producer.set(o, `n${i}`);
  });
  const edges: { id: string; sources: string[]; targets: string[]; title: string }[] = [];
  const edge = (value: string, target: string) => {
    const from = producer.get(value);
    if (!from) return;
    edges.push({
      id: `e${edges.length}`,
      sources: [from],
      targets: [target],
      title: `${value}: ${typeOf(side, view, value)}`,
    });
  };
  owner.nodes.forEach((n, i) => {
    const seen = new Set<string>();
    for (const x of n.inputs)
      if (x !== "" && !seen.has(x)) {
        seen.add(x);
        edge(x, `n${i}`);
      }
  });
  graphOutputs.forEach((name, i) => {
    const sub = typeOf(side, view, name);
    nodes.push({
      id: `out${i}`,
      kind: "out",
      index: i,
      label: name,
      sub,
      x: 0,
      y: 0,
      ...box(name, sub),
    });
    edge(name, `out${i}`);
  });
  const laid = await elk.layout({
    id: "root",
    // Chosen so deep graphs (thousands of layers) do not overflow elkjs's stack in a worker:
    // layering by longest path from the sources, cycles broken in model order, one component.
    layoutOptions: {
      "elk.algorithm": "layered",
      "elk.direction": "DOWN",
      "elk.layered.cycleBreaking.strategy": "MODEL_ORDER",
      "elk.layered.layering.strategy": "LONGEST_PATH_SOURCE",
      "elk.separateConnectedComponents": "false",
      "elk.layered.compaction.connectedComponents": "false",
      "elk.layered.spacing.nodeNodeBetweenLayers": "28",
      "elk.spacing.nodeNode": "18",
    },
    children: nodes.map((n) => ({ id: n.id, width: n.w, height: n.h })),
    edges,
  });
  const pos = new Map((laid.children ?? []).map((c) => [c.id, c] as const));
  for (const n of nodes) {
    const p = pos.get(n.id);
    n.x = p?.x ?? 0;
    n.y = p?.y ?? 0;
  }
  const drawnEdges: DrawnEdge[] = (laid.edges ?? []).map((e, k) => {
    const points: number[] = [];
    for (const s of e.sections ?? []) {
      points.push(s.startPoint.x, s.startPoint.y);
      for (const b of s.bendPoints ?? []) points.push(b.x, b.y);
      points.push(s.endPoint.x, s.endPoint.y);
    }
    return { points, title: edges[k]!.title };
  });
  return {
    view: viewId,
    title: view.title,
    nodes,
    edges: drawnEdges,
    width: laid.width ?? 0,
    height: laid.height ?? 0,
    ms: performance.now() - t0,
  };
}

function details(side: Side, viewId: string, index: number): unknown {
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
      if (subgraphsOf(a).length)
        return `${a.name}: ${a.type.toLowerCase()} (${subgraphsOf(a)
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

export interface DiffCounts {
  same: boolean;
  matched: number;
  changed: number;
  removed: number;
  added: number;
  hunks: number;
  nodes: { a: number; b: number };
  functions: number;
  opsetImports: number;
}

export function diffCounts(d: ModelDiff): DiffCounts {
  return {
    same: d.same,
    matched: d.graph.matched,
    changed: d.graph.changed.length,
    removed: d.graph.hunks.reduce((k, h) => k + h.removed.length, 0),
    added: d.graph.hunks.reduce((k, h) => k + h.added.length, 0),
    hunks: d.graph.hunks.length,
    nodes: d.nodes,
    functions: d.functions.length,
    opsetImports: d.opsetImports.length,
  };
}

function applyDiff(): DiffCounts {
  progress("comparing…");
  const a = sides.a!;
  const b = sides.b!;
  a.marks.clear();
  b.marks.clear();
  const d = diffModels(a.model, b.model);
  markGraph(d.graph, "main", "main");
  const fnIndex = (m: Model, name: string) =>
    m.functions.findIndex((f) => {
      const dm = normaliseDomain(f.domain);
      return `${dm ? `${dm}.` : ""}${f.name}${f.overload ? `:${f.overload}` : ""}` === name;
    });
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

function summary(side: Side) {
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

function noteLine(n: Note): string {
  return `${n.level}: ${n.where ? `${n.where}: ` : ""}${n.message}`;
}

class NotedError extends Error {
  constructor(
    message: string,
    readonly notes: string[],
  ) {
    super(message);
  }
}

function transform(passName: string, pass: ReturnType<typeof convertPass>, label: string) {
  const a = sides.a;
  if (!a) throw new OnnxError("E_USAGE", "load a model first");
  progress(`${passName}…`);
  let r;
  try {
    r = runPass(pass, a.model, passContext());
  } catch (e) {
    const notes = (e as { notes?: Note[] }).notes;
    if (e instanceof OnnxError && notes) {
      const errors = notes.filter((n) => n.level !== "info").map(noteLine);
      throw new NotedError(
        `refused: ${errors.length} problem${errors.length === 1 ? "" : "s"}`,
        errors,
      );
    }
    throw e;
  }
  sides.b = loadSide(`${a.name} (${label})`, r.model);
  const counts = applyDiff();
  return { summary: summary(sides.b), diff: counts, notes: r.report.map(noteLine) };
}

function declaredDtype(t: Type | undefined): number {
  return t && t.kind === "tensor" && t.elemType ? t.elemType : DataType.FLOAT;
}

interface RunRequest {
  mode: "random" | "json" | "files";
  seed?: number;
  json?: string;
  files?: { name: string; bytes: Uint8Array }[];
}

function bindInputs(model: Model, req: RunRequest): Record<string, RValue> {
  const g = model.graph;
  const defaults = new Set(g.initializers.map((t) => t.name));
  const inputs = g.inputs.filter((v) => !defaults.has(v.name));
  const out: Record<string, RValue> = {};
  if (req.mode === "random") {
    const seed = req.seed ?? 0;
    inputs.forEach((v, i) => {
      const t = v.type;
      if (!t || t.kind !== "tensor")
        throw new OnnxError(
          "E_USAGE",
          `input '${v.name}' is not a tensor: give it as JSON or a file`,
        );
      const shape = (t.shape ?? []).map((d) => (typeof d === "number" ? d : 1));
      out[v.name] = randomTensor(declaredDtype(t), shape, seededRandom(deriveSeed(seed, i)));
    });
  } else if (req.mode === "json") {
    let obj: unknown;
    try {
      obj = JSON.parse(req.json ?? "");
    } catch (e) {
      throw new OnnxError("E_USAGE", `inputs JSON: ${(e as Error).message}`);
    }
    if (!obj || typeof obj !== "object" || Array.isArray(obj))
      throw new OnnxError("E_USAGE", 'inputs JSON must be an object: {"input name": [values...]}');
    for (const [name, value] of Object.entries(obj)) {
      const v = g.inputs.find((x) => x.name === name);
      if (!v) throw new OnnxError("E_USAGE", `the model has no input named '${name}'`);
      out[name] = parseJsonTensor(JSON.stringify(value), declaredDtype(v.type), `input '${name}'`);
    }
  } else {
    const files = req.files ?? [];
    files.forEach((f, i) => {
      const byName = inputs.find((v) => f.name.replace(/\.(npy|pb)$/, "") === v.name);
      const v = byName ?? inputs[i];
      if (!v) throw new OnnxError("E_USAGE", `more files than inputs (${inputs.length})`, f.name);
      const b = f.bytes;
      out[v.name] =
        f.name.endsWith(".npy") || (b[0] === 0x93 && b[1] === 0x4e)
          ? decodeNpy(b, f.name)
          : decodeValueProto(b, v.type, f.name).value;
    });
  }
  for (const v of inputs)
    if (!(v.name in out)) throw new OnnxError("E_USAGE", `input '${v.name}' is not given`);
  return out;
}

function tensorStats(t: RTensor): { shape: number[]; dtype: number; head: string } {
  let head: string;
  try {
    const f = toFloat64(t);
    head = Array.from(f.subarray(0, 6), (x) => String(Number(x.toPrecision(6)))).join(", ");
    if (f.length > 6) head += ", …";
  } catch {
    head = "(not numeric)";
  }
  return { shape: t.shape, dtype: t.dtype, head };
}

function compare(x: RTensor, y: RTensor): { abs: number; rel: number; note?: string } {
  if (x.shape.join(",") !== y.shape.join(","))
    return { abs: Infinity, rel: Infinity, note: `shapes differ: [${x.shape}] vs [${y.shape}]` };
  let fx: Float64Array, fy: Float64Array;
  try {
    fx = toFloat64(x);
    fy = toFloat64(y);
  } catch {
    const same =
      JSON.stringify(Array.from(x.data as ArrayLike<unknown>)) ===
      JSON.stringify(Array.from(y.data as ArrayLike<unknown>));
    return { abs: same ? 0 : Infinity, rel: same ? 0 : Infinity };
  }
  let abs = 0;
  let rel = 0;
  for (let i = 0; i < fx.length; i++) {
    const p = fx[i]!;
    const q = fy[i]!;
    if (Object.is(p, q) || p === q || (Number.isNaN(p) && Number.isNaN(q))) continue;
    const d = Math.abs(p - q);
    const r = d / Math.max(Math.abs(p), Math.abs(q));
    abs = Number.isNaN(d) ? Infinity : Math.max(abs, d);
    rel = Number.isNaN(r) ? Infinity : Math.max(rel, r);
  }
  return { abs, rel };
}

function runBoth(req: RunRequest) {
  const a = sides.a;
  if (!a) throw new OnnxError("E_USAGE", "load a model first");
  const inputs = bindInputs(a.model, req);
  progress(`running ${a.name}…`);
  const ra = run(a.model, inputs);
  let rb: Record<string, RTensor> | undefined;
  if (sides.b) {
    progress(`running ${sides.b.name}…`);
    rb = run(sides.b.model, inputs);
  }
  const rows = Object.entries(ra).map(([name, t]) => {
    const other = rb?.[name];
    return {
      name,
      a: tensorStats(t),
      ...(other ? { b: tensorStats(other), ...compare(t, other) } : {}),
      ...(rb && !other ? { note: "not an output of the result" } : {}),
    };
  });
  return {
    inputs: Object.entries(inputs).map(([name, v]) => ({
      name,
      ...("dtype" in v ? tensorStats(v) : { shape: [], dtype: 0, head: v.kind }),
    })),
    outputs: rows,
  };
}

async function handle(msg: Record<string, any>): Promise<unknown> {
  switch (msg.op) {
    case "load": {
      progress(`decoding ${msg.name}…`);
      const model = decode(msg.bytes as Uint8Array, msg.name as string);
      sides.a = loadSide(msg.name, model);
      sides.b = undefined;
      return summary(sides.a);
    }
    case "layout": {
      const side = sides[msg.side as "a" | "b"];
      if (!side) throw new OnnxError("E_USAGE", "nothing loaded");
      progress(`laying out ${side.views.get(msg.view)?.title ?? msg.view}…`);
      return layout(side, msg.view);
    }
    case "marks": {
      const side = sides[msg.side as "a" | "b"];
      return [...(side?.marks.get(msg.view)?.entries() ?? [])];
    }
    case "details": {
      const side = sides[msg.side as "a" | "b"]!;
      return details(side, msg.view, msg.index);
    }
    case "convert": {
      const opset = Number(msg.opset);
      if (!Number.isInteger(opset) || opset < 1)
        throw new OnnxError(
          "E_USAGE",
          `the target opset must be a positive integer, not '${msg.opset}'`,
        );
      return transform("conversion", convertPass(opset), `opset ${opset}`);
    }
    case "expand": {
      const options: ExpandOptions = {};
      if (msg.mode === "only") options.only = parseOpList(msg.ops, "only");
      if (msg.mode === "keep") options.keep = parseOpList(msg.ops, "keep");
      return transform(
        "expansion",
        expandPass(options),
        `expanded${msg.mode !== "all" ? ` ${msg.mode} ${msg.ops}` : ""}`,
      );
    }
    case "check": {
      const out: Record<string, string[]> = {};
      for (const k of ["a", "b"] as const) if (sides[k]) out[k] = sides[k]!.problems;
      return out;
    }
    case "download": {
      const side = sides[msg.side as "a" | "b"];
      if (!side) throw new OnnxError("E_USAGE", "nothing to download");
      return msg.format === "text"
        ? new TextEncoder().encode(printModel(side.model))
        : encodeModel(side.model);
    }
    case "run":
      return runBoth(msg as unknown as RunRequest);
    default:
      throw new Error(`unknown request '${msg.op}'`);
  }
}

function errorText(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}

onmessage = async (ev: MessageEvent) => {
  const msg = ev.data as Record<string, any>;
  try {
    const result = await handle(msg);
    postMessage({ id: msg.id, ok: true, result });
  } catch (e) {
    postMessage({
      id: msg.id,
      ok: false,
      error: errorText(e),
      notes: e instanceof NotedError ? e.notes : [],
    });
  }
};
