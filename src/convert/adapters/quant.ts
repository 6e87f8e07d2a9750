// QuantizeLinear / DequantizeLinear going down, and MaxPool on 8-bit integers below 12.
//
// What an older version lacks is written out as the arithmetic both ops define, which is exact
// (onnxruntime computes the same float32 steps): DequantizeLinear is (Cast(x) - Cast(zero point))
// · scale; QuantizeLinear is Cast(Clip(round(x / scale) + zero point)), rounding half to even
// (Round from opset 11; below it Floor(x + 0.5) corrected on ties). Scales and zero points per axis
// are reshaped to broadcast along the axis; blocked ones (block_size, 21) are repeated block_size
// times along it. Used for per-axis scales below 13, block_size below 21, the 16-bit and 4-bit
// types below 21 (a 4-bit input only when it is a constant: its values become an 8-bit Constant;
// a 4-bit output has no equivalent), output_dtype below 21/23. MaxPool 12 -> 11 on int8/uint8
// pools in float (a max of small integers is exact there) and casts back.

import { dtypeName, quantizedRange } from "../../ir/dtype.js";
import { Tensor } from "../../ir/tensor.js";
import { DataType, type Node } from "../../ir/types.js";
import { fromIRTensor, toIRTensor } from "../../interp/ir-tensors.js";
import { fromFloat64, toFloat64 } from "../../interp/tensor.js";
import type { Adapter, AdapterContext, AdapterRow } from "../adapter.js";
import { row } from "./kit.js";
import {
  constantNode,
  constantWriting,
  elemTypeOf,
  intAttr,
  nameBase,
  nodeSequence,
  nodeWithoutAttributes,
  numberConstant,
  opNode,
  rankOf,
} from "./nodes.js";

const F = DataType.FLOAT;

const isSubByte = (t: number) =>
  t === DataType.INT4 || t === DataType.UINT4 || t === DataType.INT2 || t === DataType.UINT2;

interface Layout {
  /** The node's axis, normalised (when the rank is known). */
  axis: number;
  rank: number | undefined;
  /** 0: per tensor or per axis; > 0 blocked. */
  block: number;
  perTensor: boolean;
}

/** How the node's scale (input 1) lays out over x (input 0). */
function layoutOf(c: AdapterContext): Layout {
  const rank = rankOf(c, 0);
  let axis = intAttr(c, "axis") ?? 1;
  if (rank !== undefined && axis < 0) axis += rank;
  const block = intAttr(c, "block_size") ?? 0;
  const sRank = rankOf(c, 1);
  const k = c.constantInput(1);
  const perTensor =
    block <= 0 &&
    (sRank === 0 ||
      (k !== undefined && k.dims.reduce((a, d) => a * d, 1) === 1) ||
      (sRank === 1 && (c.inputType(1) as { shape?: unknown[] } | undefined)?.shape?.[0] === 1));
  if (!perTensor && block <= 0 && sRank === undefined && !k)
    c.fail("the scale's shape is unknown (per tensor or per axis?)");
  return { axis, rank, block, perTensor };
}

/**
 * The arithmetic of DequantizeLinear (`quantize` false) or QuantizeLinear (true) for this node,
 * valid at the step's opset (and, for rounding, at the conversion's target).
 */
