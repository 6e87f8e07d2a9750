// The adapter kit, part one: the row constructor and the patterns. Every row of the adapter table
// is made by `row`, which runs the target version's type check before the row's adapter (a row
// wins over the plan's own type check, so the row must make it). Patterns are named for what
// they do to a node (axes attribute -> input, attribute dropped, ...); a family's file
// (adapters/<family>.ts) builds its rows from them where it can and writes its own adapter where
// the step is particular to the op. Part two (nodes.ts) builds nodes and reads what they hold.

import { typeString } from "../../check/types.js";
import { attr, getAttr } from "../../ir/index.js";
import { dtypeName } from "../../ir/dtype.js";
import { isOnnxDomain } from "../../ir/opsets.js";
import { Tensor } from "../../ir/tensor.js";
import { DataType, type Attribute, type Node } from "../../ir/types.js";
import { formalTypes } from "../../schema/facts.js";
import type { FormalSchema, OpVersion } from "../../schema/types.js";
import {
  StepFailure,
  type Adapter,
  type AdapterContext,
  type AdapterRow,
  type RowOutcome,
} from "../adapter.js";
import {
  constantIntsInput,
  constantValues,
  constantWriting,
  findAttr,
  int64Constant,
  intAttr,
  nameBase,
  nodeWithoutAttributes,
  normAxis,
  rankOf,
  trimInputs,
  withAttributes,
  withInput,
  withoutAttribute,
  withoutAttributes,
  withoutInput,
} from "./nodes.js";

// ---- the row constructor ----

export interface RowOptions {
  /**
   * Rewrites a node that uses an element type the target version lacks, instead of refusing it
   * (Max 12 -> 8 carries integers in a float type). The row's adapter then sees only nodes
   * whose types the target accepts.
   */
  typeMissing?: Adapter;
  /**
   * Where the node's inputs sit in the target's signature, for the type check: input i is the
   * target's input i + inputOffset (Scan 9 -> 8: +1, after Scan-8's sequence_lens). Default 0.
   */
  inputOffset?: number;
}

/**
 * The row of one ai.onnx step: `op` from version `from` to the adjacent version `to`, what it
 * changes (one line, shown by `convert --list-adapters`), and the adapter. The adapter runs after
 * the target version's type check: a node using an element type the target lacks is refused
 * with the reason (or handed to `options.typeMissing`).
 */
export function row(
  op: string,
  from: number,
  to: number,
  summary: string,
  adapter: Adapter,
  options: RowOptions = {},
): AdapterRow {
  const offset = options.inputOffset ?? 0;
  const typeMissing = options.typeMissing;
  // Whether the step drops a type anywhere, known once per pair of versions: most steps drop
  // none, and their nodes go straight to the adapter.
  let a: OpVersion | undefined;
  let b: OpVersion | undefined;
  let drops = false;
  const checked: Adapter = (c) => {
    if (c.from !== a || c.to !== b) {
      a = c.from;
      b = c.to;
      drops = dropsTypes(a, b, offset);
    }
    if (drops) {
      const why = typeRestrictionReason(c, offset);
      if (why) return typeMissing ? typeMissing(c) : c.fail(why);
    }
    return adapter(c);
  };
  const apply = (c: AdapterContext): RowOutcome => {
    let nodes: Node[] | undefined;
    try {
      nodes = checked(c);
    } catch (e) {
      if (e instanceof StepFailure)
        return e.next ? { blocked: e.reason, next: e.next } : { blocked: e.reason };
      throw e;
    }
    // What the row gives must be valid at the target: an attribute of the node the target
    // version lacks (one the row does not handle) blocks rather than slip through.
    const stray = strayAttribute(c, nodes ?? [c.node]);
    if (stray)
      return { blocked: `attribute '${stray}' does not exist in ${c.to.name}-${c.to.since}` };
    return { nodes };
  };
  return { domain: "", op, from, to, summary, apply } as AdapterRow;
}

// ---- the attribute check after a row ----

const attributeNames = new WeakMap<OpVersion, Set<string>>();

