// Whether a node meets one constraint of a target profile (the closed vocabulary of profile.ts),
// and if not, why in one phrase. A constraint that needs what is not known before running (a
// computed input's values, a symbolic dim) fails and says so: the backend decides when it builds
// its graph, and a model whose dims are fixed gives it what it needs.

import { dtypeName } from "../ir/dtype.js";
import type { Function, Graph, Node, Type } from "../ir/types.js";
import type { OpVersion } from "../schema/types.js";
import type { Constraint } from "./profile.js";

/** What a constraint may ask about the node's surroundings. */
export interface ConstraintScope {
  types: Map<string, Type> | undefined;
  /** The graph's constants (initializers, Constant outputs): their values as numbers, when read. */
  constants: Map<string, () => number[] | undefined>;
  /** The op's schema in force (attribute defaults, input names). */
  version: OpVersion | undefined;
}

const isConstantNode = (n: Node) =>
  n.opType === "Constant" && (n.domain ?? "") === "" && n.inputs.length === 0;

/** The names that hold constants in a graph, with a reader of their values. */
export function constantsOf(g: Graph | Function): Map<string, () => number[] | undefined> {
  const out = new Map<string, () => number[] | undefined>();
  // a bool constant reads as 0 and 1 (Dropout's training_mode)
  const numbers = (vs: unknown[]) =>
    vs.every((v) => typeof v === "number" || typeof v === "bigint" || typeof v === "boolean")
      ? vs.map((v) => Number(v))
      : undefined;
  if ("initializers" in g)
    for (const t of g.initializers)
      out.set(t.name, () => {
        try {
          return numbers(t.values());
        } catch {
          return undefined; // external data not loaded: known to be constant, values unread
        }
      });
  for (const n of g.nodes) {
    // A DequantizeLinear of constants is a constant weight to a backend that takes the QDQ group
    // (onnxruntime's EPs read the quantized initializer behind it); its values are not read here.
    if (
      n.opType === "DequantizeLinear" &&
      (n.domain === "" || n.domain === "com.microsoft") &&
      n.outputs[0] &&
      n.inputs.every((x) => !x || out.has(x))
    ) {
      out.set(n.outputs[0], () => undefined);
      continue;
    }
    if (!isConstantNode(n) || !n.outputs[0]) continue;
    const a = n.attributes[0];
    out.set(n.outputs[0], () => {
      if (!a || a.value === undefined) return undefined;
      if (a.type === "TENSOR") return numbers(a.value.values());
      if (a.type === "INT" || a.type === "FLOAT") return [Number(a.value)];
      if (a.type === "INTS" || a.type === "FLOATS") return a.value.map(Number);
      return undefined;
    });
  }
  return out;
}

export function shapeOf(t: Type | undefined): (number | string | null)[] | undefined {
  return t && t.kind === "tensor" ? t.shape : undefined;
}

/** The attribute's value as numbers or strings (a list for a list attribute), or the default. */
function attrValues(
  n: Node,
  name: string,
  version: OpVersion | undefined,
): { values: (number | string)[]; set: boolean } | undefined {
  const a = n.attributes.find((x) => x.name === name);
  if (a && a.value !== undefined) {
    switch (a.type) {
      case "INT":
      case "FLOAT":
        return { values: [Number(a.value)], set: true };
      case "STRING":
        return { values: [a.value], set: true };
      case "INTS":
      case "FLOATS":
        return { values: a.value.map(Number), set: true };
      case "STRINGS":
        return { values: a.value, set: true };
      default:
        return { values: [], set: true };
    }
  }
  const d = version?.attributes.find((x) => x.name === name)?.default;
  if (d === undefined) return undefined;
  return { values: Array.isArray(d) ? d : [d], set: false };
}

const list = (vs: (number | string)[]) => vs.map((v) => JSON.stringify(v)).join(" or ");

/**
 * Where a constraint's input is in this node: a profile names an input by its position and name
 * in the op's newest version, and an older version in force may hold it elsewhere, or as an
 * attribute (Split's `split`, ReduceSum's `axes`, Squeeze's `axes` before opset 13): `input` is
 * the node's value at the position the version in force gives that name, `attribute` that
 * attribute's value when the version takes it so. Without the schema, the position as written.
 */
