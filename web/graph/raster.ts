// The overview at small scale: when boxes are a few pixels, filling thousands of canvas paths
// costs more than a frame may take, so boxes and frames are written straight into a pixel buffer
// (one 32-bit write a pixel) and put on the canvas at once.

import { STYLE, styleOf } from "./style.js";
import type { LayoutFrame, LayoutItem } from "./types.js";

const colours = new Map<string, number>();

/**
 * A "#rrggbb" colour as a pixel of an ImageData's Int32 view (little-endian RGBA). Opaque, so
 * the value is a small negative integer: typed-array writes of it stay on V8's fast path.
 */
function pixelOf(hex: string): number {
  let c = colours.get(hex);
  if (c === undefined) {
    const v = parseInt(hex.slice(1, 7), 16);
    c = (0xff << 24) | ((v & 0xff) << 16) | (v & 0xff00) | ((v >> 16) & 0xff);
    colours.set(hex, c);
  }
  return c;
}

export class Raster {
  private image: ImageData | undefined;

  /**
   * Paints frames and boxes at the view (screen = layout × scale + t, then × dpr) onto the
   * canvas, replacing what it held.
   */
  paint(
    ctx: CanvasRenderingContext2D,
    frames: readonly LayoutFrame[],
    items: readonly LayoutItem[],
    view: { scale: number; tx: number; ty: number; dpr: number },
  ): void {
    const cw = ctx.canvas.width;
    const ch = ctx.canvas.height;
    if (!this.image || this.image.width !== cw || this.image.height !== ch)
      this.image = new ImageData(cw, ch);
    const px = new Int32Array(this.image.data.buffer);
    px.fill(-1);
    const k = view.scale * view.dpr;
    const ox = view.tx * view.dpr;
    const oy = view.ty * view.dpr;
    const fill = (x: number, y: number, w: number, h: number, c: number, outline: boolean) => {
      const x0 = Math.max(0, Math.floor(x * k + ox));
      const y0 = Math.max(0, Math.floor(y * k + oy));
      const x1 = Math.min(cw, Math.max(x0 + 1, Math.floor((x + w) * k + ox)));
      const y1 = Math.min(ch, Math.max(y0 + 1, Math.floor((y + h) * k + oy)));
      if (x0 >= x1 || y0 >= y1) return;
      if (!outline) {
        for (let r = y0; r < y1; r++)
          for (let q = r * cw + x0, e = r * cw + x1; q < e; q++) px[q] = c;
        return;
      }
      for (let q = y0 * cw + x0, e = y0 * cw + x1; q < e; q++) px[q] = c;
      for (let q = (y1 - 1) * cw + x0, e = (y1 - 1) * cw + x1; q < e; q++) px[q] = c;
      for (let r = y0; r < y1; r++) {
        px[r * cw + x0] = c;
        px[r * cw + x1 - 1] = c;
      }
    };
    const frameFill = pixelOf("#eef2f8");
    for (const f of frames) {
      fill(f.x, f.y, f.w, f.h, frameFill, false);
      fill(
        f.x,
        f.y,
        f.w,
        f.h,
        pixelOf(f.mark ? STYLE.marks[f.mark].stroke : STYLE.frame.stroke),
        true,
      );
    }
    for (const it of items) {
      const st = styleOf(it);
      // a box of a few pixels shows in its outline's colour; a larger one filled and outlined
      const small = it.w * k < 6 || it.h * k < 6;
      fill(it.x, it.y, it.w, it.h, pixelOf(small ? st.stroke : st.fill), false);
      if (!small) fill(it.x, it.y, it.w, it.h, pixelOf(st.stroke), true);
    }
    ctx.putImageData(this.image, 0, 0);
  }
}
