// The inspector page: asks the worker (worker.ts) for everything slow and draws what it answers on
// a GraphCanvas per pane (graph/canvas.ts: pan with the mouse, zoom with the wheel, groups opened
// with +). Two panes: the loaded model (a) and the result of an action (b), with the
// diff marked on both. One action at a time: while it runs, <body data-state="busy">, every control
// is disabled and Cancel stops the worker (and restores what it held); when idle, data-state is
// "ready", or "error" when the last action failed, its message shown beside the action.

import { targetOpset } from "../src/convert/target.js";
import { partitionPaint, targetCheckStatus } from "./partitions.js";
import { Cancelled, WorkError, WorkerClient } from "./client.js";
import { GraphCanvas } from "./graph/canvas.js";
import type { Layout, LayoutItem, Paint } from "./graph/types.js";
import { paintControls, paintFor, paintMode } from "./paint.js";
import { middleCut, viewOptions } from "./labels.js";
import { Navigator } from "./navigate.js";
import { constantsAsNodes, onConstantsSwitch } from "./switches.js";
import { exportView } from "./export-view.js";
import { firstTarget, worstTarget, type RunTarget } from "./run-nav.js";
import { explainNode, forgetReports, keepRowInView, renderRefused } from "./report-table.js";
import { fresh, type PaneState } from "./panes.js";
import { servedModel } from "./preload.js";
import { clearError, showError, status } from "./status.js";
import {
  $,
  h,
  renderCheck,
  renderDetails,
  renderDiff,
  diffSummary,
  renderRun,
  renderSummary,
  runSummary,
} from "./panels.js";
import type {
  Answers,
  CheckSide,
  ExpandMode,
  OpenedFile,
  Request,
  RunAnswer,
  SideName,
  Summary,
} from "./protocol.js";

// ---- file:// ----

if (location.protocol === "file:") {
  $("file-note").hidden = false;
  document.body.dataset.state = "error";
  throw new Error("the inspector must be served over HTTP (npx onnx-expand inspect)");
}

const client = new WorkerClient(new URL("worker.js", document.baseURI), (t) => status(t));

// ---- one action at a time ----

let running: string | undefined;
let failed = false;

function setState(): void {
  document.body.dataset.state = running ? "busy" : failed ? "error" : "ready";
  if (failed) document.body.dataset.error = "1";
  else delete document.body.dataset.error;
}

const CONTROLS =
  "header input, #actions input, #actions select, #actions button, #actions textarea, #find-bar input, #find-bar button, .pane .bar button, .pane .bar select, #details button, #check-report button";

function lock(on: boolean): void {
  for (const c of document.querySelectorAll<HTMLInputElement>(CONTROLS)) c.disabled = on;
  $("open-label").classList.toggle("disabled", on);
  $("cancel").hidden = !on;
}

/**
 * Runs one action: refused while another runs; busy and locked until it ends; a failure shows its
 * message beside `near`; Cancel restores the worker's state as it was before the action.
 */
async function act(
  what: string,
  near: HTMLElement,
  f: () => Promise<void>,
  failAs = what,
): Promise<boolean> {
  if (running) {
    status(`Busy with ${running}: wait, or press Cancel.`);
    return false;
  }
  running = what;
  clearError();
  lock(true);
  setState();
  status(`${what}…`);
  try {
    await f();
    failed = false;
    return true;
  } catch (e) {
    if (e instanceof Cancelled) {
      failed = false;
      await restore(what);
    } else {
      failed = true;
      const err = e as WorkError;
      if (err.marked) markRefused(failAs, err.marked);
      showError(`${failAs}: ${err.message}`, err.marked ? [] : (err.notes ?? []), near);
    }
    return false;
  } finally {
    running = undefined;
    lock(false);
    setState();
    // An action that said nothing of its own leaves no "…" behind.
    if ($("status").textContent === `${what}…`) status("");
  }
}

$("cancel").onclick = () => client.cancel();

/** What the worker holds, kept so that a fresh worker can be given it again after Cancel. */
let loadedA: { name: string; files: PickedFiles } | undefined;
let resultRequest: Request | undefined;

