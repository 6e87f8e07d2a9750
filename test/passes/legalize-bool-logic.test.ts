// legalize-bool-logic: And, Or and Xor of bool masks as arithmetic on 0 and 1 (for a target
// without them that runs no bool but its Cast: onnxruntime-web's WebGPU kernels), checked on
// every pair of values broadcast [4,1] against [1,4], the same bools on onnxruntime; left where
// the target has the op or takes no Cast from bool.

import { describe, expect, it } from "vitest";
import { DataType } from "../../src/ir/types.js";
import { runPass } from "../../src/passes/index.js";
import { legalizeBoolLogic } from "../../src/passes/legalize-bool-logic.js";
import { parseModelText } from "../../src/text/parse.js";
import { expectSameOnOrt } from "../helpers/ort.js";

// a target like WebGPU's: no And/Or/Xor; Cast, Mul, Add, Sub on int32 and float, Cast from bool
const NUMERIC = ["Cast", "Mul", "Add", "Sub"];
const webgpuLike = {
  has: (op: string) => !["And", "Or", "Xor"].includes(op),
  takes: (op: string, t: number) =>
    NUMERIC.includes(op) && (t !== DataType.BOOL || op === "Cast") && t !== DataType.INT64,
};

const logic = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (bool[4,1] a, bool[1,4] b) => (bool[4,4] and, bool[4,4] or, bool[4,4] xor, bool[4,4] both) {
  and = And (a, b)
  or = Or (a, b)
  xor = Xor (a, b)
  na = Not (a)
  both = And (and, na)
}`);

const feeds = {
  a: { dtype: DataType.BOOL, shape: [4, 1], data: Uint8Array.from([0, 1, 0, 1]) },
  b: { dtype: DataType.BOOL, shape: [1, 4], data: Uint8Array.from([0, 0, 1, 1]) },
};

describe("legalize-bool-logic", () => {
  it("And, Or, Xor become int32 Mul, Add, Sub between Casts: the same bools on onnxruntime", async () => {
    const r = runPass(legalizeBoolLogic(webgpuLike), logic);
    expect(r.ok && r.modified).toBe(true);
    if (!r.ok) return;
    const ops = r.model.graph.nodes.map((n) => n.opType);
    expect(ops.filter((o) => ["And", "Or", "Xor"].includes(o))).toEqual([]);
    expect(ops.filter((o) => ["Mul", "Add", "Sub"].includes(o)).sort()).toEqual([
      "Add",
      "Mul",
      "Mul",
      "Sub",
    ]);
    await expectSameOnOrt(logic, r.model, feeds);
  });
  it("in float where the target's arithmetic takes no int32", async () => {
    const floatOnly = {
      ...webgpuLike,
      takes: (op: string, t: number) =>
        NUMERIC.includes(op) && (t === DataType.FLOAT || (op === "Cast" && t === DataType.BOOL)),
    };
    const r = runPass(legalizeBoolLogic(floatOnly), logic);
    expect(r.ok && r.modified).toBe(true);
    if (!r.ok) return;
    const casts = r.model.graph.nodes.filter((n) => n.opType === "Cast");
    expect(casts.some((n) => n.attributes[0]!.value === BigInt(DataType.FLOAT))).toBe(true);
    await expectSameOnOrt(logic, r.model, feeds);
  });
  it("is left where the target has the op, or takes no Cast from bool", () => {
    const hasAll = runPass(legalizeBoolLogic({ has: () => true }), logic);
    expect(hasAll.ok && hasAll.modified).toBe(false);
    const noCast = { ...webgpuLike, takes: (op: string) => op !== "Cast" };
    const r = runPass(legalizeBoolLogic(noCast), logic);
    expect(r.ok && r.modified).toBe(false);
  });
});
