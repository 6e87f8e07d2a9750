// The inspector's Web Worker: everything slow happens here (decoding, type inference, conversion,
// expansion, the diff, the grouping and layout of graphs (graph/), runs of the interpreter), so the page never
// freezes. Messages are typed by protocol.ts; the work itself is the app layer's session (the same
// steps as the command line's), and what is here is presentation: views, layout, marks, details.

import { RefusedError, formatNote } from "../src/app/notes.js";
import { Session, type Loaded, type Side as SessionSide } from "../src/app/session.js";
import type { ExpandRequest } from "../src/app/transform.js";
import { parseDims } from "../src/app/dims.js";
import { parseInputRanges } from "../src/app/ranges.js";
import {
  classifyModel,
  formatPartitions,
  uncounted,
  targetSummary,
  type NodeVerdict,
} from "../src/targets/classify.js";
import type { Profile } from "../src/targets/profile.js";
import { shippedProfiles } from "../src/targets/shipped.node.js";
import { targetOpset } from "../src/convert/target.js";
import { checkLoaded } from "../src/app/check.js";
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
import { modelFiles } from "../src/app/save.js";
import { isRangePiece, type Piece } from "../src/proto/writer.js";
import { BlobSource, UrlSource } from "./blob-source.js";
import { modelInfo, type ModelInfo } from "../src/ir/info.js";
import { functionLabel, functionWhere } from "../src/ir/functions.js";
import { functionOpsets, opsetMap } from "../src/ir/opsets.js";
import { visitModel } from "../src/ir/visit.js";
import { attributeGraphs } from "../src/ir/visit.js";
import type { Attribute, Function, Graph, Model, Node, Type } from "../src/ir/types.js";
import type { Note } from "../src/passes/pass.js";
import { SchemaRegistry, domainLabel, normaliseDomain } from "../src/schema/registry.js";
import { printAttribute, printModel, printType } from "../src/text/print.js";
import { buildScene, enclosingGroups, namePrefix, type Scene } from "./graph/scene.js";
import { layoutScene } from "./graph/layout.js";
import type { Layout, LayoutOptions } from "./graph/types.js";
import type {
  Answers,
  CheckSide,
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
import { diffsOf, paintViews, timesOf } from "./view-paint.js";
import { changeSteps, nearestPaired } from "./steps.js";
import {
  MAX_HITS,
  findInView,
  nodeValues,
  pairNodes,
  sortHits,
  problemNodes,
  schemaSummary,
} from "./queries.js";

/** One drawable graph of a model: the main graph, a subgraph of a node, or a local function. */
interface View {
  id: string;
  title: string;
  owner: Graph | Function;
  opsets: Map<string, number>;
}

/** What the page is shown of one side's model, made when the session takes the side. */
interface ModelView {
  info: ModelInfo;
  views: Map<string, View>;
  types: Map<Graph | Function, Map<string, Type>>;
  problems: string[];
  /** The checker's problems, with their places. */
  found: Problem[];
  /** Scenes built so far, by view. */
  scenes: Map<string, Scene>;
  /** A result's (b's) diff against the model it was made from (a). */
  diff?: Comparison;
}

/** The diff of b against a, as both drawings show it. */
interface Comparison {
  /** Per side, view and node index: added / removed / changed. */
  marks: Record<SideName, Map<string, Map<number, string>>>;
  /** Per side and view: node index -> the other side's view and node index. */
  pairs: Record<SideName, Map<string, { view: string; map: Map<number, number> }>>;
  /**
   * Per side and view: a removed (added) node -> the first node the same hunk added (removed)
   * on the other side: where the other pane shows a change that has no match.
   */
  hunks: Record<SideName, Map<string, Map<number, number>>>;
  counts: DiffCounts;
}

/** A side of the session: its name, model and view. */
type Side = SessionSide<ModelView>;

const registry = (): SchemaRegistry => SchemaRegistry.default();

function post(reply: Reply): void {
  postMessage(reply);
}

function progress(text: string): void {
  post({ progress: text });
}

const session = new Session<ModelView>(progress, prepare);

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

/** What the session keeps with a side: its view, and for a result its diff against `from`. */
function prepare(loaded: Loaded, from: Side | undefined): ModelView {
  progress("inferring types…");
  const model = loaded.model;
  const analysis = checkLoaded(model, registry());
  const view: ModelView = {
    info: modelInfo(model, 0),
    views: collectViews(model),
    types: analysis.types,
    problems: analysis.problems.map((p) => `${p.code}: ${formatProblem(p)}`),
    found: analysis.problems,
    scenes: new Map(),
  };
  if (from) view.diff = compare(from, { ...loaded, view });
  return view;
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
  const t = side.view.types.get(view.owner)?.get(name);
  return t ? printType(t) : "?";
}

function viewOf(side: Side, viewId: string): View {
  const view = side.view.views.get(viewId);
  if (!view) throw new OnnxError("E_USAGE", `no view '${viewId}'`);
  return view;
}

/** The scene of a view (its nodes grouped by origin), built once per loaded model. */
function sceneOf(side: Side, viewId: string): Scene {
  let scene = side.view.scenes.get(viewId);
  if (scene) return scene;
  const view = viewOf(side, viewId);
  const owner = view.owner;
  const isGraph = "initializers" in owner;
  const from = side === session.b ? session.a?.view.views.get(viewId)?.owner : undefined;
  scene = buildScene({
    ...(from ? { callers: from.nodes } : {}),
    nodes: owner.nodes,
    inputs: isGraph ? owner.inputs.map((v) => v.name) : owner.inputs,
    outputs: isGraph ? owner.outputs.map((v) => v.name) : owner.outputs,
    initializers: isGraph ? owner.initializers.map((t) => t.name) : [],
    ...(side.model.metadataProps ? { modelMetadata: side.model.metadataProps } : {}),
    stripPrefix: namePrefix(owner.nodes),
    ...(isGraph
      ? {}
      : {
          tablePrefix: `${owner.domain}:${owner.name}${owner.overload ? `@${owner.overload}` : ""}`,
        }),
    label: (i) => opLabel(side, view, owner.nodes[i]!),
    typeOf: (name) => typeOf(side, view, name),
  });
  side.view.scenes.set(viewId, scene);
  return scene;
}

function layout(side: Side, viewId: string, options: LayoutOptions): Layout {
  const t0 = performance.now();
  const view = viewOf(side, viewId);
  const scene = sceneOf(side, viewId);
  const l = layoutScene(scene, options, marksOf(side, viewId), view);
  l.ms = performance.now() - t0;
  return l;
}

function details(side: Side, viewId: string, index: number): NodeDetails {
  const view = viewOf(side, viewId);
  const n = view.owner.nodes[index]!;
  const d = normaliseDomain(n.domain);
  const local = localFunction(side.model, n);
  const opset = view.opsets.get(d);
  const schema = opset === undefined ? undefined : registry().tryResolve(d, n.opType, opset);
  const subviews: { id: string; title: string }[] = [];
  for (const [id, v] of side.view.views)
    if (id.startsWith(`${viewId}/${index}.`) && !id.slice(viewId.length + 1).includes("/"))
      subviews.push({ id, title: v.title });
  const fnIndex = local ? side.model.functions.indexOf(local) : -1;
  if (fnIndex >= 0)
    subviews.push({ id: `fn${fnIndex}`, title: side.view.views.get(`fn${fnIndex}`)!.title });
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
    mark: marksOf(side, viewId)?.get(index) ?? null,
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

/** Which side of the session a side is. */
const nameOf = (side: Side): SideName => (side === session.b ? "b" : "a");

/** The diff marks of a view of a side, from the result's comparison (none without a result). */
function marksOf(side: Side, viewId: string): Map<number, string> | undefined {
  return session.b?.view.diff?.marks[nameOf(side)].get(viewId);
}

/** The diff of a result against the model it was made from, as marks and pairs of both. */
function compare(a: Side, b: Side): Comparison {
  progress("comparing…");
  const c: Comparison = {
    marks: { a: new Map(), b: new Map() },
    pairs: { a: new Map(), b: new Map() },
    hunks: { a: new Map(), b: new Map() },
    counts: undefined as unknown as DiffCounts,
  };
  const marks = (k: SideName, view: string): Map<number, string> => {
    let m = c.marks[k].get(view);
    if (!m) c.marks[k].set(view, (m = new Map()));
    return m;
  };
  const markGraph = (diff: GraphDiff, aView: string, bView: string): void => {
    const ma = marks("a", aView);
    const mb = marks("b", bView);
    const ga = a.view.views.get(aView)?.owner;
    const gb = b.view.views.get(bView)?.owner;
    if (ga && gb) {
      const map = pairNodes(ga, gb, diff);
      c.pairs.a.set(aView, { view: bView, map });
      c.pairs.b.set(bView, { view: aView, map: new Map([...map].map(([i, j]) => [j, i])) });
    }
    const ha = new Map<number, number>();
    const hb = new Map<number, number>();
    c.hunks.a.set(aView, ha);
    c.hunks.b.set(bView, hb);
    for (const h of diff.hunks) {
      for (const r of h.removed) ma.set(r.index, "removed");
      for (const r of h.added) mb.set(r.index, "added");
      const [ra, rb] = [h.removed[0]?.index, h.added[0]?.index];
      if (rb !== undefined) for (const r of h.removed) ha.set(r.index, rb);
      if (ra !== undefined) for (const r of h.added) hb.set(r.index, ra);
    }
    for (const ch of diff.changed) {
      ma.set(ch.a.index, "changed");
      mb.set(ch.b.index, "changed");
      for (const s of ch.subgraphs)
        markGraph(
          s.diff,
          `${aView}/${ch.a.index}.${s.attribute}`,
          `${bView}/${ch.b.index}.${s.attribute}`,
        );
    }
  };
  const d = diffModels(a.model, b.model);
  markGraph(d.graph, "main", "main");
  const fnIndex = (m: Model, name: string) =>
    m.functions.findIndex((f) => functionLabel(f) === name);
  for (const f of d.functions) {
    const ia = fnIndex(a.model, f.name);
    const ib = fnIndex(b.model, f.name);
    if (f.diff && ia >= 0 && ib >= 0) markGraph(f.diff, `fn${ia}`, `fn${ib}`);
    const all = (k: SideName, m: Model, i: number, mark: string) => {
      if (i < 0) return;
      c.marks[k].set(`fn${i}`, new Map(m.functions[i]!.nodes.map((_, j) => [j, mark] as const)));
    };
    if (f.change === "removed") all("a", a.model, ia, "removed");
    if (f.change === "added") all("b", b.model, ib, "added");
  }
  c.counts = diffCounts(d);
  return c;
}

function summary(side: Side): Summary {
  return {
    name: side.name,
    info: side.view.info,
    problems: side.view.problems,
    views: [...side.view.views.values()].map((v) => ({
      id: v.id,
      title: v.title,
      nodes: v.owner.nodes.length,
    })),
    ...(side.model.metadataProps?.length ? { metadata: side.model.metadataProps } : {}),
  };
}

// ---- actions ----

/**
 * What a run in the page may hold at once: weights are read from their files when a node needs
 * them and let go after, so a model larger than this runs when each point of it fits. Past it,
 * the run stops with a message naming the node (the command line's `run` has --max-memory).
 */
const PAGE_BUDGET = 2 ** 31;
const PAGE_BUDGET_NAME = "the page's budget; onnx-expand run --max-memory sets more";

/**
 * A model as the files a download gives (app/save.ts, the same form `-o` writes), as Blobs made of
 * slices of the picked files and of the encoded bytes: no weight of a picked file is read into the
 * worker's memory.
 */
function downloadFiles(
  model: Model,
  name: string,
  format: "binary" | "text",
): { name: string; blob: Blob }[] {
  // A range of a served file is read in parts of 64 MiB, each made a Blob at once: the browser
  // keeps Blob data out of the worker's heap (on disk when large), so a download of a model of
  // gigabytes served by `inspect` never holds its weights in memory whole.
  const PART = 64 << 20;
  const parts = (p: Piece): BlobPart[] => {
    if (!isRangePiece(p)) return [p as BlobPart];
    const s = p.source;
    if (s instanceof BlobSource) return [s.blob.slice(p.offset, p.offset + p.length)];
    const out: BlobPart[] = [];
    for (let at = 0; at < p.length; at += PART)
      out.push(new Blob([s.read(p.offset + at, Math.min(PART, p.length - at)) as BlobPart]));
    return out;
  };
  return modelFiles(model, name, format).map((f) => ({
    name: f.name,
    blob: new Blob(f.pieces.flatMap(parts)),
  }));
}

/** The new result, side b (a step that fails leaves the session as it was). */
/** A shipped profile by its id (name@version). */
function targetProfile(id: string): Profile {
  const p = shippedProfiles().find((x) => `${x.name}@${x.version}` === id);
  if (!p) throw new OnnxError("E_USAGE", `no target '${id}' in the page`);
  return p;
}

function transformed(r: { result: Side; notes: Note[] }): TransformAnswer {
  return {
    summary: summary(r.result),
    diff: r.result.view.diff!.counts,
    notes: r.notes.map(formatNote),
  };
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
  const s = session[name];
  if (!s) throw new OnnxError("E_USAGE", "nothing loaded");
  return s;
}

const EXPAND_OPTIONS: Record<string, (ops: string) => ExpandRequest> = {
  all: () => ({}),
  only: (ops) => ({ only: parseOpList(ops, "only") }),
  keep: (ops) => ({ keep: parseOpList(ops, "keep") }),
};

/** One handler per request op, each typed by the protocol. */
const handlers: { [K in Op]: (msg: RequestOf<K>) => Answers[K] | Promise<Answers[K]> } = {
  // A load that fails leaves the session as it was.
  load(msg) {
    const a = session.loadFiles(
      msg.files.map((f) => ({
        name: f.name,
        source: "url" in f ? new UrlSource(f.url, f.name) : new BlobSource(f.blob, f.name),
      })),
    );
    const notes = a.missing.map(
      (loc) =>
        `'${loc}' was not opened with the model: the values of the tensors it holds cannot be shown or run (pick the model and its data files together)`,
    );
    return { ...summary(a), ...(notes.length ? { notes } : {}) };
  },
  limits: () => ({
    maxOpset: registry().maxOpset(""),
    targets: shippedProfiles().map((p) => ({
      id: `${p.name}@${p.version}`,
      name: p.name,
      backend: `${p.backend} ${p.backendVersion}`,
      date: p.source.date,
    })),
  }),
  find(msg) {
    const s = side(msg.side);
    const hits = [...s.view.views.values()].flatMap((v) =>
      findInView(v.owner, msg.query, (i) => enclosingGroups(sceneOf(s, v.id), i)).map((h) => ({
        ...h,
        view: v.id,
        viewTitle: v.title,
      })),
    );
    return sortHits(hits).slice(0, MAX_HITS);
  },
  changes(msg) {
    const s = side(msg.side);
    return changeSteps(
      s.view.views.values(),
      (view) => marksOf(s, view),
      (view) => sceneOf(s, view),
      msg.constantsAsNodes,
    );
  },
  groups: (msg) => enclosingGroups(sceneOf(side(msg.side), msg.view), msg.index),
  pair(msg) {
    const p = session.b?.view.diff?.pairs[msg.side].get(msg.view);
    if (!p) return null;
    const j = p.map.get(msg.index);
    if (j !== undefined) return { view: p.view, index: j };
    const k = session.b?.view.diff?.hunks[msg.side].get(msg.view)?.get(msg.index);
    if (k !== undefined) return { view: p.view, index: k, near: true };
    const owner = viewOf(side(msg.side), msg.view).owner;
    const near = nearestPaired(owner, msg.index, (i) => p.map.has(i));
    return near === undefined ? null : { view: p.view, index: p.map.get(near)!, near: true };
  },
  layout(msg) {
    const s = side(msg.side);
    progress(`laying out ${s.view.views.get(msg.view)?.title ?? msg.view}…`);
    return layout(s, msg.view, msg.options ?? { open: [], constantsAsNodes: false });
  },
  marks: (msg) => {
    const s = session[msg.side];
    return [...((s && marksOf(s, msg.view))?.entries() ?? [])];
  },
  details: (msg) => details(side(msg.side), msg.view, msg.index),
  convert: (msg) => transformed(session.convert(targetOpset(msg.opset, registry().maxOpset("")))),
  expand(msg) {
    if (msg.mode === "only" && parseOpList(msg.ops).length === 0)
      throw new OnnxError(
        "E_USAGE",
        "expand only: name at least one op to expand (Gelu, or domain:Op:version)",
      );
    const options = (EXPAND_OPTIONS[msg.mode] ?? EXPAND_OPTIONS.all!)(msg.ops);
    return transformed(
      session.expand(options, `expanded${msg.mode !== "all" ? ` ${msg.mode} ${msg.ops}` : ""}`),
    );
  },
  check(msg) {
    const out: Answers["check"] = {};
    const profile = msg.target ? targetProfile(msg.target) : undefined;
    for (const k of ["a", "b"] as const) {
      const sd = session[k];
      if (!sd) continue;
      const s = sd.view;
      const at = (view: string, index: number, line: number) => ({
        view,
        index,
        line,
        groups: enclosingGroups(sceneOf(sd, view), index),
      });
      if (profile) {
        // Every node against the target: a line for the model's opset and each node not fully
        // supported, its node marked.
        // The partitions first, then the nodes that split them (each goes to its node), then
        // every other node not supported.
        const r = classifyModel(sd.model, profile);
        const lines = [`partitions: ${formatPartitions(r.partitions)}`];
        lines.push(...r.model.map((m) => `model: ${m}`));
        const nodes: CheckSide["nodes"] = [];
        const list = (n: NodeVerdict, text: string) => {
          const view = n.at.fn < 0 ? "main" : `fn${n.at.fn}`;
          if (s.views.has(view))
            nodes.push({
              ...at(view, n.at.index, lines.length),
              ...(n.verdict === "partial" ? { partial: true } : {}),
            });
          lines.push(text);
        };
        for (const i of r.partitions.splitters) {
          const n = r.nodes[i]!;
          list(n, `splits partitions: ${n.where}: ${n.reasons.join("; ")}`);
        }
        for (const n of r.nodes)
          if (n.verdict !== "supported" && !n.splits)
            list(n, `${n.verdict}: ${n.where}: ${n.reasons.join("; ")}`);
        for (const c of r.caveats) lines.push(`caveat: ${c.op} (${c.nodes}): ${c.caveat}`);
        // each main-graph node in a partition (its own verdict comes before its subgraphs')
        const painted = new Map<number, number>();
        for (const n of r.nodes)
          if (n.at.fn < 0 && !painted.has(n.at.index) && n.partition !== undefined)
            painted.set(n.at.index, n.partition);
          else if (n.at.fn < 0 && !painted.has(n.at.index)) painted.set(n.at.index, -1);
        const { nodes: total, supported } = r.coverage;
        out[k] = {
          title: `${r.target}: ${total - supported} of ${total} node(s) not supported, ${r.partitions.count} partition(s)${uncounted(r.coverage)}`,
          lines,
          nodes,
          partitions: {
            count: r.partitions.count,
            summary: targetSummary(r),
            nodes: [...painted]
              .filter(([, partition]) => partition >= 0)
              .map(([index, partition]) => ({ index, partition })),
          },
        };
        continue;
      }
      out[k] = {
        lines: s.problems,
        nodes: markedNodes(
          sd,
          s.found.map((p) => p.where),
        ),
      };
    }
    return out;
  },
  lower(msg) {
    const half = msg.precision === "float16" || msg.precision === "bfloat16" ? msg.precision : "";
    const inputRanges = parseInputRanges(msg.ranges ?? "");
    const r = session.lower({
      profile: targetProfile(msg.target),
      dims: parseDims(msg.dims),
      ...(inputRanges.size ? { inputRanges } : {}),
      ...(half ? { precision: { to: half, clamp: true } } : {}),
    });
    const residue = r.report.nodes.filter((n) => n.verdict !== "supported").length;
    return {
      ...transformed(r),
      notes: [
        ...r.notes.map(formatNote),
        ...r.report.model.map((m) => `model: ${m}`),
        residue
          ? `${residue} node(s) still not supported by ${r.report.target}: Check lists them`
          : `every node is supported by ${r.report.target}`,
      ],
    };
  },
  download(msg) {
    return downloadFiles(side(msg.side).model, msg.name, msg.format);
  },
  run(msg) {
    const before = gemmThreadStats().tasks;
    const t0 = performance.now();
    const r = session.run(
      msg,
      { maxMemory: PAGE_BUDGET, budgetName: PAGE_BUDGET_NAME },
      true,
      "the dims box (name=value)",
    );
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
      ...(r.nodes ? { paint: paintOf(r.nodes) } : {}),
      ...(r.perNodeNote ? { paintNote: r.perNodeNote } : {}),
      ...(r.taken ? { taken: r.taken } : {}),
    };
  },
};

/**
 * The nodes that problem places name (`node '…' (Op)`, in the main graph or a function; one in a
 * subgraph marks the node holding it), by line, with the groups that hold them.
 */
function markedNodes(sd: Side, wheres: (string | undefined)[]): CheckSide["nodes"] {
  const nodes: CheckSide["nodes"] = [];
  const places = wheres.map((w) =>
    (w ?? "").replace(/^(?:error|warning): /, "").replace(/^graph > /, ""),
  );
  for (const [id, v] of sd.view.views) {
    if (id.includes("/")) continue;
    const prefix = "initializers" in v.owner ? "" : functionWhere(v.owner);
    for (const [line, index] of problemNodes(v.owner, prefix, places))
      nodes.push({ view: id, index, line, groups: enclosingGroups(sceneOf(sd, id), index) });
  }
  return nodes;
}

/** Per-node numbers as the boxes of each side's views carry them (groups summed or maxed). */
function paintOf(
  nodes: NonNullable<ReturnType<typeof session.run>["nodes"]>,
): Answers["run"]["paint"] {
  const sides: [SideName, Side | undefined][] = [
    ["a", session.a],
    ["b", session.b],
  ];
  const ms: Partial<Record<SideName, Record<string, number>>> = {};
  sides.forEach(([name, s], k) => {
    const times = nodes.ms[k];
    if (s && times) ms[name] = timesOf(sceneOf(s, "main"), times);
  });
  const present = sides.flatMap(([name, s]) =>
    s ? [{ name, views: s.view.views.values(), scene: (v: string) => sceneOf(s, v) }] : [],
  );
  const views = nodes.graphs ? paintViews(present, nodes.graphs) : undefined;
  if (!nodes.diff || !session.b) return { ms, runs: nodes.runs, ...(views ? { views } : {}) };
  const diff = diffsOf(sceneOf(session.b, "main"), nodes.diff);
  const f = nodes.first;
  const node = f ? session.b.model.graph.nodes[f.index] : undefined;
  const first =
    f && node
      ? {
          key: `n${f.index}`,
          label: `${node.opType}${node.name ? ` '${node.name}'` : ""}`,
          ulps: f.value.ulps,
          abs: f.value.abs,
          count: f.value.count,
          total: f.value.total,
        }
      : null;
  return { ms, runs: nodes.runs, diff, first, ...(views ? { views } : {}) };
}

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
      // A refused transform's blocked nodes, to list and mark on the original.
      ...(e instanceof RefusedError && session.a
        ? { marked: { lines: e.lines, nodes: markedNodes(session.a, e.lines) } }
        : {}),
    });
  }
};
