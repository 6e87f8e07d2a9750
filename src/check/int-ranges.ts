// Bounds of the integer values of a graph: for each value of an integer (or bool) type, an
// interval [lo, hi] that holds every element on any run that does not fail, or none where no
// bound can be shown. What legalize-int64 asks before it computes an int64 value in int32.
//
// Where bounds come from: constants (their values), the element type itself (int32 and narrower),
// a static dimension (Shape, Size, ArgMax, TopK's indices, NonZero and Range over known values),
// and the ops' own rules: an index given to Gather, GatherElements or ScatterElements lies within
// the indexed axis, or the run fails (so a model's int64 token ids, which feed an embedding's
// Gather, are bounded by the vocabulary). A dimension that is not static has no bound (a dim is
// not assumed to fit int32): fixing dims first (`--dim`) makes shape values bounded.
// Arithmetic is interval arithmetic over float64, conservative where rounding could matter
// (any bound beyond 2^53 is far outside int32, where the answer is "does not fit" either way).

import { attrInt, getAttr } from "../ir/attributes.js";
import { quantizedRange } from "../ir/dtype.js";
import type { Tensor } from "../ir/tensor.js";
import { DataType, staticShape, type Graph, type Node, type Type } from "../ir/types.js";

export type Interval = readonly [lo: number, hi: number];

const UNBOUNDED: Interval = [-Infinity, Infinity];
export const INT32_RANGE: Interval = [-(2 ** 31), 2 ** 31 - 1];

/** The values an integer element type can hold; undefined for the others. */
export function dtypeInterval(dt: number | undefined): Interval | undefined {
  if (dt === undefined) return undefined;
  if (dt === DataType.BOOL) return [0, 1];
  if (dt === DataType.UINT32) return [0, 2 ** 32 - 1];
  // No bound worth the name: what narrows an int64 value is what is known of it.
  if (dt === DataType.INT64 || dt === DataType.UINT64) return UNBOUNDED;
  return quantizedRange(dt);
}

export const fitsInt32 = (r: Interval | undefined): r is Interval =>
  !!r && r[0] >= INT32_RANGE[0] && r[1] <= INT32_RANGE[1];

const hull = (rs: (Interval | undefined)[]): Interval | undefined => {
  let lo = Infinity;
  let hi = -Infinity;
  for (const r of rs) {
    if (!r) return undefined;
    lo = Math.min(lo, r[0]);
    hi = Math.max(hi, r[1]);
  }
  return lo <= hi ? [lo, hi] : undefined;
};

const meet = (a: Interval | undefined, b: Interval | undefined): Interval | undefined => {
  if (!a) return b;
  if (!b) return a;
  const lo = Math.max(a[0], b[0]);
  const hi = Math.min(a[1], b[1]);
  return lo <= hi ? [lo, hi] : a;
};

/** a·b over intervals (0·∞ taken as 0: a factor known to be 0 makes a product 0). */
function times(a: Interval, b: Interval): Interval {
  const m = (x: number, y: number) => (x === 0 || y === 0 ? 0 : x * y);
  const c = [m(a[0], b[0]), m(a[0], b[1]), m(a[1], b[0]), m(a[1], b[1])];
  return [Math.min(...c), Math.max(...c)];
}

const bounded = (r: Interval | undefined): r is Interval =>
  !!r && Number.isFinite(r[0]) && Number.isFinite(r[1]);

/** The size of the axis `axis` (negative counts from the end) when static. */
function axisDim(t: Type | undefined, axis: number): number | undefined {
  if (!t || t.kind !== "tensor" || !t.shape) return undefined;
  const r = t.shape.length;
  const a = axis < 0 ? axis + r : axis;
  const d = t.shape[a];
  return typeof d === "number" ? d : undefined;
}

const elemType = (t: Type | undefined) => (t && t.kind === "tensor" ? t.elemType : undefined);

/** Largest number of elements read from one tensor to bound it. */
const READ_CAP = 1 << 22;

function tensorInterval(t: Tensor): Interval | undefined {
  const by = dtypeInterval(t.dataType);
  // 4-bit values are bounded by their type already (and are not read element-wise here).
  if (!by || by[1] - by[0] <= 15 || !t.readable || t.elementCount > READ_CAP) return by;
  if (t.elementCount === 0) return by;
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of t.numbers()) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return [lo, hi];
}

