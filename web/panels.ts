// The inspector's panels, built from what the worker answers: the model's facts, the diff, the
// check report, the run table and a node's details. Each panel names the model it belongs to.

import type { DiffCounts } from "../src/diff/index.js";
import { renderReportTable } from "./report-table.js";
import type {
  CheckSide,
  NodeDetails,
  RunAnswer,
  SchemaSummary,
  SideName,
  Summary,
  ValueSummary,
} from "./protocol.js";

export const $ = <T extends HTMLElement = HTMLElement>(id: string) =>
  document.getElementById(id) as T;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text?: string,
  cls?: string,
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

export function table(rows: (string | number)[][], head?: string[]): HTMLTableElement {
  const t = document.createElement("table");
  if (head) {
    const tr = t.insertRow();
    for (const x of head) tr.append(h("th", x));
  }
  for (const r of rows) {
    const tr = t.insertRow();
    for (const c of r) tr.insertCell().textContent = String(c);
  }
  return t;
}

/** A panel's heading, with the model it belongs to. */
export function heading(title: string, model: string): HTMLHeadingElement {
  const e = h("h3", title);
  e.append(" ", h("span", model, "model"));
  e.dataset.model = model;
  return e;
}

export function renderSummary(s: Summary): void {
  const box = $("summary");
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
  // metadata_props, a row each (a long value cut, whole in its tooltip)
  for (const [k, v] of s.metadata ?? []) {
    const tr = facts.insertRow();
    tr.className = "metadata";
    tr.insertCell().textContent = k;
    const cell = tr.insertCell();
    cell.textContent = v.length > 200 ? `${v.slice(0, 200)}…` : v;
    cell.title = v.length > 200 ? v.slice(0, 4000) : "";
  }
  const hist = h("div", undefined, "hist");
  hist.append(
    table(
      Object.entries(i.ops).map(([op, n]) => [n, op]),
      ["count", "op"],
    ),
  );
  box.replaceChildren(heading("Model", s.name), facts, hist);
}

export function renderDiff(c: DiffCounts, a: string, b: string, notes: string[]): void {
  const box = $("diff");
  box.hidden = false;
  box.dataset.counts = JSON.stringify(c);
  const legend = h("div", undefined, "legend");
  legend.append(h("span", "removed", "removed"), h("span", "added", "added"));
  legend.append(h("span", "changed", "changed"));
  box.replaceChildren(
    heading(c.same ? "Diff: the models are the same" : "Diff", `${a} → ${b}`),
    diffTable(c),
    legend,
  );
  if (notes.length) box.append(h("pre", notes.join("\n"), "notes"));
}

/** `diff`'s counts (diffCounts): the main graph's and, where other graphs have nodes, all graphs'. */
function diffTable(c: DiffCounts): HTMLElement {
  const alone = c.main.a === c.all.a && c.main.b === c.all.b;
  const both = (f: (x: DiffCounts["all"]) => string | number) =>
    alone ? [f(c.main)] : [f(c.main), f(c.all)];
  return table(
    [
      ["nodes", ...both((x) => `${x.a} → ${x.b}`)],
      ["matched", ...both((x) => x.matched)],
      ["changed", ...both((x) => x.changed)],
      ["removed", ...both((x) => x.removed)],
      ["added", ...both((x) => x.added)],
      ["hunks", c.main.hunks, ...(alone ? [] : [""])],
      ["functions changed", c.functions, ...(alone ? [] : [""])],
      ["opset imports changed", c.opsetImports, ...(alone ? [] : [""])],
    ],
    alone ? ["", "main graph (the only one)"] : ["", "main graph", "all graphs"],
  );
}

/**
 * The diff's counts in the status line: the main graph's, and all graphs' where they differ; no
 * change said as such (with the transform's first note, which says why).
 */
export function diffSummary(c: DiffCounts, notes: readonly string[] = []): string {
  const t = (x: DiffCounts["all"]) =>
    `${x.removed} removed, ${x.added} added, ${x.changed} changed`;
  if (!c.all.removed && !c.all.added && !c.all.changed)
    return `0 changes, the result is the original model${notes.length ? ` (${notes[0]})` : ""}`;
  const alone = c.main.a === c.all.a && c.main.b === c.all.b;
  return alone ? t(c.main) : `main graph ${t(c.main)}; all graphs ${t(c.all)}`;
}

/** The check report; `jump` is called with a side and a problem line's index. */
export function renderCheck(
  r: Partial<Record<SideName, CheckSide>>,
  names: Partial<Record<SideName, string>>,
  jump: (side: SideName, line: number) => void,
): void {
  const box = $("check-report");
  box.hidden = false;
  box.replaceChildren();
  for (const side of ["a", "b"] as const) {
    const c = r[side];
    if (!c) continue;
    const head = heading(
      `Check ${side === "a" ? "original" : "result"}: ${c.title ?? (c.lines.length ? `${c.lines.length} problem(s)` : "valid")}`,
      names[side] ?? "",
    );
    head.dataset.problems = String(c.lines.length);
    head.dataset.side = side;
    box.append(head);
    renderReportTable(box, side, c, jump);
  }
}

const fmt = (x: number | undefined) => (x === undefined ? "" : x === 0 ? "0" : x.toExponential(3));

