// Function bodies built by src/schema/builders, run in onnxruntime-node and compared with ORT's
// own kernels (Reduce*) or with a float64 reference (LogCumSumExp-29, SEMANTICS.md cases).

import { describe, expect, it } from "vitest";
import { attr } from "../../src/ir/builder.js";
import {
  bfloat16BitsToNumber,
  float16BitsToNumber,
  numberToBfloat16Bits,
  numberToFloat16Bits,
} from "../../src/ir/dtype.js";
import { DataType, type Attribute, type Dim, type Node, type Type } from "../../src/ir/types.js";
import { OnnxError } from "../../src/errors.js";
import { SchemaRegistry, functionBody } from "../../src/schema/index.js";
import { runNodes, ulpDistance, type Feed, type OrtData } from "../helpers/schema.js";

const reg = SchemaRegistry.default();
const { FLOAT, DOUBLE, INT32, INT64, FLOAT16, BFLOAT16 } = DataType;

function typed(elem: number, values: number[]): OrtData {
  switch (elem) {
    case FLOAT:
    case BFLOAT16:
      return new Float32Array(values);
    case DOUBLE:
      return new Float64Array(values);
    case INT32:
      return new Int32Array(values);
    case INT64:
      return BigInt64Array.from(values.map((v) => BigInt(v)));
    case FLOAT16:
      return Uint16Array.from(values.map(numberToFloat16Bits));
  }
  throw new Error(`no feed for ${elem}`);
}

function numbers(elem: number, data: unknown): number[] {
  const arr = Array.from(data as ArrayLike<number | bigint>, Number);
  return elem === FLOAT16 ? arr.map(float16BitsToNumber) : arr;
}

/** Rounds a float64 value to the element type. */
function round(x: number, elem: number): number {
  if (elem === FLOAT) return Math.fround(x);
  if (elem === FLOAT16) return float16BitsToNumber(numberToFloat16Bits(x));
  if (elem === BFLOAT16) return bfloat16BitsToNumber(numberToBfloat16Bits(x));
  return x;
}

/** Replaces a formal input name in a body (an omitted optional input becomes ""). */
function bind(nodes: Node[], formal: string, actual: string): Node[] {
  return nodes.map((n) => ({ ...n, inputs: n.inputs.map((i) => (i === formal ? actual : i)) }));
}

function tensorType(elem: number, shape?: Dim[]): Type {
  return shape ? { kind: "tensor", elemType: elem, shape } : { kind: "tensor", elemType: elem };
}

