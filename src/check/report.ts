// What the checker reports: every problem it finds, each one line naming where and why.

import type { SchemaRegistry } from "../schema/registry.js";

export type ProblemCode =
  | "ir-version" // the model's IR version is too old for an imported opset, or invalid
  | "opset-import" // an opset import is malformed or duplicated
  | "domain-not-imported" // a node's domain has no opset import
  | "unknown-op" // no such operator in the domain
  | "op-not-in-opset" // the operator exists but not at the imported opset
  | "unknown-attribute"
  | "attribute-type"
  | "missing-attribute"
  | "duplicate-attribute"
  | "ref-attribute" // @ref outside a function, or naming an undeclared function attribute
  | "input-count"
  | "output-count"
  | "missing-input" // a required input slot is empty
  | "type-not-allowed" // a value's type is outside its type constraint
  | "type-mismatch" // values bound to one type variable differ, or declared and inferred types differ
  | "undefined-value"
  | "duplicate-value"
  | "cycle"
  | "output-not-produced"
  | "axis-out-of-range"
  | "shape-mismatch" // static shapes that cannot go together (broadcast, concat, reshape, ...)
  | "rank" // an input's rank is not one the op accepts
  | "bad-attribute-value" // an attribute with a value the op cannot use
  | "deprecated-op" // the imported opset resolves the op to a deprecated version
  | "function-cycle" // a model-local function calls itself, directly or indirectly
  | "function" // a model-local function is malformed (duplicate, bad signature)
  | "bad-subgraph" // an If/Loop/Scan body does not fit the node
  | "tensor-data" // an initializer's stored data does not fit its shape and type
  | "kernel-attribute"; // an attribute (or a shape it describes) onnxruntime's kernel refuses

export interface Problem {
  code: ProblemCode;
  /** Where: the node (nodeLabel), with its graph or function context; or the model part. */
  where: string;
  /** One line: the op and the reason. */
  message: string;
}

/** Something valid but surely not meant: reported, and the model still checks clean. */
export interface CheckWarning {
  where: string;
  message: string;
}

export interface CheckReport {
  ok: boolean;
  problems: Problem[];
  warnings: CheckWarning[];
}

export function formatProblem(p: Problem): string {
  return p.where ? `${p.where}: ${p.message}` : p.message;
}

/** The registry the checker needs: src/schema's SchemaRegistry, or anything with its lookups. */
export type OpRegistry = Pick<
  SchemaRegistry,
  "resolve" | "tryResolve" | "has" | "maxOpset" | "versions"
>;

/** Reports one problem at the node being checked. */
export type Report = (code: ProblemCode, message: string) => void;
