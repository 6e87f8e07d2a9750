// Opset maps: ai.onnx as "", the first import of a domain, a function's own imports.

import { describe, expect, it } from "vitest";
import {
  domainLabel,
  functionOpsets,
  normaliseDomain,
  onnxOpset,
  opsetMap,
  withOnnxOpset,
  withOpsets,
} from "../../src/ir/opsets.js";

describe("opset maps", () => {
  it("keys ai.onnx as '' and keeps the first import of a domain", () => {
    const m = opsetMap([
      { domain: "ai.onnx", version: 17 },
      { domain: "local", version: 1 },
      { domain: "", version: 18 },
    ]);
    expect([...m]).toEqual([
      ["", 17],
      ["local", 1],
    ]);
    expect(normaliseDomain("ai.onnx")).toBe("");
    expect(domainLabel("")).toBe("ai.onnx");
  });

  it("adds the domains a fallback has that the imports leave out", () => {
    const outer = new Map([
      ["", 13],
      ["x", 2],
    ]);
    expect([...opsetMap([{ domain: "", version: 18 }], outer)]).toEqual([
      ["", 18],
      ["x", 2],
    ]);
  });

  it("reads a function at its own imports, else at the model's", () => {
    const outer = new Map([["", 13]]);
    expect(functionOpsets({ opsetImports: [] }, outer)).toBe(outer);
    expect([...functionOpsets({ opsetImports: [{ domain: "", version: 18 }] }, outer)]).toEqual([
      ["", 18],
    ]);
  });

  it("reads and sets the ai.onnx opset, and adds imports", () => {
    const imports = [
      { domain: "x", version: 1 },
      { domain: "ai.onnx", version: 13 },
    ];
    expect(onnxOpset(imports)).toBe(13);
    expect(onnxOpset([{ domain: "x", version: 1 }])).toBeUndefined();
    expect(withOnnxOpset(imports, 18)).toEqual([
      { domain: "x", version: 1 },
      { domain: "ai.onnx", version: 18 },
    ]);
    expect(
      withOpsets(
        imports,
        new Map([
          ["", 18],
          ["y", 2],
        ]),
      ),
    ).toEqual([...imports, { domain: "y", version: 2 }]);
  });
});
