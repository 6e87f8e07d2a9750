// Hostile models the tests build: opset imports no command may guess at (test/cli/hostile-io),
// and malformed nodes of every op the checker has a rule for (test/check/robust). Shared so that
// the test holding the command line and the page to one verdict (test/app/seam.test.ts) feeds
// them the same cases.

import { attr, graph, model, node, valueInfo } from "../../src/ir/builder.js";
import { encodeModel } from "../../src/io/codec.js";
import { Tensor } from "../../src/ir/tensor.js";
import {
  DataType,
  type Attribute,
  type Dim,
  type Model,
  type ValueInfo,
} from "../../src/ir/types.js";
import { parseModelText } from "../../src/text/parse.js";

export const RELU = (opsets: string) => `<ir_version: 8, opset_import: [${opsets}]>
g (float[2] x) => (float[2] y) {
  y = Relu (x)
}
`;

/** A varint, for writing protobuf fields by hand. */
export function varint(v: bigint): number[] {
  let u = BigInt.asUintN(64, v);
  const out: number[] = [];
  do {
    let b = Number(u & 0x7fn);
    u >>= 7n;
    if (u > 0n) b |= 0x80;
    out.push(b);
  } while (u > 0n);
  return out;
}

/** A binary model that imports ai.onnx at `version` (any int64), written field by field. */
export function importsAt(version: bigint): Uint8Array {
  const m = parseModelText(RELU(`"" : 13`));
  const body = encodeModel({ ...m, opsetImports: [] });
  const opset = [0x12, 0x00, 0x10, ...varint(version)]; // domain "", version
  return Uint8Array.from([...body, 0x42, opset.length, ...opset]); // ModelProto field 8
}

/** Models whose opset imports every command refuses, and the reason each is refused for. */
export const OPSET_IMPORT_CASES: [string, Uint8Array | string, RegExp][] = [
  [
    "0",
    RELU(`"" : 0`),
    /the model imports ai\.onnx opset 0, which is not one this tool knows \(1 to \d+\)$/,
  ],
  ["-1", RELU(`"" : -1`), /the model imports ai\.onnx opset -1, which is not one/],
  ["30", RELU(`"" : 30`), /the model imports ai\.onnx opset 30, which is not one/],
  [
    "2^63-1",
    importsAt(2n ** 63n - 1n),
    /the model imports ai\.onnx opset 922337203685477\d+, which is not one/,
  ],
  [
    "-2^63",
    importsAt(-(2n ** 63n)),
    /the model imports ai\.onnx opset -922337203685477\d+, which is not one/,
  ],
  ["11 and 18", RELU(`"" : 11, "" : 18`), /the model imports ai\.onnx twice \(opsets 11 and 18\)$/],
  [
    "18 and ai.onnx 13",
    RELU(`"" : 18, "ai.onnx" : 13`),
    /the model imports ai\.onnx twice \(opsets 18 and 13\)$/,
  ],
];

export function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * A maker of malformed one-node models of an op: random inputs (some absent, some initializers),
 * attributes, declared types and opsets, drawn from `rnd`.
 */
export function malformedVariants(rnd: () => number): (op: string) => Model {
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)]!;
  const body = graph({
    nodes: [node("Identity", ["a"], ["b"])],
    inputs: [valueInfo("a", "float", [2])],
    outputs: [valueInfo("b", "float", [2])],
  });
  const attrPool = (): Attribute[] =>
    [
      attr("axis", pick([0, 1, -1, 7])),
      attr("axes", pick([[0], [9], [], [0, 0]])),
      attr("keepdims", pick([0, 1])),
      attr("to", pick([1, 7, 99, 0])),
      attr("perm", pick([[0], [1, 0], []])),
      attr("num_scan_inputs", pick([0, 1, 5])),
      attr("start", pick([-9, 0, 2])),
      attr("end", pick([99, -1])),
      attr(
        "value",
        pick([Tensor.from(DataType.INT64, [1], [3n]), Tensor.from(DataType.FLOAT, [], [1])]),
      ),
      attr("starts", [1]),
      attr("ends", [2]),
      attr("pads", pick([[1, 1], [1]])),
      attr("then_branch", body),
      attr("else_branch", body),
      attr("body", body),
      attr("value_ints", [1]),
      attr("scan_input_axes", pick([[0], [5]])),
      attr("scan_output_axes", [3]),
    ].filter(() => rnd() < 0.3);
  const types: readonly ([string, Dim[] | undefined] | undefined)[] = [
    undefined,
    ["float", []],
    ["float", [2, 3]],
    ["int64", [2]],
    ["int64", []],
    ["bool", [1]],
    ["float", ["N", null]],
    ["float", undefined],
  ];
  return (op) => {
    const n = Math.floor(rnd() * 5);
    const inputs: ValueInfo[] = [];
    const initializers: Tensor[] = [];
    const names: string[] = [];
    for (let i = 0; i < n; i++) {
      const name = rnd() < 0.1 ? "" : `i${i}`;
      names.push(name);
      if (!name) continue;
      if (rnd() < 0.3) {
        const v = () => BigInt(Math.floor(rnd() * 7) - 3);
        initializers.push(Tensor.from(DataType.INT64, [2], [v(), v()], name));
      } else {
        const t = pick(types);
        inputs.push(t ? valueInfo(name, t[0], t[1]) : { name });
      }
    }
    const nd = { ...node(op, names, rnd() < 0.8 ? ["y"] : ["y", "z"]), attributes: attrPool() };
    const m = model(
      graph({ nodes: [nd], inputs, initializers, outputs: [{ name: "y" }] }),
      pick([9, 11, 13, 18, 29]),
      13,
    );
    return m;
  };
}
