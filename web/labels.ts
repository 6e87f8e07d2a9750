// Texts of the pane's bar: a title cut in the middle (its end tells the panes apart: "(expanded)"),
// and the view selector's entries grouped by the node that owns them (an If's two branches
// together, nested ones indented under them), each entry short: the branch and its node's name,
// without the long path an inlining put before every name in it.

import type { Summary } from "./protocol.js";

/** `s` at most `max` characters long, cut in the middle ("abc…xyz"). */
export function middleCut(s: string, max: number): string {
  if (s.length <= max) return s;
  const tail = Math.ceil((max - 1) / 2);
  return `${s.slice(0, max - 1 - tail)}…${s.slice(s.length - tail)}`;
}

/** A node's name as a view's entry shows it: its last two path segments. */
const shortName = (name: string) => {
  const parts = name.split("/");
  return parts.length > 2 ? `…/${parts.slice(-2).join("/")}` : name;
};

/** One step of a view's title ("name (Op).attribute") with the name shortened. */
function shortStep(step: string): string {
  const m = /^(.*) \(([^()]*)\)(\.[\w[\]]+)$/.exec(step);
  return m ? `${shortName(m[1]!)} (${m[2]}) ${m[3]!.slice(1)}` : step;
}

/** A view's title for a hit or a step: "" for the main graph, else "in" and its path, short. */
export function inView(title: string): string {
  const steps = title.split(" › ");
  return steps.length > 1 ? `in ${steps.slice(1).map(shortStep).join(" › ")}` : "";
}

/**
 * The view selector's options: the main graph; per node of the main graph that holds subgraphs,
 * a group with its subgraphs (and theirs, indented); the local functions in a group of their own.
 */
export function viewOptions(select: HTMLSelectElement, views: Summary["views"]): void {
  const groups = new Map<string, HTMLOptGroupElement>();
  for (const v of views) {
    const o = document.createElement("option");
    o.value = v.id;
    o.title = v.title;
    const steps = v.title.split(" › ");
    const last = steps[steps.length - 1]!;
    // "name (Op).attribute": the name shortened, the op and the attribute kept
    const text = shortStep(last);
    const depth = v.id.startsWith("main/") ? v.id.split("/").length - 2 : 0;
    o.textContent = `${"\u2003".repeat(depth)}${text} (${v.nodes} nodes)`;
    const top =
      v.id === "main" ? "" : v.id.startsWith("fn") ? "fn" : v.id.split("/")[1]!.split(".")[0]!;
    if (!top) {
      select.append(o);
      continue;
    }
    let g = groups.get(top);
    if (!g) {
      g = document.createElement("optgroup");
      g.label =
        top === "fn"
          ? "local functions"
          : `${shortName(steps[1]?.replace(/\.[\w[\]]+$/, "") ?? top)} subgraphs`;
      groups.set(top, g);
      select.append(g);
    }
    g.append(o);
  }
}
