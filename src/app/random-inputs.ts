// Seeded random inputs that a model can run on, the same for `run --random` and the page's Run:
// values drawn where the model says what they may be, not blindly.
//
// - Shapes: a fixed dim as declared; a symbolic dim (dim_param) from the given dims
//   ("batch=1,sequence=128", app/dims.ts), an unnamed one as "input[axis]=v", else the size the
//   graph's own shapes ask for (random-dims.ts: 1 unless a Conv, Squeeze, Reshape, ... needs
//   more), each such choice reported to the caller. A given name no input declares is an error
//   (a typo would otherwise pass unseen).
// - Integer inputs used as indices (Gather, GatherElements, GatherND, onnxruntime's EmbedLayerNormalization
//   ids, through Cast/Reshape/Unsqueeze/Squeeze/Flatten/Identity) draw from [0, n) where n is the
//   smallest size they index along whose size is known (an embedding table's rows, a type
//   vocabulary of 2): random ids from -3 to 3 would index out of range.
// - Integer inputs compared with constants (Equal, and the If-selecting comparisons Greater, Less,
//   ...; silero-vad's sample rate against 16000 and 8000) take one of those constants.
// - An integer input named as a mask (attention_mask) holds 0 and 1.
// - Everything else as before: floats uniform in [-3, 3), integers rounded from it, bools at
//   random; the i-th input draws from deriveSeed(seed, i), so adding a rule for one input never
//   moves another's values.

import { OnnxError } from "../errors.js";
import { analysisOf } from "../check/infer.js";
import { deriveSeed, randomTensor, seededRandom } from "../interp/random.js";
import { activeBudget, storageByteSize } from "../interp/budget.js";
import { fromFloat64, scratch } from "../interp/tensor.js";
import type { RTensor, RValue } from "../interp/types.js";
import { INTEGER_TYPES } from "../ir/dtype.js";
import { walkNodes } from "../ir/visit.js";
import { DataType, type Model, type Node, type Type, type ValueInfo } from "../ir/types.js";
import { declaredDtype, requiredInputs } from "./inputs.js";
import { randomDims, type TakenDim } from "./random-dims.js";

const INTEGERS = new Set<number>(INTEGER_TYPES);

/** Ops that pass an integer input's values on unchanged (for where they end up). */
const PASS_THROUGH = new Set(["Cast", "Reshape", "Unsqueeze", "Squeeze", "Flatten", "Identity"]);
const COMPARISONS = new Set(["Equal", "Greater", "Less", "GreaterOrEqual", "LessOrEqual"]);

/** What the model says about one input's values. */
interface Use {
  /** Smallest size indexed by it (its values must be in [0, bound)). */
  bound?: number;
  /** Constants it is compared with. */
  compared: number[];
}

function intAttr(n: Node, name: string, dflt: number): number {
  const a = n.attributes.find((x) => x.name === name);
  return a && a.type === "INT" ? Number(a.value) : dflt;
}

/** The shapes the model declares or inference finds, by value name (main graph and subgraphs). */
function knownShapes(model: Model): (name: string) => number[] | undefined {
  const shapes = new Map<string, Type>();
  for (const t of model.graph.initializers)
    shapes.set(t.name, { kind: "tensor", elemType: t.dataType, shape: t.dims });
  let types: Map<unknown, Map<string, Type>> | undefined;
  try {
    types = analysisOf(model).types;
  } catch {
    // A model inference cannot follow keeps the declared shapes only.
  }
  for (const m of types?.values() ?? [])
    for (const [k, v] of m) if (!shapes.has(k)) shapes.set(k, v);
  return (name) => {
    const t = shapes.get(name);
    if (!t || t.kind !== "tensor" || !t.shape) return undefined;
    return t.shape.every((d) => typeof d === "number") ? (t.shape as number[]) : undefined;
  };
}