/** The first attribute of the step's op in `nodes` that the target version does not have. */
function strayAttribute(c: AdapterContext, nodes: readonly Node[]): string | undefined {
  const to = c.to;
  let names = attributeNames.get(to);
  if (!names) attributeNames.set(to, (names = new Set(to.attributes.map((a) => a.name))));
  for (const n of nodes) {
    if (n.opType !== to.name || !isOnnxDomain(n.domain)) continue;
    for (const a of n.attributes) if (!names.has(a.name)) return a.name;
  }
  return undefined;
}

// ---- the type check ----

function formalAt(list: readonly FormalSchema[], i: number): FormalSchema | undefined {
  if (i < 0) return undefined;
  if (i < list.length) return list[i];
  const last = list[list.length - 1];
  return last?.option === "variadic" ? last : undefined;
}

/** Whether some type of `a`'s formal `fa` is not one of `b`'s formal `fb`. */
function formalDropsTypes(a: OpVersion, fa: FormalSchema, b: OpVersion, fb: FormalSchema) {
  const after = new Set(formalTypes(b, fb));
  return !formalTypes(a, fa).every((t) => after.has(t));
}

/** Whether the step from `a` to `b` drops a type at some input or output position. */
function dropsTypes(a: OpVersion, b: OpVersion, offset: number): boolean {
  // Past the longer signature every position meets the same (variadic) formals.
  const inputs = Math.max(a.inputs.length, b.inputs.length) + Math.abs(offset) + 1;
  for (let i = 0; i < inputs; i++) {
    const fa = formalAt(a.inputs, i);
    const fb = formalAt(b.inputs, i + offset);
    if (fa && fb && formalDropsTypes(a, fa, b, fb)) return true;
  }
  const outputs = Math.max(a.outputs.length, b.outputs.length) + 1;
  for (let i = 0; i < outputs; i++) {
    const fa = formalAt(a.outputs, i);
    const fb = formalAt(b.outputs, i);
    if (fa && fb && formalDropsTypes(a, fa, b, fb)) return true;
  }
  return false;
}

/**
 * The reason the node cannot take the step because it uses an element type the target version
 * does not accept (from the inferred types), or undefined. A type inference cannot tell blocks
 * the step only where the target dropped a type the source allowed at that position: unknown
 * types (generic function bodies) pass with a warning. `inputOffset`: see RowOptions.
 */
export function typeRestrictionReason(c: AdapterContext, inputOffset = 0): string | undefined {
  const inputType = (i: number) => {
    const e = c.inputElemType(i);
    return e !== undefined ? `tensor(${dtypeName(e)})` : typeString(c.inputType(i));
  };
  const outputType = (i: number) => {
    const e = c.outputElemType(i);
    return e !== undefined ? `tensor(${dtypeName(e)})` : typeString(c.outputType(i));
  };
  for (const [what, formalsFrom, formalsTo, names, typeOf, offset] of [
    ["input", c.from.inputs, c.to.inputs, c.node.inputs, inputType, inputOffset],
    ["output", c.from.outputs, c.to.outputs, c.node.outputs, outputType, 0],
  ] as const) {
    for (let i = 0; i < names.length; i++) {
      if (names[i] === "") continue;
      const fa = formalAt(formalsFrom, i);
      const fb = formalAt(formalsTo, i + offset);
      if (!fa || !fb) continue;
      const before = formalTypes(c.from, fa);
      const after = new Set(formalTypes(c.to, fb));
      if (before.every((t) => after.has(t))) continue;
      const t = typeOf(i);
      if (t === undefined) {
        // Function bodies are generic (typed per call): the step is taken, with a note.
        c.warn(
          `the element type of ${what} '${names[i]}' is unknown; ${c.to.name}-${c.to.since} does not accept every type ${c.from.name}-${c.from.since} does`,
        );
        continue;
      }
      if (!after.has(t))
        return `${what} '${names[i]}' is ${describe(t)}, which ${c.to.name}-${c.to.since} does not accept`;
    }
  }
  return undefined;
}

function describe(t: string): string {
  const m = /^tensor\((.*)\)$/.exec(t);
  return m ? `${m[1]}` : t;
}

// ---- patterns that need nothing but the row ----

/** The step changes nothing for any node of the op (the row says why in its summary). */
export const compatible: Adapter = () => undefined;

/**
 * A step down that only drops element types (ReduceMax 12 -> 11): the row's type check is all
 * it takes.
 */
export function typeRestriction(op: string, from: number, to: number): AdapterRow {
  return row(
    op,
    from,
    to,
    "types: blocked when the node uses a type the older version lacks",
    compatible,
  );
}

