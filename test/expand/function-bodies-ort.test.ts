// Every function op's body, expanded recursively, run in onnxruntime-node and compared with the
// interpreter running the op itself (or with onnxruntime's own op where the interpreter's kernel
// is known to differ from the operator's definition, or refuses the type). onnxruntime-node 1.30
// takes opsets <= 26: versions whose expansion needs a newer opset are left to the interpreter
// test. onnxruntime has no bfloat16 tensors in Node and lacks some kernels for some types
// (e.g. float16 Erf); those combinations are listed by the last test, not hidden.

import * as ort from "onnxruntime-node";
import { afterAll, describe, expect, it } from "vitest";
import { compareTensors } from "../../src/interp/backend-test.js";
import { run } from "../../src/interp/executor.js";
import { toFloat64 } from "../../src/interp/tensor.js";
import type { RTensor } from "../../src/interp/types.js";
import { encodeModel } from "../../src/io/files.js";
import { dtypeName } from "../../src/ir/dtype.js";
import { DataType, type Model, type Node } from "../../src/ir/types.js";
import { hasFunctionBody } from "../../src/schema/index.js";
import {
  callModel,
  constraintTypes,
  expandAll,
  feedsOf,
  functionVersions,
  reg,
  rng,
  sequenceMapModel,
  tensor,
  type Variant,
} from "../helpers/function-cases.js";
import { fromOrt, toOrt } from "../helpers/ort.js";

const ORT_MAX_OPSET = 26;

async function runOrt(m: Model, feeds: Record<string, RTensor>): Promise<Record<string, RTensor>> {
  // No graph optimisation: onnxruntime's fusions (e.g. x * Sigmoid(a * x) into a float-only
  // QuickGelu) would judge its own rewrites rather than the body.
  const session = await ort.InferenceSession.create(encodeModel(m), {
    graphOptimizationLevel: "disabled",
  });
  const out = await session.run(
    Object.fromEntries(Object.entries(feeds).map(([k, v]) => [k, toOrt(v)])),
  );
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, fromOrt(v)]));
}

function tolerance(dtype: number): { rtol: number; atol: number } {
  if (dtype === DataType.FLOAT16) return { rtol: 4e-3, atol: 4e-3 };
  if (dtype === DataType.FLOAT) return { rtol: 1e-5, atol: 1e-6 };
  if (dtype === DataType.DOUBLE) return { rtol: 1e-7, atol: 1e-9 };
  return { rtol: 0, atol: 0 };
}

/** An onnxruntime error that says it has no kernel for a type, rather than a broken model. */
const missingKernel = (e: unknown) =>
  /NOT_IMPLEMENTED|Could not find an implementation/.test(String((e as Error).message ?? e));

const compared: string[] = [];
const ortLacks: string[] = [];

describe("function bodies in onnxruntime-node agree with the ops", () => {
  for (const { v, cases } of functionVersions()) {
    if (!cases || !hasFunctionBody(v)) continue;
    const label = `${v.name}-${v.since}`;
    it(label, async () => {
      for (const dtype of (cases.types ?? constraintTypes)(v)) {
        if (dtype === DataType.BFLOAT16) continue;
        const r = rng(v.since * 1000 + dtype);
        for (const c of cases.variants(dtype, v, r)) {
          if (c.interpOnly) continue;
          if (c.inputs.some((t) => t?.dtype === DataType.BFLOAT16)) continue;
          const where = `${label} ${dtypeName(dtype)} ${c.name}`;
          const m = callModel(v, c);
          const expanded = ortOpset(expandAll(m));
          if (!expanded) continue;
          const feeds = feedsOf(c);
          let got: Record<string, RTensor>;
          try {
            got = await runOrt(expanded, feeds);
          } catch (e) {
            if (!missingKernel(e)) throw new Error(`${where}: ${(e as Error).message}`);
            ortLacks.push(`${where}: body`);
            continue;
          }
          const want = await reference(m, c, cases.kernelLacks?.includes(dtype) ?? false, where);
          if (!want) continue;
          for (const o of m.graph.outputs) {
            const w = want[o.name]!;
            expect(compareTensors(got[o.name]!, w, tolerance(w.dtype)), `${where} ${o.name}`).toBe(
              undefined,
            );
          }
          compared.push(where);
        }
      }
    });
  }

  afterAll(() => {
    // eslint-disable-next-line no-console
    console.log(
      `function bodies in onnxruntime: ${compared.length} cases compared; onnxruntime lacks a kernel in ${ortLacks.length}:\n  ${ortLacks.join("\n  ")}`,
    );
  });

  it("SequenceMap-17 (a Loop over sequence items)", async () => {
    for (const dtype of [DataType.FLOAT, DataType.DOUBLE, DataType.INT32, DataType.INT64])
      for (const [three, extraSeq] of [
        [false, false],
        [true, false],
        [true, true],
      ] as const) {
        const { m, feeds } = sequenceMapModel(dtype, three, extraSeq);
        const want = run(m, feeds);
        const got = await runOrt(expandAll(m), feeds);
        for (const o of ["y0", "y1"])
          expect(compareTensors(got[o]!, want[o]!, tolerance(want[o]!.dtype)), o).toBe(undefined);
        compared.push(`SequenceMap-17 ${dtypeName(dtype)} ${three ? 3 : 2} items ${extraSeq}`);
      }
  });

  it("covers every version that onnxruntime can run", () => {
    expect(compared.length).toBeGreaterThan(400);
  });
});

/**
 * The expanded model at an opset onnxruntime takes: its own, or 26 when every op in it (subgraphs
 * included) is the same version at 26 as at its opset (a call of a version-27 op expands to ops
 * that did not change since). Undefined when that is not so.
 */
function ortOpset(m: Model): Model | undefined {
  const opset = m.opsetImports[0]!.version;
  if (opset <= ORT_MAX_OPSET) return m;
  const same = (nodes: Node[]): boolean =>
    nodes.every(
      (n) =>
        reg.resolve("", n.opType, opset).since === reg.resolve("", n.opType, ORT_MAX_OPSET).since &&
        n.attributes.every((a) =>
          a.type === "GRAPH"
            ? same(a.value!.nodes)
            : a.type === "GRAPHS"
              ? a.value!.every((g) => same(g.nodes))
              : true,
        ),
    );
  if (!same(m.graph.nodes)) return undefined;
  return { ...m, opsetImports: [{ domain: "", version: ORT_MAX_OPSET }] };
}

/** What the body must give: the interpreter's op, or onnxruntime's op where the kernel cannot say. */
async function reference(
  m: Model,
  c: Variant,
  kernelLacks: boolean,
  where: string,
): Promise<Record<string, RTensor> | undefined> {
  const feeds = feedsOf(c);
  const call = m.graph.nodes[0]!;
  if (call.opType === "Bernoulli") {
    // Probabilities 0 and 1 only: the result is the input, cast to dtype.
    const to = call.attributes.find((a) => a.name === "dtype");
    const p = Array.from(toFloat64(feeds.i0!));
    const dtype = to ? Number(to.value) : feeds.i0!.dtype;
    return { o0: tensor(dtype, feeds.i0!.shape, p) };
  }
  if (!c.kernelDiffers && !kernelLacks) return run(m, feeds);
  try {
    return await runOrt(m, feeds);
  } catch (e) {
    if (!missingKernel(e))
      throw new Error(`${where} (onnxruntime's own op): ${(e as Error).message}`);
    ortLacks.push(`${where}: op`);
    return undefined;
  }
}
