// Randomly built models (deterministic seed) survive print → parse → print: odd names, every
// attribute kind, nested subgraphs, functions, every element type with random bits.

import { describe, expect, it } from "vitest";
import { rawByteLength } from "../../src/ir/dtype.js";
import { Tensor } from "../../src/ir/tensor.js";
import {
  DataType,
  type Attribute,
  type Function,
  type Graph,
  type Model,
  type Node,
  type SparseTensor,
  type Type,
  type ValueInfo,
} from "../../src/ir/types.js";
import { parseModelText } from "../../src/text/parse.js";
import { printModel } from "../../src/text/print.js";
import { canonModel } from "../helpers/text-compare.js";

let seed = 1;
const rnd = (): number => {
  seed = (Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
  return seed / 2 ** 32;
};
const int = (n: number): number => Math.floor(rnd() * n);
const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;

const NAME_PARTS = [
  "x",
  "_y",
  "a.b",
  "1",
  "",
  " ",
  "float",
  "seq",
  "NaN",
  '"',
  "\\",
  "#",
  "ü",
  "😀",
  "/",
  ":",
  "=",
  ",",
  "<>",
  "{}",
  "\n",
];
const name = (): string => Array.from({ length: 1 + int(3) }, () => pick(NAME_PARTS)).join("");
const plain = (): string => pick(["a", "b", "c", "x1", "y_2", "Op", "Add"]) + int(10);

const NUMERIC_TYPES = [
  DataType.FLOAT,
  DataType.UINT8,
  DataType.INT8,
  DataType.UINT16,
  DataType.INT16,
  DataType.INT32,
  DataType.INT64,
  DataType.BOOL,
  DataType.FLOAT16,
  DataType.DOUBLE,
  DataType.UINT32,
  DataType.UINT64,
  DataType.COMPLEX64,
  DataType.COMPLEX128,
  DataType.BFLOAT16,
  DataType.FLOAT8E4M3FN,
  DataType.FLOAT8E5M2,
  DataType.UINT4,
  DataType.INT4,
  DataType.FLOAT4E2M1,
  DataType.FLOAT8E8M0,
];

function tensor(): Tensor {
  const dims = Array.from({ length: int(3) }, () => int(4));
  const n = dims.reduce((a, b) => a * b, 1);
  if (rnd() < 0.1)
    return Tensor.from(
      DataType.STRING,
      dims,
      Array.from({ length: n }, name),
      rnd() < 0.5 ? name() : "",
    );
  const type = pick(NUMERIC_TYPES);
  if (rnd() < 0.05) {
    const entries: [string, string][] = [
      ["location", name()],
      ["offset", String(int(99))],
    ];
    if (rnd() < 0.5) entries.push([name(), name()]);
    return new Tensor(type, dims, { kind: "external", entries }, name());
  }
  const bytes = new Uint8Array(rawByteLength(type, n));
  for (let i = 0; i < bytes.length; i++) bytes[i] = int(256);
  // Sub-byte types: padding bits of the last byte are not data.
  if ((type === DataType.UINT4 || type === DataType.INT4 || type === DataType.FLOAT4E2M1) && n % 2)
    bytes[bytes.length - 1]! &= 0x0f;
  if (type === DataType.BOOL) for (let i = 0; i < bytes.length; i++) bytes[i]! &= 1;
  return new Tensor(type, dims, { kind: "raw", bytes }, rnd() < 0.5 ? name() : "");
}

function sparse(): SparseTensor {
  const values = Tensor.from(DataType.FLOAT, [2], [1.5, -2], name());
  const indices = Tensor.from(DataType.INT64, [2], [0n, 3n], rnd() < 0.5 ? name() : "");
  return { values, indices, dims: [4] };
}

function type(depth = 0): Type {
  const r = int(depth > 1 ? 2 : 6);
  if (r <= 1) {
    const t: Type = {
      kind: rnd() < 0.8 ? "tensor" : "sparse_tensor",
      elemType: pick(NUMERIC_TYPES),
    };
    if (rnd() < 0.8) t.shape = Array.from({ length: int(4) }, () => pick([int(5), null, name()]));
    return t;
  }
  if (r === 2) return { kind: "sequence", elem: type(depth + 1) };
  if (r === 3) return { kind: "optional", elem: type(depth + 1) };
  if (r === 4)
    return {
      kind: "map",
      keyType: pick([DataType.INT64, DataType.STRING]),
      value: type(depth + 1),
    };
  return { kind: "opaque", domain: pick(["", "com.x", name()]), name: name() || "n" };
}

function vi(): ValueInfo {
  return rnd() < 0.2 ? { name: name() } : { name: name(), type: type() };
}

function attribute(depth: number, inFunction: boolean): Attribute {
  const n = name() || "a";
  if (inFunction && rnd() < 0.2)
    return {
      name: n,
      type: pick(["INT", "FLOATS", "TENSOR"]),
      value: undefined,
      refAttrName: name(),
    };
  const float = (): number => Math.fround((rnd() - 0.5) * 10 ** int(60 - 30));
  switch (int(depth < 2 ? 13 : 11)) {
    case 0:
      return {
        name: n,
        type: "INT",
        value: BigInt.asIntN(
          64,
          BigInt(int(2 ** 31)) * BigInt(int(2 ** 31)) * BigInt(int(8)) - 2n ** 62n,
        ),
      };
    case 1:
      return { name: n, type: "FLOAT", value: float() };
    case 2:
      return { name: n, type: "STRING", value: name() };
    case 3:
      return {
        name: n,
        type: "INTS",
        value: Array.from({ length: int(4) }, () => BigInt(int(1000) - 500)),
      };
    case 4:
      return { name: n, type: "FLOATS", value: Array.from({ length: int(4) }, float) };
    case 5:
      return { name: n, type: "STRINGS", value: Array.from({ length: int(4) }, name) };
    case 6:
      return { name: n, type: "TENSOR", value: tensor() };
    case 7:
      return { name: n, type: "TENSORS", value: Array.from({ length: int(3) }, tensor) };
    case 8:
      return { name: n, type: "TYPE_PROTO", value: type() };
    case 9:
      return { name: n, type: "TYPE_PROTOS", value: Array.from({ length: int(3) }, () => type()) };
    case 10:
      return { name: n, type: "SPARSE_TENSOR", value: sparse() };
    case 11:
      return { name: n, type: "GRAPH", value: graph(depth + 1, false) };
    default:
      return {
        name: n,
        type: "GRAPHS",
        value: Array.from({ length: int(3) }, () => graph(depth + 1, false)),
      };
  }
}

function node(depth: number, inFunction: boolean): Node {
  const n: Node = {
    opType: rnd() < 0.8 ? plain() : name(),
    domain: pick(["", "", "com.microsoft", "ai.onnx.ml", name()]),
    inputs: Array.from({ length: int(4) }, () => (rnd() < 0.2 ? "" : name())),
    outputs: Array.from({ length: int(3) }, () => (rnd() < 0.1 ? "" : name())),
    attributes: Array.from({ length: int(4) }, () => attribute(depth, inFunction)),
  };
  if (rnd() < 0.3) n.name = name();
  if (rnd() < 0.1) n.overload = name() || "o";
  return n;
}

function graph(depth: number, top: boolean): Graph {
  return {
    name: name(),
    inputs: Array.from({ length: int(4) }, vi),
    outputs: Array.from({ length: int(3) }, vi),
    initializers: top || rnd() < 0.3 ? Array.from({ length: int(4) }, tensor) : [],
    sparseInitializers: rnd() < 0.2 ? [sparse()] : [],
    valueInfo: Array.from({ length: int(3) }, vi),
    nodes: Array.from({ length: int(depth ? 3 : 6) }, () => node(depth, false)),
  };
}

function fn(): Function {
  const inputs = Array.from({ length: int(4) }, name);
  const f: Function = {
    name: name() || "f",
    domain: pick(["local", "", name()]),
    inputs,
    outputs: Array.from({ length: 1 + int(2) }, name),
    attributes: Array.from({ length: int(3) }, () => name() || "a"),
    attributeProtos: Array.from({ length: int(3) }, () => attribute(1, false)),
    nodes: Array.from({ length: int(4) }, () => node(1, true)),
    opsetImports: [{ domain: "", version: 1 + int(25) }],
    valueInfo: Array.from({ length: int(3) }, vi).filter((v) => v.type),
  };
  // Types for some inputs and outputs, in order, as typed parameters would give.
  if (rnd() < 0.5) {
    const typed = [...f.inputs, ...f.outputs].filter(() => rnd() < 0.5);
    f.valueInfo.unshift(...typed.map((n) => ({ name: n, type: type() })));
  }
  if (rnd() < 0.3) f.overload = name();
  return f;
}

function model(): Model {
  const m: Model = {
    irVersion: int(11),
    opsetImports: [
      { domain: "", version: 18 },
      { domain: name(), version: int(5) },
    ],
    graph: graph(0, true),
    functions: Array.from({ length: int(3) }, fn),
  };
  if (rnd() < 0.5) m.producerName = name();
  if (rnd() < 0.5) m.modelVersion = BigInt(int(1000));
  if (rnd() < 0.5) m.metadataProps = [[name(), name()]];
  return m;
}

describe("random models round-trip through text", () => {
  it("300 models: parse(print(m)) equals m, and printing is a fixed point", () => {
    seed = 20261202;
    for (let i = 0; i < 300; i++) {
      const m = model();
      const text = printModel(m);
      let back: Model;
      try {
        back = parseModelText(text, `random-${i}`);
      } catch (e) {
        throw new Error(`model ${i}: ${(e as Error).message}\n${text}`);
      }
      expect(canonModel(back), `model ${i}`).toEqual(canonModel(m));
      expect(printModel(back), `model ${i}`).toBe(text);
    }
  });
});
