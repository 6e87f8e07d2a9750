// Nets with the layer shapes of the models bench/interp-models.ts measures, built with the IR
// builder where torch is not at hand: random weights (He-scaled, so that activations neither
// vanish nor explode), BatchNormalization folded into the convolutions' biases.

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { saveModel } from "../src/io/files.js";
import { graph, model, node, valueInfo, type AttrInput } from "../src/ir/builder.js";
import { Tensor } from "../src/ir/tensor.js";
import { DataType, type Node } from "../src/ir/types.js";
import { encodeTensorProto } from "../src/interp/value-proto.js";

class Net {
  nodes: Node[] = [];
  inits: Tensor[] = [];
  private n = 0;
  private seed = 1;
  private rnd(): number {
    this.seed = (Math.imul(this.seed, 1664525) + 1013904223) >>> 0;
    return this.seed / 2 ** 32 - 0.5;
  }
  weight(dims: number[], scale: number): string {
    const name = `w${this.inits.length}`;
    const n = dims.reduce((a, b) => a * b, 1);
    const v = new Float32Array(n);
    for (let i = 0; i < n; i++) v[i] = this.rnd() * scale;
    this.inits.push(Tensor.from(DataType.FLOAT, dims, v, name));
    return name;
  }
  constant(dims: number[], values: number[]): string {
    const name = `w${this.inits.length}`;
    this.inits.push(Tensor.from(DataType.FLOAT, dims, values, name));
    return name;
  }
  op(type: string, inputs: string[], attrs: Record<string, AttrInput> = {}): string {
    const out = `t${this.n++}`;
    this.nodes.push(node(type, inputs, [out], attrs));
    return out;
  }
  conv(x: string, cin: number, cout: number, k: number, s = 1, group = 1, act = "Relu"): string {
    const p = Math.floor(k / 2);
    const w = this.weight([cout, cin / group, k, k], Math.sqrt(24 / ((cin / group) * k * k)));
    const b = this.weight([cout], 0.2);
    const y = this.op("Conv", [x, w, b], { strides: [s, s], pads: [p, p, p, p], group });
    return act ? this.op(act, [y]) : y;
  }
  save(name: string, dir: string, input: number[], out: string, opset: number): void {
    const m = model(
      graph({
        nodes: this.nodes,
        inputs: [valueInfo("input", DataType.FLOAT, input)],
        outputs: [valueInfo(out, DataType.FLOAT)],
        initializers: this.inits,
      }),
      opset,
    );
    saveModel(m, join(dir, `${name}.onnx`));
    const n = input.reduce((a, b) => a * b, 1);
    const x = new Float32Array(n);
    for (let i = 0; i < n; i++) x[i] = this.rnd() * 2;
    mkdirSync(join(dir, name), { recursive: true });
    writeFileSync(
      join(dir, name, "input_0.pb"),
      encodeTensorProto({ dtype: DataType.FLOAT, shape: input, data: x }, "input"),
    );
  }
}

function resnet18(dir: string): void {
  const g = new Net();
  let x = g.conv("input", 3, 64, 7, 2);
  x = g.op("MaxPool", [x], { kernel_shape: [3, 3], strides: [2, 2], pads: [1, 1, 1, 1] });
  let c = 64;
  for (const [cout, stride] of [
    [64, 1],
    [128, 2],
    [256, 2],
    [512, 2],
  ] as [number, number][])
    for (let blk = 0; blk < 2; blk++) {
      const s = blk === 0 ? stride : 1;
      const y = g.conv(g.conv(x, c, cout, 3, s), cout, cout, 3, 1, 1, "");
      const skip = s !== 1 || c !== cout ? g.conv(x, c, cout, 1, s, 1, "") : x;
      x = g.op("Relu", [g.op("Add", [y, skip])]);
      c = cout;
    }
  x = g.op("Flatten", [g.op("GlobalAveragePool", [x])]);
  const out = g.op("Gemm", [x, g.weight([1000, 512], 0.1), g.weight([1000], 0.1)], { transB: 1 });
  g.save("resnet18", dir, [1, 3, 224, 224], out, 13);
}

