// Generated Reduce models: every Reduce op x the opsets where its versions change x axes
// variants (absent, [], one, several, negative; as attribute, Constant `value`, Constant
// `value_ints`, initializer, one constant shared by two nodes) x keepdims x noop_with_empty_axes,
// converted up, down, and up-then-down. The converted model must pass `check` and give the
// original's outputs in the interpreter and in onnxruntime-node.

import * as ort from "onnxruntime-node";
import { describe, expect, it } from "vitest";
import { checkModel, formatProblem } from "../../src/check/index.js";
import { convertModel } from "../../src/convert/index.js";
import { encodeModel } from "../../src/io/files.js";
import type { Model } from "../../src/ir/types.js";
import { run } from "../../src/interp/executor.js";
import type { RTensor } from "../../src/interp/types.js";
import { parseModelText } from "../../src/text/parse.js";

const OTHERS = [
  "ReduceL1",
  "ReduceL2",
  "ReduceLogSum",
  "ReduceLogSumExp",
  "ReduceMean",
  "ReduceProd",
  "ReduceSumSquare",
];
/** The opsets each op's models are written at (one per distinct version that matters here). */
const OPSETS: Record<string, number[]> = {
  ReduceSum: [11, 13, 18],
  ...Object.fromEntries(OTHERS.map((op) => [op, [11, 13, 18]])),
  ReduceMax: [11, 12, 13, 18, 20],
  ReduceMin: [11, 12, 13, 18, 20],
};
const axesIsInput = (op: string, opset: number) => opset >= (op === "ReduceSum" ? 13 : 18);
const irFor = (opset: number) => (opset <= 11 ? 6 : opset <= 14 ? 7 : opset <= 18 ? 8 : 9);

type AxesForm = "attr" | "const" | "ints" | "init" | "shared";
interface Case {
  op: string;
  opset: number;
  axes: number[] | undefined;
  form: AxesForm;
  keepdims: number;
  noop: number;
}

function modelText(c: Case): string {
  const input = axesIsInput(c.op, c.opset);
  const attrs: string[] = [`keepdims: int = ${c.keepdims}`];
  if (c.noop) attrs.push(`noop_with_empty_axes: int = ${c.noop}`);
  let pre = "";
  let inits = "";
  let axesArg = "";
  if (c.axes !== undefined) {
    const list = c.axes.join(", ");
    if (!input) attrs.unshift(`axes: ints = [${list}]`);
    else if (c.form === "init") {
      inits = ` <int64[${c.axes.length}] ax = {${list}}>`;
      axesArg = ", ax";
    } else {
      pre =
        c.form === "ints"
          ? `ax = Constant <value_ints: ints = [${list}]> ()`
          : `ax = Constant <value: tensor = int64[${c.axes.length}] {${list}}> ()`;
      axesArg = ", ax";
    }
  }
  const shared = c.form === "shared";
  const a = attrs.join(", ");
  const a2 = attrs
    .map((s) => (s.startsWith("keepdims") ? `keepdims: int = ${1 - c.keepdims}` : s))
    .join(", ");
  return `<ir_version: ${irFor(c.opset)}, opset_import: ["" : ${c.opset}]>
g (float[2,3,4] x) => (tensor(float) y${shared ? ", tensor(float) z" : ""})${inits} {
  ${pre}
  [r1] y = ${c.op} <${a}> (x${axesArg})
  ${shared ? `[r2] z = ${c.op} <${a2}> (x${axesArg})` : ""}
}`;
}

function cases(): Case[] {
  const out: Case[] = [];
  const axesList: (number[] | undefined)[] = [undefined, [], [1], [0, 2], [-1]];
  for (const [op, opsets] of Object.entries(OPSETS))
    for (const opset of opsets) {
      const input = axesIsInput(op, opset);
      const forms: AxesForm[] = input ? ["const", "ints", "init", "shared"] : ["attr", "shared"];
      for (const axes of axesList)
        for (const form of forms) {
          if (axes === undefined && form !== forms[0]) continue;
          if (form === "ints" && axes?.length === 0) continue;
          for (const keepdims of [0, 1])
            for (const noop of input ? [0, 1] : [0])
              out.push({ op, opset, axes, form, keepdims, noop });
        }
    }
  return out;
}

const X: RTensor = {
  dtype: 1,
  shape: [2, 3, 4],
  data: Float32Array.from({ length: 24 }, (_, i) => 0.25 + ((i * 7) % 24) / 8),
};

function runInterp(m: Model): Record<string, Float32Array> {
  const r = run(m, { x: X });
  return Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v.data as Float32Array]));
}

async function runOrt(m: Model): Promise<Record<string, Float32Array>> {
  const s = await ort.InferenceSession.create(encodeModel(m));
  const r = await s.run({ x: new ort.Tensor("float32", X.data as Float32Array, X.shape) });
  await s.release();
  return Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v.data as Float32Array]));
}

function close(
  a: Record<string, Float32Array>,
  b: Record<string, Float32Array>,
  rtol: number,
): void {
  expect(Object.keys(a).sort()).toEqual(Object.keys(b).sort());
  for (const k of Object.keys(a)) {
    const x = a[k]!;
    const y = b[k]!;
    expect(y.length).toBe(x.length);
    for (let i = 0; i < x.length; i++)
      if (Math.abs(x[i]! - y[i]!) > rtol * Math.max(1, Math.abs(x[i]!)))
        expect.fail(`${k}[${i}]: ${y[i]} vs ${x[i]}`);
  }
}

const all = cases();
const counts = { conversions: 0, ort: 0 };

describe(`generated Reduce models (${all.length} models)`, () => {
  for (const op of Object.keys(OPSETS))
    it(`${op}: up, down and up-then-down give the same outputs, and check passes`, async () => {
      for (const c of all.filter((x) => x.op === op)) {
        const text = modelText(c);
        const model = parseModelText(text);
        expect(checkModel(model).problems.map(formatProblem), text).toEqual([]);
        const want = runInterp(model);
        const targets = OPSETS[op]!.filter((t) => t !== c.opset);
        const top = Math.max(...OPSETS[op]!);
        const plans: [number[], Model][] = targets.map((t) => [[t], model]);
        if (c.opset !== top) plans.push([[top, c.opset], model]);
        for (const [steps] of plans) {
          let m = model;
          for (const t of steps) {
            const r = convertModel(m, t);
            expect(r.plan.blocked, `${text}\n-> ${t}`).toEqual([]);
            m = r.model!;
            counts.conversions++;
          }
          const label = `${text}\n-> ${steps.join(" -> ")}`;
          expect(checkModel(m).problems.map(formatProblem), label).toEqual([]);
          expect(m.opsetImports[0]!.version).toBe(steps[steps.length - 1]);
          close(want, runInterp(m), 1e-6);
          close(want, await runOrt(m), 1e-4);
          counts.ort++;
        }
      }
    });

  it("covered every case", () => {
    console.log(
      `generated Reduce models: ${all.length} models, ${counts.conversions} conversions, ${counts.ort} converted models compared in the interpreter and onnxruntime-node`,
    );
    expect(counts.conversions).toBeGreaterThan(all.length);
  });
});