function arithmetic(c: AdapterContext, quantize: boolean, outType?: number): Node[] {
  const n = c.node;
  const s = nodeSequence(c, nameBase(n, quantize ? "q" : "dq"));
  const L = layoutOf(c);
  const x0 = n.inputs[0]!;
  const hasZp = (n.inputs[2] ?? "") !== "";
  // A 4- or 2-bit input (x, or the zero point) must be a constant: its values become an 8-bit Constant.
  const unpacked = (i: number): string => {
    const name = n.inputs[i]!;
    const t = c.inputElemType(i);
    if (t === undefined || !isSubByte(t)) return name;
    const k = c.constantInput(i);
    if (!k)
      return c.fail(
        `input '${name}' is ${dtypeName(t)}, which opset ${c.opset} does not have, and not a constant that could be unpacked`,
      );
    const v = fromIRTensor(k).data as Int8Array | Uint8Array;
    const wide = t === DataType.INT4 || t === DataType.INT2 ? DataType.INT8 : DataType.UINT8;
    const [node, out] = constantNode(
      c,
      `${name}_unpacked`,
      Tensor.from(wide, [...k.dims], Array.from(v)),
    );
    s.nodes.push(node);
    return out;
  };
  const x = quantize ? x0 : unpacked(0);
  const zp = hasZp ? unpacked(2) : "";
  const param = (p: string): string => {
    if (L.perTensor) return p;
    if (L.rank === undefined) c.fail("a per-axis or blocked scale needs x's rank");
    const rank = L.rank;
    if (L.block <= 0) {
      if (L.axis === rank - 1) return p;
      return s.op(
        "Reshape",
        [p, s.ints("axis_shape", [-1, ...new Array(rank - 1 - L.axis).fill(1)])],
        "per_axis",
      );
    }
    // blocked: [.., blocks, ..] -> each entry repeated block times along the axis, cut to x's length
    const shape = s.op("Shape", [p], "pshape");
    const before = s.op("Slice", [shape, s.ints("z", [0]), s.ints("a1", [L.axis + 1])], "before");
    const after = s.op("Slice", [shape, s.ints("a2", [L.axis + 1]), s.ints("r", [rank])], "after");
    const unsq = s.op("Unsqueeze", [p, s.ints("ua", [L.axis + 1])], "unsq");
    const grown = s.op(
      "Expand",
      [unsq, s.op("Concat", [before, s.ints("blk", [L.block]), after], "eshape", { axis: 0 })],
      "grown",
    );
    const lead = s.op("Slice", [shape, s.ints("z2", [0]), s.ints("a3", [L.axis])], "lead");
    const merged = s.op(
      "Reshape",
      [grown, s.op("Concat", [lead, s.ints("m1", [-1]), after], "mshape", { axis: 0 })],
      "merged",
    );
    const len = s.op(
      "Slice",
      [s.op("Shape", [x0], "xshape"), s.ints("a4", [L.axis]), s.ints("a5", [L.axis + 1])],
      "len",
    );
    return s.op("Slice", [merged, s.ints("z3", [0]), len, s.ints("ax", [L.axis])], "cut");
  };
  const scale = param(n.inputs[1]!);
  const sF = c.inputElemType(1) === F ? scale : s.op("Cast", [scale], "scale_f", { to: F });
  if (!quantize) {
    let v = s.op("Cast", [x], "xf", { to: F });
    if (hasZp) v = s.op("Sub", [v, s.op("Cast", [param(zp)], "zpf", { to: F })], "centred");
    const to = outType ?? c.inputElemType(1) ?? F;
    if (to === F) s.nodes.push(opNode(c, "Mul", [v, sF], [n.outputs[0]!]));
    else s.nodes.push(opNode(c, "Cast", [s.op("Mul", [v, sF], "y")], [n.outputs[0]!], { to }));
    return s.nodes;
  }
  const to = hasZp ? c.inputElemType(2) : outType;
  if (to !== undefined && isSubByte(to))
    return c.fail(`a ${dtypeName(to)} output does not exist at opset ${c.opset}`);
  if (to === undefined) c.fail("the quantized type is unknown");
  const r = quantizedRange(to);
  if (!r) c.fail(`quantizing to ${dtypeName(to)} has no arithmetic equivalent`);
  const xf = c.inputElemType(0) === F ? x : s.op("Cast", [x], "xf", { to: F });
  const ratio = s.op("Div", [xf, sF], "ratio");
  let q = roundHalfEven(c, s, ratio);
  if (hasZp) q = s.op("Add", [q, s.op("Cast", [param(zp)], "zpf", { to: F })], "shifted");
  let clipped: string;
  if (c.opset >= 11) {
    const [lo, loName] = numberConstant(c, `${nameBase(n, "lo")}`, F, [r[0]]);
    const [hi, hiName] = numberConstant(c, `${nameBase(n, "hi")}`, F, [r[1]]);
    s.nodes.push(lo, hi);
    clipped = s.op("Clip", [q, loName, hiName], "clipped");
  } else clipped = s.op("Clip", [q], "clipped", { min: r[0], max: r[1] });
  s.nodes.push(opNode(c, "Cast", [clipped], [n.outputs[0]!], { to }));
  return s.nodes;
}

