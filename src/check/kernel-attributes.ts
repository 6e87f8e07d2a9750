// The kernel-attribute rules of schema/contrib-attributes.ts applied to a node: each broken rule
// is one `kernel-attribute` problem (a run blocker: run, expand and lower refuse the node as
// onnxruntime does). Facts not known statically (a symbolic dim, an attribute given by reference)
// are not judged.

import { clampToNumber } from "../ir/attributes.js";
import type { Attribute, Node, Type } from "../ir/types.js";
import { KERNEL_ATTRIBUTE_RULES, type KernelAttributeRule } from "../schema/contrib-attributes.js";
import type { ConstVal } from "./consts.js";
import type { Report } from "./report.js";

const key = (n: Node) =>
  !n.domain || n.domain === "ai.onnx" ? n.opType : `${n.domain}.${n.opType}`;

/** Whether the op has kernel-attribute rules (a cheap test before anything is looked up). */
export function hasKernelRules(n: Node): boolean {
  return Object.hasOwn(KERNEL_ATTRIBUTE_RULES, key(n));
}

/** Reports each kernel-attribute rule the node breaks. */
export function checkKernelAttributes(
  node: Node,
  attr: (name: string) => Attribute | undefined,
  inputs: readonly (Type | undefined)[],
  consts: readonly (ConstVal | undefined)[],
  report: Report,
): void {
  const rules = Object.hasOwn(KERNEL_ATTRIBUTE_RULES, key(node))
    ? KERNEL_ATTRIBUTE_RULES[key(node)]!
    : [];
  const int = (name: string): number | undefined => {
    const a = attr(name);
    return a?.type === "INT" && typeof a.value === "bigint" ? clampToNumber(a.value) : undefined;
  };
  const str = (name: string): string | undefined => {
    const a = attr(name);
    return a?.type === "STRING" && typeof a.value === "string" ? a.value : undefined;
  };
  const dim = (i: number, axis: number): number | undefined => {
    const t = node.inputs[i] ? inputs[i] : undefined;
    const d = t?.kind === "tensor" ? t.shape?.[axis] : undefined;
    return typeof d === "number" ? d : undefined;
  };
  const count = (i: number): number | undefined => {
    const t = node.inputs[i] ? inputs[i] : undefined;
    const s = t?.kind === "tensor" ? t.shape : undefined;
    if (!s || !s.every((d) => typeof d === "number")) return undefined;
    return (s as number[]).reduce((a, b) => a * b, 1);
  };
  const say = (message: string) =>
    report("kernel-attribute", `${message} (onnxruntime refuses it)`);
  for (const r of rules) check(r);

  function check(r: KernelAttributeRule): void {
    switch (r.kind) {
      case "positive": {
        const v = int(r.attribute);
        if (v !== undefined && v <= 0) say(`${r.attribute} is ${v}; it must be above 0`);
        return;
      }
      case "one-of": {
        const v = str(r.attribute);
        if (v !== undefined && !r.values.includes(v))
          say(`${r.attribute} is '${v}'; it must be one of ${r.values.join(", ")}`);
        return;
      }
      case "divides-attribute": {
        const a = int(r.attribute);
        const b = int(r.of);
        if (a !== undefined && b !== undefined && a > 0 && b > 0 && b % a !== 0)
          say(`${r.of} ${b} is not a multiple of ${r.attribute} ${a}`);
        return;
      }
      case "divides-dim": {
        const a = int(r.attribute);
        const d = dim(r.input, r.axis);
        if (a !== undefined && d !== undefined && a > 0 && d % a !== 0)
          say(`dim ${r.axis} of input ${r.input} (${d}) is not a multiple of ${r.attribute} ${a}`);
        return;
      }
      case "dims-equal": {
        const a = dim(r.input, r.axis);
        const b = dim(r.other, r.otherAxis);
        if (a !== undefined && b !== undefined && a !== b)
          say(
            `dim ${r.axis} of input ${r.input} is ${a}, but dim ${r.otherAxis} of input ${r.other} is ${b}`,
          );
        return;
      }
      case "dim-multiple": {
        if (r.unless && attr(r.unless)) return;
        const d = dim(r.input, r.axis);
        if (d !== undefined && d % r.factor !== 0)
          say(`dim ${r.axis} of input ${r.input} is ${d}, not a multiple of ${r.factor}`);
        return;
      }
      case "count-one-or-dim": {
        const n = count(r.input);
        const d = dim(r.other, r.axis);
        if (n !== undefined && d !== undefined && n !== 1 && n !== d)
          say(
            `input ${r.input} holds ${n} values; it must hold 1 or ${d} (dim ${r.axis} of input ${r.other})`,
          );
        return;
      }
      case "non-negative-input": {
        const v = node.inputs[r.input] ? consts[r.input]?.values : undefined;
        const i = v ? v.findIndex((x) => x < 0) : -1;
        if (v && i >= 0) say(`${r.name}[${i}] is ${v[i]}; a length must be 0 or more`);
        return;
      }
      case "nbits-zero-points": {
        const n = count(r.input);
        const K = int("K");
        const N = int("N");
        const block = int("block_size");
        const bits = int("bits") ?? 4;
        if (n === undefined || !K || !N || !block || K <= 0 || N <= 0 || block <= 0) return;
        const blocks = Math.ceil(K / block);
        const packed = N * Math.ceil((blocks * bits) / 8);
        if (n !== packed && n !== N * blocks)
          say(
            `input ${r.input} (zero points) holds ${n} values; ${N} columns of ${blocks} blocks need ${packed} packed bytes or ${N * blocks} values`,
          );
        return;
      }
    }
  }
}
