// The adapter kit's attribute readers fall back to the schema default of the version the node is
// at, of the attribute's own type (schema/facts.ts defaultAttribute): INTS as integers, STRINGS
// as strings, FLOAT rounded to float32; a given attribute wins, one of another type gives way.

import { describe, expect, it } from "vitest";
import {
  floatAttr,
  floatsAttr,
  intAttr,
  intsAttr,
  stringAttr,
  stringsAttr,
} from "../../../src/convert/adapters/nodes.js";
import type { AdapterContext } from "../../../src/convert/adapter.js";
import { attr, node } from "../../../src/ir/builder.js";
import { defaultAttribute } from "../../../src/schema/facts.js";
import { SchemaRegistry } from "../../../src/schema/registry.js";

const registry = SchemaRegistry.default();
const at = (op: string, opset: number, attrs: Record<string, never> = {}, extra = {}) =>
  ({
    node: { ...node(op, ["x"], ["y"], attrs), ...extra },
    from: registry.resolve("", op, opset),
  }) as unknown as AdapterContext;

describe("attribute readers with schema defaults", () => {
  it("defaultAttribute gives the attribute of its own type", () => {
    const mvn = registry.resolve("", "MeanVarianceNormalization", 13);
    expect(defaultAttribute(mvn, "axes")).toEqual({
      name: "axes",
      type: "INTS",
      value: [0n, 2n, 3n],
    });
    const rnn = registry.resolve("", "RNN", 14);
    expect(defaultAttribute(rnn, "activations", "acts")).toEqual({
      name: "acts",
      type: "STRINGS",
      value: ["Tanh", "Tanh"],
    });
    const leaky = registry.resolve("", "LeakyRelu", 16);
    expect(defaultAttribute(leaky, "alpha")).toEqual({
      name: "alpha",
      type: "FLOAT",
      value: Math.fround(0.01),
    });
    expect(defaultAttribute(rnn, "hidden_size")).toBeUndefined();
  });

  it("intsAttr, stringsAttr, floatAttr read the node, else the default", () => {
    expect(intsAttr(at("MeanVarianceNormalization", 13), "axes")).toEqual([0, 2, 3]);
    const given = { attributes: [attr("axes", [1, 2])] };
    expect(intsAttr(at("MeanVarianceNormalization", 13, {}, given), "axes")).toEqual([1, 2]);
    // An attribute of another type gives way to the default, as a kernel reading it would.
    const wrong = { attributes: [attr("axes", 1)] };
    expect(intsAttr(at("MeanVarianceNormalization", 13, {}, wrong), "axes")).toEqual([0, 2, 3]);
    expect(stringsAttr(at("RNN", 14), "activations")).toEqual(["Tanh", "Tanh"]);
    expect(floatsAttr(at("RNN", 14), "activation_alpha")).toBeUndefined();
    expect(floatAttr(at("LeakyRelu", 16), "alpha")).toBe(Math.fround(0.01));
    expect(intAttr(at("RNN", 14), "layout")).toBe(0);
    expect(stringAttr(at("RNN", 14), "direction")).toBe("forward");
  });
});