function convnextTiny(dir: string): void {
  const g = new Net();
  const ln = (x: string, c: number) =>
    g.op("LayerNormalization", [x, g.weight([c], 2), g.weight([c], 0.2)], { axis: -1 });
  const nhwc = (x: string) => g.op("Transpose", [x], { perm: [0, 2, 3, 1] });
  const nchw = (x: string) => g.op("Transpose", [x], { perm: [0, 3, 1, 2] });
  const linear = (x: string, cin: number, cout: number) =>
    g.op("Add", [
      g.op("MatMul", [x, g.weight([cin, cout], Math.sqrt(12 / cin))]),
      g.weight([cout], 0.1),
    ]);
  let x = nchw(ln(nhwc(g.conv("input", 3, 96, 4, 4, 1, "")), 96));
  const dims = [96, 192, 384, 768];
  const depths = [3, 3, 9, 3];
  dims.forEach((c, s) => {
    if (s > 0) {
      x = nchw(ln(nhwc(x), dims[s - 1]!));
      const w = g.weight([c, dims[s - 1]!, 2, 2], Math.sqrt(6 / (dims[s - 1]! * 4)));
      x = g.op("Conv", [x, w, g.weight([c], 0.1)], { strides: [2, 2] });
    }
    for (let b = 0; b < depths[s]!; b++) {
      let y = g.conv(x, c, c, 7, 1, c, "");
      y = linear(ln(nhwc(y), c), c, 4 * c);
      // GELU as torch exports it: x · 0.5 · (1 + erf(x / √2))
      const e = g.op("Erf", [g.op("Div", [y, g.constant([], [Math.SQRT2])])]);
      const one = g.op("Add", [e, g.constant([1], [1])]);
      y = g.op("Mul", [g.op("Mul", [y, one]), g.constant([1], [0.5])]);
      y = g.op("Mul", [nchw(linear(y, 4 * c, c)), g.weight([c, 1, 1], 0.2)]);
      x = g.op("Add", [x, y]);
    }
  });
  x = ln(g.op("Flatten", [g.op("GlobalAveragePool", [x])]), 768);
  const out = g.op("Gemm", [x, g.weight([1000, 768], 0.1), g.weight([1000], 0.1)], { transB: 1 });
  g.save("convnext_tiny", dir, [1, 3, 224, 224], out, 17);
}

function ocrDet(dir: string): void {
  const g = new Net();
  const chans = [16, 24, 48, 96, 192];
  let x = g.conv("input", 3, 16, 3, 2, 1, "HardSwish");
  const feats: string[] = [];
  for (let i = 1; i < 5; i++) {
    const [cin, cout] = [chans[i - 1]!, chans[i]!];
    x = g.conv(x, cin, cin, 5, 2, cin, "HardSwish");
    x = g.conv(x, cin, cout, 1, 1, 1, "HardSwish");
    x = g.conv(x, cout, cout, 3, 1, cout, "HardSwish");
    x = g.conv(x, cout, cout, 1, 1, 1, "HardSwish");
    feats.push(x);
  }
  const up = (t: string, scales: number[]) =>
    g.op("Resize", [t, "", g.constant([4], scales)], { mode: "nearest" });
  const lat = feats.map((f, i) => g.conv(f, chans[i + 1]!, 64, 1, 1, 1, ""));
  for (let i = lat.length - 1; i > 0; i--)
    lat[i - 1] = g.op("Add", [lat[i - 1]!, up(lat[i]!, [1, 1, 2, 2])]);
  const outs = lat.map((l, i) => up(g.conv(l, 64, 16, 3, 1, 1, ""), [1, 1, 2 ** i, 2 ** i]));
  x = g.conv(g.op("Concat", outs, { axis: 1 }), 64, 16, 3, 1, 1, "HardSwish");
  for (const [cout, act] of [
    [16, "Relu"],
    [1, "Sigmoid"],
  ] as [number, string][]) {
    const w = g.weight([16, cout, 2, 2], 0.4);
    x = g.op(act, [g.op("ConvTranspose", [x, w, g.weight([cout], 0.1)], { strides: [2, 2] })]);
  }
  g.save("ocr_det", dir, [1, 3, 640, 640], x, 17);
}

export function generateNet(name: string, dir: string): void {
  if (name === "resnet18") resnet18(dir);
  else if (name === "convnext_tiny") convnextTiny(dir);
  else if (name === "ocr_det") ocrDet(dir);
  else throw new Error(`no generator for '${name}'`);
}