function inputNamed(
  c: { input: number; name: string },
  n: Node,
  version: OpVersion | undefined,
): { input?: string; attribute?: { values: (number | string)[]; set: boolean } } {
  if (!version || version.inputs[c.input]?.name === c.name) return { input: n.inputs[c.input] };
  const k = version.inputs.findIndex((f) => f.name === c.name);
  if (k >= 0) return { input: n.inputs[k] };
  if (version.attributes.some((a) => a.name === c.name)) {
    const v = attrValues(n, c.name, version);
    return v?.set ? { attribute: v } : {};
  }
  return { input: n.inputs[c.input] };
}

/**
 * Why a node fails a list of constraints, each reason once: an input that must be constant and
 * is computed is said once, not again by a constraint on its values (webnn's Reshape asks both).
 */
export function failingAll(cs: Constraint[], n: Node, s: ConstraintScope): string[] {
  const computed = new Set<string>();
  const reasons: string[] = [];
  for (const c of cs) {
    if (c.kind === "input-values") {
      const x = inputNamed(c, n, s.version).input;
      if (x && computed.has(x)) continue;
    }
    const why = failing(c, n, s);
    if (!why) continue;
    if (c.kind === "constant-input") {
      const x = inputNamed(c, n, s.version).input;
      if (x) computed.add(x);
    }
    reasons.push(why);
  }
  return reasons;
}

