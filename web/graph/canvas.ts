// The drawing surface of one pane: a Layout drawn on a <canvas> (sharp at any devicePixelRatio),
// panned by dragging and zoomed by the wheel about the cursor. Only what is in view is drawn (a
// spatial grid of boxes and edges), in batches of one path per style; at small scale boxes are
// plain rectangles and edges straight lines, without text. Redraws are coalesced into one per
// animation frame. A minimap in the bottom-right corner (the first view starts at the top, so it
// covers none of it) shows the whole layout and the view; click or drag it to move. Export: the whole layout as SVG, the current view as PNG.

import { minimapTarget, MINI_H, MINI_W, paintMinimap, renderMinimap } from "./minimap.js";
import { Raster } from "./raster.js";
import { layoutSvg, STYLE, styleOf, type BoxStyle } from "./style.js";
import type {
  GraphCanvasApi,
  GraphCanvasEvents,
  Layout,
  LayoutFrame,
  LayoutItem,
  Paint,
} from "./types.js";

/** Below this scale no text is drawn and edges are straight. */
const TEXT_SCALE = 0.42;
const MIN_SCALE = 0.0005;
/** Below this scale boxes are painted as pixels (raster.ts), and edges left out below EDGE_SCALE. */
const RASTER_SCALE = 0.2;
const EDGE_SCALE = 0.1;
const MAX_SCALE = 8;
/** The scale home() opens at. */
const READABLE = 1;
/** The +/− button of a group box or frame, in layout units. */
const BUTTON = 16;

/** A grid over the layout: which boxes and edges touch each cell. */
class Grid {
  readonly cell: number;
  readonly cols: number;
  readonly rows: number;
  private cells: (number[] | undefined)[];
  /** Entries too large for the grid (checked on every query). */
  readonly big: number[] = [];
  private stamp: Uint32Array;
  private round = 0;

  constructor(width: number, height: number, count: number) {
    this.cell = Math.max(256, Math.sqrt((Math.max(width, 1) * Math.max(height, 1)) / 8000));
    this.cols = Math.max(1, Math.ceil((width + 1) / this.cell));
    this.rows = Math.max(1, Math.ceil((height + 1) / this.cell));
    this.cells = new Array<number[] | undefined>(this.cols * this.rows);
    this.stamp = new Uint32Array(count);
  }

  add(id: number, x0: number, y0: number, x1: number, y1: number): void {
    const c0 = this.col(x0);
    const c1 = this.col(x1);
    const r0 = this.row(y0);
    const r1 = this.row(y1);
    if ((c1 - c0 + 1) * (r1 - r0 + 1) > 64) {
      this.big.push(id);
      return;
    }
    for (let r = r0; r <= r1; r++)
      for (let c = c0; c <= c1; c++) (this.cells[r * this.cols + c] ??= []).push(id);
  }

  private col(x: number): number {
    return Math.min(this.cols - 1, Math.max(0, Math.floor(x / this.cell)));
  }
  private row(y: number): number {
    return Math.min(this.rows - 1, Math.max(0, Math.floor(y / this.cell)));
  }

  /** Ids touching the rectangle (each once, unordered). */
  query(x0: number, y0: number, x1: number, y1: number, out: number[]): void {
    out.length = 0;
    if (++this.round === 0xffffffff) {
      this.stamp.fill(0);
      this.round = 1;
    }
    const r = this.round;
    const c1 = this.col(x1);
    const r1 = this.row(y1);
    for (let row = this.row(y0); row <= r1; row++)
      for (let c = this.col(x0); c <= c1; c++) {
        const list = this.cells[row * this.cols + c];
        if (list)
          for (const id of list)
            if (this.stamp[id] !== r) {
              this.stamp[id] = r;
              out.push(id);
            }
      }
    for (const id of this.big)
      if (this.stamp[id] !== r) {
        this.stamp[id] = r;
        out.push(id);
      }
  }
}

