// A stand-in for web/graph's GraphCanvas until it lands: draws a Layout as SVG (every box, no
// culling) behind the GraphCanvasApi contract, and turns the worker's old Drawing into a Layout.
// The page codes against the contract only, so this file goes when the canvas comes.

import type { GraphCanvasApi, GraphCanvasEvents, Layout, LayoutItem } from "./graph/types.js";
import type { Drawing } from "./protocol.js";

const SVG = "http://www.w3.org/2000/svg";

export function drawingToLayout(d: Drawing): Layout {
  return {
    view: d.view,
    title: d.title,
    items: d.nodes.map((n) => ({
      key: n.kind === "op" ? `n${n.index}` : `${n.kind === "in" ? "i" : "o"}${n.index}`,
      kind: n.kind,
      index: n.kind === "op" ? n.index : -1,
      label: n.label,
      sub: n.sub,
      x: n.x,
      y: n.y,
      w: n.w,
      h: n.h,
      parent: "",
      ...(n.mark ? { mark: n.mark as LayoutItem["mark"] } : {}),
      ...(n.subgraphs ? { subgraphs: n.subgraphs } : {}),
    })),
    frames: [],
    edges: d.edges.map((e) => ({ from: "", to: "", points: e.points, title: e.title })),
    width: d.width,
    height: d.height,
    ms: d.ms,
    total: d.nodes.filter((n) => n.kind === "op").length,
  };
}

function el<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

export class SvgCanvas implements GraphCanvasApi {
  lastFrameMs = 0;
  private readonly svg: SVGSVGElement;
  private layout?: Layout;
  private s = 1;
  private tx = 0;
  private ty = 0;
  private readonly boxes = new Map<string, SVGGElement>();