/** Constant values by name: initializers and Constant nodes' value / value_int(s). */
function knownConstants(model: Model): (name: string) => number[] | undefined {
  const consts = new Map<string, () => number[]>();
  for (const t of model.graph.initializers) consts.set(t.name, () => t.numbers());
  for (const { node } of walkNodes(model)) {
    if (node.opType !== "Constant" || (node.domain ?? "") !== "") continue;
    const a = node.attributes[0];
    if (!a || !node.outputs[0]) continue;
    if (a.type === "TENSOR" && a.value) {
      const t = a.value;
      if (INTEGERS.has(t.dataType) || t.dataType === DataType.FLOAT)
        consts.set(node.outputs[0], () => t.numbers());
    } else if (a.type === "INT") consts.set(node.outputs[0], () => [Number(a.value)]);
    else if (a.type === "INTS" && a.value) consts.set(node.outputs[0], () => a.value!.map(Number));
  }
  return (name) => consts.get(name)?.();
}

/** For each integer input: what its uses say about its values. */
function uses(model: Model, inputs: ValueInfo[]): Map<string, Use> {
  const consumers = new Map<string, { node: Node; slot: number }[]>();
  for (const { node } of walkNodes(model))
    node.inputs.forEach((name, slot) => {
      if (!name) return;
      let list = consumers.get(name);
      if (!list) consumers.set(name, (list = []));
      list.push({ node, slot });
    });
  const shapeOf = knownShapes(model);
  const constant = knownConstants(model);
  const out = new Map<string, Use>();
  for (const vi of inputs) {
    if (!INTEGERS.has(declaredDtype(vi.type))) continue;
    const use: Use = { compared: [] };
    const narrow = (n: number | undefined) => {
      if (n !== undefined && n > 0) use.bound = Math.min(use.bound ?? n, n);
    };
    const seen = new Set<string>();
    const follow = (value: string) => {
      if (seen.has(value)) return;
      seen.add(value);
      for (const { node, slot } of consumers.get(value) ?? []) {
        const op = node.opType;
        const domain = node.domain ?? "";
        if (domain === "" && PASS_THROUGH.has(op) && slot === 0 && node.outputs[0]) {
          follow(node.outputs[0]);
        } else if (domain === "" && (op === "Gather" || op === "GatherElements") && slot === 1) {
          const data = shapeOf(node.inputs[0]!);
          if (data && data.length > 0) {
            const axis = intAttr(node, "axis", 0);
            narrow(data[axis < 0 ? axis + data.length : axis]);
          }
        } else if (domain === "" && op === "GatherND" && slot === 1) {
          // The last axis of the indices holds k indices into data's axes b .. b+k-1 (b the
          // batch_dims); one bound for all of them, k taken as the rest of data's axes when the
          // indices' shape is not known.
          const data = shapeOf(node.inputs[0]!);
          const b = intAttr(node, "batch_dims", 0);
          const k = shapeOf(value)?.at(-1) ?? (data ? data.length - b : 0);
          if (data) for (let i = b; i < Math.min(data.length, b + k); i++) narrow(data[i]);
        } else if (domain === "com.microsoft" && op === "EmbedLayerNormalization") {
          // input_ids (0) index word_embedding (2), segment_ids (1) segment_embedding (4).
          const table = slot === 0 ? 2 : slot === 1 ? 4 : -1;
          if (table > 0) narrow(shapeOf(node.inputs[table] ?? "")?.[0]);
        } else if (domain === "" && COMPARISONS.has(op)) {
          const other = constant(node.inputs[1 - slot] ?? "");
          if (other && other.length === 1) use.compared.push(other[0]!);
        }
      }
    };
    follow(vi.name);
    if (use.bound !== undefined || use.compared.length) out.set(vi.name, use);
  }
  return out;
}

/**
 * An input's shape: fixed dims as declared; an unknown one from `dims` by its name, or by
 * "input[axis]" (how an unnamed dim is given), else 1.
 */
