// The inspector page: asks the worker (worker.ts) for everything slow and draws what it answers
// on a canvas (graph/canvas.ts: pan with the mouse, zoom with the wheel, groups opened with +).
// Two panes: the loaded model (a) and the result of an action (b), with the diff marked on both.

import type { DiffCounts } from "../src/diff/index.js";
import { GraphCanvas } from "./graph/canvas.js";
import type { Layout } from "./graph/types.js";
import type {
  Answers,
  ArgsOf,
  Envelope,
  ExpandMode,
  Op,
  Reply,
  RunAnswer,
  SideName,
  Summary,
} from "./protocol.js";

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

// ---- the worker ----

const worker = new Worker(new URL("worker.js", import.meta.url), { type: "module" });
let nextId = 1;
const pending = new Map<
  number,
  { resolve: (v: Answers[Op]) => void; reject: (e: WorkError) => void }
>();
let busy = 0;

class WorkError extends Error {
  constructor(
    message: string,
    readonly notes: string[],
  ) {
    super(message);
  }
}

worker.onmessage = (ev: MessageEvent<Reply>) => {
  const m = ev.data;
  if ("progress" in m) {
    status(m.progress);
    return;
  }
  const p = pending.get(m.id);
  if (!p) return;
  pending.delete(m.id);
  if (m.ok) p.resolve(m.result);
  else p.reject(new WorkError(m.error, m.notes));
};
worker.onerror = (ev) => showError(`the worker failed: ${ev.message}`);

/** Sends a request to the worker; the answer is typed by the request's op (protocol.ts). */
function ask<K extends Op>(
  op: K,
  args: ArgsOf<K>,
  transfer: Transferable[] = [],
): Promise<Answers[K]> {
  const id = nextId++;
  busy++;
  document.body.dataset.state = "busy";
  return new Promise<Answers[K]>((resolve, reject) => {
    pending.set(id, { resolve: resolve as (v: Answers[Op]) => void, reject });
    worker.postMessage({ id, op, ...args } as Envelope, transfer);
  }).finally(() => {
    if (--busy === 0) document.body.dataset.state = loaded ? "ready" : "empty";
  });
}

// ---- status and errors ----

function status(text: string): void {
  $("status").textContent = text;
}

function showError(message: string, notes: string[] = []): void {
  const box = $("error");
  box.hidden = false;
  box.textContent = [message, ...notes.map((n) => `  ${n}`)].join("\n");
  document.body.dataset.error = "1";
  status("Failed: see the message below.");
}

function clearError(): void {
  $("error").hidden = true;
  $("error").textContent = "";
  delete document.body.dataset.error;
}

async function guarded(what: string, f: () => Promise<void>): Promise<void> {
  clearError();
  try {
    await f();
  } catch (e) {
    const err = e as WorkError;
    showError(`${what}: ${err.message}`, err.notes ?? []);
  }
}

// ---- drawing ----

interface PaneState {
  side: SideName;
  summary?: Summary;
  view: string;
  drawing?: Layout;
  canvas?: GraphCanvas;
  /** Groups the user opened and closed in the shown view. */
  open: Set<string>;
  closed: Set<string>;
}
const panes: Record<SideName, PaneState> = {
  a: { side: "a", view: "main", open: new Set(), closed: new Set() },
  b: { side: "b", view: "main", open: new Set(), closed: new Set() },
};
// For tests: each pane's canvas and what it draws.
(window as unknown as { __inspector: unknown }).__inspector = {
  panes: Object.fromEntries(
    (["a", "b"] as const).map((k) => [
      k,
      {
        canvas: () => panes[k].canvas,
        items: () => panes[k].drawing?.items ?? [],
        frames: () => panes[k].drawing?.frames ?? [],
      },
    ]),
  ),
};
let loaded = false;

function setupPane(p: PaneState, title: string): void {
  const pane = $(`pane-${p.side}`);
  pane.hidden = false;
  pane.replaceChildren();
  const bar = document.createElement("div");
  bar.className = "bar";
  const name = document.createElement("b");
  name.textContent = title;
  const select = document.createElement("select");
  select.className = "views";
  for (const v of p.summary!.views) {
    const o = document.createElement("option");
    o.value = v.id;
    o.textContent = `${v.title} (${v.nodes} nodes)`;
    select.append(o);
  }
  select.value = p.view;
  select.onchange = () => void guarded("layout", () => show(p, select.value));
  const fit = document.createElement("button");
  fit.textContent = "Fit";
  fit.onclick = () => p.canvas?.fit();
  const count = document.createElement("span");
  count.className = "count";
  bar.append(name, select, fit, count);
  pane.append(bar);
  p.canvas?.destroy();
  p.canvas = new GraphCanvas(pane, {
    select(item) {
      if (item?.kind === "op") void guarded("details", () => showDetails(p, item.index));
    },
    toggleGroup(key, open) {
      (open ? p.open : p.closed).add(key);
      (open ? p.closed : p.open).delete(key);
      void guarded("layout", () => show(p, p.view, true));
    },
  });
}