/**
 * The bound of each integer value of `g` (its initializers, its Constant nodes' outputs and every
 * node output whose type `types` gives), undefined where none is known. `constants` gives the
 * tensors of Constant nodes by output name (lifted or not). Nodes are taken in order (a valid
 * graph is sorted); subgraphs are not entered (their outputs, as an If's, get only their type's
 * bound).
 */
export function integerBounds(
  g: Graph,
  types: ReadonlyMap<string, Type>,
  constants: ReadonlyMap<string, Tensor> = new Map(),
): Map<string, Interval | undefined> {
  const out = new Map<string, Interval | undefined>();
  const typeOf = (x: string) => types.get(x);
  // What the ops' rules say of an index value, from every consumer (the graph's nodes all run).
  const indexLimit = new Map<string, Interval>();
  const limit = (x: string | undefined, dim: number | undefined) => {
    if (!x || dim === undefined) return;
    const r: Interval = [-dim, dim - 1];
    indexLimit.set(x, meet(indexLimit.get(x), r) ?? r);
  };
  for (const n of g.nodes) {
    if ((n.domain ?? "") !== "" && n.domain !== "ai.onnx") continue;
    const data = typeOf(n.inputs[0] ?? "");
    if (n.opType === "Gather") limit(n.inputs[1], axisDim(data, attrInt(n, "axis", 0)));
    else if (n.opType === "GatherElements" || n.opType === "ScatterElements")
      limit(n.inputs[1], axisDim(data, attrInt(n, "axis", 0)));
  }
  const set = (x: string | undefined, r: Interval | undefined) => {
    if (!x) return;
    const by = dtypeInterval(elemType(typeOf(x)));
    if (!by) return;
    let v = meet(r, by);
    v = meet(v, indexLimit.get(x));
    out.set(x, bounded(v) ? v : undefined);
  };
  for (const t of g.initializers) set(t.name, tensorInterval(t));
  for (const v of g.inputs)
    if (!out.has(v.name)) set(v.name, dtypeInterval(elemType(v.type ?? typeOf(v.name))));
  for (const [name, t] of constants) set(name, tensorInterval(t));
  for (const n of g.nodes) {
    const rs = n.outputs.map(() => undefined as Interval | undefined);
    if ((n.domain ?? "") === "" || n.domain === "ai.onnx") {
      const r = (i: number) => (n.inputs[i] ? out.get(n.inputs[i]!) : undefined);
      rs[0] = rule(n, r, typeOf);
      if (n.opType === "TopK") {
        rs[0] = r(0);
        const d = axisDim(typeOf(n.inputs[0] ?? ""), attrInt(n, "axis", -1));
        rs[1] = d !== undefined ? [0, Math.max(0, d - 1)] : undefined;
      } else if (n.opType === "Split") rs.fill(r(0));
    }
    n.outputs.forEach((o, i) => {
      if (!out.has(o)) set(o, rs[i]);
    });
  }
  return out;
}

