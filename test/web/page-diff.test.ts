// The page's diff is the CLI's (issue 32, item 3): after Expand and after Convert in the page,
// the marks on both drawings count what `onnx-expand diff --json` finds between the original
// and the CLI's own result (removed and changed nodes of the original's main graph, added and
// changed of the result's). Skipped, saying why, when no Chromium is installed.

import { join } from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { findChromium, NO_CHROMIUM, openInPage, pageSuite } from "../helpers/browser.js";
import { runCli } from "../helpers/cli.js";

const root = join(import.meta.dirname, "..", "..");
const chromium = findChromium();

interface Counts {
  removed: number;
  added: number;
  changedA: number;
  changedB: number;
}

/** What `diff --json` says of the main graphs of a and b. */
function cliCounts(a: string, b: string): Counts {
  const r = runCli(["diff", "--json", a, b]);
  const d = JSON.parse(r.stdout) as {
    graph: { hunks: { removed: unknown[]; added: unknown[] }[]; changed: unknown[] };
  };
  const sum = (k: "removed" | "added") => d.graph.hunks.reduce((n, h) => n + h[k].length, 0);
  return {
    removed: sum("removed"),
    added: sum("added"),
    changedA: d.graph.changed.length,
    changedB: d.graph.changed.length,
  };
}

async function pageCounts(page: Page): Promise<Counts> {
  const n = async (pane: string, k: string) =>
    Number(await page.locator(`#pane-${pane}`).getAttribute(`data-${k}`));
  return {
    removed: await n("a", "removed"),
    added: await n("b", "added"),
    changedA: await n("a", "changed"),
    changedB: await n("b", "changed"),
  };
}

describe.skipIf(!chromium)(
  `the page's diff is the CLI's${chromium ? "" : ` (${NO_CHROMIUM})`}`,
  () => {
    const suite = pageSuite("page-diff-");

    const cases: { name: string; model: string; action: "expand" | "convert"; opset?: number }[] = [
      { name: "BERT expanded", model: "test/data/deployed/bert_fp32/model.onnx", action: "expand" },
      {
        name: "a quantized CNN expanded",
        model: "test/data/deployed/cnn_qop_per_channel/model.onnx",
        action: "expand",
      },
      {
        name: "ReduceLogSum and ReduceL1 converted to 13",
        model: "examples/reduce-logsum-l1-18.onnx",
        action: "convert",
        opset: 13,
      },
    ];
    for (const c of cases)
      it(
        c.name,
        async () => {
          const page = suite.session().page;
          const src = join(root, c.model);
          const out = join(suite.work(), `${c.name.replace(/\W+/g, "_")}.onnx`);
          const args =
            c.action === "expand"
              ? ["expand", src, "-o", out]
              : ["convert", src, "--opset", String(c.opset), "-o", out];
          expect(runCli(args).code).toBe(0);
          const want = cliCounts(src, out);
          expect(want.removed + want.added + want.changedA).toBeGreaterThan(0);
          await openInPage(page, suite.session().srv.url, src);
          if (c.opset) await page.fill("#opset", String(c.opset));
          await page.click(`#${c.action}-form button`);
          await page.locator("#pane-b[data-drawn]").waitFor({ timeout: 120_000 });
          await page.locator("body:not([data-state=busy])").waitFor({ timeout: 120_000 });
          expect(await pageCounts(page)).toEqual(want);
        },
        120_000,
      );
  },
);
