// The graph's colours (those of the page's diff legend in style.css), one style per kind of box
// and mark, and the whole layout written as an SVG document for export.

import type { Layout, LayoutItem, Mark } from "./types.js";

export interface BoxStyle {
  fill: string;
  stroke: string;
  width: number;
  radius: number;
  dash?: number[];
}

const box = (fill: string, stroke: string, width = 1, radius = 3, dash?: number[]): BoxStyle =>
  dash ? { fill, stroke, width, radius, dash } : { fill, stroke, width, radius };

export const STYLE = {
  op: box("#dce8f5", "#4a6a8a"),
  sub: box("#dce8f5", "#4a6a8a", 2.5, 3, [4, 2]),
  io: box("#f3f3dc", "#999988", 1, 12),
  constant: box("#eeeeee", "#999999", 1, 2),
  group: box("#e6ecf3", "#4a6a8a", 1.5, 4),
  frame: box("#f6f8fb", "#99aabb"),
  frameFill: "rgba(236, 241, 247, 0.55)",
  marks: {
    added: box("#c9f0c9", "#228822", 2),
    removed: box("#f7c9c9", "#aa2222", 2),
    changed: box("#fbe6b0", "#aa7700", 2),
  } as Record<Mark, BoxStyle>,
  edge: "#777788",
  selected: "#0066ff",
  hit: "#f0b000",
  problem: "#dd0000",
  /** A node the target takes only in part (a constraint fails, or the source limits the op). */
  partial: "#e07000",
};

const marked = new Map<string, BoxStyle>();

/** The style of a box: its mark's colours over its kind's shape. */
export function styleOf(it: LayoutItem): BoxStyle {
  const base =
    it.kind === "in" || it.kind === "out"
      ? STYLE.io
      : it.kind === "const"
        ? STYLE.constant
        : it.kind === "group"
          ? STYLE.group
          : it.subgraphs
            ? STYLE.sub
            : STYLE.op;
  if (!it.mark) return base;
  const key = `${it.kind}${it.subgraphs ? "s" : ""}:${it.mark}`;
  let st = marked.get(key);
  if (!st) {
    const m = STYLE.marks[it.mark];
    st = { ...base, fill: m.fill, stroke: m.stroke, width: Math.max(m.width, base.width) };
    marked.set(key, st);
  }
  return st;
}

const esc = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const num = (x: number) => String(Math.round(x * 10) / 10);

/** The whole layout as an SVG document (every box, frame and edge; text as text). */
export function layoutSvg(
  l: Layout,
  selected: string | null,
  hits: ReadonlySet<string>,
  problems: ReadonlySet<string>,
  partial: ReadonlySet<string> = new Set(),
): string {
  const out: string[] = [];
  const W = l.width + 20;
  const H = l.height + 20;
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${num(W)}" height="${num(H)}" viewBox="-10 -10 ${num(W)} ${num(H)}" font-family="ui-monospace, monospace">`,
    `<title>${esc(l.title)}</title>`,
    `<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0L10,5L0,10z" fill="${STYLE.edge}"/></marker></defs>`,
    `<rect x="-10" y="-10" width="${num(W)}" height="${num(H)}" fill="#fff"/>`,
  );
  for (const f of l.frames) {
    const st = f.mark ? STYLE.marks[f.mark] : STYLE.frame;
    out.push(
      `<g class="frame" data-key="${esc(f.key)}"><rect x="${num(f.x)}" y="${num(f.y)}" width="${num(f.w)}" height="${num(f.h)}" fill="${STYLE.frameFill}" stroke="${st.stroke}" stroke-dasharray="5 3"/>`,
      `<text x="${num(f.x + 6)}" y="${num(f.y + 15)}" font-size="11" font-weight="bold" fill="#345">${esc(`${f.label} (${f.count})`)}</text></g>`,
    );
  }
  out.push(`<g fill="none" stroke="${STYLE.edge}">`);
  for (const e of l.edges) {
    if (e.points.length < 4) continue;
    let d = `M${num(e.points[0]!)},${num(e.points[1]!)}`;
    for (let j = 2; j < e.points.length; j += 2)
      d += `L${num(e.points[j]!)},${num(e.points[j + 1]!)}`;
    out.push(`<path d="${d}" marker-end="url(#arrow)"><title>${esc(e.title)}</title></path>`);
  }
  out.push("</g>");
  let n = 0;
  for (const it of l.items) {
    const st = styleOf(it);
    const ring =
      it.key === selected
        ? STYLE.selected
        : problems.has(it.key)
          ? STYLE.problem
          : partial.has(it.key)
            ? STYLE.partial
            : hits.has(it.key)
              ? STYLE.hit
              : "";
    const cx = num(it.x + it.w / 2);
    // The box's text is clipped to the box (a long name or constant would run over its
    // neighbours), by a clip path of its own.
    const clipId = `clip-${n++}`;
    out.push(
      `<g class="node ${it.kind}${it.mark ? ` ${it.mark}` : ""}" data-key="${esc(it.key)}">`,
      `<clipPath id="${clipId}"><rect x="${num(it.x)}" y="${num(it.y)}" width="${num(it.w)}" height="${num(it.h)}"/></clipPath>`,
      `<rect x="${num(it.x)}" y="${num(it.y)}" width="${num(it.w)}" height="${num(it.h)}" rx="${st.radius}" fill="${st.fill}" stroke="${ring || st.stroke}" stroke-width="${ring ? 3 : st.width}"${st.dash ? ` stroke-dasharray="${st.dash.join(" ")}"` : ""}/>`,
      `<g clip-path="url(#${clipId})">`,
      `<text x="${cx}" y="${num(it.y + 17)}" text-anchor="middle" font-size="12" fill="#111">${esc(it.label)}</text>`,
    );
    if (it.sub)
      out.push(
        `<text x="${cx}" y="${num(it.y + 32)}" text-anchor="middle" font-size="10" fill="#555">${esc(it.sub)}</text>`,
      );
    (it.folded ?? []).slice(0, 4).forEach((f, k) => {
      out.push(
        `<text x="${num(it.x + 6)}" y="${num(it.y + (it.sub ? 38 : 26) + 10 + k * 13)}" font-size="10" fill="${f.mark ? STYLE.marks[f.mark].stroke : "#666"}">${esc(k === 3 && it.folded!.length > 4 ? `+${it.folded!.length - 3} more` : `${f.name}: ${f.text}`)}</text>`,
      );
    });
    out.push("</g></g>");
  }
  out.push("</svg>");
  return out.join("\n");
}
