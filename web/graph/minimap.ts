// The minimap: the whole layout shrunk into a small canvas in the pane's corner (its boxes drawn
// once into a cached bitmap), with the view's rectangle over it; a point on it maps back to the
// layout so a click or drag can move the view there.

import { STYLE, styleOf } from "./style.js";
import type { Layout } from "./types.js";

export const MINI_W = 180;
export const MINI_H = 120;

/** The scale and offset that fit a layout into the minimap (CSS pixels). */
function fitting(l: Layout): { k: number; ox: number; oy: number } {
  const k = Math.min((MINI_W - 8) / Math.max(l.width, 1), (MINI_H - 8) / Math.max(l.height, 1));
  return { k, ox: (MINI_W - l.width * k) / 2, oy: (MINI_H - l.height * k) / 2 };
}

/** The layout's boxes, drawn once at the minimap's size. */
export function renderMinimap(l: Layout, dpr: number): HTMLCanvasElement {
  const c = document.createElement("canvas");
  c.width = Math.round(MINI_W * dpr);
  c.height = Math.round(MINI_H * dpr);
  const ctx = c.getContext("2d")!;
  const { k, ox, oy } = fitting(l);
  ctx.setTransform(dpr * k, 0, 0, dpr * k, dpr * ox, dpr * oy);
  ctx.fillStyle = STYLE.frameFill;
  for (const f of l.frames) ctx.fillRect(f.x, f.y, f.w, f.h);
  // every box at least a pixel, in its fill (marks show)
  const px = 1 / k;
  const byFill = new Map<string, Path2D>();
  for (const it of l.items) {
    const fill = it.mark ? STYLE.marks[it.mark].stroke : styleOf(it).stroke;
    let p = byFill.get(fill);
    if (!p) byFill.set(fill, (p = new Path2D()));
    p.rect(it.x, it.y, Math.max(it.w, px), Math.max(it.h, px));
  }
  for (const [fill, p] of byFill) {
    ctx.fillStyle = fill;
    ctx.fill(p);
  }
  return c;
}

/** Paints the cached boxes (none yet: only the view) and the view's rectangle (layout units) onto the minimap canvas. */
export function paintMinimap(
  target: HTMLCanvasElement,
  cache: HTMLCanvasElement | undefined,
  l: Layout,
  dpr: number,
  view: { x: number; y: number; w: number; h: number },
): void {
  const cw = Math.round(MINI_W * dpr);
  const ch = Math.round(MINI_H * dpr);
  if (target.width !== cw || target.height !== ch) {
    target.width = cw;
    target.height = ch;
  }
  const ctx = target.getContext("2d")!;
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.clearRect(0, 0, target.width, target.height);
  if (cache) ctx.drawImage(cache, 0, 0);
  const { k, ox, oy } = fitting(l);
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  const x = Math.max(0, ox + view.x * k);
  const y = Math.max(0, oy + view.y * k);
  const x1 = Math.min(MINI_W, ox + (view.x + view.w) * k);
  const y1 = Math.min(MINI_H, oy + (view.y + view.h) * k);
  ctx.fillStyle = "rgba(0, 102, 255, 0.12)";
  ctx.strokeStyle = STYLE.selected;
  ctx.lineWidth = 1;
  const w = Math.max(x1 - x, 3);
  const h = Math.max(y1 - y, 3);
  ctx.fillRect(x, y, w, h);
  ctx.strokeRect(x + 0.5, y + 0.5, w - 1, h - 1);
}

/** The layout point under a point of the minimap (CSS pixels from its corner). */
export function minimapTarget(l: Layout, sx: number, sy: number): { x: number; y: number } {
  const { k, ox, oy } = fitting(l);
  return { x: (sx - ox) / k, y: (sy - oy) / k };
}