/** After Cancel: the model (and the result) loaded again in the fresh worker; nothing redrawn. */
async function restore(what: string): Promise<void> {
  if (!loadedA) {
    status(`${what}: cancelled.`);
    return;
  }
  running = "restoring the model after Cancel";
  status(`${what} cancelled: loading ${loadedA.name} again…`);
  try {
    await client.ask("load", { files: loadedA.files });
    if (resultRequest) await client.ask(resultRequest.op as "convert", resultRequest as never);
    status(`${what}: cancelled; everything is as it was.`);
  } catch {
    clearAll();
    status(`${what}: cancelled, and the model could not be restored: open it again.`);
  }
}

// ---- panes ----

const panes: Record<SideName, PaneState> = { a: fresh("a"), b: fresh("b") };
// For tests: each pane's canvas and what it draws.
(window as unknown as { __inspector: unknown }).__inspector = {
  panes: Object.fromEntries(
    (["a", "b"] as const).map((k) => [
      k,
      {
        canvas: () => panes[k].canvas,
        items: () => panes[k].layout?.items ?? [],
        frames: () => panes[k].layout?.frames ?? [],
        marks: () => [...panes[k].marks],
      },
    ]),
  ),
};
let active: SideName = "a";
const paneEl = (p: PaneState) => $(`pane-${p.side}`);
const other = (p: PaneState) => panes[p.side === "a" ? "b" : "a"];

function setupPane(p: PaneState, title: string): void {
  const pane = paneEl(p);
  p.canvas?.destroy();
  pane.hidden = false;
  pane.replaceChildren();
  for (const k of Object.keys(pane.dataset)) delete pane.dataset[k];
  const bar = h("div", undefined, "bar");
  const name = h("b", middleCut(title, 30));
  name.title = title;
  const select = h("select", undefined, "views");
  viewOptions(select, p.summary!.views);
  select.value = p.view;
  select.onchange = () => void act("layout", bar, () => show(p, select.value));
  const fit = h("button", "Fit", "fit");
  fit.title = "the whole graph in view (0)";
  fit.onclick = () => p.canvas?.fit();
  const svg = h("button", "SVG", "export-svg");
  svg.title = "save the view as SVG";
  svg.onclick = () => void act("export", bar, async () => exportView(p, "svg"));
  const png = h("button", "PNG", "export-png");
  png.title = "save the view as PNG";
  png.onclick = () => void act("export", bar, async () => exportView(p, "png"));
  const count = h("span", undefined, "count");
  bar.append(name, select, fit, svg, png, count);
  pane.append(bar);
  pane.onpointerdown = () => setActive(p.side);
  if (running) lock(true);
  p.canvas = new GraphCanvas(pane, {
    // (the second click of a double-click selects what the first did: nothing to do)
    select: (item) =>
      void (running && item?.key === p.selected
        ? undefined
        : act("details", bar, () => selectItem(p, item, false))),
    // A group opened or closed in both panes where the other draws the same group (the same
    // view, a group of the same path): the two drawings stay comparable.
    toggleGroup: (key, open) =>
      void act("layout", bar, async () => {
        const q = other(p);
        const l = q.layout;
        const drawn = l && [...l.items, ...l.frames].some((i) => i.key === key);
        const both = q.canvas && q.view === p.view && drawn;
        for (const x of both ? [p, q] : [p]) {
          (open ? x.open : x.closed).add(key);
          (open ? x.closed : x.open).delete(key);
          await show(x, x.view, true);
        }
      }),
  });
}

function setActive(side: SideName): void {
  active = side;
  for (const s of ["a", "b"] as const) $(`pane-${s}`).classList.toggle("active", s === side);
}

function requestLayout(p: PaneState, view: string): Promise<Layout> {
  if (view !== p.view) {
    p.open.clear();
    p.closed.clear();
  }
  return client.ask("layout", {
    side: p.side,
    view,
    options: { open: [...p.open], closed: [...p.closed], constantsAsNodes: constantsAsNodes() },
  });
}

