// The opset converter on Debian's libonnx-testdata: every model onnxruntime-node runs correctly
// as it is is converted up to 17, 21 and 26, and every opset-13 one down to 11; the converted
// model must give the stored outputs on onnxruntime-node (opset <= 26) and in the interpreter
// (where it runs the original correctly). Prints counts by outcome: pass, refused (grouped by
// reason), wrong (a different output: never allowed) and error. `--down T,...` converts instead
// every model whose opset is above each T down to T (and nothing up). Function ops the target
// lacks are lowered on the way, as the CLI's `convert` does.
//
//   npx tsx scripts/convert-report.ts [ROOT] [--list] [--json] [--only SUBSTRING] [--down T,...]
//
// ROOT defaults to /usr/share/libonnx-testdata/data. Exit code 1 when any conversion gives a
// wrong output, or an error other than the known onnxruntime-node gaps below.

import { existsSync } from "node:fs";
import {
  convertAndRun,
  corpusDirs,
  LIBONNX_ROOT,
  loadCorpusModel,
  ORT_MAX_IR,
  ORT_MAX_OPSET,
  runOnInterpreter,
  runOnOrt,
  type ConversionOutcome,
} from "./convert-corpus.js";

const args = process.argv.slice(2);
const list = args.includes("--list");
const json = args.includes("--json");
const onlyAt = args.indexOf("--only");
const only = onlyAt >= 0 ? args[onlyAt + 1] : undefined;
const downAt = args.indexOf("--down");
const down = downAt >= 0 ? (args[downAt + 1] ?? "").split(",").map(Number) : undefined;
if (down && (down.length === 0 || down.some((t) => !Number.isInteger(t) || t < 1))) {
  process.stderr.write(`convert-report: --down takes opsets, e.g. --down 11,13\n`);
  process.exit(2);
}
const root =
  args.find((a, i) => !a.startsWith("--") && i !== onlyAt + 1 && i !== downAt + 1) ?? LIBONNX_ROOT;
if (!existsSync(root)) {
  process.stderr.write(
    `convert-report: ${root} does not exist (apt-get install libonnx-testdata)\n`,
  );
  process.exit(2);
}

/** Errors that are onnxruntime-node's, not the converter's: valid models it has no kernel for. */
const KNOWN_ORT_GAPS: [RegExp, string][] = [
  [/implementation for RoiAlign\(22\)/, "onnxruntime-node 1.30 has no RoiAlign-22 kernel"],
  [
    /implementation for Where\(9\)/,
    "onnxruntime-node 1.30 has no uint64 Where kernel (the interpreter runs it)",
  ],
];
const knownGap = (reason: string) => KNOWN_ORT_GAPS.find(([re]) => re.test(reason))?.[1];

const UP = [17, 21, 26];
const DOWN_FROM = 13;
const DOWN_TO = 11;

interface Row {
  test: string;
  opset: number;
  outcomes: ConversionOutcome[];
}

/** A reason without the names of values and nodes, so that one cause counts once. */
function reasonKey(r: string): string {
  return r.replace(/'[^']*'/g, "'…'").replace(/\b\d+ of \d+\b/g, "n of m");
}

const started = performance.now();
const rows: Row[] = [];
let total = 0;
let noData = 0;
let ortFails = 0;
const dirs = corpusDirs(root).filter((d) => !only || d.includes(only));
for (const dir of dirs) {
  total++;
  let m;
  try {
    m = loadCorpusModel(dir);
  } catch {
    m = undefined;
  }
  if (!m) {
    noData++;
    continue;
  }
  if (
    m.opset > ORT_MAX_OPSET ||
    m.model.irVersion > ORT_MAX_IR ||
    !(await runOnOrt(m.model, m.sets)).ok
  ) {
    ortFails++;
    continue;
  }
  const interp = runOnInterpreter(m.model, m.sets).ok;
  const outcomes: ConversionOutcome[] = [];
  if (down) {
    for (const t of down)
      if (t < m.opset) outcomes.push(await convertAndRun(m, t, interp, { lower: true }));
  } else {
    for (const t of UP)
      if (t >= m.opset) outcomes.push(await convertAndRun(m, t, interp, { lower: true }));
    if (m.opset === DOWN_FROM)
      outcomes.push({ ...(await convertAndRun(m, DOWN_TO, interp, { lower: true })) });
  }
  rows.push({ test: dir.slice(root.length + 1), opset: m.opset, outcomes });
  if (process.stderr.isTTY) process.stderr.write(`\r${total}/${dirs.length}`);
}
if (process.stderr.isTTY) process.stderr.write("\r");
const ms = performance.now() - started;