export class GraphCanvas implements GraphCanvasApi {
  /** The element holding the canvas and the minimap (tests read its data attributes). */
  readonly element: HTMLDivElement;
  readonly canvas: HTMLCanvasElement;
  private readonly mini: HTMLCanvasElement;
  private readonly ctx: CanvasRenderingContext2D;
  private layout: Layout | undefined;
  private grid: Grid | undefined;
  private index = new Map<string, number>();
  private scale = 1;
  private tx = 0;
  private ty = 0;
  private selected: string | null = null;
  private hits = new Set<string>();
  private marked = new Set<string>();
  private partial = new Set<string>();
  /** Numbers painted on boxes (a run's differences or times): a band's colour and its text. */
  private painted = new Map<string, Paint>();
  private pending = 0;
  private visible: number[] = [];
  private miniCache: HTMLCanvasElement | undefined;
  /** The timer that renders the minimap's bitmap, in a task of its own after the first frame. */
  private miniTimer = 0;
  private raster = new Raster();
  private cleanup: (() => void)[] = [];
  /** The view was set by home() or fit() and not moved since: a resize redoes it. */
  private auto: "home" | "fit" | "" = "";
  private lastSize = "";
  lastFrameMs = 0;
  /** How many boxes the last frame drew (for tests and the bench). */
  drawnItems = 0;

  constructor(
    host: HTMLElement,
    private readonly events: GraphCanvasEvents,
  ) {
    this.element = document.createElement("div");
    this.element.className = "graph";
    this.element.style.cssText = "position:relative;flex:1;min-height:0;overflow:hidden";
    this.canvas = document.createElement("canvas");
    this.canvas.style.cssText = "position:absolute;inset:0;width:100%;height:100%;cursor:grab";
    this.mini = document.createElement("canvas");
    this.mini.className = "minimap";
    this.mini.style.cssText = `position:absolute;right:6px;bottom:6px;width:${MINI_W}px;height:${MINI_H}px;border:1px solid #99a;background:#fffd;cursor:pointer`;
    this.element.append(this.canvas, this.mini);
    host.append(this.element);
    this.ctx = this.canvas.getContext("2d")!;
    this.listen();
  }

  // ---- the API ----

  setLayout(layout: Layout, keepView = false): void {
    this.layout = layout;
    const n = layout.items.length;
    const grid = new Grid(layout.width, layout.height, n + layout.edges.length);
    this.index = new Map();
    layout.items.forEach((it, i) => {
      this.index.set(it.key, i);
      grid.add(i, it.x, it.y, it.x + it.w, it.y + it.h);
    });
    layout.edges.forEach((e, k) => {
      let x0 = Infinity;
      let y0 = Infinity;
      let x1 = -Infinity;
      let y1 = -Infinity;
      for (let j = 0; j < e.points.length; j += 2) {
        x0 = Math.min(x0, e.points[j]!);
        x1 = Math.max(x1, e.points[j]!);
        y0 = Math.min(y0, e.points[j + 1]!);
        y1 = Math.max(y1, e.points[j + 1]!);
      }
      if (x0 <= x1) grid.add(n + k, x0, y0, x1, y1);
    });
    this.grid = grid;
    this.miniCache = undefined;
    clearTimeout(this.miniTimer);
    this.miniTimer = 0;
    this.element.dataset.items = String(n);
    this.element.dataset.view = layout.view;
    if (!keepView) this.home();
    else this.invalidate();
  }

  fit(): void {
    const l = this.layout;
    if (!l) return;
    const { w, h } = this.size();
    const s = Math.min((w - 20) / (l.width + 1), (h - 20) / (l.height + 1), READABLE);
    this.scale = clamp(s, MIN_SCALE, MAX_SCALE);
    this.tx = (w - l.width * this.scale) / 2;
    this.ty = Math.max(10, (h - l.height * this.scale) / 2);
    this.auto = "fit";
    this.invalidate();
  }

  home(): void {
    const l = this.layout;
    if (!l) return;
    const { w, h } = this.size();
    const fits = Math.min((w - 20) / (l.width + 1), (h - 20) / (l.height + 1));
    if (fits >= 0.8 * READABLE) {
      this.fit();
      this.auto = "home";
      return;
    }
    this.scale = READABLE;
    // the first inputs: the top row's boxes, left to right; centred when they fit
    let top = Infinity;
    for (const it of l.items) top = Math.min(top, it.y);
    let x0 = Infinity;
    let x1 = -Infinity;
    for (const it of l.items)
      if (it.y <= top + 40) {
        x0 = Math.min(x0, it.x);
        x1 = Math.max(x1, it.x + it.w);
      }
    const mid = x1 - x0 < w / this.scale ? (x0 + x1) / 2 : x0 + w / 2 / this.scale - 10;
    this.tx = w / 2 - mid * this.scale;
    this.ty = 16 - top * this.scale;
    this.auto = "home";
    this.invalidate();
  }