/** Lays out and draws a view of a pane (keeping zoom and position when keepView). */
async function show(p: PaneState, view: string, keepView = false): Promise<void> {
  const t0 = performance.now();
  const layout = await requestLayout(p, view);
  const [marks] = await Promise.all([client.ask("marks", { side: p.side, view })]);
  const sameView = p.view === view;
  if (!sameView) p.selected = null;
  p.view = view;
  p.layout = layout;
  p.marks = new Map(marks);
  p.canvas!.setLayout(layout, keepView);
  p.canvas!.paint(
    view === "main" ? (p.painted ?? new Map()) : paintFor(lastPaint, p.side, paintMode(), view),
  );
  const pane = paneEl(p);
  (pane.querySelector("select.views") as HTMLSelectElement).value = view;
  const ms = performance.now() - t0;
  const boxes = layout.items.filter((i) => i.kind === "op" || i.kind === "group").length;
  pane.querySelector(".count")!.textContent =
    `${layout.total} nodes · ${boxes} boxes · layout ${Math.round(layout.ms)} ms`;
  pane.dataset.drawn = String(layout.total);
  pane.dataset.boxes = String(boxes);
  pane.dataset.view = view;
  pane.dataset.firstDrawMs = String(Math.round(ms));
  const count = (m: string) => [...p.marks.values()].filter((x) => x === m).length;
  for (const m of ["added", "removed", "changed"]) pane.dataset[m] = String(count(m));
  applyProblems(p);
  if (p.selected) p.canvas!.select(p.selected);
  // The search's hits in this view marked (the search spans every view and stays).
  nav.highlight(p);
  status(`Drew ${layout.title}: ${layout.total} nodes in ${Math.round(ms)} ms.`);
}

/**
 * Both panes fitted after the result pane opens (both have a new size): the whole graph when it
 * is readable so, else a readable scale on its first inputs (the canvas's home).
 */
function fitBoth(): void {
  requestAnimationFrame(() => {
    for (const p of [panes.a, panes.b]) {
      if (!p.canvas || paneEl(p).hidden) continue;
      p.canvas.home();
      paneEl(p).dataset.fits = String(Number(paneEl(p).dataset.fits ?? 0) + 1);
    }
  });
}

function closePane(p: PaneState): void {
  p.canvas?.destroy();
  panes[p.side] = fresh(p.side);
  const pane = paneEl(p);
  pane.hidden = true;
  pane.replaceChildren();
  for (const k of Object.keys(pane.dataset)) delete pane.dataset[k];
}

// ---- selection and details ----

/** Selects a box in its pane (details for a node) and the diff's match in the other pane. */
async function selectItem(p: PaneState, item: LayoutItem | null, reveal: boolean): Promise<void> {
  select(p, item?.key ?? null, reveal);
  if (!item || item.index < 0 || (item.kind !== "op" && item.kind !== "const")) {
    if (!item) $("details").hidden = true;
    return;
  }
  const d = await client.ask("details", { side: p.side, view: p.view, index: item.index });
  renderDetails(d, p.summary!.name, p.layout!.title, (view) => {
    void act("layout", $("details"), () => show(p, view));
  });
  explainNode(p.side, p.view, item.index);
  const q = other(p);
  if (!q.canvas) return;
  // The match (or for an added or removed node, its place: its nearest matched neighbour's
  // match), in its view, in a collapsed group of the other pane perhaps: open what hides it.
  const pair = await client.ask("pair", { side: p.side, view: p.view, index: item.index });
  if (pair) {
    if (pair.view !== q.view) await show(q, pair.view);
    const groups = await client.ask("groups", { side: q.side, view: q.view, index: pair.index });
    await openGroups(q, groups);
    select(q, `n${pair.index}`, true);
    paneEl(q).dataset.near = pair.near ? "1" : "";
  } else select(q, null, false);
}

/** Opens the groups given (and lays the pane out again) when any of them is shut. */
async function openGroups(p: PaneState, groups: string[]): Promise<void> {
  const shut = new Set(p.layout!.items.filter((i) => i.kind === "group").map((i) => i.key));
  if (!groups.some((g) => shut.has(g) || p.closed.has(g))) return;
  for (const g of groups) {
    p.open.add(g);
    p.closed.delete(g);
  }
  await show(p, p.view, true);
}

