// Changes of meaning recorded in the schemas (`changes` on a version): facts.ts answers them, and
// the converter's plan reads its behaviour breaks from them, with the reasons it has always printed.

import { describe, expect, it } from "vitest";
import { behaviourBreaks } from "../../src/convert/steps.js";
import {
  broadcastsMultidirectionally,
  hasMeaning,
  meaningChanges,
  scaleIsPerChannel,
  softmaxAlongAxis,
  versionRecording,
} from "../../src/schema/facts.js";
import { parseOperatorFile, SchemaRegistry } from "../../src/schema/registry.js";
import { FACT_NAMES, type OpVersion } from "../../src/schema/types.js";

const registry = SchemaRegistry.default();
const at = (op: string, since: number): OpVersion =>
  registry.versions("", op).find((v) => v.since === since)!;

describe("facts answer the recorded changes of meaning", () => {
  it("GroupNormalization: scale and bias per channel from 21", () => {
    expect(scaleIsPerChannel(at("GroupNormalization", 18))).toBe(false);
    expect(scaleIsPerChannel(at("GroupNormalization", 21))).toBe(true);
    expect(versionRecording(at("GroupNormalization", 18), "scale-per-channel")?.since).toBe(21);
    expect(meaningChanges(at("GroupNormalization", 21)).map((c) => c.fact)).toEqual([
      "scale-per-channel",
    ]);
    expect(meaningChanges(at("GroupNormalization", 18))).toEqual([]);
  });

  it("Softmax, LogSoftmax and Hardmax work along one axis from 13", () => {
    for (const op of ["Softmax", "LogSoftmax", "Hardmax"])
      for (const v of registry.versions("", op))
        expect([op, v.since, softmaxAlongAxis(v)]).toEqual([op, v.since, v.since >= 13]);
  });

  it("multidirectional broadcasting from the version that records it", () => {
    expect(broadcastsMultidirectionally(at("PRelu", 6))).toBe(false);
    expect(broadcastsMultidirectionally(at("PRelu", 7))).toBe(true);
    expect(broadcastsMultidirectionally(at("Sum", 6))).toBe(false);
    expect(broadcastsMultidirectionally(at("Sum", 8))).toBe(true);
  });

  it("an op that records no such change has meant it from its first version", () => {
    expect(versionRecording(at("Where", 9), "multidirectional-broadcast")).toBeUndefined();
    expect(hasMeaning(at("Where", 9), "multidirectional-broadcast")).toBe(true);
  });

  it("fact names are a closed list: a schema file or a question with another is refused", () => {
    const file = (fact: string) =>
      JSON.stringify({
        name: "Probe",
        versions: { "1": { changes: [{ kind: "meaning", fact, what: "x", breaks: [] }] } },
      });
    expect(() => parseOperatorFile(file("scale-per-channell"), "Probe.json")).toThrow(
      /Probe\.json/,
    );
    // @ts-expect-error -- not a FactName: a type error in code, and refused when run.
    expect(() => hasMeaning(at("Where", 9), "multidirectional-broadcasts")).toThrow(
      /unknown fact 'multidirectional-broadcasts'/,
    );
    for (const name of registry.operators())
      for (const v of registry.versions("", name))
        for (const c of meaningChanges(v)) expect(FACT_NAMES).toContain(c.fact);
  });

  it("every recorded change names steps to versions that exist", () => {
    for (const name of registry.operators())
      registry.versions("", name).forEach((v, i) => {
        for (const c of meaningChanges(v)) {
          expect([name, v.since, c.fact.length > 0]).toEqual([name, v.since, true]);
          if (c.breaks.length > 0) expect([name, v.since, i > 0]).toEqual([name, v.since, true]);
        }
      });
  });
});

// The list the plan read before it was derived, written out: the derived one must equal it.
const WRITTEN: [op: string, from: number, to: number, reason: string][] = [
  ["PRelu", 6, 7, "slope broadcasting changed (unidirectional from 7)"],
  ["PRelu", 7, 6, "slope broadcasting changed (unidirectional from 7)"],
  ...["Sum", "Max", "Min", "Mean"].map((op): [string, number, number, string] => [
    op,
    8,
    6,
    "before 8 every input must have the output's shape (no broadcasting)",
  ]),
  ["GroupNormalization", 18, 21, "scale and bias are per channel from 21 (per group before)"],
  ["GroupNormalization", 21, 18, "scale and bias are per channel from 21 (per group before)"],
  ["Pad", 19, 18, "mode 'wrap' exists from 19 only"],
  ...["Softmax", "LogSoftmax", "Hardmax"].flatMap((op): [string, number, number, string][] => {
    const r =
      "before 13 the input is coerced to 2-D at axis; from 13 the op runs over the single axis";
    return [
      [op, 11, 13, r],
      [op, 13, 11, r],
    ];
  }),
  ["GridSample", 16, 20, "mode 'bilinear' became 'linear' (and 'bicubic' 'cubic')"],
  ["GridSample", 20, 16, "mode 'linear' was 'bilinear' (and 'cubic' 'bicubic')"],
  ["Resize", 19, 18, "coordinate_transformation_mode 'half_pixel_symmetric' exists from 19 only"],
];

describe("the converter's behaviour breaks come from the schemas", () => {
  it("the derived list is the one written before, reason for reason", () => {
    const key = (s: [string, number, number, string]) => s.join("|");
    const derived = behaviourBreaks().map((s) => {
      expect(s.domain ?? "").toBe("");
      return key([s.op, s.from, s.to, s.reason]);
    });
    expect(derived.sort()).toEqual(WRITTEN.map(key).sort());
  });

  it("is computed once per registry", () => {
    expect(behaviourBreaks()).toBe(behaviourBreaks(registry));
  });
});