describe("Reduce*-18 bodies match onnxruntime's own kernels", () => {
  const ops = ["ReduceLogSum", "ReduceL1", "ReduceL2", "ReduceLogSumExp", "ReduceSumSquare"];
  const ints = (n: number) => Array.from({ length: n }, (_, i) => ((i * 7) % 5) + 1);
  const floats = (n: number) => ints(n).map((v, i) => v * 0.37 + i / 50);
  const cases: {
    name: string;
    shape?: number[];
    axes?: number[];
    keepdims?: number;
    noop?: number;
  }[] = [
    { name: "rank 1, axes [0]", shape: [7], axes: [0], keepdims: 0 },
    { name: "[3, 1, 5] axes [-1, 0]", shape: [3, 1, 5], axes: [-1, 0] },
    { name: "empty reduction", shape: [2, 0, 3], axes: [1], keepdims: 0 },
    { name: "axes [1]", axes: [1] },
    { name: "axes [0, -1] keepdims 0", axes: [0, -1], keepdims: 0 },
    { name: "axes absent", keepdims: 0 },
    { name: "axes [] noop 0", axes: [], keepdims: 1, noop: 0 },
    { name: "axes [] noop 1", axes: [], keepdims: 0, noop: 1 },
    { name: "axes absent noop 1", noop: 1 },
  ];

  async function compare(
    op: string,
    elem: number,
    c: (typeof cases)[number],
    declaredType: boolean,
  ) {
    const v = reg.resolve("", op, 18);
    const shape = c.shape ?? [2, 3, 4];
    const count = shape.reduce((p, d) => p * d, 1);
    const attributes: Attribute[] = [];
    if (c.keepdims !== undefined) attributes.push(attr("keepdims", c.keepdims));
    if (c.noop !== undefined) attributes.push(attr("noop_with_empty_axes", c.noop));
    const inputTypes = declaredType
      ? [tensorType(elem, shape), tensorType(INT64, [c.axes?.length ?? 0])]
      : [undefined, undefined];
    const body = functionBody(v, { inputTypes, attributes });
    expect(body.opsetImports).toEqual([{ domain: "", version: 18 }]);
    const values =
      elem === INT32 || elem === INT64 ? ints(count) : floats(count).map((x) => round(x, elem));
    const feeds: Feed[] = [{ name: "data", elem, dims: shape, data: typed(elem, values) }];
    if (c.axes)
      feeds.push({ name: "axes", elem: INT64, dims: [c.axes.length], data: typed(INT64, c.axes) });
    const nodes = c.axes ? body.nodes : bind(body.nodes, "axes", "");
    const got = await runNodes(nodes, feeds, { name: "reduced", elem });
    // ORT has no float16 kernels for these: its float32 result on the same values, rounded.
    // Its integer ReduceLogSumExp adds exp terms into the integer type, which is not the exact
    // value (log(e^3 + e^5 + e^5 + e^2) gives 5, not 6): compare with double, truncated.
    const isInt = elem === INT32 || elem === INT64;
    const refElem =
      elem === FLOAT16 || elem === BFLOAT16
        ? FLOAT
        : isInt && op === "ReduceLogSumExp"
          ? DOUBLE
          : elem;
    const refFeeds = feeds.map((f) =>
      f.name === "data" ? { ...f, elem: refElem, data: typed(refElem, numbers(elem, f.data)) } : f,
    );
    const own: Node = {
      opType: op,
      domain: "",
      inputs: c.axes ? ["data", "axes"] : ["data"],
      outputs: ["reduced"],
      attributes,
    };
    const want = await runNodes([own], refFeeds, { name: "reduced", elem: refElem });
    expect(got.dims).toEqual(want.dims);
    const g = numbers(elem, got.data);
    const w = numbers(refElem, want.data).map((x) => (isInt ? Math.trunc(x) : round(x, elem)));
    // The log of an empty (zero) integer sum has no integer value: SEMANTICS.md makes the kernel
    // fail there; a body cannot, so those elements are not compared.
    if (isInt) expect(g.filter((_, i) => Number.isFinite(w[i]))).toEqual(w.filter(Number.isFinite));
    else {
      const ulps = elem === FLOAT16 || elem === BFLOAT16 ? 1 : 4;
      g.forEach((x, i) =>
        expect(
          ulpDistance(x, w[i]!, elem),
          `${op} ${c.name} [${i}]: ${x} vs ${w[i]}`,
        ).toBeLessThanOrEqual(ulps),
      );
    }
  }

  for (const op of ops)
    it(`${op}: float, double, int32, int64, float16, bfloat16 on every axes/keepdims/noop case`, async () => {
      for (const elem of [FLOAT, DOUBLE, INT32, INT64, FLOAT16, BFLOAT16])
        for (const c of cases) await compare(op, elem, c, true);
    });

  it("bodies for an unknown input type are valid for every type (computed in double, CastLike back)", async () => {
    for (const op of ops)
      for (const elem of [FLOAT, INT32])
        for (const c of [cases[0]!, cases[4]!]) await compare(op, elem, c, false);
  });

  it("forwards both keepdims and noop_with_empty_axes to ReduceSum, and references stay references", () => {
    const v = reg.resolve("", "ReduceLogSum", 18);
    const body = functionBody(v, {
      inputTypes: [tensorType(FLOAT, [3])],
      attributes: [attr("noop_with_empty_axes", 1)],
    });
    const sum = body.nodes.find((n) => n.opType === "ReduceSum")!;
    expect(sum.inputs).toEqual(["data", "axes"]);
    expect(sum.attributes.map((a) => [a.name, a.value])).toEqual([
      ["keepdims", 1n],
      ["noop_with_empty_axes", 1n],
    ]);
    expect(body.nodes.at(-1)!.outputs).toEqual(["reduced"]);
    const ref: Attribute = { name: "keepdims", type: "INT", value: undefined, refAttrName: "kd" };
    const inner = functionBody(v, { inputTypes: [tensorType(INT32)], attributes: [ref] });
    expect(inner.nodes.find((n) => n.opType === "ReduceSum")!.attributes).toContainEqual(ref);
    expect(inner.nodes.map((n) => n.opType)).toEqual(["ReduceSum", "Cast", "Log", "Cast"]);
  });
});