  zoomBy(factor: number, atX?: number, atY?: number): void {
    const { w, h } = this.size();
    const mx = atX ?? w / 2;
    const my = atY ?? h / 2;
    const s = clamp(this.scale * factor, MIN_SCALE, MAX_SCALE);
    this.tx = mx - ((mx - this.tx) * s) / this.scale;
    this.ty = my - ((my - this.ty) * s) / this.scale;
    this.scale = s;
    this.auto = "";
    this.invalidate();
  }

  panBy(dx: number, dy: number): void {
    this.tx += dx;
    this.ty += dy;
    this.auto = "";
    this.invalidate();
  }

  select(key: string | null, reveal = false): void {
    this.selected = key;
    if (key !== null) this.element.dataset.selected = key;
    else delete this.element.dataset.selected;
    if (reveal && key !== null) this.reveal(key);
    this.invalidate();
  }

  highlight(keys: string[]): void {
    this.hits = new Set(keys);
    this.invalidate();
  }

  problems(keys: string[], partial: string[] = []): void {
    this.marked = new Set(keys);
    this.partial = new Set(partial.filter((k) => !this.marked.has(k)));
    this.invalidate();
  }

  paint(values: Map<string, Paint>): void {
    this.painted = values;
    this.element.dataset.painted = String(values.size);
    this.invalidate();
  }

  exportSvg(): string {
    return this.layout
      ? layoutSvg(this.layout, this.selected, this.hits, this.marked, this.partial)
      : "";
  }

  exportPng(): Promise<Blob> {
    this.draw();
    return new Promise((resolve, reject) =>
      this.canvas.toBlob((b) => (b ? resolve(b) : reject(new Error("no PNG from the canvas")))),
    );
  }

  destroy(): void {
    if (this.pending) cancelAnimationFrame(this.pending);
    clearTimeout(this.miniTimer);
    for (const f of this.cleanup) f();
    this.element.remove();
  }

  // ---- beyond the API: for the page's tests ----

  /** The drawn layout. */
  get current(): Layout | undefined {
    return this.layout;
  }

  /** The view: scale and translation (screen = layout × scale + t). */
  get view(): { scale: number; tx: number; ty: number } {
    return { scale: this.scale, tx: this.tx, ty: this.ty };
  }

  /** Where a box is on screen (CSS pixels, relative to the canvas), if it is in the layout. */
  screenBox(key: string): { x: number; y: number; w: number; h: number } | undefined {
    const i = this.index.get(key);
    const it =
      i === undefined ? this.layout?.frames.find((f) => f.key === key) : this.layout?.items[i];
    if (!it) return undefined;
    return {
      x: it.x * this.scale + this.tx,
      y: it.y * this.scale + this.ty,
      w: it.w * this.scale,
      h: it.h * this.scale,
    };
  }

  /** Draws now rather than at the next animation frame. */
  flush(): void {
    if (this.pending) cancelAnimationFrame(this.pending);
    this.pending = 0;
    this.draw();
  }

  // ---- drawing ----

  private size(): { w: number; h: number } {
    return { w: this.canvas.clientWidth || 600, h: this.canvas.clientHeight || 400 };
  }

  private invalidate(): void {
    if (this.pending) return;
    this.pending = requestAnimationFrame(() => {
      this.pending = 0;
      this.draw();
    });
  }

  private reveal(key: string): void {
    const box = this.screenBox(key);
    if (!box) return;
    const { w, h } = this.size();
    const inView = box.x >= 0 && box.y >= 0 && box.x + box.w <= w && box.y + box.h <= h;
    if (inView && this.scale >= TEXT_SCALE) return;
    this.scale = Math.max(this.scale, READABLE);
    const i = this.index.get(key);
    const it =
      i === undefined ? this.layout!.frames.find((f) => f.key === key)! : this.layout!.items[i]!;
    this.tx = w / 2 - (it.x + it.w / 2) * this.scale;
    this.ty = h / 2 - (it.y + it.h / 2) * this.scale;
    this.auto = "";
  }

