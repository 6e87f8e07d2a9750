// ONNX's backend tests that have an `*_expanded` twin (upstream's own inlining of the same test):
// expanding the non-expanded model must leave no function op and reproduce the stored outputs, in
// the interpreter and, where it runs the op set, in onnxruntime-node. A test whose function op
// has no body yet is skipped (and counted as such); everything else must pass.

import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { expandPipeline } from "../../src/expand/pipeline.js";
import {
  compareValues,
  readDataSets,
  runBackendTest,
  DEFAULT_TOLERANCE,
} from "../../src/interp/backend-test.js";
import { loadModel } from "../../src/io/files.js";
import { walkNodes } from "../../src/ir/visit.js";
import { DataType, type Model } from "../../src/ir/types.js";
import type { RTensor } from "../../src/interp/types.js";
import { runPass } from "../../src/passes/manager.js";
import { modelOf, passContext } from "../../src/passes/pass.js";
import { SchemaRegistry, normaliseDomain } from "../../src/schema/registry.js";
import { LIBONNX_TESTDATA, libonnxPresent } from "../helpers/data.js";
import { runOrt } from "../helpers/ort.js";

const ROOTS = [
  fileURLToPath(new URL("../data/onnx-node-tests", import.meta.url)),
  `${LIBONNX_TESTDATA}/node`,
];
const reg = SchemaRegistry.default();

function twins(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((d) => d.endsWith("_expanded"))
    .map((d) => d.slice(0, -"_expanded".length))
    .filter((d) => existsSync(join(root, d, "model.onnx")))
    .sort();
}

/** The function ops (versions with `function: true`, or a body) a model still calls. */
function functionOps(m: Model): string[] {
  const imports = new Map(m.opsetImports.map((o) => [normaliseDomain(o.domain), o.version]));
  const out = new Set<string>();
  for (const { node } of walkNodes(m)) {
    const d = normaliseDomain(node.domain);
    if (m.functions.some((f) => f.name === node.opType && normaliseDomain(f.domain) === d)) {
      out.add(`${d}.${node.opType}`);
      continue;
    }
    const v = reg.tryResolve(d, node.opType, imports.get(d) ?? 0);
    if (v && (v.function || v.body)) out.add(`${node.opType}-${v.since}`);
  }
  return [...out];
}

const tally = {
  passed: 0,
  skipped: 0,
  ort: 0,
  ortSkipped: 0,
  failed: [] as string[],
  unjudged: [] as string[],
};
const skipReasons = new Map<string, string[]>();
const RANDOM_OPS = [
  "Bernoulli",
  "Multinomial",
  "RandomNormal",
  "RandomNormalLike",
  "RandomUniform",
  "RandomUniformLike",
];

for (const root of ROOTS) {
  if (
    root.startsWith(LIBONNX_TESTDATA) &&
    !libonnxPresent("the *_expanded twins of libonnx-testdata")
  )
    continue;
  const names = twins(root);
  describe.skipIf(names.length === 0)(`*_expanded twins in ${root}`, () => {
    for (const name of names)
      it(name, async (ctx) => {
        const dir = join(root, name);
        // Random ops draw from a generator other than the one that made the stored data: a
        // run that matches it (10 draws in test_bernoulli) does so by chance, and onnxruntime's
        // draws then do not. They cannot judge an expansion.
        const random = RANDOM_OPS.find((op) =>
          loadModel(join(dir, "model.onnx")).graph.nodes.some((n) => n.opType === op),
        );
        if (random) {
          tally.unjudged.push(`${name}: ${random} draws random values`);
          ctx.skip(`${random} draws random values`);
          return;
        }
        // Stored data the original model itself does not reproduce (data that contradicts the
        // declared shapes) cannot judge an expansion either.
        const original = runBackendTest(dir);
        if (!original.ok) {
          tally.unjudged.push(`${name}: ${original.reason}`);
          ctx.skip(`the original test fails: ${original.reason}`);
          return;
        }
        const before = loadModel(join(dir, "model.onnx"));
        const r = { model: modelOf(runPass(expandPipeline(), before, passContext())) };
        const left = functionOps(r.model);
        if (left.length) {
          const why = left.join(", ");
          skipReasons.set(why, [...(skipReasons.get(why) ?? []), name]);
          tally.skipped++;
          ctx.skip(`no body yet for ${why}`);
          return;
        }
        const res = runBackendTest(dir, { model: r.model });
        if (!res.ok) tally.failed.push(`${name}: ${res.reason}`);
        expect(res.reason).toBeUndefined();
        tally.passed++;
        // onnxruntime-node, where it accepts the model (opsets <= 26, its types and ops).
        let sets;
        try {
          sets = readDataSets(dir, r.model);
        } catch {
          return;
        }
        for (const set of sets) {
          let got: Record<string, RTensor>;
          try {
            got = await runOrt(r.model, set.inputs as Record<string, RTensor>);
          } catch {
            tally.ortSkipped++;
            return;
          }
          for (const [out, want] of set.expected) {
            // onnxruntime prints floats cast to string with 9 significant digits ("0.60484552");
            // ONNX's expected data (and the interpreter, checked above) use the shortest form that
            // reads back ("0.6048455"): a formatting difference of the runtime, not of the body.
            if ((want as RTensor).dtype === DataType.STRING) continue;
            expect(compareValues(got[out]!, want, DEFAULT_TOLERANCE), `ORT ${out}`).toBeUndefined();
          }
        }
        tally.ort++;
      });
  });
}

afterAll(() => {
  const lines = [
    `*_expanded twins: ${tally.passed} passed (${tally.ort} also in onnxruntime-node, ${tally.ortSkipped} not runnable there), ${tally.failed.length} failed, ${tally.skipped} skipped (no body), ${tally.unjudged.length} not judged (random ops, or the original test fails)`,
    ...tally.failed.map((f) => `  failed: ${f}`),
    ...tally.unjudged.map((f) => `  not judged: ${f}`),
    ...[...skipReasons].map(([why, tests]) => `  no body for ${why}: ${tests.length} tests`),
  ];
  console.log(lines.join("\n"));
});