describe("text bodies", () => {
  it("parses a { kind: 'text' } body and binds @references to the call, defaults, or caller references", () => {
    const v = reg.resolve("", "ReduceLogSum", 18);
    const textOp = {
      ...v,
      body: {
        kind: "text" as const,
        opset: 18,
        body: "reduced_sum = ReduceSum <keepdims: int = @keepdims, noop_with_empty_axes: int = @noop_with_empty_axes> (data, axes)\nreduced = Log (reduced_sum)",
      },
    };
    const ref: Attribute = {
      name: "keepdims",
      type: "INT",
      value: undefined,
      refAttrName: "outer_kd",
    };
    const bound = (attributes: Attribute[]) =>
      functionBody(textOp, { inputTypes: [], attributes }).nodes[0]!.attributes.map((a) => [
        a.name,
        a.value ?? `@${a.refAttrName}`,
      ]);
    expect(bound([])).toEqual([
      ["keepdims", 1n],
      ["noop_with_empty_axes", 0n],
    ]);
    expect(bound([attr("keepdims", 0)])).toEqual([
      ["keepdims", 0n],
      ["noop_with_empty_axes", 0n],
    ]);
    expect(bound([ref])).toEqual([
      ["keepdims", "@outer_kd"],
      ["noop_with_empty_axes", 0n],
    ]);
    expect(() =>
      functionBody(textOp, { inputTypes: [], attributes: [attr("keepdims", 1.5)] }),
    ).toThrow(/'keepdims' must be INT, not FLOAT/);
    expect(functionBody(textOp, { inputTypes: [], attributes: [] }).opsetImports).toEqual([
      { domain: "", version: 18 },
    ]);
  });
});

/** Exact-as-float64 reference: per prefix, max + log1p(sum of the other exp(x - max)). */
function logCumSumExpRef(x: number[]): number[] {
  const out: number[] = [];
  for (let j = 0; j < x.length; j++) {
    const p = x.slice(0, j + 1);
    if (p.some(Number.isNaN)) out.push(NaN);
    else if (p.includes(Infinity)) out.push(Infinity);
    else {
      let k = 0;
      for (let i = 1; i < p.length; i++) if (p[i]! > p[k]!) k = i;
      const m = p[k]!;
      if (m === -Infinity) out.push(-Infinity);
      else {
        let s = 0;
        p.forEach((v, i) => {
          if (i !== k) s += Math.exp(v - m);
        });
        out.push(m + Math.log1p(s));
      }
    }
  }
  return out;
}

/** Applies the reference along one axis of a row-major tensor. */
function alongAxis(x: number[], dims: number[], axis: number): number[] {
  const a = axis < 0 ? axis + dims.length : axis;
  const n = dims[a]!;
  const inner = dims.slice(a + 1).reduce((p, d) => p * d, 1);
  const outer = dims.slice(0, a).reduce((p, d) => p * d, 1);
  const y = new Array<number>(x.length);
  for (let o = 0; o < outer; o++)
    for (let i = 0; i < inner; i++) {
      const idx = Array.from({ length: n }, (_, j) => (o * n + j) * inner + i);
      logCumSumExpRef(idx.map((k) => x[k]!)).forEach((v, j) => (y[idx[j]!] = v));
    }
  return y;
}

type Declared = "static" | "dynamic" | "unranked" | "static-loop";

