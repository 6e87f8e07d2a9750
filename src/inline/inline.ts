// Inlining one call: a body (an operator's function body, or a model-local function) put in place
// of the call node, its formal inputs and outputs renamed to the call's values and every other
// name (values and nodes, in the body and in its subgraphs) made fresh in the caller's scope, so
// that nothing the body defines can capture or shadow a name of the caller; and a local
// function's attribute references bound to a call. No schema knowledge: the expander (expand/)
// decides what to inline and where bodies come from.

import { OnnxError } from "../errors.js";
import { nodeWith, nodeWithRecord } from "../ir/builder.js";
import { isClaimSuffix, NameScope } from "../ir/graph.js";
import { functionLabel } from "../ir/functions.js";
import { bindRefs } from "../ir/rewrite.js";
import type { Attribute, Function, MetadataProps, Node } from "../ir/types.js";
import { renameNodes } from "../ir/visit.js";

/** A body in terms of its formal names: what inlineBody renames. */
export interface BodyNodes {
  inputs: string[];
  outputs: string[];
  nodes: Node[];
}

/** The readable prefix of names introduced for a call: its node name, else its first output. */
export function callPrefix(call: Node, fallback: string): string {
  return call.name || call.outputs.find((o) => o !== "") || fallback;
}

/**
 * The body's nodes with formal inputs renamed to the call's inputs ("" where the call omits
 * one), formal outputs to the call's outputs (fresh where it omits one), and every other value
 * and node name fresh in `scope`, starting with `prefix__`. Names a subgraph defines get names
 * of their own (siblings never share one); names a subgraph reads from the body follow the body.
 * `prefixed: false`: the body's names already carry a prefix (a body inlined before); they are
 * kept where they are free, else numbered. `record`: metadata the nodes that carry none may be
 * given as they are made (the call's origin record, see markOrigin; others are left to it).
 */
export function inlineBody(
  call: Node,
  body: BodyNodes,
  scope: NameScope,
  prefix: string,
  opts: { prefixed?: boolean; record?: MetadataProps } = {},
): Node[] {
  const prefixed = opts.prefixed ?? true;
  const plan = renamePlan(body);
  if (plan) return applyPlan(plan, call, body.nodes, scope, prefix, prefixed, opts.record);
  return renameBody(call, body, scope, prefix, prefixed);
}

/**
 * A body without subgraphs, compiled once: every name it uses is a slot (its formal inputs
 * first, then its formal outputs, then the other names in the order the renamer meets them),
 * and each node lists the slots of its inputs and outputs. Inlining a call then fills the slots
 * in that order, giving the names the renamer gives, without a map per call.
 */
interface RenamePlan {
  inputs: string[];
  outputs: string[];
  /** Per slot: the body's name, with the leading underscores a prefixed fresh name drops. */
  names: string[];
  stripped: string[];
  /** Slot of each formal output, or -1 when it is also a formal input (the input's slot). */
  outputSlots: number[];
  inputSlotOf: number[];
  nodes: { inputs: Int32Array; outputs: Int32Array }[];
  /** Per pattern of present call outputs (a bit each): the names a call gets under a free prefix. */
  claims: Map<number, Claim | null>;
}

/**
 * What the renamer gives a call whose prefix nobody in the scope uses: the suffix after
 * `prefix__` of each fresh value slot and of each node's name (the same fresh() calls in the
 * same order, in a scope holding only the call's own names), and all of them, for claimPrefix.
 */
interface Claim {
  slots: (string | undefined)[];
  nodes: string[];
  all: string[];
}

/** The Claim for one pattern of present outputs; null when a name could meet another prefix's. */
function claimFor(plan: RenamePlan, bodyNodes: Node[], present: number): Claim | null {
  // An empty scope hands out what fresh() gives among the call's own names.
  const scope = new NameScope();
  const all: string[] = [];
  const fresh = (base: string): string => {
    const name = scope.fresh(base);
    all.push(name);
    return name;
  };
  const slots = new Array<string | undefined>(plan.names.length);
  const known = new Array<boolean>(plan.names.length).fill(false);
  for (const k of plan.inputSlotOf) if (k >= 0) known[k] = true;
  plan.outputSlots.forEach((k, i) => {
    if (k < 0) return;
    known[k] = true;
    if (!(present & (1 << i))) slots[k] = fresh(plan.stripped[k]!);
  });
  const visit = (k: number) => {
    if (k >= 0 && !known[k]) {
      known[k] = true;
      slots[k] = fresh(plan.stripped[k]!);
    }
  };
  const nodes = bodyNodes.map((n, j) => {
    plan.nodes[j]!.inputs.forEach(visit);
    plan.nodes[j]!.outputs.forEach(visit);
    return fresh(bodyName(n.name || n.opType));
  });
  return all.every(isClaimSuffix) ? { slots, nodes, all } : null;
}