function select(p: PaneState, key: string | null, reveal: boolean): void {
  p.selected = key;
  p.canvas?.select(key, reveal);
  const pane = paneEl(p);
  if (key) pane.dataset.selected = key;
  else delete pane.dataset.selected;
}

// ---- search and changes (navigate.ts) ----

const nav = new Navigator({
  panes,
  active: () => active,
  client,
  show,
  openGroups,
  selectItem,
  select,
  act,
  constantsAsNodes: () => constantsAsNodes(),
});
const clearFind = () => nav.clear();
onConstantsSwitch(() => {
  nav.clear();
  void act("layout", $("find-form"), async () => {
    for (const p of [panes.a, panes.b]) if (p.canvas) await show(p, p.view, true);
  });
});

$("side-toggle").onclick = () => {
  const closed = document.body.classList.toggle("side-closed");
  $("side-toggle").textContent = closed ? "Reports ◂" : "Reports ▸";
};

const findInput = $<HTMLInputElement>("find");
$<HTMLFormElement>("find-form").onsubmit = (e) => {
  e.preventDefault();
  const q = findInput.value;
  const same = nav.has() && findInput.dataset.query === q;
  findInput.dataset.query = q;
  // The box keeps focus, so Enter steps on (act disables the controls while it works).
  void act("search", $("find-form"), () => (same ? nav.step(1) : nav.find(q))).then(() =>
    findInput.focus(),
  );
};
findInput.addEventListener("keydown", (e) => {
  if (e.key !== "Enter" || !e.shiftKey) return;
  // Shift+Enter: back to the previous hit, not a new search.
  e.preventDefault();
  if (nav.has() && findInput.dataset.query === findInput.value)
    void act("search", $("find-form"), () => nav.step(-1)).then(() => findInput.focus());
});
$("find-prev").onclick = () => void act("search", $("find-form"), () => nav.step(-1));
$("change-next").onclick = () => void act("next change", $("find-form"), () => nav.jumpChange(1));
$("change-prev").onclick = () =>
  void act("previous change", $("find-form"), () => nav.jumpChange(-1));

// ---- the keyboard ----

document.addEventListener("keydown", (e) => {
  if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "f") {
    if ($("find-form").hidden) return;
    e.preventDefault();
    findInput.focus();
    findInput.select();
    return;
  }
  const t = e.target as HTMLElement;
  if (t === findInput && e.key === "Escape") {
    findInput.blur();
    return;
  }
  if (t.closest("input, textarea, select") || e.ctrlKey || e.metaKey || e.altKey) return;
  const p = panes[active];
  if (!p.canvas || running) return;
  const keys: Record<string, () => void> = {
    "+": () => p.canvas!.zoomBy(1.25),
    "=": () => p.canvas!.zoomBy(1.25),
    "-": () => p.canvas!.zoomBy(0.8),
    "0": () => p.canvas!.fit(),
    ArrowLeft: () => p.canvas!.panBy(80, 0),
    ArrowRight: () => p.canvas!.panBy(-80, 0),
    ArrowUp: () => p.canvas!.panBy(0, 80),
    ArrowDown: () => p.canvas!.panBy(0, -80),
    n: () => void act("next change", $("find-form"), () => nav.jumpChange(1)),
    p: () => void act("previous change", $("find-form"), () => nav.jumpChange(-1)),
    Escape: () => {
      select(p, null, false);
      $("details").hidden = true;
    },
  };
  const f = keys[e.key];
  if (!f) return;
  e.preventDefault();
  f();
});

// ---- check problems on the graph ----

let checked: Partial<Record<SideName, CheckSide>> | undefined;

function applyProblems(p: PaneState): void {
  const nodes = (checked?.[p.side]?.nodes ?? []).filter((n) => n.view === p.view);
  const keys = nodes.map((n) => `n${n.index}`);
  // The groups holding them are marked too, so a closed group shows what it hides; partial
  // nodes (and groups holding only such) in a colour of their own.
  const [partial, full] = [nodes.filter((n) => n.partial), nodes.filter((n) => !n.partial)];
  p.canvas?.problems(
    [...full.map((n) => `n${n.index}`), ...full.flatMap((n) => n.groups)],
    [...partial.map((n) => `n${n.index}`), ...partial.flatMap((n) => n.groups)],
  );
  paneEl(p).dataset.problems = String(new Set(keys).size);
  paneEl(p).dataset.partial = String(new Set(partial.map((n) => n.index)).size);
}