async function show(p: PaneState, view: string, keepView = false): Promise<void> {
  const t0 = performance.now();
  if (view !== p.view) {
    p.open.clear();
    p.closed.clear();
  }
  const d = await ask("layout", {
    side: p.side,
    view,
    options: { open: [...p.open], closed: [...p.closed], constantsAsNodes: false },
  });
  p.view = view;
  p.drawing = d;
  const pane = $(`pane-${p.side}`);
  (pane.querySelector("select.views") as HTMLSelectElement).value = view;
  p.canvas!.setLayout(d, keepView);
  const ms = performance.now() - t0;
  const boxes = d.items.filter((n) => n.kind === "op" || n.kind === "group").length;
  pane.querySelector(".count")!.textContent =
    `${d.total} nodes in ${boxes} boxes · layout ${Math.round(d.ms)} ms`;
  pane.dataset.drawn = String(d.total);
  pane.dataset.view = view;
  pane.dataset.firstDrawMs = String(Math.round(ms));
  status(`Drew ${d.title}: ${d.total} nodes in ${Math.round(ms)} ms.`);
}

/** Re-draws the shown view with the diff marks the worker now has (same view, same place). */
async function remark(p: PaneState): Promise<void> {
  await show(p, p.view, true);
}

// ---- panels ----

function table(rows: (string | number)[][], head?: string[]): HTMLTableElement {
  const t = document.createElement("table");
  if (head) {
    const tr = t.insertRow();
    for (const h of head) {
      const th = document.createElement("th");
      th.textContent = h;
      tr.append(th);
    }
  }
  for (const r of rows) {
    const tr = t.insertRow();
    for (const c of r) tr.insertCell().textContent = String(c);
  }
  return t;
}

function renderSummary(s: Summary): void {
  const box = $("summary");
  box.replaceChildren();
  const h = document.createElement("h3");
  h.textContent = s.name;
  const i = s.info;
  const facts = table([
    ["IR version", i.irVersion],
    ["opsets", i.opsetImports.map((o) => `${o.domain || "ai.onnx"} ${o.version}`).join(", ")],
    ...(i.producer ? [["producer", i.producer]] : []),
    ["inputs", i.inputs.join(", ") || "(none)"],
    ["outputs", i.outputs.join(", ") || "(none)"],
    ["nodes", `${i.nodes}${i.subgraphs ? ` (in ${i.subgraphs + 1} graphs)` : ""}`],
    ...(i.functions.length ? [["functions", i.functions.join(", ")]] : []),
    ["initializers", i.initializers],
    ["checker", s.problems.length ? `${s.problems.length} problem(s): press Check` : "no problems"],
  ]);
  facts.id = "facts";
  facts.dataset.nodes = String(i.nodes);
  const hist = document.createElement("div");
  hist.className = "hist";
  hist.append(
    table(
      Object.entries(i.ops).map(([op, n]) => [n, op]),
      ["count", "op"],
    ),
  );
  box.append(h, facts, hist);
}

