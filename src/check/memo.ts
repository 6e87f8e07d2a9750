// The checker's memo: a node alike one already analysed (same callee and opsets, input types,
// constant inputs by identity, attributes) that reported nothing reuses its output types. Here:
// the memo keys, and what the memo holds.

import { typeKey as structuralKey, valueKey } from "../ir/keys.js";
import type { Attribute, Node, Type } from "../ir/types.js";
import type { OpVersion } from "../schema/types.js";
import type { Bindings } from "./arity.js";
import type { NodeInputs } from "./node.js";

/** What a node alike others was found to have (see MemoKeys.memoKey). */
export interface MemoEntry {
  schema?: OpVersion;
  opv: string;
  /** The constraint variables as the inputs bound them (not changed: copied for each use). */
  bound: Bindings;
  /** Output types, formal fill-in included (shared by every node served from the entry). */
  outputs: (Type | undefined)[];
  /**
   * Declared output types (typeKeys, "-" for none, each followed by ",") for which the merge
   * and the output checks reported nothing → the outputs' types then.
   */
  merged: Map<string, (Type | undefined)[]>;
}

const objectIds = new WeakMap<object, number>();
let nextObjectId = 0;

/** A number naming an object (a constant value, an opset map) for memo keys. */
function objectId(o: object): number {
  let id = objectIds.get(o);
  if (id === undefined) objectIds.set(o, (id = nextObjectId++));
  return id;
}

/** Memo keys: short strings naming a node's callee, input types and attributes. */
export class MemoKeys {
  /**
   * Memo keys of types: per Type object, and per structure (see typeKey in ir/keys.ts). A Map,
   * not a WeakMap: the analyzer lives for one analysis, whose result holds the types anyway, and
   * a WeakMap costs much more to fill (and to collect).
   */
  private readonly typeKeys = new Map<Type, string | null>();
  private readonly typeIds = new Map<string, string>();
  /** Numbers for callees and attributes in memo keys (one counter: a number names one thing). */
  private readonly calleeIds = new Map<
    Map<string, number>,
    Map<string, Map<string, Map<string | number, number>>>
  >();
  private readonly attributeIds = new Map<
    string,
    Map<string, Map<string | number | bigint, number>>
  >();
  private nextId = 0;
  /**
   * attributeId per Attribute object: the decoder shares one object among the nodes whose
   * attribute is the same (src/io/shared-attributes.ts), so a chain of alike nodes keys each
   * attribute's value once, not once per node.
   */
  private readonly attributeObjectIds = new Map<Attribute, number | null>();

  /**
   * A short string naming a type by its structure (every field): types alike get the same one.
   * Computed once per Type object; undefined for a type that is not plain data.
   */
  typeKey(t: Type): string | undefined {
    let k = this.typeKeys.get(t);
    if (k === undefined) {
      const full = structuralKey(t);
      if (full === undefined) k = null;
      else {
        k = this.typeIds.get(full);
        if (k === undefined) this.typeIds.set(full, (k = `t${this.typeIds.size}`));
      }
      this.typeKeys.set(t, k);
    }
    return k ?? undefined;
  }

  /**
   * The memo key of a node whose analysis depends only on what the key holds, else undefined:
   * the callee (domain, op type, overload, the opsets in force), which inputs and outputs are
   * given, the input types (by structure), constant and shape values (by identity), and the
   * attributes' names, types and values. Nodes with graph or tensor attributes, attribute
   * references have none (nor have nodes inside a function instantiation, which depends on the
   * calls in progress: the caller asks for no key then). Rules read input names only for
   * messages, and a node that reports is never memoised.
   */
  memoKey(node: Node, opsets: Map<string, number>, inputs: NodeInputs): string | undefined {
    // Short keys (numbers for the callee and attributes, ids for types) hash fast: most fit in
    // the few characters V8 keeps flat.
    let k = String(this.calleeId(opsets, node));
    const { types, consts, syms } = inputs;
    for (let i = 0; i < node.inputs.length; i++) {
      if (node.inputs[i] === "") {
        k += "_,";
        continue;
      }
      const t = types[i];
      if (t) {
        const tk = this.typeKey(t);
        if (tk === undefined) return undefined;
        k += tk;
      } else k += "?";
      const c = consts[i];
      if (c) k += `#${objectId(c)}`;
      const s = syms[i];
      if (s) k += `$${objectId(s)}`;
      k += ",";
    }
    for (const o of node.outputs) k += o === "" ? "_" : "o";
    const tail = this.attributesKey(node.attributes);
    return tail === null ? undefined : k + tail;
  }