/** Round half to even: Round (opset 11), or below it Floor(v + 0.5) less 1 on odd ties. */
function roundHalfEven(c: AdapterContext, s: ReturnType<typeof nodeSequence>, v: string): string {
  if (c.target >= 11) return s.op("Round", [v], "rounded");
  const half = s.op("Constant", [], "half", { value: Tensor.from(F, [], [0.5]) });
  const f = s.op("Floor", [s.op("Add", [v, half], "plus_half")], "floor");
  // a tie: f - v = 0.5 (it is at most 0.5); odd: |f mod 2| = 1
  const tie = s.op("Not", [s.op("Less", [s.op("Sub", [f, v], "frac"), half], "below")], "tie");
  const two = s.op("Constant", [], "two", { value: Tensor.from(F, [], [2]) });
  const odd = s.op(
    "Greater",
    [s.op("Abs", [s.op("Mod", [f, two], "mod", { fmod: 1 })], "absmod"), half],
    "odd",
  );
  const fix = s.op("Cast", [s.op("And", [tie, odd], "odd_tie")], "fix", { to: F });
  return s.op("Sub", [f, fix], "rounded");
}

/** Q/DQ 13 -> 10: per tensor drops `axis`; per axis is written out. */
const down13: (quantize: boolean) => Adapter = (quantize) => (c) => {
  if (layoutOf(c).perTensor) return [nodeWithoutAttributes(c.node, "axis")];
  return arithmetic(c, quantize);
};

/**
 * Q/DQ 21 -> 19: block_size, the 16-bit and 4-bit types and output_dtype (QuantizeLinear without a
 * zero point) are written out; otherwise the attributes drop.
 */
const down21: (quantize: boolean) => Adapter = (quantize) => (c) => {
  const block = intAttr(c, "block_size") ?? 0;
  const outType = quantize ? (intAttr(c, "output_dtype") ?? 0) : 0;
  const hasZp = (c.node.inputs[2] ?? "") !== "";
  if (block > 0) return arithmetic(c, quantize, outType || undefined);
  if (quantize && outType && !hasZp) {
    if (outType !== DataType.UINT8 && outType !== DataType.INT8)
      return arithmetic(c, true, outType);
    const [k, name] = numberConstant(c, nameBase(c.node, "zero_point"), outType, [0]);
    const n = nodeWithoutAttributes(c.node, "block_size", "output_dtype");
    n.inputs = [c.node.inputs[0]!, c.node.inputs[1]!, name];
    return [k, n];
  }
  return [nodeWithoutAttributes(c.node, "block_size", "output_dtype")];
};

/** DQ 23 -> 21: output_dtype other than the scale's type becomes a Cast after it. */
const dqDown23: Adapter = (c) => {
  const out = intAttr(c, "output_dtype") ?? 0;
  const n = nodeWithoutAttributes(c.node, "output_dtype");
  if (!out || out === c.inputElemType(1)) return [n];
  const mid = c.fresh(nameBase(c.node, "dq"));
  n.outputs = [mid];
  return [n, opNode(c, "Cast", [mid], [c.node.outputs[0]!], { to: out })];
};

/** Q 23 -> 21: `precision` (the type the division is computed in) drops when it is the default. */
const qDown23: Adapter = (c) => {
  const p = intAttr(c, "precision") ?? 0;
  if (p !== 0 && p !== F)
    c.fail(`precision ${p} has no equivalent at opset 21 (which divides in float)`);
  return [nodeWithoutAttributes(c.node, "precision")];
};

/** The 16-/4-bit types a step drops: the arithmetic form, which takes any integer type. */
const typeMissing =
  (quantize: boolean): Adapter =>
  (c) =>
    arithmetic(c, quantize, quantize ? intAttr(c, "output_dtype") || undefined : undefined);