async function showDetails(p: PaneState, index: number): Promise<void> {
  const d = await ask("details", { side: p.side, view: p.view, index });
  const box = $("details");
  box.hidden = false;
  box.replaceChildren();
  const close = document.createElement("button");
  close.className = "close";
  close.textContent = "×";
  close.onclick = () => (box.hidden = true);
  const h = document.createElement("h3");
  h.textContent = `${d.op}${d.name ? ` '${d.name}'` : ""}`;
  const s = d.schema;
  const rows: (string | number)[][] = [
    ["domain", d.domain],
    ["opset imported", d.opset ?? "(none)"],
    ["schema", s.kind === "schema" ? `version ${s.since} in force` : s.kind],
    ["function", s.function ? "yes (has a body: expandable)" : "no (primitive)"],
  ];
  if (d.mark) rows.push(["diff", d.mark]);
  box.append(close, h, table(rows));
  const io = (title: string, list: { name: string; type: string }[], formals?: string[]) => {
    const t = document.createElement("h4");
    t.textContent = title;
    box.append(t, table(list.map((x, k) => [formals?.[k] ?? k, x.name || "(omitted)", x.type])));
  };
  io("inputs", d.inputs, s.inputs);
  io("outputs", d.outputs, s.outputs);
  if (d.attributes.length) {
    const t = document.createElement("h4");
    t.textContent = "attributes";
    const pre = document.createElement("pre");
    pre.textContent = d.attributes.join("\n");
    box.append(t, pre);
  }
  for (const v of d.subviews) {
    const b = document.createElement("button");
    b.textContent = `Open ${v.title}`;
    b.className = "open-sub";
    b.onclick = () => void guarded("layout", () => show(p, v.id));
    box.append(b, document.createElement("br"));
  }
}

function renderDiff(c: DiffCounts): void {
  const box = $("diff");
  box.hidden = false;
  box.dataset.counts = JSON.stringify(c);
  box.replaceChildren();
  const h = document.createElement("h3");
  h.textContent = c.same ? "Diff: the models are the same" : "Diff (main graph)";
  const legend = document.createElement("div");
  legend.className = "legend";
  legend.innerHTML =
    '<span class="removed">removed</span><span class="added">added</span><span class="changed">changed</span>';
  box.append(
    h,
    table([
      ["nodes", `${c.nodes.a} → ${c.nodes.b}`],
      ["matched", c.matched],
      ["changed", c.changed],
      ["removed", c.removed],
      ["added", c.added],
      ["hunks", c.hunks],
      ["functions changed", c.functions],
      ["opset imports changed", c.opsetImports],
    ]),
    legend,
  );
}

// ---- actions ----

async function loadBytes(bytes: Uint8Array, name: string): Promise<void> {
  loaded = false;
  $("pane-b").hidden = true;
  $("diff").hidden = true;
  $("run-report").hidden = true;
  $("check-report").hidden = true;
  $("details").hidden = true;
  $("downloads").hidden = true;
  const s = await ask("load", { bytes, name }, [bytes.buffer]);
  loaded = true;
  panes.a.summary = s;
  panes.a.view = "main";
  renderSummary(s);
  $("actions").hidden = false;
  setupPane(panes.a, s.name);
  await show(panes.a, "main");
}

async function openFile(f: File): Promise<void> {
  await guarded("cannot open the file", async () => {
    status(`reading ${f.name}…`);
    await loadBytes(new Uint8Array(await f.arrayBuffer()), f.name);
  });
}

async function transform(
  request: () => Promise<Answers["convert"] | Answers["expand"]>,
): Promise<void> {
  const r = await request();
  panes.b.summary = r.summary;
  panes.b.view = "main";
  setupPane(panes.b, r.summary.name);
  renderDiff(r.diff);
  $("downloads").hidden = false;
  await show(panes.b, "main");
  // Mark the original's drawing with the diff (no new layout).
  await remark(panes.a);
  if (r.notes.length) {
    const pre = document.createElement("pre");
    pre.className = "notes";
    pre.textContent = r.notes.join("\n");
    $("diff").append(pre);
  }
  status(
    `${r.summary.name}: ${r.diff.removed} removed, ${r.diff.added} added, ${r.diff.changed} changed.`,
  );
}

$<HTMLFormElement>("convert-form").onsubmit = (e) => {
  e.preventDefault();
  void guarded("conversion", () =>
    transform(() => ask("convert", { opset: $<HTMLInputElement>("opset").value })),
  );
};
$<HTMLFormElement>("expand-form").onsubmit = (e) => {
  e.preventDefault();
  void guarded("expansion", () =>
    transform(() =>
      ask("expand", {
        mode: $<HTMLSelectElement>("expand-mode").value as ExpandMode,
        ops: $<HTMLInputElement>("expand-ops").value,
      }),
    ),
  );
};
$("check").onclick = () =>
  void guarded("check", async () => {
    const r = await ask("check", {});
    const box = $("check-report");
    box.hidden = false;
    box.replaceChildren();
    for (const [side, problems] of Object.entries(r)) {
      const h = document.createElement("h3");
      h.textContent = `Check ${side === "a" ? "original" : "result"}: ${problems.length ? `${problems.length} problem(s)` : "valid"}`;
      h.dataset.problems = String(problems.length);
      box.append(h);
      if (problems.length) {
        const pre = document.createElement("pre");
        pre.textContent = problems.join("\n");
        box.append(pre);
      }
    }
  });