  private draw(): void {
    const t0 = performance.now();
    const dpr = window.devicePixelRatio || 1;
    const { w, h } = this.size();
    const cw = Math.round(w * dpr);
    const ch = Math.round(h * dpr);
    if (this.canvas.width !== cw || this.canvas.height !== ch) {
      this.canvas.width = cw;
      this.canvas.height = ch;
    }
    const ctx = this.ctx;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = "#fff";
    ctx.fillRect(0, 0, cw, ch);
    const l = this.layout;
    if (!l || !this.grid) {
      this.lastFrameMs = performance.now() - t0;
      return;
    }
    const s = this.scale;
    ctx.setTransform(dpr * s, 0, 0, dpr * s, dpr * this.tx, dpr * this.ty);
    // the view in layout units, with a margin
    const vx0 = -this.tx / s - 20;
    const vy0 = -this.ty / s - 20;
    const vx1 = (w - this.tx) / s + 20;
    const vy1 = (h - this.ty) / s + 20;
    const detail = s >= TEXT_SCALE;
    const px = 1 / s; // one screen pixel in layout units

    this.grid.query(vx0, vy0, vx1, vy1, this.visible);
    const n = l.items.length;
    const items: LayoutItem[] = [];
    const edges: number[][] = [];
    for (const id of this.visible)
      if (id < n) items.push(l.items[id]!);
      else if (detail || s >= EDGE_SCALE) edges.push(l.edges[id - n]!.points);
    const frames = l.frames.filter(
      (f) => f.x < vx1 && f.x + f.w > vx0 && f.y < vy1 && f.y + f.h > vy0,
    );
    this.drawnItems = items.length;
    if (s < RASTER_SCALE) {
      this.raster.paint(ctx, frames, items, { scale: s, tx: this.tx, ty: this.ty, dpr });
      ctx.setTransform(dpr * s, 0, 0, dpr * s, dpr * this.tx, dpr * this.ty);
      this.drawEdges(edges, false, px);
      this.drawPaint(items, false);
      this.drawMarks(items, false, px);
      this.finish(t0, w, h);
      return;
    }
    for (const f of frames) this.drawFrame(f, detail, px);
    this.drawEdges(edges, detail, px);

    // boxes, one path per style
    items.sort((a, b) => (a.kind === "group" ? 0 : 1) - (b.kind === "group" ? 0 : 1));
    const batches = new Map<BoxStyle, LayoutItem[]>();
    for (const it of items) {
      const st = styleOf(it);
      let list = batches.get(st);
      if (!list) batches.set(st, (list = []));
      list.push(it);
    }
    for (const [st, list] of batches) {
      ctx.beginPath();
      for (const it of list) {
        if (detail && st.radius) ctx.roundRect(it.x, it.y, it.w, it.h, st.radius);
        else ctx.rect(it.x, it.y, it.w, it.h);
        if (it.kind === "group" && detail) ctx.rect(it.x + 3, it.y + 3, it.w, it.h);
      }
      ctx.fillStyle = st.fill;
      ctx.fill();
      if (detail || s > 0.08) {
        ctx.strokeStyle = st.stroke;
        ctx.lineWidth = st.width;
        ctx.setLineDash(st.dash && detail ? st.dash : []);
        ctx.stroke();
        ctx.setLineDash([]);
      }
    }
    if (detail) for (const it of items) this.drawText(it);
    this.drawPaint(items, detail);
    this.drawMarks(items, detail, px);
    this.finish(t0, w, h);
  }

  /** A band along each painted box's bottom edge in its colour, and its number when readable. */
  private drawPaint(items: LayoutItem[], detail: boolean): void {
    if (!this.painted.size) return;
    const ctx = this.ctx;
    for (const it of items) {
      const p = this.painted.get(it.key);
      if (!p) continue;
      ctx.fillStyle = p.color;
      const band = detail ? 6 : Math.max(6, it.h / 3);
      ctx.fillRect(it.x, it.y + it.h - band, it.w, band);
      if (!detail) continue;
      ctx.font = "bold 10px ui-monospace, monospace";
      ctx.textAlign = "right";
      ctx.textBaseline = "bottom";
      const tw = ctx.measureText(p.text).width + 6;
      ctx.fillStyle = "#fffe";
      ctx.fillRect(it.x + it.w - tw - 2, it.y + it.h - band - 13, tw, 13);
      ctx.fillStyle = "#222";
      ctx.fillText(p.text, it.x + it.w - 5, it.y + it.h - band);
    }
  }