function jumpProblem(side: SideName, line: number): void {
  const p = panes[side];
  const at = checked?.[side]?.nodes.find((n) => n.line === line);
  if (!at || !p.canvas) return;
  void act("show problem", $("check-report"), async () => {
    setActive(side);
    if (p.view !== at.view) await show(p, at.view);
    const groups = await client.ask("groups", { side, view: at.view, index: at.index });
    await nav.reveal(p, `n${at.index}`, groups);
    keepRowInView(side, line);
  });
}

/** A refused transform's blocked nodes: listed in the report panel and marked on the original. */
function markRefused(what: string, marked: CheckSide): void {
  checked = { a: marked };
  renderRefused(what, panes.a.summary?.name ?? "", marked, jumpProblem);
  applyProblems(panes.a);
}

// ---- actions ----

/** The controls that act on a model: the actions, the find form, the side panel. */
function showModelControls(on: boolean): void {
  for (const id of ["actions", "find-form", "side"]) $(id).hidden = !on;
  for (const el of document.querySelectorAll<HTMLElement>(".model-only")) el.hidden = !on;
}

/** Everything of a model gone: the page as it opened. */
function clearAll(): void {
  loadedA = undefined;
  resultRequest = undefined;
  closePane(panes.a);
  clearResult();
  $("summary").replaceChildren();
  showModelControls(false);
}

/** What belonged to the result (and to a run or check that saw it). */
function clearResult(): void {
  closePane(panes.b);
  checked = undefined;
  forgetReports();
  // A run's numbers belong to the models it ran.
  lastPaint = undefined;
  panes.a.painted = undefined;
  panes.a.canvas?.paint(new Map());
  applyProblems(panes.a);
  for (const id of ["diff", "check-report", "run-report", "details", "downloads"])
    $(id).hidden = true;
  for (const id of ["diff", "check-report", "run-report"]) $(id).replaceChildren();
  clearFind();
  setActive("a");
}

/** A model and its data files, as the worker takes them (Files are passed, not copied). */
type PickedFiles = OpenedFile[];

async function loadFiles(files: PickedFiles): Promise<string> {
  // The files are kept to load the model again after Cancel.
  const s = await client.ask("load", { files });
  // Loaded: nothing of the model before stays on screen.
  loadedA = { name: s.name, files };
  resultRequest = undefined;
  clearResult();
  closePane(panes.a);
  const p = panes.a;
  p.summary = s;
  renderSummary(s);
  showModelControls(true);
  setupPane(p, s.name);
  await show(p, "main");
  return s.notes?.length ? ` ${s.notes.join(" ")}` : "";
}

/**
 * Opens picked or dropped files: a model alone, a model with its data files, or a folder's files
 * (each named by its path in the folder, as external data locations are).
 */
function openFiles(list: File[]): void {
  if (list.length === 0) return;
  const files = list.map((f) => ({ name: f.webkitRelativePath || f.name, blob: f }));
  const what = files.length === 1 ? files[0]!.name : `${files.length} files`;
  // (While the page itself is starting, the file waits for it: startup.then below.)
  if (running && running !== "starting") {
    // Said where it is seen, not dropped without a word.
    showError(
      `cannot open ${what} now: busy with ${running} (wait for it, or press Cancel, then drop it again)`,
      [],
      $("open-label"),
    );
    return;
  }
  void startup.then(() =>
    act(
      `opening ${what}`,
      $("open-label"),
      async () => {
        const notes = await loadFiles(files);
        status(`Opened ${loadedA?.name ?? what}.${notes}`);
      },
      "cannot open the file",
    ),
  );
}