/** Why a constraint fails for a node (undefined: it holds). */
export function failing(c: Constraint, n: Node, s: ConstraintScope): string | undefined {
  const typeOf = (x: string | undefined) => (x ? s.types?.get(x) : undefined);
  switch (c.kind) {
    case "constant-input": {
      // an attribute is constant by nature
      const x = inputNamed(c, n, s.version).input;
      if (!x) return undefined;
      return s.constants.has(x) ? undefined : `input '${c.name}' is computed, not constant`;
    }
    case "absent-input": {
      const at = inputNamed(c, n, s.version);
      return at.input || at.attribute
        ? `input '${c.name}' is given; the target does not take it`
        : undefined;
    }
    case "absent-output":
      return n.outputs[c.output]
        ? `output '${c.name}' is used; the target does not produce it`
        : undefined;
    case "max-outputs": {
      const k = n.outputs.filter((o) => o).length;
      return k > c.max ? `${k} outputs used, the target takes ${c.max}` : undefined;
    }
    case "rank": {
      const range = c.min === c.max ? `${c.min}` : `${c.min} to ${c.max}`;
      const inputs = c.input === undefined ? n.inputs.map((_, i) => i) : [c.input];
      for (const i of inputs) {
        const x = n.inputs[i];
        if (!x) continue;
        const sh = shapeOf(typeOf(x));
        if (!sh) {
          if (c.input === undefined) continue; // the judge skips a value it has no shape for
          return `input ${i}'s rank is unknown (needs ${range})`;
        }
        if (sh.length < c.min || sh.length > c.max)
          return `input ${i} has rank ${sh.length}, the target takes ${range}`;
      }
      return undefined;
    }
    case "attribute": {
      const v = attrValues(n, c.name, s.version);
      if (c.absent)
        return v?.set ? `attribute '${c.name}' is set, the target takes none` : undefined;
      if (!v) return undefined;
      for (const x of v.values) {
        const bad =
          (c.in && !c.in.includes(x)) ||
          (c.notIn && c.notIn.includes(x)) ||
          (c.min !== undefined && !(typeof x === "number" && x >= c.min)) ||
          (c.max !== undefined && !(typeof x === "number" && x <= c.max));
        if (!bad) continue;
        const takes = [
          c.in ? list(c.in) : "",
          c.notIn ? `not ${list(c.notIn)}` : "",
          c.min !== undefined ? `at least ${c.min}` : "",
          c.max !== undefined ? `at most ${c.max}` : "",
        ].filter(Boolean);
        return `attribute '${c.name}' = ${JSON.stringify(x)}${v.set ? "" : " (its default)"}, the target takes ${takes.join(", ")}`;
      }
      return undefined;
    }
    case "given-input": {
      const at = inputNamed(c, n, s.version);
      return at.input || at.attribute
        ? undefined
        : `input '${c.name}' is not given; the target needs it`;
    }
    case "static-dims": {
      const values =
        c.output !== undefined
          ? [n.outputs[c.output] ?? ""]
          : c.input === undefined
            ? n.inputs
            : [n.inputs[c.input] ?? ""];
      const what = c.output !== undefined ? "output" : "input";
      for (const x of values) {
        if (!x || s.constants.has(x)) continue;
        const sh = shapeOf(typeOf(x));
        let dims = sh;
        if (sh && c.axisFrom) {
          const a = Number(attrValues(n, c.axisFrom, s.version)?.values[0] ?? 0);
          dims = [sh[a < 0 ? a + sh.length : a] ?? null];
        }
        if (!dims || dims.some((d) => typeof d !== "number"))
          return `${what} '${x}' has ${c.axisFrom ? `its '${c.axisFrom}' dim` : "dims"} not known before running (the target needs them static)`;
        if (c.nonEmpty && dims.includes(0))
          return `${what} '${x}' is empty (a dim of 0), which the target does not take`;
      }
      return undefined;
    }
    case "dims-equal": {
      const [x, y] = [n.inputs[c.input], n.outputs[c.output]];
      if (!x || !y) return undefined;
      const [a, b] = [shapeOf(typeOf(x))?.[c.axis], shapeOf(typeOf(y))?.[c.axis]];
      if (typeof a !== "number" || typeof b !== "number")
        return `dim ${c.axis} of '${x}' and of '${y}' not known before running (the target needs them equal)`;
      return a === b
        ? undefined
        : `dim ${c.axis} of '${x}' is ${a} and of '${y}' ${b}; the target needs them equal`;
    }
    case "symmetric-pads": {
      const p = attrValues(n, "pads", s.version);
      if (!p || !p.set) return undefined;
      const h = p.values.length / 2;
      for (let i = 0; i < h; i++)
        if (p.values[i] !== p.values[i + h])
          return `pads ${JSON.stringify(p.values)}: axis ${i} begins and ends differently`;
      return undefined;
    }
    case "kernel-matches-weight": {
      const k = attrValues(n, "kernel_shape", s.version);
      if (!k || !k.set) return undefined;
      const w = shapeOf(typeOf(n.inputs[1])) ?? undefined;
      const read = n.inputs[1] ? s.constants.get(n.inputs[1]) : undefined;
      if (!w && !read) return "the weight's shape is unknown (kernel_shape must match it)";
      const spatial = (w ?? []).slice(2);
      return spatial.length === k.values.length && spatial.every((d, i) => d === k.values[i])
        ? undefined
        : `kernel_shape ${JSON.stringify(k.values)} does not match the weight's dims ${JSON.stringify(spatial)}`;
    }
    case "same-activations": {
      const d = attrValues(n, "direction", s.version);
      if (d?.values[0] !== "bidirectional") return undefined;
      const a = attrValues(n, "activations", s.version);
      if (!a || !a.set) return undefined;
      const h = a.values.length / 2;
      return a.values.slice(0, h).every((v, i) => v === a.values[h + i])
        ? undefined
        : `activations ${JSON.stringify(a.values)} differ forward and backward`;
    }
    case "branches-agree": {
      const branch = (name: string) => {
        const a = n.attributes.find((x) => x.name === name);
        return a && a.type === "GRAPH" ? a.value : undefined;
      };
      const [t, e] = [branch("then_branch"), branch("else_branch")];
      if (!t || !e) return undefined;
      for (let i = 0; i < t.outputs.length; i++) {
        const [p, q] = [t.outputs[i]!, e.outputs[i]];
        if (!q) continue;
        if (p.name === q.name) return `both branches name output ${i} '${p.name}'`;
        const [rp, rq] = [shapeOf(p.type)?.length, shapeOf(q.type)?.length];
        if (rp === undefined || rq === undefined)
          return `the rank of output ${i} is not declared in both branches`;
        if (rp !== rq) return `output ${i} has rank ${rp} in one branch and ${rq} in the other`;
      }
      return undefined;
    }
    case "input-types":
    case "output-types": {
      const [x, what] =
        c.kind === "input-types"
          ? [inputNamed(c, n, s.version).input, "input"]
          : [n.outputs[c.output], "output"];
      const t = typeOf(x);
      if (!x || !t || t.kind !== "tensor" || !t.elemType) return undefined;
      const name = dtypeName(t.elemType);
      return c.types.includes(name)
        ? undefined
        : `${what} '${c.name}' is ${name}, the target takes ${c.types.join(" or ")}`;
    }
    case "input-values": {
      const at = inputNamed(c, n, s.version);
      const x = at.input;
      if (!x && !at.attribute) return undefined;
      const read = x ? s.constants.get(x) : undefined;
      if (x && !read)
        return `input '${c.name}' is computed: its values are not known before running`;
      const vs = at.attribute
        ? at.attribute.values.every((v) => typeof v === "number")
          ? (at.attribute.values as number[])
          : undefined
        : read!();
      if (!vs) return undefined; // constant, its values not at hand (external data): not judged
      if (c.min !== undefined && vs.some((v) => v < c.min!))
        return `input '${c.name}' holds ${Math.min(...vs)}, the target takes values of at least ${c.min}`;
      if (c.max !== undefined && vs.some((v) => v > c.max!))
        return `input '${c.name}' holds ${Math.max(...vs)}, the target takes values of at most ${c.max}`;
      if (c.equalsDim) {
        const d = shapeOf(typeOf(n.inputs[c.equalsDim.input]))?.[c.equalsDim.axis];
        if (typeof d !== "number" || vs.some((v) => v !== d))
          return `input '${c.name}' must hold input ${c.equalsDim.input}'s dim ${c.equalsDim.axis} (${d ?? "unknown"}) throughout`;
      }
      const hit = c.notIn ? vs.find((v) => c.notIn!.includes(v)) : undefined;
      if (hit !== undefined)
        return `input '${c.name}' holds ${hit}, which the target does not take`;
      return undefined;
    }
    case "even-split": {
      // sizes given (an input, or the attribute before opset 13): all equal; computed sizes are
      // the `constant-input` constraint's to name
      const sizes = inputNamed({ input: 1, name: "split" }, n, s.version);
      if (sizes.input || sizes.attribute) {
        const vs = sizes.attribute
          ? sizes.attribute.values.map(Number)
          : s.constants.get(sizes.input!)?.();
        if (!vs || vs.every((v) => v === vs[0])) return undefined;
        return `split sizes ${JSON.stringify(vs)} differ; the target takes equal parts only`;
      }
      const sh = shapeOf(typeOf(n.inputs[0]));
      const axisAttr = attrValues(n, "axis", s.version);
      if (!sh) return "input 0's shape is unknown (the split must divide its axis evenly)";
      const axis = Number(axisAttr?.values[0] ?? 0);
      const d = sh[axis < 0 ? axis + sh.length : axis];
      const parts =
        Number(attrValues(n, "num_outputs", s.version)?.values[0] ?? 0) || n.outputs.length;
      if (typeof d !== "number") return `the split axis's dim is not known before running`;
      return d % parts === 0 ? undefined : `the axis (${d}) does not divide into ${parts} outputs`;
    }
    case "every-axis": {
      const v = attrValues(n, c.attribute, s.version);
      if (!v?.set) return undefined;
      const rank = shapeOf(typeOf(n.inputs[0]))?.length;
      if (rank === undefined)
        return `input 0's rank is unknown ('${c.attribute}' must list its every axis)`;
      const axes = v.values.map((a) => (Number(a) < 0 ? Number(a) + rank : Number(a)));
      return axes.length === rank && axes.every((a, i) => a === i)
        ? undefined
        : `attribute '${c.attribute}' = ${JSON.stringify(v.values)}, the target takes every axis of the rank-${rank} input in order`;
    }
    case "not-downsampling": {
      const a = shapeOf(typeOf(n.inputs[0]));
      const b = shapeOf(typeOf(n.outputs[0]));
      if (!a || !b || a.length !== b.length) return "the input's or output's shape is unknown";
      for (let i = 0; i < a.length; i++) {
        const [p, q] = [a[i], b[i]];
        if (typeof p !== "number" || typeof q !== "number")
          return "the input's or output's dims are not known before running";
        if (q < p) return `dim ${i} shrinks from ${p} to ${q} (downsampling)`;
      }
      return undefined;
    }
    case "any": {
      const whys: string[] = [];
      for (const alt of c.of) {
        const why = alt.map((k) => failing(k, n, s)).find((w) => w !== undefined);
        if (why === undefined) return undefined;
        whys.push(why);
      }
      return `none of the cases the target takes: ${whys.join("; or ")}`;
    }
  }
}