const plans = new WeakMap<Node[], RenamePlan | null>();

function sameList(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function renamePlan(body: BodyNodes): RenamePlan | undefined {
  const cached = plans.get(body.nodes);
  if (cached === null) return undefined;
  if (cached && sameList(cached.inputs, body.inputs) && sameList(cached.outputs, body.outputs))
    return cached;
  for (const n of body.nodes)
    for (const a of n.attributes)
      if (a.type === "GRAPH" || a.type === "GRAPHS") {
        plans.set(body.nodes, null);
        return undefined;
      }
  const slot = new Map<string, number>();
  const names: string[] = [];
  const add = (name: string): number => {
    names.push(name);
    return names.length - 1;
  };
  // Formal inputs: the last of equal names wins, as in the renamer's map.
  const inputSlotOf = body.inputs.map((f) => (f === "" ? -1 : add(f)));
  body.inputs.forEach((f, i) => f !== "" && slot.set(f, inputSlotOf[i]!));
  const outputSlots = body.outputs.map((f) => {
    if (f === "" || slot.has(f)) return -1;
    const k = add(f);
    slot.set(f, k);
    return k;
  });
  const use = (name: string): number => {
    if (name === "") return -1;
    let k = slot.get(name);
    if (k === undefined) slot.set(name, (k = add(name)));
    return k;
  };
  const nodes = body.nodes.map((n) => ({
    inputs: Int32Array.from(n.inputs, use),
    outputs: Int32Array.from(n.outputs, use),
  }));
  const stripped = names.map(bodyName);
  const plan: RenamePlan = {
    inputs: body.inputs.slice(),
    outputs: body.outputs.slice(),
    names,
    stripped,
    outputSlots,
    inputSlotOf,
    nodes,
    claims: new Map(),
  };
  plans.set(body.nodes, plan);
  return plan;
}

/**
 * Body names longer than this are shortened before a prefix is put in front (bodyName): names
 * grow by a prefix with each level of inlining, and a chain of 100,000 calls would otherwise
 * give names of 300,000 characters.
 */
export const MAX_BODY_NAME = 256;

/**
 * The part of a body's name (a value's, or a node's name else its op) that follows `prefix__`
 * in the name inlining gives it: without its leading underscores, and, past MAX_BODY_NAME
 * characters (a name that carries the prefixes of many levels of inlining), only what follows
 * its last `__`.
 */
export function bodyName(name: string): string {
  let start = 0;
  while (name.charCodeAt(start) === 95 /* _ */) start++;
  const s = start ? name.slice(start) : name;
  if (s.length <= MAX_BODY_NAME) return s;
  const last = s.lastIndexOf("__");
  return last >= 0 && last + 2 < s.length ? s.slice(last + 2) : s.slice(-MAX_BODY_NAME);
}

function applyPlan(
  plan: RenamePlan,
  call: Node,
  bodyNodes: Node[],
  scope: NameScope,
  prefix: string,
  prefixed: boolean,
  record: MetadataProps | undefined,
): Node[] {
  const value = new Array<string | undefined>(plan.names.length);
  // Under a prefix nobody uses, every name is known before the first node: no lookups.
  let claim: Claim | null | undefined;
  const head = `${prefix}__`;
  if (prefixed && call.outputs.length <= 30) {
    let present = 0;
    for (let i = 0; i < call.outputs.length; i++) if (call.outputs[i]) present |= 1 << i;
    claim = plan.claims.get(present);
    if (claim === undefined) plan.claims.set(present, (claim = claimFor(plan, bodyNodes, present)));
    if (claim && !scope.claimPrefix(prefix, claim.all)) claim = null;
    if (claim)
      for (let k = 0; k < value.length; k++) {
        const s = claim.slots[k];
        if (s !== undefined) value[k] = head + s;
      }
  }
  const fresh = (k: number): string =>
    prefixed ? scope.fresh(head + plan.stripped[k]!) : scope.fresh(plan.names[k]!);
  for (let i = 0; i < plan.inputSlotOf.length; i++) {
    const k = plan.inputSlotOf[i]!;
    if (k >= 0) value[k] = call.inputs[i] ?? "";
  }
  for (let i = 0; i < plan.outputSlots.length; i++) {
    const k = plan.outputSlots[i]!;
    if (k >= 0) value[k] = call.outputs[i] || (value[k] ?? fresh(k));
  }
  const out = new Array<Node>(bodyNodes.length);
  for (let j = 0; j < bodyNodes.length; j++) {
    const n = bodyNodes[j]!;
    const p = plan.nodes[j]!;
    const inputs = new Array<string>(p.inputs.length);
    for (let i = 0; i < inputs.length; i++) {
      const k = p.inputs[i]!;
      inputs[i] = k < 0 ? "" : (value[k] ??= fresh(k));
    }
    while (inputs.length && inputs[inputs.length - 1] === "") inputs.pop();
    const outputs = new Array<string>(p.outputs.length);
    for (let i = 0; i < outputs.length; i++) {
      const k = p.outputs[i]!;
      outputs[i] = k < 0 ? "" : (value[k] ??= fresh(k));
    }
    const name = claim
      ? head + claim.nodes[j]!
      : scope.fresh(
          prefixed ? head + bodyName(n.name || n.opType) : n.name || `${head}${n.opType}`,
        );
    out[j] =
      (record && nodeWithRecord(n, inputs, outputs, name, record)) ||
      nodeWith(n, inputs, outputs, name);
  }
  return out;
}

/**
 * The body renamed by the IR's renamer (renameNodes), for bodies with subgraphs: formal names
 * to the call's, every other name of the body fresh in `scope` (a name first met in a subgraph
 * that the subgraph does not define is the body's: fresh once, shared), names a subgraph defines
 * fresh per subgraph, every node named fresh.
 */
function renameBody(
  call: Node,
  body: BodyNodes,
  scope: NameScope,
  prefix: string,
  prefixed: boolean,
): Node[] {
  const freshName = (name: string): string =>
    prefixed ? scope.fresh(`${prefix}__${bodyName(name)}`) : scope.fresh(name);
  const top = new Map<string, string>();
  for (let i = 0; i < body.inputs.length; i++) {
    const f = body.inputs[i]!;
    if (f !== "") top.set(f, call.inputs[i] ?? "");
  }
  for (let i = 0; i < body.outputs.length; i++) {
    const f = body.outputs[i]!;
    if (f !== "" && !top.has(f)) top.set(f, call.outputs[i] || freshName(f));
  }
  return renameNodes(body.nodes, {
    value(name) {
      let v = top.get(name);
      if (v === undefined) top.set(name, (v = freshName(name)));
      return v;
    },
    local: freshName,
    node: (n) =>
      scope.fresh(
        prefixed
          ? `${prefix}__${bodyName(n.name || n.opType)}`
          : n.name || `${prefix}__${n.opType}`,
      ),
    trimInputs: true,
    ownValueInfo: true,
  });
}

/**
 * A local function's nodes with its attribute references bound to a call: the call's value,
 * else the function's default, else the attribute is left out. A call that passes an attribute
 * on by reference (inside another function) keeps the reference, to the caller's name.
 */
export function bindFunctionAttributes(fn: Function, call: Attribute[]): Node[] {
  const given = new Map(call.map((a) => [a.name, a] as const));
  const defaults = new Map(fn.attributeProtos.map((a) => [a.name, a] as const));
  return bindRefs(fn.nodes, (ref, a) => {
    const src = given.get(ref) ?? defaults.get(ref);
    if (src && src.type !== a.type)
      throw new OnnxError(
        "E_MODEL",
        `attribute '${ref}' of function '${functionLabel(fn)}' is used as ${a.type}, but the call gives ${src.type}`,
      );
    return src;
  });
}

const refFree = new WeakMap<Function, boolean>();

/** The function's nodes bound to a call's attributes (its own nodes when it has no references). */
export function boundNodes(fn: Function, call: Attribute[]): Node[] {
  let free = refFree.get(fn);
  if (free === undefined) {
    free = true;
    bindRefs(fn.nodes, () => {
      free = false;
      return undefined;
    });
    refFree.set(fn, free);
  }
  return free ? fn.nodes : bindFunctionAttributes(fn, call);
}