async function transform(req: Request & { op: "convert" | "expand" | "lower" }): Promise<void> {
  const r: Answers["convert"] = await client.ask(req.op as "convert", req as never);
  resultRequest = req;
  clearResult();
  const p = panes.b;
  p.summary = r.summary;
  setupPane(p, r.summary.name);
  renderDiff(r.diff, panes.a.summary!.name, r.summary.name, r.notes);
  $("downloads").hidden = false;
  await show(p, "main");
  // The original's drawing carries the new diff's marks.
  await show(panes.a, panes.a.view, true);
  clearFind();
  fitBoth();
  status(`${r.summary.name}: ${diffSummary(r.diff, r.notes)}.`);
}

let maxOpset = 0;

$<HTMLFormElement>("convert-form").onsubmit = (e) => {
  e.preventDefault();
  const text = $<HTMLInputElement>("opset").value.trim();
  void act("conversion", $("convert-form"), async () => {
    // Checked here by the check the worker and the CLI make (before the limits are known, the
    // worker's own check answers).
    let opset = Number(text);
    if (maxOpset) {
      try {
        opset = targetOpset(text, maxOpset);
      } catch (e) {
        throw new WorkError((e as Error).message);
      }
    }
    await transform({ op: "convert", opset });
  });
};
$<HTMLFormElement>("expand-form").onsubmit = (e) => {
  e.preventDefault();
  void act("expansion", $("expand-form"), () =>
    transform({
      op: "expand",
      mode: $<HTMLSelectElement>("expand-mode").value as ExpandMode,
      ops: $<HTMLInputElement>("expand-ops").value,
    }),
  );
};
const targetSelect = $<HTMLSelectElement>("target");
const precisionSelect = $<HTMLSelectElement>("precision");
$<HTMLFormElement>("target-form").onsubmit = (e) => {
  e.preventDefault();
  const target = targetSelect.value;
  void act(`lowering for ${target || "a target"}`, $("target-form"), async () => {
    if (!target) throw new WorkError("Lower: pick a target in the list first");
    const dims = $<HTMLInputElement>("dims").value;
    const ranges = $<HTMLInputElement>("ranges").value;
    await transform({ op: "lower", target, dims, ranges, precision: precisionSelect.value });
    // What the result still lacks, marked on it.
    await checkAgainst(target);
  });
};

/** Check both sides (against a target's profile, or the checker), marking what it finds. */
async function checkAgainst(target: string): Promise<void> {
  checked = await client.ask("check", target ? { target } : {});
  renderCheck(checked, { a: panes.a.summary?.name, b: panes.b.summary?.name }, (side, line) =>
    jumpProblem(side, line),
  );
  for (const p of [panes.a, panes.b]) {
    applyProblems(p);
    // the partitions coloured on the main view, until a run paints it
    p.painted = partitionPaint(checked[p.side]);
    paneEl(p).dataset.partitions = String(checked[p.side]?.partitions?.count ?? "");
    if (p.view === "main") p.canvas?.paint(p.painted);
  }
}

$("check").onclick = () =>
  void act("check", $("check"), async () => {
    const target = targetSelect.value;
    if (target) {
      await checkAgainst(target);
      status(targetCheckStatus(target, checked));
      return;
    }
    checked = await client.ask("check", {});
    renderCheck(checked, { a: panes.a.summary?.name, b: panes.b.summary?.name }, (side, line) =>
      jumpProblem(side, line),
    );
    for (const p of [panes.a, panes.b]) applyProblems(p);
    const n = (checked.a?.lines.length ?? 0) + (checked.b?.lines.length ?? 0);
    status(n ? `Check: ${n} problem(s), marked on the graph.` : "Check: valid.");
  });

$<HTMLSelectElement>("run-mode").onchange = () => {
  const m = $<HTMLSelectElement>("run-mode").value;
  $("seed").hidden = m !== "random";
  $("dims").hidden = m !== "random";
  $("run-json").hidden = m !== "json";
  $("run-files").hidden = m !== "files";
};
$<HTMLFormElement>("run-form").onsubmit = (e) => {
  e.preventDefault();
  void act("run", $("run-form"), async () => {
    const mode = $<HTMLSelectElement>("run-mode").value;
    const r: RunAnswer = await client.ask(
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
          : {
              mode: "random",
              seed: Number($<HTMLInputElement>("seed").value) || 0,
              dims: $<HTMLInputElement>("dims").value,
            },
    );
    renderRun(r, panes.a.summary!.name, panes.b.summary?.name);
    lastPaint = r.paint;
    renderPaintControls(r);
    applyPaint();
    status(runSummary(r, !!panes.b.summary));
  });
};

