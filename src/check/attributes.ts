// A node's attributes against what it calls: names the operator version (or model-local
// function) has, their types, required ones given, no name twice, tensor data that fits its
// shape, and `@ref` references only inside functions, to attributes the function declares.

import type { Function, Node } from "../ir/types.js";
import type { OpVersion } from "../schema/types.js";
import type { Report } from "./report.js";
import { functionLabel } from "../ir/functions.js";
import { tensorDataProblem } from "../ir/tensor-data.js";

const declaredCache = new WeakMap<Function, Map<string, string | undefined>>();

/** A function's declared attribute names, with the type of their default where one is given. */
export function declaredAttributes(f: Function): Map<string, string | undefined> {
  let m = declaredCache.get(f);
  if (!m) {
    m = new Map<string, string | undefined>();
    for (const n of f.attributes) m.set(n, undefined);
    for (const a of f.attributeProtos) m.set(a.name, a.type);
    declaredCache.set(f, m);
  }
  return m;
}

export interface AttributeTarget {
  /** The operator version the node resolves to, if any. */
  schema?: OpVersion;
  /** How the version is named in messages ("Op-13"). */
  opv: string;
  /** The model-local function the node calls, if any. */
  callee?: Function;
  /** The function whose body holds the node (where `@ref` attributes are allowed). */
  within?: Function;
}

/** Checks the node's attributes against the operator version or function it calls. */
export function checkAttributes(node: Node, t: AttributeTarget, report: Report): void {
  const { schema, opv, callee: fn, within } = t;
  const fnAttrs = within ? declaredAttributes(within) : undefined;
  node.attributes.forEach((a, i) => {
    if (node.attributes.findIndex((b) => b.name === a.name) !== i) {
      report("duplicate-attribute", `attribute '${a.name}' is given twice`);
    }
    if (a.type === "TENSOR" && a.value) {
      const bad = tensorDataProblem(a.value);
      if (bad) report("tensor-data", `attribute '${a.name}' ${bad}`);
    }
    if (a.refAttrName !== undefined) {
      if (!fnAttrs) {
        report(
          "ref-attribute",
          `attribute '${a.name}' refers to '@${a.refAttrName}', but attribute references are allowed only inside functions`,
        );
      } else if (!fnAttrs.has(a.refAttrName)) {
        report(
          "ref-attribute",
          `attribute '${a.name}' refers to '@${a.refAttrName}', which function '${functionLabel(within!)}' does not declare (declared: ${[...fnAttrs.keys()].join(", ") || "none"})`,
        );
      } else {
        const declaredType = fnAttrs.get(a.refAttrName);
        if (declaredType && declaredType !== a.type) {
          report(
            "attribute-type",
            `attribute '${a.name}' is ${a.type}, but '@${a.refAttrName}' of function '${functionLabel(within!)}' has a ${declaredType} default`,
          );
        }
      }
    }
    if (schema) {
      const spec = schema.attributes.find((s) => s.name === a.name);
      if (!spec) {
        const names = schema.attributes.map((s) => s.name);
        report(
          "unknown-attribute",
          `${opv} has no attribute '${a.name}' (its attributes: ${names.length ? names.join(", ") : "none"})`,
        );
      } else if (spec.type !== a.type) {
        report(
          "attribute-type",
          `attribute '${a.name}' is ${a.type}, but ${opv} expects ${spec.type}`,
        );
      }
    } else if (fn) {
      const names = [...fn.attributes, ...fn.attributeProtos.map((p) => p.name)];
      if (!names.includes(a.name)) {
        report(
          "unknown-attribute",
          `function '${functionLabel(fn)}' has no attribute '${a.name}' (its attributes: ${names.join(", ") || "none"})`,
        );
      }
    }
  });
  if (schema) {
    for (const spec of schema.attributes) {
      if (spec.required && !node.attributes.some((a) => a.name === spec.name)) {
        report(
          "missing-attribute",
          `${opv} requires attribute '${spec.name}' (${spec.type}), which is not given`,
        );
      }
    }
  }
}