$<HTMLSelectElement>("run-mode").onchange = () => {
  const m = $<HTMLSelectElement>("run-mode").value;
  $("seed").hidden = m !== "random";
  $("run-json").hidden = m !== "json";
  $("run-files").hidden = m !== "files";
};
$<HTMLFormElement>("run-form").onsubmit = (e) => {
  e.preventDefault();
  void guarded("run", async () => {
    const mode = $<HTMLSelectElement>("run-mode").value;
    const r: RunAnswer = await ask(
      "run",
      mode === "json"
        ? { mode, json: $<HTMLTextAreaElement>("run-json").value }
        : mode === "files"
          ? {
              mode,
              files: await Promise.all(
                [...($<HTMLInputElement>("run-files").files ?? [])].map(async (f) => ({
                  name: f.name,
                  bytes: new Uint8Array(await f.arrayBuffer()),
                })),
              ),
            }
          : { mode: "random", seed: Number($<HTMLInputElement>("seed").value) || 0 },
    );
    const box = $("run-report");
    box.hidden = false;
    box.replaceChildren();
    const h = document.createElement("h3");
    h.textContent = panes.b.summary ? "Run: original vs result" : "Run";
    const fmt = (x: number | undefined) =>
      x === undefined ? "" : x === 0 ? "0" : x.toExponential(3);
    const rows = r.outputs.map((o) => [
      o.name,
      `[${o.a.shape.join(",")}]`,
      o.a.head,
      ...(panes.b.summary ? [fmt(o.abs), fmt(o.rel), o.note ?? ""] : []),
    ]);
    const t = table(rows, [
      "output",
      "shape",
      "values",
      ...(panes.b.summary ? ["max abs diff", "max rel diff", ""] : []),
    ]);
    t.id = "run-table";
    const maxAbs = r.outputs.reduce((m, o) => Math.max(m, o.abs ?? 0), 0);
    box.dataset.maxAbs = String(maxAbs);
    box.dataset.outputs = JSON.stringify(
      r.outputs.map((o) => ({ name: o.name, abs: o.abs, rel: o.rel })),
    );
    const inputs = document.createElement("p");
    inputs.textContent = `inputs: ${r.inputs.map((i) => `${i.name} [${i.shape.join(",")}]`).join(", ")}`;
    box.append(h, inputs, t);
    status(
      `Ran ${r.outputs.length} output(s)${panes.b.summary ? `; largest absolute difference ${fmt(maxAbs)}` : ""}.`,
    );
  });
};

async function download(format: "binary" | "text"): Promise<void> {
  const bytes = await ask("download", { side: "b", format });
  const base = (panes.b.summary?.name ?? "model")
    .replace(/\.(onnx|onnxtxt)\b.*$/, "")
    .replace(/[^\w.-]+/g, "_");
  const a = document.createElement("a");
  a.href = URL.createObjectURL(new Blob([bytes as BlobPart]));
  a.download = `${base}.result.${format === "text" ? "onnxtxt" : "onnx"}`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}
$("dl-onnx").onclick = () => void guarded("download", () => download("binary"));
$("dl-text").onclick = () => void guarded("download", () => download("text"));

// ---- opening files ----

$<HTMLInputElement>("file").onchange = () => {
  const f = $<HTMLInputElement>("file").files?.[0];
  if (f) void openFile(f);
};
document.addEventListener("dragover", (e) => {
  e.preventDefault();
  document.body.classList.add("dragging");
});
document.addEventListener("dragleave", () => document.body.classList.remove("dragging"));
document.addEventListener("drop", (e) => {
  e.preventDefault();
  document.body.classList.remove("dragging");
  const f = e.dataTransfer?.files[0];
  if (f) void openFile(f);
});

// `onnx-expand inspect MODEL` serves the model as ./preload (a static server answers 404).
void (async () => {
  try {
    const r = await fetch("preload");
    if (!r.ok) return;
    const name = decodeURIComponent(r.headers.get("x-model-name") ?? "model.onnx");
    await guarded("cannot open the file", async () =>
      loadBytes(new Uint8Array(await r.arrayBuffer()), name),
    );
  } catch {
    // no server behind the page: nothing to preload
  }
})();