// ---- numbers on the graph ----

let lastPaint: RunAnswer["paint"];

function applyPaint(): void {
  const mode = paintMode();
  for (const p of [panes.a, panes.b]) {
    p.painted = paintFor(lastPaint, p.side, mode);
    p.canvas?.paint(p.view === "main" ? p.painted : paintFor(lastPaint, p.side, mode, p.view));
  }
  document.body.dataset.paint = mode;
}

/** The paint selector, its legend and the run's buttons, at the top of the run report. */
function renderPaintControls(r: RunAnswer): void {
  paintControls(
    r,
    applyPaint,
    (bar) =>
      void act("go to the worst", bar, () =>
        goTo(worstTarget(lastPaint, paintMode(), !!panes.b.summary)),
      ),
    (bar) => void act("go to the first divergence", bar, () => goTo(firstTarget(lastPaint))),
  );
}

/** Shows a run's target node in its pane's main view (opening its groups), and says what it is. */
async function goTo(t: RunTarget | undefined): Promise<void> {
  if (!t) return;
  if (t.key) {
    const p = panes[t.side];
    if (p.view !== "main") await show(p, "main");
    const index = Number(t.key.slice(1));
    await nav.reveal(p, t.key, await client.ask("groups", { side: t.side, view: "main", index }));
  }
  status(t.text);
}

async function download(format: "binary" | "text"): Promise<void> {
  const base = (panes.b.summary?.name ?? "model")
    .replace(/\.(onnx|onnxtxt)\b.*$/, "")
    .replace(/[^\w.-]+/g, "_");
  const name = `${base}.result.${format === "text" ? "onnxtxt" : "onnx"}`;
  // The model, and its data file when the result keeps tensors in one: one download each.
  const files = await client.ask("download", { side: "b", format, name });
  for (const f of files) {
    const a = document.createElement("a");
    a.href = URL.createObjectURL(f.blob);
    a.download = f.name;
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 60000);
  }
}
$("dl-onnx").onclick = () => void act("download", $("downloads"), () => download("binary"));
$("dl-text").onclick = () => void act("download", $("downloads"), () => download("text"));

// ---- opening files ----

$<HTMLInputElement>("file").onchange = () => {
  const input = $<HTMLInputElement>("file");
  const list = [...(input.files ?? [])];
  input.value = "";
  openFiles(list);
};
document.addEventListener("dragover", (e) => {
  e.preventDefault();
  if (!running) document.body.classList.add("dragging");
});
document.addEventListener("dragleave", () => document.body.classList.remove("dragging"));
document.addEventListener("drop", (e) => {
  e.preventDefault();
  document.body.classList.remove("dragging");
  openFiles([...(e.dataTransfer?.files ?? [])]);
});

// The opset box is bounded by what the tool knows; `onnx-expand inspect MODEL` serves the model
// (web/preload.ts).
const startup = act(
  "starting",
  $("open-label"),
  async () => {
    const limits = await client.ask("limits", {});
    maxOpset = limits.maxOpset;
    for (const t of limits.targets) {
      const o = document.createElement("option");
      o.value = t.id;
      o.textContent = t.id;
      o.title = `${t.backend}, read ${t.date}`;
      targetSelect.append(o);
    }
    $<HTMLInputElement>("opset").max = String(maxOpset);
    $("opset").title = `ai.onnx opset 1 to ${maxOpset}`;
    const served = await servedModel();
    if (!served) {
      status("Drop a .onnx or .onnxtxt file anywhere on the page.");
      return;
    }
    const { name, files } = served;
    status(`opening ${name}…`);
    const notes = await loadFiles(files);
    status(`Opened ${name}.${notes}`);
  },
  "cannot open the file",
);