type Counts = {
  pass: number;
  refused: Map<string, number>;
  wrong: string[];
  error: string[];
  checkProblems: string[];
  n: number;
};
const summary = new Map<string, Counts>();
for (const r of rows)
  for (const o of r.outcomes) {
    const key = down
      ? `down to ${o.target}`
      : o.target === DOWN_TO
        ? `down ${DOWN_FROM} -> ${DOWN_TO}`
        : `up to ${o.target}`;
    const c = summary.get(key) ?? {
      pass: 0,
      refused: new Map(),
      wrong: [],
      error: [],
      checkProblems: [],
      n: 0,
    };
    c.n++;
    if (o.outcome === "pass") c.pass++;
    else if (o.outcome === "refused") {
      const k = reasonKey(o.reason ?? "");
      c.refused.set(k, (c.refused.get(k) ?? 0) + 1);
    } else (o.outcome === "wrong" ? c.wrong : c.error).push(`${r.test}: ${o.reason}`);
    if (o.checkProblems?.length) c.checkProblems.push(`${r.test}: ${o.checkProblems[0]}`);
    summary.set(key, c);
  }

const anyBad = [...summary.values()].some(
  (c) => c.wrong.length || c.error.some((e) => !knownGap(e)),
);
if (json) {
  process.stdout.write(
    JSON.stringify(
      {
        root,
        models: total,
        withoutTestData: noData,
        notRunByOnnxruntime: ortFails,
        baseline: rows.length,
        milliseconds: Math.round(ms),
        conversions: Object.fromEntries(
          [...summary].map(([k, c]) => [
            k,
            {
              models: c.n,
              pass: c.pass,
              refused: Object.fromEntries([...c.refused].sort((a, b) => b[1] - a[1])),
              wrong: c.wrong,
              error: c.error,
              checkProblems: c.checkProblems,
            },
          ]),
        ),
        ...(list ? { rows } : {}),
      },
      null,
      2,
    ) + "\n",
  );
} else {
  const out: string[] = [];
  out.push(
    `libonnx-testdata at ${root}: ${total} models; ${noData} without usable test data; ${ortFails} not run correctly by onnxruntime-node as they are; ${rows.length} converted (${Math.round(ms / 1000)} s)`,
  );
  for (const [k, c] of summary) {
    const refused = [...c.refused.values()].reduce((a, b) => a + b, 0);
    out.push(
      `${k}: ${c.n} models: ${c.pass} pass, ${refused} refused, ${c.wrong.length} wrong, ${c.error.length} error` +
        (c.checkProblems.length
          ? ` (${c.checkProblems.length} converted models with check problems)`
          : ""),
    );
    for (const [reason, n] of [...c.refused].sort((a, b) => b[1] - a[1]))
      out.push(`  refused ${n}: ${reason}`);
    for (const w of c.wrong) out.push(`  WRONG ${w}`);
    for (const e of c.error) {
      const gap = knownGap(e);
      out.push(gap ? `  ERROR (known: ${gap}) ${e}` : `  ERROR ${e}`);
    }
    if (list) for (const p of c.checkProblems) out.push(`  check ${p}`);
  }
  if (list)
    for (const r of rows)
      for (const o of r.outcomes)
        out.push(
          `${o.outcome.toUpperCase()} ${r.test} (opset ${r.opset} -> ${o.target})${o.reason ? `: ${o.reason}` : ""}`,
        );
  process.stdout.write(out.join("\n") + "\n");
}
process.exitCode = anyBad ? 1 : 0;