  /** The minimap, and the frame's time and scale for tests. */
  private finish(t0: number, w: number, h: number): void {
    this.drawMini(w, h);
    this.lastFrameMs = performance.now() - t0;
    this.element.dataset.frameMs = this.lastFrameMs.toFixed(1);
    this.element.dataset.scale = this.scale.toFixed(4);
  }

  private drawEdges(edges: number[][], detail: boolean, px: number): void {
    const ctx = this.ctx;
    ctx.beginPath();
    const arrows: number[] = [];
    for (const p of edges) {
      if (p.length < 4) continue;
      if (!detail) {
        ctx.moveTo(p[0]!, p[1]!);
        ctx.lineTo(p[p.length - 2]!, p[p.length - 1]!);
        continue;
      }
      ctx.moveTo(p[0]!, p[1]!);
      for (let j = 2; j < p.length; j += 2) ctx.lineTo(p[j]!, p[j + 1]!);
      arrows.push(p[p.length - 4]!, p[p.length - 3]!, p[p.length - 2]!, p[p.length - 1]!);
    }
    ctx.strokeStyle = STYLE.edge;
    ctx.lineWidth = Math.max(1, px);
    ctx.stroke();
    if (arrows.length) {
      ctx.beginPath();
      for (let j = 0; j < arrows.length; j += 4) arrow(ctx, arrows, j);
      ctx.fillStyle = STYLE.edge;
      ctx.fill();
    }
  }

  private drawFrame(f: LayoutFrame, detail: boolean, px: number): void {
    const ctx = this.ctx;
    const st = f.mark ? STYLE.marks[f.mark] : STYLE.frame;
    ctx.fillStyle = STYLE.frameFill;
    ctx.fillRect(f.x, f.y, f.w, f.h);
    ctx.strokeStyle = st.stroke;
    ctx.lineWidth = Math.max(px, f.mark ? 2 : 1);
    ctx.setLineDash(detail ? [5, 3] : []);
    ctx.strokeRect(f.x, f.y, f.w, f.h);
    ctx.setLineDash([]);
    if (!detail) return;
    ctx.fillStyle = "#345";
    ctx.font = "bold 11px system-ui, sans-serif";
    ctx.textAlign = "left";
    ctx.textBaseline = "middle";
    ctx.fillText(clip(`${f.label} (${f.count})`, Math.floor((f.w - 30) / 6.5)), f.x + 6, f.y + 12);
    button(ctx, f.x + f.w - BUTTON - 3, f.y + 4, "−");
  }

  private drawText(it: LayoutItem): void {
    const ctx = this.ctx;
    const cx = it.x + it.w / 2;
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    ctx.fillStyle = "#111";
    ctx.font = "12px ui-monospace, monospace";
    const chars = Math.floor((it.w - 8) / 7.2);
    ctx.fillText(clip(it.label, chars), cx, it.y + (it.sub ? 13 : 13));
    if (it.sub) {
      ctx.fillStyle = "#555";
      ctx.font = "10px ui-monospace, monospace";
      // A name's end tells boxes apart ('/encoder/layer.3/attention/Softmax'): keep it.
      ctx.fillText(clipStart(it.sub, chars + 4), cx, it.y + 29);
    }
    if (it.folded?.length) {
      ctx.textAlign = "left";
      ctx.font = "10px ui-monospace, monospace";
      const y0 = it.y + (it.sub ? 38 : 26);
      const rows = Math.min(it.folded.length, 4);
      for (let k = 0; k < rows; k++) {
        const f = it.folded[k]!;
        const more = k === 3 && it.folded.length > 4;
        ctx.fillStyle = f.mark ? STYLE.marks[f.mark].stroke : "#666";
        ctx.fillText(
          clip(more ? `+${it.folded.length - 3} more` : `${f.name}: ${f.text}`, chars + 4),
          it.x + 6,
          y0 + 6 + k * 13,
        );
      }
    }
    if (it.kind === "group") button(ctx, it.x + it.w - BUTTON - 3, it.y + 3, "+");
  }