/** The bound of a node's first output from its inputs' bounds (undefined: none known). */
function rule(
  n: Node,
  r: (i: number) => Interval | undefined,
  typeOf: (x: string) => Type | undefined,
): Interval | undefined {
  const inType = (i: number) => typeOf(n.inputs[i] ?? "");
  const maxDim = (t: Type | undefined) => {
    const d = staticShape(t);
    return d ? Math.max(0, ...d) : undefined;
  };
  switch (n.opType) {
    case "Identity":
    case "Reshape":
    case "Squeeze":
    case "Unsqueeze":
    case "Flatten":
    case "Transpose":
    case "Expand":
    case "Tile":
    case "Slice":
    case "Gather":
    case "GatherElements":
    case "GatherND":
    case "ReduceMax":
    case "ReduceMin":
    case "DepthToSpace":
    case "SpaceToDepth":
    case "ReverseSequence":
    case "Compress":
      return r(0);
    case "Concat":
    case "Sum":
      if (n.opType === "Concat") return hull(n.inputs.map((_, i) => r(i)));
      return n.inputs.reduce<Interval | undefined>(
        (acc, _, i) => {
          const b = r(i);
          return acc && b ? [acc[0] + b[0], acc[1] + b[1]] : undefined;
        },
        [0, 0],
      );
    case "Where":
      return hull([r(1), r(2)]);
    case "Pad":
      return hull([r(0), n.inputs[2] ? r(2) : [0, 0]]);
    case "Trilu":
      return hull([r(0), [0, 0]]);
    case "ScatterElements":
    case "ScatterND":
      return hull([r(0), r(2)]);
    case "OneHot":
      return r(2);
    case "Max":
    case "Min": {
      const rs = n.inputs.map((_, i) => r(i));
      if (rs.some((x) => !x)) return undefined;
      const pick = n.opType === "Max" ? Math.max : Math.min;
      return [pick(...rs.map((x) => x![0])), pick(...rs.map((x) => x![1]))];
    }
    case "Clip": {
      const a = r(0);
      if (!a) return undefined;
      const lo = n.inputs[1] ? r(1) : undefined;
      const hi = n.inputs[2] ? r(2) : undefined;
      return [lo ? Math.max(a[0], lo[0]) : a[0], hi ? Math.min(a[1], hi[1]) : a[1]];
    }
    case "Neg": {
      const a = r(0);
      return a && [-a[1], -a[0]];
    }
    case "Abs": {
      const a = r(0);
      return (
        a && [
          a[0] <= 0 && a[1] >= 0 ? 0 : Math.min(Math.abs(a[0]), Math.abs(a[1])),
          Math.max(Math.abs(a[0]), Math.abs(a[1])),
        ]
      );
    }
    case "Sign":
      return [-1, 1];
    case "Add":
    case "Sub": {
      const [a, b] = [r(0), r(1)];
      if (!a || !b) return undefined;
      return n.opType === "Add" ? [a[0] + b[0], a[1] + b[1]] : [a[0] - b[1], a[1] - b[0]];
    }
    case "Mul": {
      const [a, b] = [r(0), r(1)];
      return a && b ? times(a, b) : undefined;
    }
    case "Div": {
      // Integer division by a divisor that is never 0: |q| ≤ |a|.
      const [a, b] = [r(0), r(1)];
      if (!a || !b || (b[0] <= 0 && b[1] >= 0)) return undefined;
      const m = Math.max(Math.abs(a[0]), Math.abs(a[1]));
      return [a[0] >= 0 && b[0] > 0 ? 0 : -m, m];
    }
    case "Mod": {
      const [a, b] = [r(0), r(1)];
      if (!b) return undefined;
      const m = Math.max(Math.abs(b[0]), Math.abs(b[1])) - 1;
      if (a && a[0] >= 0 && b[0] > 0) return [0, Math.min(m, a[1])];
      return [-m, m];
    }
    case "Cast":
    case "CastLike":
      // From an integer or bool type the values stay; from a float type nothing is known.
      return dtypeInterval(elemType(inType(0))) ? r(0) : undefined;
    case "Shape": {
      const d = maxDim(inType(0));
      return d === undefined ? undefined : [0, d];
    }
    case "Size": {
      const d = staticShape(inType(0));
      if (!d) return undefined;
      const s = d.reduce((a, b) => a * b, 1);
      return [s, s];
    }
    case "ArgMax":
    case "ArgMin": {
      const d = axisDim(inType(0), attrInt(n, "axis", 0));
      return d === undefined ? undefined : [0, Math.max(0, d - 1)];
    }
    case "NonZero": {
      const d = maxDim(inType(0));
      return d === undefined ? undefined : [0, Math.max(0, d - 1)];
    }
    case "Range": {
      const [s, l] = [r(0), r(1)];
      return hull([s, l]);
    }
    case "ConstantOfShape": {
      const a = getAttr(n, "value");
      return a?.type === "TENSOR" && a.value ? tensorInterval(a.value) : [0, 0];
    }
    case "CumSum":
    case "ReduceSum": {
      // At most as many terms as the input has elements.
      const a = r(0);
      const d = staticShape(inType(0));
      if (!a || !d) return undefined;
      const k = d.reduce((x, y) => x * y, 1);
      return [Math.min(a[0], a[0] * k, 0), Math.max(a[1], a[1] * k, 0)];
    }
    default:
      return undefined;
  }
}