/** MaxPool 12 -> 11 on int8/uint8: pooled in float and cast back (Indices unchanged). */
const maxPoolInt8: Adapter = (c) => {
  const t = elemTypeOf(c, 0, "to pool 8-bit integers in float");
  if (t !== DataType.INT8 && t !== DataType.UINT8) return undefined;
  const s = nodeSequence(c, nameBase(c.node, "maxpool"));
  const xf = s.op("Cast", [c.node.inputs[0]!], "xf", { to: F });
  const pooled = c.fresh(nameBase(c.node, "pooled"));
  s.nodes.push({ ...c.node, inputs: [xf], outputs: [pooled, ...c.node.outputs.slice(1)] });
  s.nodes.push(opNode(c, "Cast", [pooled], [c.node.outputs[0]!], { to: t }));
  return s.nodes;
};

/**
 * Cast 13 -> 9 of a constant whose type 9 lacks (bfloat16 weights cast to float): the cast values,
 * exact for the widening casts to float/double, as a Constant.
 */
const castFolded: Adapter = (c) => {
  const k = c.constantInput(0);
  const to = intAttr(c, "to");
  if (!k || (to !== F && to !== DataType.DOUBLE))
    return c.fail(
      `input '${c.node.inputs[0]}' is of a type Cast-9 lacks, and not a constant cast to float or double`,
    );
  const v = toFloat64(fromIRTensor(k));
  const t = toIRTensor(fromFloat64(to, [...k.dims], v));
  return [constantWriting(c.node.outputs[0]!, [{ name: "value", type: "TENSOR", value: t }])];
};

/** Shape 19 -> 15 of a constant whose type 15 lacks (an int4 weight): its dims as a Constant. */
const shapeFolded: Adapter = (c) => {
  const k = c.constantInput(0);
  if (!k)
    return c.fail(`input '${c.node.inputs[0]}' is of a type Shape-15 lacks, and not a constant`);
  const r = k.dims.length;
  const clamp = (v: number) => Math.max(0, Math.min(r, v < 0 ? v + r : v));
  const start = clamp(intAttr(c, "start") ?? 0);
  const end = clamp(intAttr(c, "end") ?? r);
  const dims = k.dims.slice(start, Math.max(start, end));
  return [
    constantWriting(c.node.outputs[0]!, [
      {
        name: "value",
        type: "TENSOR",
        value: Tensor.from(DataType.INT64, [dims.length], dims.map(BigInt)),
      },
    ]),
  ];
};

export const rows: AdapterRow[] = [
  row("Cast", 13, 9, "bfloat16 (absent at 9): a constant input is folded", () => undefined, {
    typeMissing: castFolded,
  }),
  row(
    "Shape",
    19,
    15,
    "4-bit and float8 inputs (absent at 15): a constant's shape is folded",
    () => undefined,
    {
      typeMissing: shapeFolded,
    },
  ),
  row(
    "QuantizeLinear",
    13,
    10,
    "per axis: written out as Div, Round, Add, Clip, Cast",
    down13(true),
  ),
  row("DequantizeLinear", 13, 10, "per axis: written out as Cast, Sub, Mul", down13(false)),
  row(
    "QuantizeLinear",
    21,
    19,
    "block_size, 16-bit types, output_dtype: written out (a 4-bit output is refused)",
    down21(true),
    { typeMissing: typeMissing(true) },
  ),
  row(
    "DequantizeLinear",
    21,
    19,
    "block_size, 16-bit types: written out; a 4-bit input only when constant (unpacked to 8 bits)",
    down21(false),
    { typeMissing: typeMissing(false) },
  ),
  row("DequantizeLinear", 23, 21, "output_dtype: a Cast after", dqDown23),
  row("QuantizeLinear", 23, 21, "precision: dropped when the default", qDown23),
  row("MaxPool", 12, 11, "int8/uint8: pooled in float, cast back", () => undefined, {
    typeMissing: maxPoolInt8,
  }),
];