  /** Search hits, Check problems and the selection, drawn over the boxes. */
  private drawMarks(items: LayoutItem[], detail: boolean, px: number): void {
    const ctx = this.ctx;
    const ring = (list: LayoutItem[], color: string, width: number, pad: number) => {
      if (!list.length) return;
      ctx.beginPath();
      for (const it of list) ctx.rect(it.x - pad, it.y - pad, it.w + 2 * pad, it.h + 2 * pad);
      ctx.strokeStyle = color;
      ctx.lineWidth = width;
      ctx.stroke();
    };
    const outline = Math.max(px * 3, detail ? 3 : 0);
    if (this.hits.size)
      ring(
        items.filter((it) => this.hits.has(it.key)),
        STYLE.hit,
        outline * 1.4,
        3 * Math.max(1, px),
      );
    if (this.marked.size)
      ring(
        items.filter((it) => this.marked.has(it.key)),
        STYLE.problem,
        outline,
        0,
      );
    if (this.partial.size)
      ring(
        items.filter((it) => this.partial.has(it.key)),
        STYLE.partial,
        outline,
        0,
      );
    if (this.selected !== null) {
      const i = this.index.get(this.selected);
      if (i !== undefined) ring([this.layout!.items[i]!], STYLE.selected, outline, 0);
    }
  }

  private drawMini(w: number, h: number): void {
    const l = this.layout!;
    const dpr = window.devicePixelRatio || 1;
    // the bitmap of a new layout is rendered after its first frame, in a task of its own
    if (!this.miniCache && !this.miniTimer)
      this.miniTimer = window.setTimeout(() => {
        this.miniTimer = 0;
        if (this.layout !== l) return;
        this.miniCache = renderMinimap(l, dpr);
        this.invalidate();
      }, 0);
    paintMinimap(this.mini, this.miniCache, l, dpr, {
      x: -this.tx / this.scale,
      y: -this.ty / this.scale,
      w: w / this.scale,
      h: h / this.scale,
    });
  }

  // ---- input ----

  private toLayout(ev: { clientX: number; clientY: number }): {
    x: number;
    y: number;
    sx: number;
    sy: number;
  } {
    const r = this.canvas.getBoundingClientRect();
    const sx = ev.clientX - r.left;
    const sy = ev.clientY - r.top;
    return { x: (sx - this.tx) / this.scale, y: (sy - this.ty) / this.scale, sx, sy };
  }

  /** What is under a point: a box (topmost), a group button, a frame, or nothing. */
  hitTest(x: number, y: number): { item?: LayoutItem; frame?: LayoutFrame; button?: boolean } {
    const l = this.layout;
    if (!l || !this.grid) return {};
    const found: number[] = [];
    this.grid.query(x, y, x, y, found);
    let best: LayoutItem | undefined;
    for (const id of found) {
      const it = l.items[id];
      if (it && x >= it.x && x <= it.x + it.w && y >= it.y && y <= it.y + it.h) best = it;
    }
    if (best)
      return {
        item: best,
        button:
          best.kind === "group" && x >= best.x + best.w - BUTTON - 5 && y <= best.y + BUTTON + 5,
      };
    let frame: LayoutFrame | undefined;
    for (const f of l.frames)
      if (x >= f.x && x <= f.x + f.w && y >= f.y && y <= f.y + f.h)
        if (!frame || f.w * f.h < frame.w * frame.h) frame = f;
    if (frame)
      return { frame, button: x >= frame.x + frame.w - BUTTON - 5 && y <= frame.y + BUTTON + 6 };
    return {};
  }