export function renderRun(r: RunAnswer, a: string, b: string | undefined): void {
  const box = $("run-report");
  box.hidden = false;
  const rows = r.outputs.map((o) => [
    o.name,
    `[${o.a.shape.join(",")}]`,
    o.a.head,
    ...(b ? [fmt(o.abs), fmt(o.rel), o.note ?? ""] : []),
  ]);
  const t = table(rows, [
    "output",
    "shape",
    "values",
    ...(b ? ["max abs diff", "max rel diff", ""] : []),
  ]);
  t.id = "run-table";
  const maxAbs = r.outputs.reduce((m, o) => Math.max(m, o.abs ?? 0), 0);
  box.dataset.maxAbs = String(maxAbs);
  box.dataset.outputs = JSON.stringify(
    r.outputs.map((o) => ({ name: o.name, abs: o.abs, rel: o.rel, digest: o.a.digest })),
  );
  box.dataset.threads = String(r.threads);
  box.dataset.ms = r.ms.toFixed(1);
  const inputs = h(
    "p",
    `inputs: ${r.inputs.map((i) => `${i.name} [${i.shape.join(",")}]`).join(", ")} · ` +
      `${Math.round(r.ms)} ms, products on ${r.threads} thread${r.threads === 1 ? "" : "s"}`,
  );
  box.replaceChildren(
    heading(b ? "Run: original vs result" : "Run", b ? `${a} vs ${b}` : a),
    inputs,
  );
  if (r.taken?.length) {
    const dims = h(
      "p",
      `dims not given, taken as: ${r.taken.map((d) => `${d.name}=${d.value}${d.why ? ` (${d.why})` : ""}`).join(", ")} · set them in the dims box (name=value)`,
      "taken-dims",
    );
    dims.id = "run-dims";
    dims.dataset.taken = r.taken.map((d) => `${d.name}=${d.value}`).join(",");
    box.append(dims);
  }
  box.append(t);
}

export const runSummary = (r: RunAnswer, b: boolean): string => {
  const maxAbs = r.outputs.reduce((m, o) => Math.max(m, o.abs ?? 0), 0);
  return `Ran ${r.outputs.length} output(s)${b ? `; largest absolute difference ${fmt(maxAbs)}` : ""}.`;
};

function valuesTable(values: ValueSummary[]): HTMLElement {
  const box = h("div", undefined, "values");
  for (const v of values) {
    const stats =
      v.min !== undefined
        ? `min ${num(v.min)} · max ${num(v.max!)} · mean ${num(v.mean!)}`
        : (v.note ?? "");
    const t = table([
      ["value", `${v.name || "(unnamed)"} (${v.source})`],
      ["type", `${v.dtype}[${v.shape.join(",")}] · ${v.count} element(s)`],
      [
        "first",
        v.head.length ? `${v.head.join(", ")}${v.count > v.head.length ? ", …" : ""}` : "—",
      ],
      ["stats", stats || "—"],
    ]);
    t.className = "value";
    t.dataset.name = v.name;
    box.append(t);
  }
  return box;
}

const num = (x: number) => (Number.isInteger(x) ? String(x) : x.toPrecision(5));

function schemaBox(s: SchemaSummary): HTMLElement {
  const box = h("div", undefined, "schema");
  const title = h("h4", `${s.domain === "ai.onnx" ? "" : `${s.domain}.`}${s.name}-${s.since}`);
  if (s.domain === "ai.onnx") {
    const a = h("a", "ONNX docs");
    a.href = `https://onnx.ai/onnx/operators/onnx__${s.name}.html`;
    a.target = "_blank";
    a.rel = "noopener noreferrer";
    title.append(" ", a);
  }
  box.append(title);
  if (s.deprecated) box.append(h("p", "deprecated", "deprecated"));
  if (s.description) box.append(h("p", s.description, "description"));
  const formal = (f: { name: string; type: string; option: string }) =>
    `${f.name}: ${f.type}${f.option === "single" ? "" : ` (${f.option})`}`;
  box.append(
    table([
      ["inputs", s.inputs.map(formal).join(", ") || "(none)"],
      ["outputs", s.outputs.map(formal).join(", ") || "(none)"],
      [
        "attributes",
        s.attributes.map((a) => `${a.name}${a.required ? "" : "?"}: ${a.type}`).join(", ") ||
          "(none)",
      ],
    ]),
  );
  return box;
}

/** The details panel of a node; `open` opens one of its subgraphs or its function. */
export function renderDetails(
  d: NodeDetails,
  model: string,
  where: string,
  open: (view: string) => void,
): void {
  const box = $("details");
  box.hidden = false;
  const close = h("button", "×", "close");
  close.title = "close";
  close.onclick = () => (box.hidden = true);
  const s = d.schema;
  const rows: (string | number)[][] = [
    ["domain", d.domain],
    ["opset imported", d.opset ?? "(none)"],
    ["schema", s.kind === "schema" ? `version ${s.since} in force` : s.kind],
    ["function", s.function ? "yes (has a body: expandable)" : "no (primitive)"],
  ];
  if (d.mark) rows.push(["diff", d.mark]);
  const head = heading(`${d.op}${d.name ? ` '${d.name}'` : ""}`, `${model} › ${where}`);
  box.replaceChildren(close, head, table(rows));
  box.dataset.model = model;
  const io = (title: string, list: { name: string; type: string }[], formals?: string[]) => {
    const t = table(
      list.map((x, k) => [formals?.[k] ?? k, x.name || "(omitted)", x.type]),
      ["", "value", "inferred type"],
    );
    t.className = title;
    box.append(h("h4", title), t);
  };
  io("inputs", d.inputs, s.inputs);
  io("outputs", d.outputs, s.outputs);
  if (d.attributes.length) box.append(h("h4", "attributes"), h("pre", d.attributes.join("\n")));
  if (d.values.length) box.append(h("h4", "constant values"), valuesTable(d.values));
  if (d.about) box.append(schemaBox(d.about));
  for (const v of d.subviews) {
    const b = h("button", `Open ${v.title}`, "open-sub");
    b.onclick = () => open(v.id);
    box.append(b, h("br"));
  }
}