async function runLogCumSumExp(
  x: number[],
  dims: number[],
  elem: number,
  axis: number | undefined,
  declared: Declared,
) {
  const v = reg.resolve("", "LogCumSumExp", 29);
  const shape: Dim[] | undefined =
    declared === "static" || declared === "static-loop"
      ? dims
      : declared === "dynamic"
        ? dims.map(() => null)
        : undefined;
  const attributes = axis === undefined ? [] : [attr("axis", axis)];
  const preferLoops = declared === "static-loop";
  const body = functionBody(v, { inputTypes: [tensorType(elem, shape)], attributes, preferLoops });
  const feed: Feed = {
    name: "X",
    elem,
    dims,
    data: typed(
      elem,
      x.map((e) => round(e, elem)),
    ),
    declared: shape ?? "unranked",
  };
  const out = await runNodes(body.nodes, [feed], { name: "Y", elem });
  expect(out.dims).toEqual(dims);
  return { y: numbers(elem === BFLOAT16 ? FLOAT : elem, out.data), nodes: body.nodes };
}

async function expectLogCumSumExp(
  x: number[],
  dims: number[],
  elem: number,
  axis: number | undefined,
  declared: Declared,
  expected?: number[],
) {
  const input = x.map((e) => round(e, elem));
  const ref = alongAxis(input, dims, axis ?? 0).map((e) => round(e, elem));
  if (expected) expect(ref).toEqual(expected.map((e) => round(e, elem)));
  const { y } = await runLogCumSumExp(x, dims, elem, axis, declared);
  y.forEach((e, i) =>
    expect(
      ulpDistance(e, ref[i]!, elem),
      `[${i}] ${e} vs ${ref[i]} (${declared}, type ${elem})`,
    ).toBeLessThanOrEqual(2),
  );
}

describe("LogCumSumExp-29 body", () => {
  const paths: Declared[] = ["static", "dynamic", "unranked", "static-loop"];

  it("keeps wide dynamic ranges exact (SEMANTICS.md cases) in float and double", async () => {
    for (const declared of paths)
      for (const elem of [FLOAT, DOUBLE]) {
        await expectLogCumSumExp(
          [-200, -100, 100],
          [3],
          elem,
          undefined,
          declared,
          [-200, -100, 100],
        );
        await expectLogCumSumExp([-1000, 0], [2], elem, 0, declared, [-1000, 0]);
        await expectLogCumSumExp([0, -20], [2], elem, undefined, declared, [
          0,
          Math.log1p(Math.exp(-20)),
        ]);
      }
    for (const declared of paths)
      await expectLogCumSumExp([1e30, -1e30], [2], FLOAT, 0, declared, [1e30, 1e30]);
  });

  it("follows the NaN / +inf / -inf rules per prefix", async () => {
    const I = Infinity;
    const x = [-I, -I, -I, -I, -I, 0, I, -I, 0, I, I, 1, 0, NaN, I, -I, I, -I, NaN, 0];
    const y = [-I, -I, -I, -I, -I, 0, I, I, 0, I, I, I, 0, NaN, NaN, NaN, I, I, NaN, NaN];
    for (const declared of paths)
      for (const elem of [FLOAT, DOUBLE]) {
        await expectLogCumSumExp(x, [5, 4], elem, 1, declared, y);
        await expectLogCumSumExp(x, [5, 4], elem, 0, declared);
      }
  });

  it("scans along every axis, negative ones too", async () => {
    const x = Array.from({ length: 24 }, (_, i) => Math.log(i + 1));
    for (const axis of [0, 1, 2, -1, -3])
      for (const elem of [DOUBLE, FLOAT])
        for (const declared of paths) await expectLogCumSumExp(x, [2, 3, 4], elem, axis, declared);
  });

  it("computes float16 and bfloat16 in float and rounds once", async () => {
    const want = Array.from({ length: 128 }, (_, i) => Math.log(i + 1));
    for (const elem of [FLOAT16, BFLOAT16])
      for (const declared of paths)
        await expectLogCumSumExp(new Array(128).fill(0), [128], elem, undefined, declared, want);
  });

  it("stays within 2 ulp on long random rows with gaps of hundreds", async () => {
    let seed = 12345;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
    const x = Array.from({ length: 3 * 301 }, () => rand() * (rand() > 0.8 ? 400 : 3));
    for (const elem of [FLOAT, DOUBLE])
      for (const declared of paths) await expectLogCumSumExp(x, [3, 301], elem, -1, declared);
  });

  it("gives an empty result for a zero-sized dimension", async () => {
    for (const declared of paths) {
      expect((await runLogCumSumExp([], [2, 0, 3], FLOAT, 1, declared)).y).toEqual([]);
      expect((await runLogCumSumExp([], [0, 3], FLOAT, -1, declared)).y).toEqual([]);
    }
  });

  it("is a log-depth scan for a static axis and a Scan otherwise; never CumSum", () => {
    const v = reg.resolve("", "LogCumSumExp", 29);
    const body = (shape?: Dim[]) =>
      functionBody(v, { inputTypes: [tensorType(FLOAT, shape)], attributes: [attr("axis", 1)] })
        .nodes;
    const unrolled = body([4, 1000]);
    expect(unrolled.filter((n) => n.opType === "Pad").length).toBe(10);
    expect(unrolled.some((n) => n.opType === "CumSum")).toBe(false);
    expect(body([4, 1]).map((n) => n.opType)).toEqual(["Cast", "Cast"]);
    for (const dynamic of [body([4, null]), body(undefined)]) {
      const branch = dynamic
        .find((n) => n.opType === "If")!
        .attributes.find((a) => a.name === "else_branch")!;
      expect(
        branch.type === "GRAPH" && branch.value!.nodes.filter((n) => n.opType === "Scan").length,
      ).toBe(1);
    }
    expect(body([4, 5]).at(-1)!.outputs).toEqual(["Y"]);
    const loop = functionBody(v, {
      inputTypes: [tensorType(FLOAT, [4, 1000])],
      attributes: [],
      preferLoops: true,
    });
    expect(
      loop.nodes.some((n) => n.opType === "If") && !loop.nodes.some((n) => n.opType === "Pad"),
    ).toBe(true);
  });

  it("rejects what it cannot expand, one line each", () => {
    const v = reg.resolve("", "LogCumSumExp", 29);
    const err = (inputTypes: (Type | undefined)[], attributes: Attribute[] = []) => {
      try {
        functionBody(v, { inputTypes, attributes });
      } catch (e) {
        expect(e).toBeInstanceOf(OnnxError);
        return (e as OnnxError).message;
      }
      return "no error";
    };
    expect(err([tensorType(FLOAT, [])])).toBe(
      "LogCumSumExp-29: input 'X' must have rank >= 1, not 0",
    );
    expect(err([tensorType(FLOAT, [2, 3])], [attr("axis", 2)])).toBe(
      "LogCumSumExp-29: axis 2 is out of range for rank 2",
    );
    expect(err([tensorType(INT32, [2])])).toMatch(/element type .* T does not allow/);
    expect(
      err(
        [tensorType(FLOAT, [2])],
        [{ name: "axis", type: "INT", value: undefined, refAttrName: "a" }],
      ),
    ).toMatch(/by reference \(@a\)/);
  });
});