// ---- attributes ----

/** A plain attribute value (what `attributeDropped` compares with). */
type PlainValue = bigint | number | string;

/**
 * What an attribute's value must be for its absence to mean the same: a value, a list (equal
 * element by element: a list attribute's default, say), or a test of the value (a list whose
 * meaning does not depend on its length, every dilation 1).
 */
export type Meaningless =
  PlainValue | readonly PlainValue[] | ((value: PlainValue | readonly PlainValue[]) => boolean);

/** Whether an attribute's value is the meaningless one. */
function isMeaningless(value: unknown, m: Meaningless): boolean {
  if (typeof m === "function") return m(value as PlainValue | readonly PlainValue[]);
  if (!Array.isArray(m)) return value === m;
  if (!Array.isArray(value) || value.length !== m.length) return false;
  for (let i = 0; i < m.length; i++) if (value[i] !== m[i]) return false;
  return true;
}

/** An attribute value as a message shows it: 3, "DCR", [1, 1]. */
function shownValue(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(shownValue).join(", ")}]`;
  return typeof v === "string" ? JSON.stringify(v) : String(v);
}

/**
 * An attribute the version on the other side of the step does not have. Dropped when the node
 * does not set it or sets it to `meaningless` (the value, list or test under which it means
 * what its absence means); any other value blocks the step.
 */
export function attributeDropped(name: string, meaningless?: Meaningless): Adapter {
  return (c) => {
    const a = getAttr(c.node, name);
    if (!a) return undefined;
    if (meaningless !== undefined && !isMeaningless(a.value, meaningless))
      c.fail(
        `attribute '${name}' = ${Array.isArray(a.value) ? shownValue(a.value) : String(a.value)} has no equivalent in ${c.to.name}-${c.to.since}`,
      );
    return [{ ...c.node, attributes: withoutAttributes(c.node, name) }];
  };
}

/**
 * An attribute that was optional with a default and became required: the old default is
 * written out when the node does not set it.
 */
export function attributeMadeRequired(attribute: Attribute): Adapter {
  return (c) => {
    if (getAttr(c.node, attribute.name)) return undefined;
    return [{ ...c.node, attributes: [...c.node.attributes, attribute] }];
  };
}

/** An attribute the target version needs at one value: set (replacing the node's own). */
export function attributeSet(attribute: Attribute): Adapter {
  return (c) => [withAttributes(c.node, { [attribute.name]: attribute })];
}

/**
 * The two rows of `is_test` (opset 6's inference flag of BatchNormalization and Dropout),
 * removed at 7 where the runtime decides. Up it is dropped: a node in training mode (is_test=0)
 * that uses its `extraOutputs` blocks, with `why`. Down it is 1 (converted models do inference).
 */
export function isTestRows(op: string, extraOutputs: string, why: string): AdapterRow[] {
  const dropped: Adapter = (c) => {
    if (intAttr(c, "is_test") === 0 && c.node.outputs.slice(1).some((o) => o !== "")) c.fail(why);
    return [nodeWithoutAttributes(c.node, "is_test")];
  };
  return [
    row(op, 6, 7, `is_test dropped (training with ${extraOutputs} blocks)`, dropped),
    row(op, 7, 6, "is_test=1", attributeSet(attr("is_test", 1))),
  ];
}

/** The op deprecated in favour of `opType`, which does the same with the same signature. */
export function renamedTo(opType: string): Adapter {
  return (c) => [{ ...withAttributes(c.node, {}), opType }];
}

// ---- attributes that became inputs ----

/**
 * The (shared) attribute list of a Constant holding the 1-D int64 tensor of `values`: one list
 * (its `value` attribute and tensor) per distinct list of values in a conversion, shared by
 * every Constant that holds those values (IR tensors, attributes and attribute lists are
 * immutable once built; see AdapterContext.shared). Found by a numeric hash of the values, then
 * compared: no key string.
 */
class Int64Constants {
  private readonly byHash = new Map<number, { values: bigint[]; attributes: Attribute[] }[]>();

  attributes(values: readonly bigint[]): Attribute[] {
    let h = values.length;
    for (let i = 0; i < values.length; i++) h = (Math.imul(h, 31) + Number(values[i]!)) | 0;
    let bucket = this.byHash.get(h);
    if (bucket === undefined) this.byHash.set(h, (bucket = []));
    for (const e of bucket) if (sameValues(e.values, values)) return e.attributes;
    const copy = values.slice();
    const data = new BigInt64Array(copy.length);
    for (let i = 0; i < copy.length; i++) data[i] = copy[i]!;
    const value = new Tensor(DataType.INT64, [copy.length], { kind: "int64", values: data });
    const attributes: Attribute[] = [{ name: "value", type: "TENSOR", value }];
    bucket.push({ values: copy, attributes });
    return attributes;
  }
}

function sameValues(a: readonly bigint[], b: readonly bigint[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const newInt64Constants = () => new Int64Constants();

/** The attribute list axesAttributeToInput last rewrote, and what it made of it. */
interface LastList {
  list: readonly Attribute[] | undefined;
  rest: Attribute[];
  values: readonly bigint[];
  constant: Attribute[] | undefined;
}
const newLastList = (): LastList => ({
  list: undefined,
  rest: [],
  values: [],
  constant: undefined,
});

/**
 * A list attribute that became an input (Reduce `axes`, Squeeze `axes`, Split `split`, ...): the
 * values become a Constant node (so it works in function bodies too) read at input `index`.
 * Absent stays absent; with `emptyIsAbsent`, an empty list does too (it meant "all axes").
 */
export function axesAttributeToInput(
  opts: { attribute?: string; index?: number; emptyIsAbsent?: boolean } = {},
): Adapter {
  const attrName = opts.attribute ?? "axes";
  const index = opts.index ?? 1;
  const emptyIsAbsent = opts.emptyIsAbsent ?? false;
  const lastKey = `kit ${attrName} attribute to input`;
  // Every rewritten node of a long chain comes here: no intermediate arrays or objects. Alike
  // nodes share their attribute list (the decoder makes one per distinct list), so the list
  // without the attribute and the Constant's attributes are those of the previous node when
  // its list was the same.
  return (c) => {
    const node = c.node;
    const last = c.shared(lastKey, newLastList);
    let rest: Attribute[];
    let values: readonly bigint[];
    if (last.list === node.attributes) {
      rest = last.rest;
      values = last.values;
    } else {
      const a = findAttr(node.attributes, attrName);
      if (!a) return undefined;
      if (a.type !== "INTS" || a.value === undefined)
        return c.fail(`attribute '${attrName}' is not a list of integers`);
      rest = withoutAttribute(node.attributes, attrName);
      values = a.value;
      last.list = node.attributes;
      last.rest = rest;
      last.values = values;
      last.constant = undefined;
    }
    if (values.length === 0 && emptyIsAbsent) return [{ ...node, attributes: rest }];
    const name = c.fresh(nameBase(node, attrName));
    const shared = (last.constant ??= c
      .shared("kit int64 constants", newInt64Constants)
      .attributes(values));
    const constant = constantWriting(name, shared);
    return [constant, { ...node, inputs: withInput(node.inputs, index, name), attributes: rest }];
  };
}

/**
 * An input that became an attribute (the way down): its value must be a constant (a Constant
 * node or an initializer); an omitted input stays absent. A constant nothing else reads is
 * removed by the driver. Values computed at run time block the step, naming the node.
 */
export function axesInputToAttribute(opts: { attribute?: string; index?: number } = {}): Adapter {
  const attrName = opts.attribute ?? "axes";
  const index = opts.index ?? 1;
  return (c) => {
    const values = constantIntsInput(c, index, attrName);
    const rest = withoutAttributes(c.node, attrName);
    const attributes: Attribute[] =
      values === undefined ? rest : [{ name: attrName, type: "INTS", value: values }, ...rest];
    return [{ ...c.node, inputs: withoutInput(c.node.inputs, index), attributes }];
  };
}

/** What `axesRows` needs besides the op and its versions. */
export interface AxesStep {
  /** The attribute (default `axes`) and the input it became (default 1). */
  attribute?: string;
  index?: number;
  /** An empty list meant what an absent one means (Reduce: all axes), and stays absent. */
  emptyIsAbsent?: boolean;
  /** The rows' summaries, up and down. */
  summaries: readonly [up: string, down: string];
  /** The way down when it is more than the constant read back (Reduce's noop_with_empty_axes). */
  down?: Adapter;
}

/**
 * The two rows of a list attribute that became an input from version `after` on: up with
 * axesAttributeToInput, down with axesInputToAttribute (or the family's own `down`).
 */
export function axesRows(op: string, before: number, after: number, s: AxesStep): AdapterRow[] {
  const where = { attribute: s.attribute, index: s.index };
  return [
    row(
      op,
      before,
      after,
      s.summaries[0],
      axesAttributeToInput({ ...where, emptyIsAbsent: s.emptyIsAbsent }),
    ),
    row(op, after, before, s.summaries[1], s.down ?? axesInputToAttribute(where)),
  ];
}

/**
 * One integer attribute (an axis; TopK's k) that became an int64 input at `index`: a scalar
 * Constant (`vector`: of shape [1]) holding the node's value, or the old version's default,
 * which is always written since the new version's default may differ (DFT: 1, then -2).
 */
export function axisAttributeToInput(opts: {
  attribute?: string;
  index: number;
  vector?: boolean;
}): Adapter {
  const attrName = opts.attribute ?? "axis";
  return (c: AdapterContext) => {
    const value = intAttr(c, attrName);
    if (value === undefined) c.fail(`the required '${attrName}' attribute is missing`);
    const base = `${c.node.outputs[0] || c.node.opType.toLowerCase()}_${attrName}`;
    const [k, name] = int64Constant(c, base, [value], !opts.vector);
    const n = nodeWithoutAttributes(c.node, attrName);
    n.inputs = withInput(c.node.inputs, opts.index, name);
    return [k, n];
  };
}

/**
 * The way down: the constant input at `index` (one value) becomes the attribute; an omitted
 * input is `whenOmitted` (the new version's default). With `fromFront`, a negative axis is
 * counted from the front with the input's rank (the old version takes no negative axis).
 */
export function axisInputToAttribute(opts: {
  attribute?: string;
  index: number;
  whenOmitted: number;
  fromFront?: boolean;
}): Adapter {
  const attrName = opts.attribute ?? "axis";
  return (c: AdapterContext) => {
    const given = constantValues(c, opts.index, `'${attrName}'`);
    if (given && given.length !== 1) c.fail(`'${attrName}' must hold one value`);
    let axis = given?.[0] ?? opts.whenOmitted;
    if (axis < 0 && opts.fromFront) {
      const rank = rankOf(c, 0);
      if (rank === undefined)
        c.fail(`${attrName} ${axis} counts from the back of an input of unknown rank`);
      axis = normAxis(axis, rank);
    }
    const n = withAttributes(c.node, { [attrName]: attr(attrName, axis) });
    n.inputs = trimInputs(c.node.inputs.slice(0, opts.index));
    return [n];
  };
}

// ---- composition, and steps that depend on shapes ----

/** Adapters applied one after another to the node (each sees the previous one's last node). */
export function inOrder(...adapters: Adapter[]): Adapter {
  return (c) => {
    let prefix: Node[] = [];
    let current: Node | undefined;
    for (const a of adapters) {
      const r = a(current ? c.withNode(current) : c);
      if (!r) continue;
      prefix = [...prefix, ...r.slice(0, -1)];
      current = r[r.length - 1];
    }
    return current ? [...prefix, current] : undefined;
  };
}

/**
 * The way down to a version without broadcasting (Sum/Max/Min/Mean 8 -> 6): allowed when
 * inference shows every input with the same static shape; otherwise blocked.
 */
export const sameShapeInputs: Adapter = (c) => {
  let first: string | undefined;
  for (let i = 0; i < c.node.inputs.length; i++) {
    const t = c.inputType(i);
    const shape =
      t && (t.kind === "tensor" || t.kind === "sparse_tensor") && t.shape ? t.shape : undefined;
    if (!shape || shape.some((d) => typeof d !== "number"))
      return c.fail(
        `input '${c.node.inputs[i]}' has no static shape; ${c.to.name}-${c.to.since} needs every input to have the output's shape (no broadcasting)`,
        { kind: "fix-dims" },
      );
    const text = JSON.stringify(shape);
    if (first === undefined) first = text;
    else if (text !== first)
      return c.fail(
        `inputs have different shapes (${first} and ${text}); ${c.to.name}-${c.to.since} does not broadcast`,
      );
  }
  return undefined;
};
