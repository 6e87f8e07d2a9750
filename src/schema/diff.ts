// What changed between two versions of an operator, and whether a model valid under the first
// could be invalid, or mean something else, under the second. The opset converter uses this to
// decide which version steps need an adapter.

import type { AttributeSchema, FormalSchema, OpVersion, TypeConstraintSchema } from "./types.js";

export interface AttributeChange {
  name: string;
  /** Human-readable changes: "type INT -> INTS", "default 1 -> 0", "now required", ... */
  changes: string[];
  before: AttributeSchema;
  after: AttributeSchema;
}

export interface FormalChange {
  index: number;
  before: FormalSchema;
  after: FormalSchema;
  /** "renamed 'a' -> 'b'", "made optional", "made required", "option single -> variadic", ... */
  changes: string[];
}

export interface FormalDiff {
  added: { index: number; formal: FormalSchema }[];
  removed: { index: number; formal: FormalSchema }[];
  changed: FormalChange[];
  /** Per position: element types a formal allowed before and no longer allows. */
  typesRemoved: { index: number; name: string; types: string[] }[];
  countBefore: [min: number, max: number];
  countAfter: [min: number, max: number];
}

export interface TypeConstraintChange {
  name: string;
  added: string[];
  removed: string[];
}

export interface SchemaDiff {
  domain: string;
  name: string;
  from: number;
  to: number;
  attributes: { added: AttributeSchema[]; removed: AttributeSchema[]; changed: AttributeChange[] };
  /** Attributes of the old version that the new one takes as an input of the same name. */
  attributesToInputs: { name: string; input: FormalSchema; index: number }[];
  /** Inputs of the old version that the new one takes as an attribute of the same name (a downgrade). */
  inputsToAttributes: { name: string; attribute: AttributeSchema; index: number }[];
  inputs: FormalDiff;
  outputs: FormalDiff;
  typeConstraints: {
    added: TypeConstraintSchema[];
    removed: TypeConstraintSchema[];
    changed: TypeConstraintChange[];
  };
  /** "added" / "removed" when the function-ness changed; "same" otherwise. */
  function: "added" | "removed" | "same";
  deprecated: "added" | "removed" | "same";
  verdict: { breaking: boolean; reasons: string[] };
}