describe("bodies inside functions: attributes passed by reference", () => {
  const ref = (name: string, to: string, type: Attribute["type"]): Attribute =>
    ({ name, type, value: undefined, refAttrName: to }) as Attribute;

  it("a FLOAT attribute the body only forwards stays a reference to the caller's", () => {
    const v = reg.resolve("", "Elu", 22);
    const body = functionBody(v, {
      inputTypes: [tensorType(FLOAT, [3])],
      attributes: [ref("alpha", "outer_alpha", "FLOAT")],
    });
    const c = body.nodes.find(
      (n) => n.opType === "Constant" && n.attributes[0]!.name === "value_float",
    )!;
    expect(c.attributes[0]!.refAttrName).toBe("outer_alpha");
  });

  it("an attribute that shapes the body must be a value: one line naming it", () => {
    for (const [op, since, name, type] of [
      ["Softmax", 13, "axis", "INT"],
      ["Gelu", 20, "approximate", "STRING"],
      ["NegativeLogLikelihoodLoss", 22, "reduction", "STRING"],
    ] as const) {
      const v = reg.resolve("", op, since);
      expect(() =>
        functionBody(v, {
          inputTypes: [tensorType(FLOAT, [2, 3]), tensorType(INT64, [2])],
          attributes: [ref(name, "a", type)],
        }),
      ).toThrow(`needs the value of '${name}', which is passed by reference (@a)`);
    }
  });
});
