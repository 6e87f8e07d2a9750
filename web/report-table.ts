// Reports as tables: Check's problems, a target check's verdicts and a refused transform's blocked
// nodes, grouped by reason and op with their counts; a group opens to its nodes, each row saying
// why, and a click on a node's row shows the node while the row stays in view. What the report
// says of a node is also kept for its details panel (explainNode), so a node marked red says why.

import { $, h, heading } from "./panels.js";
import type { CheckSide, SideName } from "./protocol.js";

/** One line of a report, read apart: the node it names (if any), its op, and why. */
export interface ReportLine {
  line: number;
  text: string;
  /** The node's name as the line gives it ("" when it names none). */
  node: string;
  op: string;
  /** The line without its node: what the group is keyed by, node-specific names elided. */
  reason: string;
  /** What the line says of its node, in full. */
  why: string;
}

const NODE = /node (?:'((?:[^']|'')*)'|#(\d+)) \(([^()]*(?:\([^()]*\))?[^()]*)\)/;

/** A report line read apart (lines naming no node keep their text as the reason). */
export function readLine(text: string, line: number): ReportLine {
  const m = NODE.exec(text);
  if (!m) return { line, text, node: "", op: "", reason: text, why: text };
  const before = text.slice(0, m.index);
  // What kind of line it is ("unsupported", "splits partitions", a checker's code); a refusal's
  // "error" says nothing the heading does not.
  const found = /^([\w -]+?):/.exec(before)?.[1] ?? "";
  const kind = found === "error" ? "" : found;
  const why = text
    .slice(m.index + m[0].length)
    .replace(/^[:,.]\s*/, "")
    .trim();
  const reason = `${kind ? `${kind}: ` : ""}${why.replace(/'(?:[^']|'')*'/g, "'…'")}` || kind;
  return {
    line,
    text,
    node: m[1] !== undefined ? m[1].replace(/''/g, "'") : `#${m[2]}`,
    op: m[3]!,
    reason,
    why,
  };
}

/** What each side's last report says of its nodes: side → view → node index → lines. */
const said: Partial<Record<SideName, Map<string, Map<number, string[]>>>> = {};

/**
 * The report of one side as a table under `box`: the lines naming no node first, then a row per
 * (reason, op) group with its count, largest first; `jump` shows a line's node.
 */
export function renderReportTable(
  box: HTMLElement,
  side: SideName,
  c: CheckSide,
  jump: (side: SideName, line: number) => void,
): void {
  const marked = new Map(c.nodes.map((n) => [n.line, n]));
  const byNode = new Map<string, Map<number, string[]>>();
  const lines = c.lines.map(readLine);
  for (const l of lines) {
    const at = marked.get(l.line);
    if (!at) continue;
    let view = byNode.get(at.view);
    if (!view) byNode.set(at.view, (view = new Map()));
    view.set(at.index, [...(view.get(at.index) ?? []), l.why || l.text]);
  }
  said[side] = byNode;
  const loose = lines.filter((l) => !l.node);
  if (loose.length) {
    const notes = h("ul", undefined, "report-notes");
    for (const l of loose) notes.append(h("li", l.text));
    box.append(notes);
  }
  const groups = new Map<string, ReportLine[]>();
  for (const l of lines) {
    if (!l.node) continue;
    const key = `${l.op}\u0000${l.reason}`;
    groups.set(key, [...(groups.get(key) ?? []), l]);
  }
  if (!groups.size) return;
  const t = h("table", undefined, "report");
  t.dataset.side = side;
  t.dataset.groups = String(groups.size);
  const head = t.createTHead().insertRow();
  for (const x of ["nodes", "op", "reason"]) head.append(h("th", x));
  for (const list of [...groups.values()].sort((a, b) => b.length - a.length)) {
    const body = t.createTBody();
    const row = body.insertRow();
    row.className = "group";
    row.dataset.op = list[0]!.op;
    row.dataset.count = String(list.length);
    const toggle = h("button", `▸ ${list.length}`, "open-group");
    toggle.title = "show the nodes";
    row.insertCell().append(toggle);
    row.insertCell().textContent = list[0]!.op;
    const reason = row.insertCell();
    reason.textContent = list[0]!.reason;
    reason.title = list[0]!.reason;
    let open = false;
    toggle.onclick = () => {
      open = !open;
      toggle.textContent = `${open ? "▾" : "▸"} ${list.length}`;
      row.classList.toggle("open", open);
      if (!open) {
        for (const r of [...body.rows].slice(1)) r.remove();
        return;
      }
      for (const l of list) {
        const r = body.insertRow();
        r.className = "node";
        r.dataset.line = String(l.line);
        const go = h("button", l.node, "problem");
        go.dataset.side = side;
        go.dataset.line = String(l.line);
        if (marked.has(l.line)) {
          go.title = `show ${l.op} '${l.node}' on the graph`;
          go.onclick = () => {
            for (const x of t.querySelectorAll("tr.node.current")) x.classList.remove("current");
            r.classList.add("current");
            jump(side, l.line);
          };
        } else go.disabled = true;
        const name = r.insertCell();
        name.colSpan = 2;
        name.append(go);
        const why = r.insertCell();
        why.textContent = l.why;
        why.title = l.text;
      }
    };
  }
  box.append(t);
}

/** After a jump: the clicked row brought back into view (the details above it may have grown). */
export function keepRowInView(side: SideName, line: number): void {
  const row = document.querySelector<HTMLElement>(
    `table.report[data-side="${side}"] tr.node[data-line="${line}"]`,
  );
  row?.scrollIntoView({ block: "nearest" });
}

/** Forgets what the reports said (a new model, a new result). */
export function forgetReports(): void {
  delete said.a;
  delete said.b;
}

/** The details panel of a node says what the last report said of it (why it is marked). */
export function explainNode(side: SideName, view: string, index: number): void {
  const lines = said[side]?.get(view)?.get(index);
  if (!lines?.length) return;
  const box = $("details");
  const why = h("div", undefined, "marked-why");
  why.append(h("h4", "why it is marked"));
  for (const l of lines) why.append(h("p", l));
  // Right under the heading, where it is seen first.
  const heading = box.querySelector("h3");
  if (heading) heading.after(why);
  else box.append(why);
}

/**
 * A refused transform's problems in the check report's place: the heading says what was refused,
 * the table lists the blocked nodes (marked on the original's graph by the caller).
 */
export function renderRefused(
  what: string,
  model: string,
  c: CheckSide,
  jump: (side: SideName, line: number) => void,
): void {
  const box = $("check-report");
  box.hidden = false;
  const head = heading(`${what} refused: ${c.nodes.length} node(s) blocked`, model);
  head.dataset.problems = String(c.lines.length);
  head.dataset.side = "a";
  head.dataset.refused = "1";
  box.replaceChildren(head);
  renderReportTable(box, "a", c, jump);
}
