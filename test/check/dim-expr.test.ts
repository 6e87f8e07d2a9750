// Dimensions as expressions of one symbol (check/dim-expr.ts): their spelling, the operations
// that stay in the form, what is left unknown, and the rules that make them (strided windows,
// slices clamped to a buffer, pads, concat, data propagation through arithmetic and Range).
// The same shapes are checked against onnxruntime-node in infer-ort.test.ts.

import { describe, expect, it } from "vitest";
import { checkModel, describeType, formatProblem, inferTypes } from "../../src/check/index.js";
import {
  broadcastSymbols,
  dimAdd,
  dimFloorDiv,
  dimMin,
  evalDim,
  nonNegative,
} from "../../src/check/dim-expr.js";
import { broadcastShapes } from "../../src/check/types.js";
import { graph, model, node, valueInfo } from "../../src/ir/builder.js";
import { Tensor } from "../../src/ir/tensor.js";
import { DataType, type Dim, type Node, type ValueInfo } from "../../src/ir/types.js";

const ints = (name: string, values: number[], dims = [values.length]) =>
  Tensor.from(DataType.INT64, dims, values.map(BigInt), name);

function infer(nodes: Node[], inputs: ValueInfo[], initializers: Tensor[] = []): string[] {
  const last = nodes[nodes.length - 1]!;
  const m = model(
    graph({ nodes, inputs, initializers, outputs: last.outputs.map((name) => ({ name })) }),
    18,
  );
  expect(checkModel(m).problems.map(formatProblem)).toEqual([]);
  const t = inferTypes(m);
  return last.outputs.map((o) => describeType(t.get(o)));
}

describe("dimension expressions", () => {
  it("are spelled one way: floor or ceil, whichever has the smaller offset", () => {
    expect(dimAdd("H", 0)).toBe("H");
    expect(dimAdd("H", 3)).toBe("H+3");
    expect(dimAdd("H", -2)).toBe("H-2");
    expect(dimFloorDiv("H", 2)).toBe("floor(H/2)");
    expect(dimFloorDiv(dimAdd("H", 1), 2)).toBe("ceil(H/2)");
    expect(dimFloorDiv(dimAdd("H", 2), 4)).toBe("ceil((H-1)/4)");
    expect(dimFloorDiv(dimAdd("H", 1), 4)).toBe("floor((H+1)/4)");
    expect(dimFloorDiv(dimAdd("H", -1), 2)).toBe("floor((H-1)/2)");
    expect(dimMin("sequence", 512)).toBe("min(sequence,512)");
    expect(dimMin(dimFloorDiv(dimAdd("H", 1), 2), 8)).toBe("min(ceil(H/2),8)");
  });
  it("compose: two ceil halvings are a ceil quarter, an offset moves inside, min with a larger cap is nothing", () => {
    const half = (d: Dim) => dimFloorDiv(dimAdd(d, 1), 2);
    expect(half(half("H"))).toBe("ceil(H/4)");
    expect(dimAdd(dimFloorDiv("H", 2), 1)).toBe("ceil((H+1)/2)");
    expect(dimAdd(dimMin("S", 8), 2)).toBe("min(S+2,10)");
    expect(dimFloorDiv(dimMin("S", 9), 2)).toBe("min(floor(S/2),4)");
    expect(dimMin(dimMin("S", 8), 20)).toBe("min(S,8)");
    expect(dimFloorDiv("H", 1)).toBe("H");
    // Exhaustively: the expression's value is the arithmetic done on numbers.
    for (let h = 0; h < 40; h++) {
      const sizes = new Map([["H", h]]);
      const e = dimMin(dimAdd(half(half(dimAdd("H", 3))), -1), 5);
      expect(evalDim(e, sizes)).toBe(
        Math.min(Math.floor((Math.floor((h + 3 + 1) / 2) + 1) / 2) - 1, 5),
      );
    }
  });
  it("know when they are sizes, and a model's own symbol is never read as one", () => {
    expect(nonNegative("S")).toBe(true);
    expect(nonNegative(dimAdd("S", 2))).toBe(true);
    expect(nonNegative(dimAdd("S", -1))).toBe(false);
    expect(nonNegative(dimMin("S", -1))).toBe(false);
    // "K+1" declared by a model is a name: its value is bound, not computed from K.
    expect(evalDim("K+1", new Map([["K", 3]]))).toBeUndefined();
    expect(evalDim("K+1", new Map([["K+1", 3]]))).toBe(3);
  });
  it("broadcast: x with min(x, c) is x (c ≥ 1); other pairs of symbols are unknown", () => {
    const m = dimMin("S", 512) as string;
    expect(broadcastSymbols(m, "S")).toBe("S");
    expect(broadcastSymbols("S", m)).toBe("S");
    expect(broadcastSymbols("S", "T")).toBeNull();
    expect(broadcastSymbols(dimMin("S", 0) as string, "S")).toBeNull();
    expect(
      broadcastShapes([
        ["B", m, 4],
        ["B", "S", 4],
      ]),
    ).toEqual(["B", "S", 4]);
  });
});