function shapeFor(vi: ValueInfo, dims: ReadonlyMap<string, number>): number[] {
  const t = vi.type;
  if (!t || t.kind !== "tensor")
    throw new OnnxError("E_USAGE", `input '${vi.name}' is not a tensor: give it as JSON or a file`);
  return (t.shape ?? []).map((d, axis) =>
    typeof d === "number"
      ? d
      : (dims.get(`${vi.name}[${axis}]`) ?? (d === null ? undefined : dims.get(d)) ?? 1),
  );
}

/**
 * Seeded random tensors for every input without a default (see the file's comment for the
 * rules); `dims` fixes symbolic dimensions by name; inputs named in `given` are left out (the
 * caller has values for them); the dims the caller did not set are pushed to `taken`, with the
 * sizes taken.
 */
export function randomInputs(
  model: Model,
  seed: number,
  dims: ReadonlyMap<string, number> = new Map(),
  given: Iterable<string> = [],
  taken?: TakenDim[],
): Record<string, RValue> {
  const skip = new Set(given);
  const inputs = requiredInputs(model);
  const named = new Set<string>();
  const byPosition = new Set<string>();
  for (const v of inputs)
    if (v.type?.kind === "tensor")
      (v.type.shape ?? []).forEach((d, axis) => {
        if (typeof d === "number") return;
        named.add(d ?? `${v.name}[${axis}]`);
        if (d !== null) byPosition.add(`${v.name}[${axis}]`);
      });
  for (const name of dims.keys())
    if (!named.has(name) && !byPosition.has(name))
      throw new OnnxError(
        "E_USAGE",
        `dim '${name}' is not a symbolic dim of the model's inputs (they have: ${[...named].join(", ") || "none"})`,
      );
  const chosen = randomDims(model, dims, skip);
  taken?.push(...chosen);
  if (chosen.length) {
    const all = new Map(dims);
    for (const t of chosen) all.set(t.name, t.value);
    dims = all;
  }
  const known = uses(model, inputs);
  const out: Record<string, RValue> = Object.create(null);
  // Inputs count against the memory budget in force (runModels binds inputs under the run's
  // --max-memory): each tensor, not the float64 values it is rounded from.
  const budget = activeBudget();
  inputs.forEach((v, i) => {
    if (skip.has(v.name)) return;
    const shape = shapeFor(v, dims);
    const dtype = declaredDtype(v.type);
    const rng = seededRandom(deriveSeed(seed, i));
    const use = known.get(v.name);
    const mark = budget?.enter();
    let t: RTensor;
    try {
      if (use?.compared.length) {
        const n = shape.reduce((p, d) => p * d, 1);
        const values = scratch(Float64Array, n);
        for (let k = 0; k < n; k++) values[k] = rng.pick(use.compared);
        t = fromFloat64(dtype, shape, values);
      } else if (use?.bound !== undefined)
        // Integers are rounded from [lo, hi): [-0.5, n - 0.5) rounds to 0 … n - 1.
        t = randomTensor(dtype, shape, rng, -0.5, use.bound - 0.5 - 1e-9);
      else if (INTEGERS.has(dtype) && /mask/i.test(v.name))
        // An attention (or padding) mask holds 0 and 1: other values mean other things to other
        // runtimes (onnxruntime's fused attention counts only the 1s).
        t = randomTensor(dtype, shape, rng, -0.5, 1.5 - 1e-9);
      else t = randomTensor(dtype, shape, rng);
    } catch (e) {
      if (e instanceof OnnxError && e.where === undefined)
        throw new OnnxError(e.code, e.message, `random input '${v.name}' [${shape.join(",")}]`);
      throw e;
    }
    if (budget && mark) {
      budget.leave(mark);
      budget.charge(storageByteSize(t.data), false, `random input '${v.name}'`);
    }
    out[v.name] = t;
  });
  return out;
}
