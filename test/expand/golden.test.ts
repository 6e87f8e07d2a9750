// Golden text of expanded models: each case's input, expanded, in the printer's layout, compared
// with test/golden/expand/<case>.onnxtxt. Refresh after an intended change with
// `npm run golden:update` and review the change with `git diff test/golden/expand`.

import { describe, it } from "vitest";
import { loadModel } from "../../src/io/files.js";
import type { Model } from "../../src/ir/types.js";
import { parseModelText } from "../../src/text/parse.js";
import { printModel } from "../../src/text/print.js";
import { expand } from "../helpers/expand.js";
import { expectGolden } from "../helpers/golden.js";

const golden = (name: string) =>
  new URL(`../golden/expand/${name}.onnxtxt`, import.meta.url).pathname;
const example = (name: string) => new URL(`../../examples/${name}`, import.meta.url).pathname;

const CASES: Record<string, () => Model> = {
  "reduce-logsum-l1-18": () => loadModel(example("reduce-logsum-l1-18.onnx")),
  "logcumsumexp-29": () => loadModel(example("logcumsumexp-29.onnx")),
  "reduce-int-and-half": () =>
    parseModelText(`
      < ir_version: 9, opset_import: ["" : 18] >
      g (int32[2,3] i, float16[2,3] h, double[N,3] d) => (int32[2] a, float16[2,1] b, double[N] c) {
        ax = Constant <value_ints: ints = [1]> ()
        a = ReduceLogSum <keepdims: int = 0> (i, ax)
        b = ReduceL2 (h, ax)
        c = ReduceLogSumExp <keepdims: int = 0> (d, ax)
      }`),
  "local-functions": () =>
    parseModelText(`
      < ir_version: 9, opset_import: ["" : 18, "local" : 1] >
      g (float[2,3] x, bool c) => (float[2,3] y) {
        [outer] t = local.Scaled <alpha: float = 3.0> (x)
        y = If (c) <
          then_branch: graph = th () => (float[2,3] r) { [inner] r = local.Scaled (t) },
          else_branch: graph = el () => (float[2,3] r2) { r2 = Identity (t) }
        >
      }
      < domain: "local", opset_import: ["" : 18] >
      Scaled <alpha: float = 2.0> (a) => (b) {
        f = Constant <value_float: float = @alpha> ()
        t = Mul (a, f)
        b = ReduceL1 (t)
      }`),
};

describe("golden text of expanded models", () => {
  for (const [name, make] of Object.entries(CASES))
    it(name, () => {
      expectGolden(golden(name), printModel(expand(make()).model));
    });
});
