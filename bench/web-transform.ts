// Page Expand and Convert beside the CLI (issue 32, item 3): for each model, the time from the
// click to both panes drawn and marked (<body> idle, #pane-b drawn), against the CLI's whole
// processes `expand` (or `convert --opset N`) + `diff` of the original and the result, medians of
// RUNS (default 3) run side by side. Target: page ≤ 1.5× the CLI's pair.
//
//   npx tsx bench/web-transform.ts [DIR]    (DIR: INTERP_MODELS, the folder with swin_t.onnx and
//                                            convnext_tiny.onnx that `npm run corpus:export` writes)

import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serveInspector } from "../src/cli/server.js";
import { findChromium, launchChromium, openInPage } from "../test/helpers/browser.js";

const root = join(import.meta.dirname, "..");
const dir = process.argv[2] ?? process.env.INTERP_MODELS ?? join(root, "corpus", "exported");
const RUNS = Number(process.env.RUNS ?? 3);
const cli = join(root, "dist", "cli", "bin.js");
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function timed(args: string[]): number {
  const t = performance.now();
  execFileSync(process.execPath, [cli, ...args], { stdio: "ignore" });
  return performance.now() - t;
}

const chromium = findChromium();
if (!chromium) throw new Error("no Chromium: install chromium-headless-shell");
execFileSync(process.execPath, [join(root, "scripts", "build-web.mjs")], { stdio: "ignore" });
const srv = await serveInspector();
const browser = await launchChromium(chromium);
const work = mkdtempSync(join(tmpdir(), "web-transform-"));
const rows: string[] = [];
try {
  for (const name of ["swin_t", "convnext_tiny"]) {
    const file = join(dir, `${name}.onnx`);
    if (!existsSync(file)) {
      console.log(`${name}: not in ${dir}, skipped`);
      continue;
    }
    for (const [action, flags] of [
      ["expand", []],
      ["convert", ["--opset", "13"]],
    ] as const) {
      const page: number[] = [];
      const ours: number[] = [];
      for (let r = 0; r < RUNS; r++) {
        const out = join(work, `${name}-${action}.onnx`);
        ours.push(
          timed([action, file, ...flags, "-o", out, "--force"]) + timed(["diff", file, out]),
        );
        const tab = await browser.newPage({ viewport: { width: 1400, height: 900 } });
        await openInPage(tab, srv.url, file);
        if (action === "convert") await tab.fill("#opset", "13");
        const t = performance.now();
        await tab.click(`#${action}-form button`);
        await tab.locator("#pane-b[data-drawn]").waitFor({ timeout: 300_000 });
        await tab.locator("body:not([data-state=busy])").waitFor({ timeout: 300_000 });
        page.push(performance.now() - t);
        await tab.close();
      }
      const p = median(page);
      const c = median(ours);
      rows.push(
        `| ${name} | ${action} | ${(p / 1000).toFixed(2)} s | ${(c / 1000).toFixed(2)} s | ${(p / c).toFixed(2)} |`,
      );
    }
  }
} finally {
  await browser.close();
  srv.server.close();
  rmSync(work, { recursive: true, force: true });
}
console.log(
  `| model | action | page, click to both panes marked | CLI action + diff | page / CLI |`,
);
console.log(`|---|---|---|---|---|`);
for (const r of rows) console.log(r);