describe("rules that make expressions", () => {
  it("Slice [0:n] of a buffer, n the sequence length: min(sequence, buffer), then broadcast back to sequence", () => {
    const nodes = [
      node("Shape", ["ids"], ["shape"]),
      node("Gather", ["shape", "one"], ["len"], { axis: 0 }),
      node("Unsqueeze", ["len", "zero1"], ["end"]),
      node("Slice", ["buffer", "zero1", "end", "one1"], ["pos"]),
      node("Gather", ["table", "pos"], ["pe"], { axis: 0 }),
      node("Gather", ["words", "ids"], ["we"], { axis: 0 }),
      node("Add", ["we", "pe"], ["y"]),
    ];
    const inits = [
      ints("one", [1], []),
      ints("zero1", [0]),
      ints("one1", [1]),
      ints("buffer", [0, 1, 2, 3, 4, 5, 6, 7], [1, 8]),
      Tensor.from(DataType.FLOAT, [8, 4], new Array(32).fill(0), "table"),
      Tensor.from(DataType.FLOAT, [10, 4], new Array(40).fill(0), "words"),
    ];
    const ids = valueInfo("ids", "int64", ["batch", "sequence"]);
    expect(infer([...nodes.slice(0, 4)], [ids], inits)).toEqual(["int64[1,min(sequence,8)]"]);
    expect(infer(nodes, [ids], inits)).toEqual(["float[batch,sequence,4]"]);
  });
  it("Slice with constant bounds on a symbolic axis: [0:e] is min(d, e); other bounds stay unknown", () => {
    const slice = (starts: number[], ends: number[]) =>
      infer(
        [node("Slice", ["x", "s", "e", "a"], ["y"])],
        [valueInfo("x", "float", ["N", "S"])],
        [ints("s", starts), ints("e", ends), ints("a", [1])],
      )[0];
    expect(slice([0], [4])).toBe("float[N,min(S,4)]");
    expect(slice([0], [2 ** 62])).toBe("float[N,S]");
    expect(slice([1], [4])).toBe("float[N,?]");
    expect(slice([0], [-1])).toBe("float[N,?]");
  });
  it("pooling with ceil_mode on a symbolic size: known where the last window surely starts inside", () => {
    const pool = (k: number, s: number, pads = [0, 0]) =>
      infer(
        [node("MaxPool", ["x"], ["y"], { kernel_shape: [k], strides: [s], pads, ceil_mode: 1 })],
        [valueInfo("x", "float", ["N", 2, "L"])],
      )[0];
    expect(pool(3, 2)).toBe("float[N,2,floor(L/2)]");
    expect(pool(2, 2)).toBe("float[N,2,ceil(L/2)]");
    expect(pool(3, 2, [1, 1])).toBe("float[N,2,ceil((L+1)/2)]");
    expect(pool(1, 2)).toBe("float[N,2,?]");
    expect(pool(2, 2, [0, 1])).toBe("float[N,2,?]");
  });
  it("Pad and Concat on a symbolic axis add numbers to it", () => {
    expect(
      infer(
        [node("Pad", ["x", "p"], ["y"])],
        [valueInfo("x", "float", ["N", "L"])],
        [ints("p", [0, 2, 0, 3])],
      ),
    ).toEqual(["float[N,L+5]"]);
    expect(
      infer(
        [node("Concat", ["a", "b", "c"], ["y"], { axis: 1 })],
        [
          valueInfo("a", "float", [2, 3]),
          valueInfo("b", "float", [2, "K"]),
          valueInfo("c", "float", [2, 1]),
        ],
      ),
    ).toEqual(["float[2,K+4]"]);
    expect(
      infer(
        [node("Concat", ["a", "b"], ["y"], { axis: 1 })],
        [valueInfo("a", "float", [2, "J"]), valueInfo("b", "float", [2, "K"])],
      ),
    ).toEqual(["float[2,?]"]);
  });
  it("data propagation: a size plus, divided by or capped at a number stays a size; less a number does not", () => {
    const computed = (op: string, k: number) =>
      infer(
        [
          node("Shape", ["x"], ["shape"], { start: 1 }),
          node(op, ["shape", "k"], ["n"]),
          node("ConstantOfShape", ["n"], ["y"]),
        ],
        [valueInfo("x", "float", ["N", "S"])],
        [ints("k", [k])],
      )[0];
    expect(computed("Add", 2)).toBe("float[S+2]");
    expect(computed("Div", 2)).toBe("float[floor(S/2)]");
    expect(computed("Min", 6)).toBe("float[min(S,6)]");
    expect(computed("Sub", 1)).toBe("float[?]");
    expect(computed("Add", -1)).toBe("float[?]");
  });
  it("Range over a computed size: ceil((n - start) / step) values", () => {
    const range = (start: number, step: number) =>
      infer(
        [
          node("Shape", ["x"], ["shape"]),
          node("Gather", ["shape", "one"], ["n"], { axis: 0 }),
          node("Range", ["start", "n", "step"], ["y"]),
        ],
        [valueInfo("x", "float", ["N", "S"])],
        [ints("one", [1], []), ints("start", [start], []), ints("step", [step], [])],
      )[0];
    expect(range(0, 1)).toBe("int64[S]");
    expect(range(0, 2)).toBe("int64[ceil(S/2)]");
    expect(range(-3, 1)).toBe("int64[S+3]");
    expect(range(1, 1)).toBe("int64[?]");
    expect(range(0, -1)).toBe("int64[?]");
  });
});