  /**
   * The attributes' part of a memo key ("|id" each), null when one has no id. Alike nodes share
   * their attribute list (the decoder makes one per distinct list): the last list's part is kept.
   */
  private attributesKey(list: Attribute[]): string | null {
    if (list === this.lastAttributes) return this.lastAttributesKey;
    let k: string | null = "";
    for (const a of list) {
      let id = this.attributeObjectIds.get(a);
      if (id === undefined) this.attributeObjectIds.set(a, (id = this.attributeId(a) ?? null));
      if (id === null) {
        k = null;
        break;
      }
      k += `|${id}`;
    }
    this.lastAttributes = list;
    this.lastAttributesKey = k;
    return k;
  }
  private lastAttributes: Attribute[] | undefined;
  private lastAttributesKey: string | null = null;

  /** A number for the callee of a node: its domain, op type and overload, at the opsets in force. */
  private calleeId(opsets: Map<string, number>, node: Node): number {
    // Runs of nodes of one op (a chain) look it up once.
    const last = this.lastCallee;
    const overload = node.overload ?? -1;
    if (
      last.opsets === opsets &&
      last.opType === node.opType &&
      last.domain === node.domain &&
      last.overload === overload
    )
      return last.id;
    let byDomain = this.calleeIds.get(opsets);
    if (!byDomain) this.calleeIds.set(opsets, (byDomain = new Map()));
    let byOp = byDomain.get(node.domain);
    if (!byOp) byDomain.set(node.domain, (byOp = new Map()));
    let byOverload = byOp.get(node.opType);
    if (!byOverload) byOp.set(node.opType, (byOverload = new Map()));
    let id = byOverload.get(overload);
    if (id === undefined) byOverload.set(overload, (id = this.nextId++));
    last.opsets = opsets;
    last.opType = node.opType;
    last.domain = node.domain;
    last.overload = overload;
    last.id = id;
    return id;
  }
  private readonly lastCallee: {
    opsets: Map<string, number> | undefined;
    domain: string;
    opType: string;
    overload: string | number;
    id: number;
  } = { opsets: undefined, domain: "", opType: "", overload: -1, id: -1 };

  /**
   * A number for an attribute's name, type and value; undefined for a reference (its value
   * depends on the call) and for graphs and tensors (not keyed: data, or a scope of their own).
   */
  private attributeId(a: Attribute): number | undefined {
    if (a.refAttrName !== undefined) return undefined;
    switch (a.type) {
      case "GRAPH":
      case "GRAPHS":
      case "TENSOR":
      case "TENSORS":
      case "SPARSE_TENSOR":
      case "SPARSE_TENSORS":
        return undefined;
    }
    // Numbers and bigints key themselves (no string is one); -0 is told from 0 by valueKey.
    const raw = a.value;
    const v =
      typeof raw === "bigint" || (typeof raw === "number" && !Object.is(raw, -0))
        ? raw
        : valueKey(raw);
    if (v === undefined) return undefined;
    let byType = this.attributeIds.get(a.name);
    if (!byType) this.attributeIds.set(a.name, (byType = new Map()));
    let byValue = byType.get(a.type);
    if (!byValue) byType.set(a.type, (byValue = new Map()));
    let id = byValue.get(v);
    if (id === undefined) byValue.set(v, (id = this.nextId++));
    return id;
  }
}