  constructor(
    private readonly host: HTMLElement,
    private readonly events: GraphCanvasEvents,
  ) {
    this.svg = el("svg", { class: "graph" });
    host.append(this.svg);
    let drag: { x: number; y: number; moved: boolean } | undefined;
    this.svg.addEventListener(
      "mousedown",
      (e) => (drag = { x: e.clientX, y: e.clientY, moved: false }),
    );
    window.addEventListener("mousemove", (e) => {
      if (!drag) return;
      const dx = e.clientX - drag.x;
      const dy = e.clientY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 2) drag.moved = true;
      drag.x = e.clientX;
      drag.y = e.clientY;
      this.panBy(dx, dy);
    });
    window.addEventListener("mouseup", (e) => {
      if (drag && !drag.moved) {
        const g = (e.target as Element | null)?.closest?.("g.node") as SVGGElement | null;
        const item = g ? this.layout?.items.find((i) => i.key === g.dataset.key) : undefined;
        if (this.svg.contains(e.target as Node)) this.events.select(item ?? null);
      }
      drag = undefined;
    });
    this.svg.addEventListener(
      "wheel",
      (e) => {
        e.preventDefault();
        const r = this.svg.getBoundingClientRect();
        this.zoomBy(Math.exp(-e.deltaY * 0.0015), e.clientX - r.left, e.clientY - r.top);
      },
      { passive: false },
    );
  }

  setLayout(layout: Layout, keepView = false): void {
    const t0 = performance.now();
    this.layout = layout;
    this.boxes.clear();
    const world = el("g", { class: "world" });
    for (const e of layout.edges) {
      if (e.points.length < 4) continue;
      let d = `M${e.points[0]},${e.points[1]}`;
      for (let i = 2; i < e.points.length; i += 2) d += `L${e.points[i]},${e.points[i + 1]}`;
      world.append(el("path", { d, class: "edge" }));
    }
    for (const n of layout.items) {
      const g = el("g", {
        class: `node ${n.kind}${n.mark ? ` ${n.mark}` : ""}`,
        transform: `translate(${n.x},${n.y})`,
      });
      g.dataset.key = n.key;
      g.append(el("rect", { width: n.w, height: n.h, rx: n.kind === "op" ? 3 : 12 }));
      const t = el("text", { x: n.w / 2, y: n.sub ? 15 : 17, "text-anchor": "middle" });
      t.textContent = n.label;
      g.append(t);
      if (n.sub) {
        const s = el("text", { x: n.w / 2, y: 31, "text-anchor": "middle", class: "sub" });
        s.textContent = n.sub.length > 30 ? `${n.sub.slice(0, 29)}…` : n.sub;
        g.append(s);
      }
      world.append(g);
      this.boxes.set(n.key, g);
    }
    this.svg.replaceChildren(world);
    if (!keepView) this.home();
    else this.apply();
    this.lastFrameMs = performance.now() - t0;
  }

  private apply(): void {
    const t0 = performance.now();
    this.svg.firstElementChild?.setAttribute(
      "transform",
      `translate(${this.tx},${this.ty}) scale(${this.s})`,
    );
    this.lastFrameMs = performance.now() - t0;
  }

  fit(): void {
    const l = this.layout;
    if (!l) return;
    const r = this.svg.getBoundingClientRect();
    this.s = Math.min(r.width / (l.width + 20), r.height / (l.height + 20), 1.5) || 1;
    this.tx = (r.width - l.width * this.s) / 2;
    this.ty = 10;
    this.apply();
  }

  home(): void {
    this.fit();
    if (this.s < 0.6 && this.layout) {
      this.s = 0.8;
      this.tx = 10;
      this.ty = 10;
      this.apply();
    }
  }

  zoomBy(k: number, atX?: number, atY?: number): void {
    const r = this.svg.getBoundingClientRect();
    const mx = atX ?? r.width / 2;
    const my = atY ?? r.height / 2;
    const s = Math.min(8, Math.max(0.01, this.s * k));
    this.tx = mx - ((mx - this.tx) * s) / this.s;
    this.ty = my - ((my - this.ty) * s) / this.s;
    this.s = s;
    this.apply();
  }

  panBy(dx: number, dy: number): void {
    this.tx += dx;
    this.ty += dy;
    this.apply();
  }

  private mark(cls: string, keys: string[]): void {
    for (const g of this.boxes.values()) g.classList.remove(cls);
    for (const k of keys) this.boxes.get(k)?.classList.add(cls);
  }

  select(key: string | null, reveal = false): void {
    this.mark("selected", key ? [key] : []);
    const n = key ? this.layout?.items.find((i) => i.key === key) : undefined;
    if (!n || !reveal) return;
    const r = this.svg.getBoundingClientRect();
    if (this.s < 0.6) this.s = 1;
    this.tx = r.width / 2 - (n.x + n.w / 2) * this.s;
    this.ty = r.height / 2 - (n.y + n.h / 2) * this.s;
    this.apply();
  }

  highlight(keys: string[]): void {
    this.mark("hit", keys);
  }

  problems(keys: string[]): void {
    this.mark("problem", keys);
  }

  exportSvg(): string {
    const l = this.layout;
    const world = this.svg.firstElementChild?.cloneNode(true) as SVGGElement | undefined;
    world?.removeAttribute("transform");
    return `<svg xmlns="${SVG}" width="${l?.width ?? 0}" height="${l?.height ?? 0}">${world?.outerHTML ?? ""}</svg>`;
  }

  async exportPng(): Promise<Blob> {
    const l = this.layout;
    const c = document.createElement("canvas");
    c.width = Math.max(1, Math.min(4000, Math.ceil(l?.width ?? 1)));
    c.height = Math.max(1, Math.min(4000, Math.ceil(l?.height ?? 1)));
    const g = c.getContext("2d")!;
    g.fillStyle = "#fff";
    g.fillRect(0, 0, c.width, c.height);
    for (const n of l?.items ?? []) {
      g.strokeStyle = "#4a6a8a";
      g.strokeRect(n.x, n.y, n.w, n.h);
      g.fillStyle = "#111";
      g.fillText(n.label, n.x + 4, n.y + 14);
    }
    return new Promise((resolve, reject) =>
      c.toBlob((b) => (b ? resolve(b) : reject(new Error("no PNG"))), "image/png"),
    );
  }

  destroy(): void {
    this.svg.remove();
  }
}
