// What an adapter is: a small function that rewrites one node across one version step of its op
// (from the version in force before the step to the next or previous version), registered as data
// under (domain, op, from, to). The kit holds the one row constructor (`row`, adapters/kit.ts,
// which puts the target version's type check before every row's adapter), the patterns named for
// what they do (axes attribute <-> input, attribute dropped, type restriction, ...) and the
// node-building helpers (adapters/nodes.ts); per-family files adapters/<family>.ts hold one row
// per step, registered by one line in adapters/families.ts.

import type { Tensor } from "../ir/tensor.js";
import type { Node, Type } from "../ir/types.js";
import type { OpVersion } from "../schema/types.js";

export type Direction = "up" | "down";

export interface AdapterContext {
  /** The node as it is before the step (valid at `from`). Never mutate it: return new nodes. */
  readonly node: Node;
  /** The op's version before and after the step (adjacent versions of one operator). */
  readonly from: OpVersion;
  readonly to: OpVersion;
  readonly direction: Direction;
  /** The opset of the node's domain after the step (the nodes returned must be valid there). */
  readonly opset: number;
  /** The opset the whole conversion goes to (later steps must carry what this one writes). */
  readonly target: number;
  /** Where the node is, for messages: "graph > Loop 'l' body > node 'n' (Softmax)". */
  readonly where: string;
  /** The type of the node's i-th input, when inference knows it (computed lazily, on request). */
  inputType(i: number): Type | undefined;
  /** The type of the node's i-th output, when inference knows it (computed lazily, on request). */
  outputType(i: number): Type | undefined;
  /**
   * The element type (DataType) of the node's i-th input when it is a tensor: from a cheap
   * linear pass over element types first, full inference only when that cannot tell. Prefer it
   * to inputType when the dtype is all a step needs (full inference is much slower).
   */
  inputElemType(i: number): number | undefined;
  outputElemType(i: number): number | undefined;
  /** The value of the node's i-th input when it is a constant (initializer or Constant output). */
  constantInput(i: number): Tensor | undefined;
  /** A name not used anywhere in the graph (nor its subgraphs), starting with `base`. */
  fresh(base: string): string;
  /**
   * A value shared by every node of one conversion: made by `make` on the first request for
   * `key`, the same object afterwards (one tensor for every Constant an adapter writes with the
   * same values, say). IR tensors and attributes are immutable once built: never mutate what
   * this returns, nor a tensor read from a Constant or an initializer.
   */
  shared<T>(key: string, make: () => T): T;
  /** The same context for another node (`inOrder` gives the next adapter the previous one's node). */
  withNode(node: Node): AdapterContext;
  /** A note for the plan and the pass's report; the step still happens. */
  warn(message: string): void;
  /**
   * Refuses the step for this node: ends the adapter, and its row (AdapterRow.apply) gives the
   * driver a blocked outcome with this reason; `next`: what would let it through, when the
   * failure knows (the refusal then names the step, next-step.ts).
   */
  fail(reason: string, next?: NextStep): never;
}

/**
 * What would get a blocked node past its step: "fix-dims", a value (or a rank, a shape) the
 * step needs known before run time, which fixing the model's symbolic dims and folding
 * constants may give (`simplify --dim`, `lower --dim`); `input`: the node's input whose value
 * is needed (a value read from the model's inputs' data is never known before run time).
 */
export type NextStep = { kind: "fix-dims"; input?: number };

/** How `fail` ends an adapter: caught by the row that ran it (AdapterRow.apply), nowhere else. */
export class StepFailure extends Error {
  constructor(
    readonly reason: string,
    readonly next?: NextStep,
  ) {
    super(reason);
  }
}

/**
 * What a row did with one node at its step, as a value: the nodes that replace it (undefined:
 * the node stays as it is apart from its version), or why it cannot take the step.
 */
export type RowOutcome = { nodes: Node[] | undefined } | { blocked: string; next?: NextStep };

/**
 * Rewrites `c.node` across one step. Returns the nodes that replace it (valid at `c.to`, in
 * order, the last ones writing the node's outputs), or undefined when the node stays as it is
 * apart from its version. Constants an adapter stops reading are removed by the driver when
 * nothing else reads them.
 */
export type Adapter = (c: AdapterContext) => Node[] | undefined;

declare const madeByRow: unique symbol;

/** One row of the adapter table; only `row` (adapters/kit.ts) makes them. */
export interface AdapterRow {
  domain: string;
  op: string;
  /** `since` of the version before the step and after it (adjacent versions of the op). */
  from: number;
  to: number;
  /** What the step changes, one line (shown by `convert --list-adapters`). */
  summary: string;
  /**
   * The row's adapter applied to a node after the target version's type check, its outcome a
   * value (a `c.fail` becomes `{ blocked }`).
   */
  apply(c: AdapterContext): RowOutcome;
  /** Rows come from `row`, so that every one is type-checked: no object literal is a row. */
  readonly [madeByRow]: true;
}
