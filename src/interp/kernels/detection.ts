// Object detection: NonMaxSuppression, RoiAlign.

import { DataType } from "../../ir/types.js";
import { fromFloat64, toFloat64, scratch } from "../tensor.js";
import type { Kernel } from "../types.js";
import { checkedCount, fail, input, intValues, optInput, scalarNumber } from "./util.js";
import { floatAttr, intAttr, stringAttr } from "./attrs.js";

const prod = (xs: readonly number[]) => xs.reduce((p, d) => p * d, 1);

const NonMaxSuppression: Kernel = (ctx, inputs) => {
  const boxes = input(ctx, inputs, 0);
  const scores = input(ctx, inputs, 1);
  const maxT = optInput(ctx, inputs, 2);
  const iouT = optInput(ctx, inputs, 3);
  const scoreT = optInput(ctx, inputs, 4);
  const maxPerClass = maxT ? (intValues(ctx, maxT, "max_output_boxes_per_class")[0] ?? 0) : 0;
  const iouMax = iouT ? scalarNumber(ctx, iouT, "iou_threshold") : 0;
  const scoreMin = scoreT ? scalarNumber(ctx, scoreT, "score_threshold") : -Infinity;
  const center = intAttr(ctx, "center_point_box") !== 0;
  const [nb, n] = boxes.shape as [number, number];
  const nc = scores.shape[1]!;
  const bv = toFloat64(boxes);
  const sv = toFloat64(scores);
  const corners = (b: number, i: number): [number, number, number, number] => {
    const o = (b * n + i) * 4;
    if (center) {
      const [xc, yc, w, h] = [bv[o]!, bv[o + 1]!, bv[o + 2]!, bv[o + 3]!];
      return [yc - h / 2, xc - w / 2, yc + h / 2, xc + w / 2];
    }
    const [y1, x1, y2, x2] = [bv[o]!, bv[o + 1]!, bv[o + 2]!, bv[o + 3]!];
    return [Math.min(y1, y2), Math.min(x1, x2), Math.max(y1, y2), Math.max(x1, x2)];
  };
  const iou = (a: number[], b: number[]) => {
    const ih = Math.max(0, Math.min(a[2]!, b[2]!) - Math.max(a[0]!, b[0]!));
    const iw = Math.max(0, Math.min(a[3]!, b[3]!) - Math.max(a[1]!, b[1]!));
    const inter = ih * iw;
    const union = (a[2]! - a[0]!) * (a[3]! - a[1]!) + (b[2]! - b[0]!) * (b[3]! - b[1]!) - inter;
    return union > 0 ? inter / union : 0;
  };
  const selected: number[] = [];
  for (let b = 0; b < nb; b++)
    for (let c = 0; c < nc; c++) {
      const cand: number[] = [];
      for (let i = 0; i < n; i++) if (sv[(b * nc + c) * n + i]! > scoreMin) cand.push(i);
      cand.sort((p, q) => sv[(b * nc + c) * n + q]! - sv[(b * nc + c) * n + p]! || p - q);
      const kept: number[][] = [];
      for (const i of cand) {
        if (kept.length >= maxPerClass) break;
        const box = corners(b, i);
        if (kept.some((k) => iou(k, box) > iouMax)) continue;
        kept.push(box);
        selected.push(b, c, i);
      }
    }
  return [
    {
      dtype: DataType.INT64,
      shape: [selected.length / 3, 3],
      data: BigInt64Array.from(selected, (v) => BigInt(v)),
    },
  ];
};

// ---------------------------------------------------------------------------------------------
// RoiAlign: bilinear samples averaged (or maxed) over each output bin of each region.

const RoiAlign: Kernel = (ctx, inputs) => {
  const x = input(ctx, inputs, 0);
  const rois = toFloat64(input(ctx, inputs, 1));
  const batchIdx = intValues(ctx, input(ctx, inputs, 2), "batch_indices");
  if (x.shape.length !== 4) fail(ctx, "X must be [N, C, H, W]");
  const [, c, h, w] = x.shape as [number, number, number, number];
  const oh = intAttr(ctx, "output_height");
  const ow = intAttr(ctx, "output_width");
  const ratio = intAttr(ctx, "sampling_ratio");
  const scale = floatAttr(ctx, "spatial_scale");
  const isMax = stringAttr(ctx, "mode") === "max";
  const halfPixel =
    // RoiAlign-10 has no such attribute: it always works as "output_half_pixel".
    stringAttr(ctx, "coordinate_transformation_mode", { without: "output_half_pixel" }) ===
    "half_pixel";
  const num = batchIdx.length;
  const outShape = [num, c, oh, ow];
  checkedCount(ctx, outShape);
  const v = toFloat64(x);
  const out = scratch(Float64Array, prod(outShape));
  const off = halfPixel ? 0.5 : 0;
  for (let r = 0; r < num; r++) {
    const b = batchIdx[r]!;
    const sw = rois[r * 4]! * scale - off;
    const sh = rois[r * 4 + 1]! * scale - off;
    let rw = rois[r * 4 + 2]! * scale - off - sw;
    let rh = rois[r * 4 + 3]! * scale - off - sh;
    if (!halfPixel) {
      rw = Math.max(rw, 1);
      rh = Math.max(rh, 1);
    }
    const bh = rh / oh;
    const bw = rw / ow;
    const gh = ratio > 0 ? ratio : Math.ceil(rh / oh);
    const gw = ratio > 0 ? ratio : Math.ceil(rw / ow);
    const count = Math.max(gh * gw, 1);
    for (let ch = 0; ch < c; ch++) {
      const plane = (b * c + ch) * h * w;
      for (let py = 0; py < oh; py++)
        for (let px = 0; px < ow; px++) {
          let acc = isMax ? -Infinity : 0;
          let any = false;
          for (let iy = 0; iy < gh; iy++)
            for (let ix = 0; ix < gw; ix++) {
              let y = sh + py * bh + ((iy + 0.5) * bh) / gh;
              let xx = sw + px * bw + ((ix + 0.5) * bw) / gw;
              if (y < -1 || y > h || xx < -1 || xx > w) {
                if (isMax) any = true;
                if (isMax) acc = Math.max(acc, 0);
                continue;
              }
              y = Math.max(y, 0);
              xx = Math.max(xx, 0);
              let y0 = Math.floor(y);
              let x0 = Math.floor(xx);
              let y1 = y0 + 1;
              let x1 = x0 + 1;
              if (y0 >= h - 1) y0 = y1 = h - 1;
              if (x0 >= w - 1) x0 = x1 = w - 1;
              if (y0 === h - 1) y = y0;
              if (x0 === w - 1) xx = x0;
              const ly = y - y0;
              const lx = xx - x0;
              const terms = [
                (1 - ly) * (1 - lx) * v[plane + y0 * w + x0]!,
                (1 - ly) * lx * v[plane + y0 * w + x1]!,
                ly * (1 - lx) * v[plane + y1 * w + x0]!,
                ly * lx * v[plane + y1 * w + x1]!,
              ];
              any = true;
              if (isMax) acc = Math.max(acc, ...terms);
              else acc += terms[0]! + terms[1]! + terms[2]! + terms[3]!;
            }
          out[((r * c + ch) * oh + py) * ow + px] = isMax ? (any ? acc : 0) : acc / count;
        }
    }
  }
  return [fromFloat64(x.dtype, outShape, out)];
};

export const detectionKernels: Record<string, Kernel> = { NonMaxSuppression, RoiAlign };