  private listen(): void {
    const c = this.canvas;
    let drag: { x: number; y: number; tx: number; ty: number; moved: boolean } | undefined;
    const down = (e: MouseEvent) => {
      if (e.button !== 0) return;
      drag = { x: e.clientX, y: e.clientY, tx: this.tx, ty: this.ty, moved: false };
      c.style.cursor = "grabbing";
    };
    const move = (e: MouseEvent) => {
      if (!drag) return;
      const dx = e.clientX - drag.x;
      const dy = e.clientY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
      if (!drag.moved) return;
      this.tx = drag.tx + dx;
      this.ty = drag.ty + dy;
      this.auto = "";
      this.invalidate();
    };
    const up = (e: MouseEvent) => {
      if (!drag) return;
      const clicked = !drag.moved;
      drag = undefined;
      c.style.cursor = "grab";
      if (clicked) this.click(e);
    };
    const wheel = (e: WheelEvent) => {
      e.preventDefault();
      const p = this.toLayout(e);
      const delta = e.deltaMode === 1 ? e.deltaY * 16 : e.deltaY;
      this.zoomBy(Math.exp(-delta * 0.0015), p.sx, p.sy);
    };
    const dbl = (e: MouseEvent) => {
      const p = this.toLayout(e);
      const hit = this.hitTest(p.x, p.y);
      if (hit.item?.kind === "group") this.events.toggleGroup(hit.item.key, true);
    };
    c.addEventListener("mousedown", down);
    c.addEventListener("wheel", wheel, { passive: false });
    c.addEventListener("dblclick", dbl);
    window.addEventListener("mousemove", move);
    window.addEventListener("mouseup", up);
    // the minimap: click or drag to centre the view there
    let miniDrag = false;
    const miniMove = (e: MouseEvent) => {
      if (!this.layout) return;
      const r = this.mini.getBoundingClientRect();
      // (drawn smaller in a two-pane view: style.css scales it)
      const k = MINI_W / Math.max(r.width, 1);
      const p = minimapTarget(this.layout, (e.clientX - r.left) * k, (e.clientY - r.top) * k);
      const { w, h } = this.size();
      this.tx = w / 2 - p.x * this.scale;
      this.ty = h / 2 - p.y * this.scale;
      this.auto = "";
      this.invalidate();
    };
    const miniDown = (e: MouseEvent) => {
      e.stopPropagation();
      miniDrag = true;
      miniMove(e);
    };
    const miniWinMove = (e: MouseEvent) => {
      if (miniDrag) miniMove(e);
    };
    const miniUp = () => (miniDrag = false);
    this.mini.addEventListener("mousedown", miniDown);
    window.addEventListener("mousemove", miniWinMove);
    window.addEventListener("mouseup", miniUp);
    const resize = new ResizeObserver(() => {
      const { w, h } = this.size();
      const size = `${w}x${h}`;
      if (size === this.lastSize) return;
      this.lastSize = size;
      if (this.auto === "home") this.home();
      else if (this.auto === "fit") this.fit();
      else this.invalidate();
    });
    resize.observe(this.element);
    this.cleanup.push(() => {
      window.removeEventListener("mousemove", move);
      window.removeEventListener("mouseup", up);
      window.removeEventListener("mousemove", miniWinMove);
      window.removeEventListener("mouseup", miniUp);
      resize.disconnect();
    });
  }

  private click(e: MouseEvent): void {
    const p = this.toLayout(e);
    const hit = this.hitTest(p.x, p.y);
    if (hit.item) {
      if (hit.button) {
        this.events.toggleGroup(hit.item.key, true);
        return;
      }
      this.select(hit.item.key);
      this.events.select(hit.item);
      return;
    }
    if (hit.frame && hit.button) {
      this.events.toggleGroup(hit.frame.key, false);
      return;
    }
    this.select(null);
    this.events.select(null);
  }
}

function clamp(x: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, x));
}

function clip(text: string, chars: number): string {
  if (chars < 2) return "";
  return text.length > chars ? `${text.slice(0, chars - 1)}…` : text;
}

/** `text` cut to `chars` characters at its start: "…" and the end. */
function clipStart(text: string, chars: number): string {
  if (chars < 2) return "";
  return text.length > chars ? `…${text.slice(text.length - chars + 1)}` : text;
}

function button(ctx: CanvasRenderingContext2D, x: number, y: number, sign: string): void {
  ctx.fillStyle = "#fff";
  ctx.strokeStyle = "#4a6a8a";
  ctx.lineWidth = 1;
  ctx.fillRect(x, y, BUTTON, BUTTON);
  ctx.strokeRect(x, y, BUTTON, BUTTON);
  ctx.fillStyle = "#234";
  ctx.font = "bold 13px system-ui, sans-serif";
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  ctx.fillText(sign, x + BUTTON / 2, y + BUTTON / 2 + 1);
}

/** An arrowhead at the end of the segment (p[j], p[j+1]) → (p[j+2], p[j+3]). */
function arrow(ctx: CanvasRenderingContext2D, p: number[], j: number): void {
  const x0 = p[j]!;
  const y0 = p[j + 1]!;
  const x1 = p[j + 2]!;
  const y1 = p[j + 3]!;
  const len = Math.hypot(x1 - x0, y1 - y0) || 1;
  const ux = (x1 - x0) / len;
  const uy = (y1 - y0) / len;
  ctx.moveTo(x1, y1);
  ctx.lineTo(x1 - 7 * ux + 3.5 * uy, y1 - 7 * uy - 3.5 * ux);
  ctx.lineTo(x1 - 7 * ux - 3.5 * uy, y1 - 7 * uy + 3.5 * ux);
  ctx.closePath();
}