function sameDefault(a: AttributeSchema["default"], b: AttributeSchema["default"]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function showDefault(d: AttributeSchema["default"]): string {
  return d === undefined ? "none" : JSON.stringify(d);
}

/** The element types a formal accepts: its constraint's list, or its concrete type. */
function allowedTypes(f: FormalSchema, v: OpVersion): string[] {
  return v.type_constraints.find((t) => t.name === f.type)?.allowed ?? [f.type];
}

function diffFormals(a: OpVersion, b: OpVersion, which: "inputs" | "outputs"): FormalDiff {
  const before = a[which];
  const after = b[which];
  const out: FormalDiff = {
    added: [],
    removed: [],
    changed: [],
    typesRemoved: [],
    countBefore: which === "inputs" ? [a.min_inputs, a.max_inputs] : [a.min_outputs, a.max_outputs],
    countAfter: which === "inputs" ? [b.min_inputs, b.max_inputs] : [b.min_outputs, b.max_outputs],
  };
  const n = Math.max(before.length, after.length);
  for (let i = 0; i < n; i++) {
    const x = before[i];
    const y = after[i];
    if (!x) out.added.push({ index: i, formal: y! });
    else if (!y) out.removed.push({ index: i, formal: x });
    else {
      const changes: string[] = [];
      if (x.name !== y.name) changes.push(`renamed '${x.name}' -> '${y.name}'`);
      if (x.option !== y.option) {
        if (x.option === "single" && y.option === "optional") changes.push("made optional");
        else if (x.option === "optional" && y.option === "single") changes.push("made required");
        else changes.push(`option ${x.option} -> ${y.option}`);
      }
      if ((x.homogeneous ?? true) !== (y.homogeneous ?? true))
        changes.push(y.homogeneous === false ? "now heterogeneous" : "now homogeneous");
      if ((x.min_arity ?? 1) !== (y.min_arity ?? 1))
        changes.push(`min arity ${x.min_arity ?? 1} -> ${y.min_arity ?? 1}`);
      if (x.type !== y.type) changes.push(`type ${x.type} -> ${y.type}`);
      if (changes.length) out.changed.push({ index: i, before: x, after: y, changes });
      const kept = new Set(allowedTypes(y, b));
      const gone = allowedTypes(x, a).filter((t) => !kept.has(t));
      if (gone.length) out.typesRemoved.push({ index: i, name: y.name, types: gone });
    }
  }
  return out;
}

export function diffVersions(a: OpVersion, b: OpVersion): SchemaDiff {
  const reasons: string[] = [];

  // Attributes, and the ones that moved to inputs.
  const attrsB = new Map(b.attributes.map((x) => [x.name, x]));
  const attrsA = new Map(a.attributes.map((x) => [x.name, x]));
  const removed = a.attributes.filter((x) => !attrsB.has(x.name));
  const added = b.attributes.filter((x) => !attrsA.has(x.name));
  const changed: AttributeChange[] = [];
  for (const x of a.attributes) {
    const y = attrsB.get(x.name);
    if (!y) continue;
    const changes: string[] = [];
    if (x.type !== y.type) changes.push(`type ${x.type} -> ${y.type}`);
    if (x.required !== y.required) changes.push(y.required ? "now required" : "now optional");
    if (!sameDefault(x.default, y.default))
      changes.push(`default ${showDefault(x.default)} -> ${showDefault(y.default)}`);
    if (changes.length) changed.push({ name: x.name, changes, before: x, after: y });
  }
  const inputNamesA = new Set(a.inputs.map((f) => f.name));
  const attributesToInputs = removed.flatMap((x) => {
    const index = b.inputs.findIndex((f) => f.name === x.name && !inputNamesA.has(f.name));
    return index >= 0 ? [{ name: x.name, input: b.inputs[index]!, index }] : [];
  });
  const moved = new Set(attributesToInputs.map((m) => m.name));

  for (const m of attributesToInputs)
    reasons.push(
      `attribute '${m.name}' became ${m.input.option === "optional" ? "an optional" : "a required"} input (#${m.index})`,
    );
  for (const x of removed)
    if (!moved.has(x.name)) reasons.push(`attribute '${x.name}' was removed`);
  for (const x of added) if (x.required) reasons.push(`required attribute '${x.name}' was added`);
  for (const c of changed) {
    const bad = c.changes.filter((s) => !s.startsWith("now optional"));
    if (bad.length) reasons.push(`attribute '${c.name}': ${bad.join(", ")}`);
  }

  const inputs = diffFormals(a, b, "inputs");
  const outputs = diffFormals(a, b, "outputs");
  const inputNamesB = new Set(b.inputs.map((f) => f.name));
  const inputsToAttributes = inputs.removed.flatMap((x) => {
    const attribute = added.find((y) => y.name === x.formal.name && !inputNamesB.has(y.name));
    return attribute ? [{ name: x.formal.name, attribute, index: x.index }] : [];
  });
  const becameAttribute = new Set(inputsToAttributes.map((m) => m.name));
  for (const [what, d] of [
    ["input", inputs],
    ["output", outputs],
  ] as const) {
    for (const x of d.added) {
      if (what === "input" && moved.has(x.formal.name)) continue;
      if (what === "input" && x.formal.option === "single")
        reasons.push(`required input '${x.formal.name}' (#${x.index}) was added`);
    }
    for (const x of d.removed)
      reasons.push(
        what === "input" && becameAttribute.has(x.formal.name)
          ? `input '${x.formal.name}' (#${x.index}) became an attribute (its value must now be known before run time)`
          : `${what} '${x.formal.name}' (#${x.index}) was removed`,
      );
    for (const c of d.changed) {
      // A new name or type variable changes nothing for a model (inputs are positional, types
      // are checked below); an input that may now be omitted, or become variadic, accepts every
      // old use; an output that may now be absent could leave a consumer without a value.
      const harmless = (s: string) =>
        s.startsWith("renamed") ||
        s.startsWith("type ") ||
        (what === "input" && (s === "made optional" || s === "option single -> variadic"));
      const bad = c.changes.filter((s) => !harmless(s));
      if (bad.length) reasons.push(`${what} '${c.after.name}' (#${c.index}): ${bad.join(", ")}`);
    }
    for (const t of d.typesRemoved)
      reasons.push(`${what} '${t.name}' (#${t.index}) no longer accepts ${t.types.join(", ")}`);
    if (
      what === "input" &&
      d.countAfter[0] > d.countBefore[0] &&
      !d.added.some((x) => x.formal.option === "single")
    )
      reasons.push(`at least ${d.countAfter[0]} inputs are now needed (was ${d.countBefore[0]})`);
    if (d.countAfter[1] < d.countBefore[1])
      reasons.push(`at most ${d.countAfter[1]} ${what}s are now allowed (was ${d.countBefore[1]})`);
    if (what === "output" && d.countAfter[0] > d.countBefore[0])
      reasons.push(
        `at least ${d.countAfter[0]} outputs are now produced (was ${d.countBefore[0]})`,
      );
  }

  // Type constraints by variable name (reported; breaking removals are caught per formal above).
  const tcB = new Map(b.type_constraints.map((t) => [t.name, t]));
  const tcA = new Map(a.type_constraints.map((t) => [t.name, t]));
  const tcChanged: TypeConstraintChange[] = [];
  for (const t of a.type_constraints) {
    const u = tcB.get(t.name);
    if (!u) continue;
    const addedTypes = u.allowed.filter((x) => !t.allowed.includes(x));
    const removedTypes = t.allowed.filter((x) => !u.allowed.includes(x));
    if (addedTypes.length || removedTypes.length)
      tcChanged.push({ name: t.name, added: addedTypes, removed: removedTypes });
  }

  const deprecated =
    Boolean(a.deprecated) === Boolean(b.deprecated) ? "same" : b.deprecated ? "added" : "removed";
  if (deprecated === "added") reasons.push("the new version is deprecated");

  return {
    domain: a.domain,
    name: a.name,
    from: a.since,
    to: b.since,
    attributes: { added, removed, changed },
    attributesToInputs,
    inputsToAttributes,
    inputs,
    outputs,
    typeConstraints: {
      added: b.type_constraints.filter((t) => !tcA.has(t.name)),
      removed: a.type_constraints.filter((t) => !tcB.has(t.name)),
      changed: tcChanged,
    },
    function: a.function === b.function ? "same" : b.function ? "added" : "removed",
    deprecated,
    verdict: { breaking: reasons.length > 0, reasons },
  };
}
