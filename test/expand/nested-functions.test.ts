// Nested model-local functions, as torch's export_modules_as_functions writes them (mobilenet's
// Hardswish module as a local function calling HardSwish and CastLike, inside another module's
// function): types flow from the main graph into function bodies at any depth, whether the
// functions are inlined or kept, and every problem is reported once.

import { describe, expect, it } from "vitest";
import { modelFunctions } from "../../src/check/index.js";
import { noteText } from "../../src/passes/pass.js";
import { parseModelText } from "../../src/text/parse.js";
import { expectSameOutputs } from "../helpers/pass.js";
import { expand, expandResult, opsOf } from "../helpers/expand.js";

const ACT = "torch.nn.modules.activation";
const MISC = "torchvision.ops.misc";

/** The main graph calls Conv2dNormActivation, which calls Hardswish (HardSwish, then CastLike). */
const model = (inputs: string, calls: string, outputs: string) => `
  < ir_version: 8, opset_import: ["" : 18, "${ACT}" : 1, "${MISC}" : 1] >
  mobilenet_block (${inputs}) => (${outputs}) {
    ${calls}
  }
  < domain: "${MISC}", opset_import: ["" : 18, "${ACT}" : 1] >
  Conv2dNormActivation (input, w) => (out) {
    [Conv_3] c = Conv <pads: ints = [1, 1, 1, 1]> (input, w)
    [Hardswish_5] out = ${ACT}.Hardswish (c)
  }
  < domain: "${ACT}", opset_import: ["" : 18] >
  Hardswish (input) => (output) {
    [HardSwish_88] hs = HardSwish (input)
    [CastLike_89] output = CastLike (hs, input)
  }`;

const FLOAT = model(
  "float[1,2,5,5] x, float[4,2,3,3] w",
  `[features_0] y = ${MISC}.Conv2dNormActivation (x, w)
   [features_1] z = ${MISC}.Conv2dNormActivation (y, w2)`,
  "float[1,4,5,5] z",
).replace("mobilenet_block (", "mobilenet_block (float[4,4,3,3] w2, ");

describe("nested model-local functions", () => {
  it("expand inlines them all, typed from the main graph, with the same numbers", () => {
    const m = parseModelText(FLOAT);
    const r = expand(m);
    expect(r.model.functions).toEqual([]);
    const ops = opsOf(r.model);
    for (const op of ["HardSwish", "CastLike", `${ACT}.Hardswish`]) expect(ops).not.toContain(op);
    expectSameOutputs(m, r.model);
  });

  for (const [what, options] of [
    [
      "--only HardSwish,CastLike (the functions stay)",
      {
        only: [
          { domain: "", op: "HardSwish" },
          { domain: "", op: "CastLike" },
        ],
      },
    ],
    ["--keep Conv2dNormActivation", { keep: [{ domain: MISC, op: "Conv2dNormActivation" }] }],
  ] as const)
    it(`${what}: the bodies left are typed by their calls`, () => {
      const m = parseModelText(FLOAT);
      const r = expand(m, options);
      expect(r.model.functions.length).toBeGreaterThan(0);
      const ops = opsOf(r.model);
      expect(ops).not.toContain("HardSwish");
      expect(ops).not.toContain("CastLike");
      expectSameOutputs(m, r.model);
    });

  it("calls that disagree on a type leave the body untyped: each problem is reported once", () => {
    const text = model(
      "float[1,2,5,5] x, float[4,2,3,3] w, double[1,2,5,5] xd, double[4,2,3,3] wd",
      `[a] y = ${MISC}.Conv2dNormActivation (x, w)
       [b] yd = ${MISC}.Conv2dNormActivation (xd, wd)`,
      "float[1,4,5,5] y, double[1,4,5,5] yd",
    );
    const r = expandResult(text, {
      only: [
        { domain: "", op: "HardSwish" },
        { domain: "", op: "CastLike" },
      ],
    });
    expect(r.ok).toBe(false);
    const lines = r.notes.filter((n) => n.level === "error").map(noteText);
    expect(lines.length).toBeGreaterThan(0);
    expect(new Set(lines).size).toBe(lines.length);
    for (const l of lines) expect(l).toMatch(/needs the element type of 'target_type'$/);
    // Inlined, each call has its own types: the whole model expands.
    expect(modelFunctions(expand(text).model).size).toBe(0);
  });
});

describe("a body that needs a type nobody knows (issue 32, item 7)", () => {
  // Gelu-20's body casts its constants like its input; here that input comes from an op of a
  // domain this tool does not know, so CastLike's body cannot be built.
  const text = `<ir_version: 9, opset_import: ["" : 20, "com.example" : 1]>
    g (float[2,3] x) => (float[2,3] y) {
      t = com.example.Mystery (x)
      y = Gelu (t)
    }`;

  it("expand all keeps the CastLike calls, saying why, and writes a valid model", () => {
    const r = expandResult(text);
    expect(r.ok).toBe(true);
    const ops = opsOf(r.model!);
    expect(ops).not.toContain("Gelu");
    expect(ops).toContain("CastLike");
    const warnings = r.notes.filter((n) => n.level === "warning").map(noteText);
    expect(warnings.length).toBe(3);
    for (const w of warnings)
      expect(w).toMatch(
        /\(CastLike\): left as it is: the body of CastLike-19 needs the element type of 'target_type', which is unknown here \(computed by an op this tool does not know/,
      );
  });

  it("asked for by name (--only CastLike), it is an error", () => {
    const r = expandResult(text, {
      only: [
        { domain: "", op: "Gelu" },
        { domain: "", op: "CastLike" },
      ],
    });
    expect(r.ok).toBe(false);
  });
});
