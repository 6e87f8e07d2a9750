// Reports you can read, details that fit, random inputs that run, numbers that do not mislead
// (issue 42, items 2, 3, 5, 6), in headless Chromium at 1400×900 on real models: Check of the
// deployed BERT for WebNN as a table grouped by reason and op that fits the side panel, each group
// opening to its nodes, a node's row leading to the node while the row stays in view, and the
// node's details saying why it is marked; a refused conversion's blocked nodes in the same table
// and marked on the graph, its error box clear of the pane's toolbar and closable; a node's
// inferred types inside the details panel; silero-vad run on random inputs with no dims given,
// the sizes taken said; times the median of several runs, the first divergence a click away, and
// a run without differences saying so. Skipped, saying why, when no Chromium is installed.

import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { findChromium, NO_CHROMIUM, openInPage, pageSuite } from "../helpers/browser.js";

const chromium = findChromium();
const root = join(import.meta.dirname, "..", "..");
const BERT = join(root, "test", "data", "deployed", "bert_fp32", "model.onnx");
const SILERO = join(
  root,
  "node_modules",
  "@jjhbw",
  "silero-vad",
  "weights",
  "silero_vad_16k_op15.onnx",
);

async function settled(page: Page): Promise<string> {
  await page.locator("body:not([data-state=busy])").waitFor({ timeout: 120_000 });
  return (await page.locator("#error").isVisible()) ? await page.locator("#error").innerText() : "";
}

/** Elements under `sel` whose right edge is past `box`'s (what would be cut or scrolled off). */
function pastEdge(page: Page, box: string, sel: string): Promise<string[]> {
  return page.evaluate(
    ([box, sel]) => {
      const edge = document.querySelector(box)!.getBoundingClientRect().right;
      return [...document.querySelectorAll(sel)]
        .filter((e) => {
          const r = e.getBoundingClientRect();
          return r.width > 0 && r.right > edge + 0.5;
        })
        .map((e) => `${e.tagName} ${(e.textContent ?? "").slice(0, 40)}`);
    },
    [box, sel] as const,
  );
}

describe.skipIf(!chromium)(
  `reports, details and runs${chromium ? "" : ` (${NO_CHROMIUM})`}`,
  () => {
    const suite = pageSuite("page-reports-");

    it("Check for WebNN: a table by reason and op that fits; a node's row leads to it and says why", async () => {
      const page = suite.session().page;
      await openInPage(page, suite.session().srv.url, BERT);
      await page.selectOption("#target", "webnn@2");
      await page.click("#check");
      expect(await settled(page)).toBe("");
      const table = page.locator("#check-report table.report[data-side=a]");
      const groups = table.locator("tr.group");
      const counts = await groups.evaluateAll((rows) =>
        rows.map((r) => Number((r as HTMLElement).dataset.count)),
      );
      // Range unsupported, Reshapes of computed shapes partial (some of them splitting partitions)
      expect(counts.length).toBeGreaterThanOrEqual(2);
      expect(counts.reduce((a, b) => a + b, 0)).toBe(9);
      expect(
        await groups.evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.op)),
      ).toEqual(expect.arrayContaining(["Reshape", "Range"]));
      // nothing past the side panel's edge, and no scrolling sideways
      expect(await pastEdge(page, "#side", "#check-report *")).toEqual([]);
      expect(
        await page.evaluate(() => {
          const s = document.getElementById("side")!;
          return s.scrollWidth <= s.clientWidth;
        }),
      ).toBe(true);
      // a group opens to its nodes, each row saying why
      await groups.first().locator("button.open-group").click();
      const rows = table.locator("tr.node");
      expect(await rows.count()).toBe(counts[0]);
      const why = (await rows.first().locator("td").last().innerText()).trim();
      expect(why.length).toBeGreaterThan(5);
      expect(await pastEdge(page, "#side", "#check-report *")).toEqual([]);
      // the row leads to the node, stays in view, and the details say why the node is marked
      await rows.first().locator("button.problem").click();
      expect(await settled(page)).toBe("");
      expect(await page.locator("#pane-a").getAttribute("data-selected")).toMatch(/^n\d+$/);
      const marked = page.locator("#details .marked-why");
      expect(await marked.isVisible()).toBe(true);
      expect(await marked.innerText()).toContain(why.slice(0, 30));
      const inView = await rows.first().evaluate((r) => {
        const side = document.getElementById("side")!.getBoundingClientRect();
        const b = r.getBoundingClientRect();
        return b.top >= side.top - 0.5 && b.bottom <= side.bottom + 0.5;
      });
      expect(inView).toBe(true);
      // the details fit their panel: inferred types and the title wrap
      expect(await pastEdge(page, "#details", "#details *")).toEqual([]);
    }, 300_000);

    it("a refused conversion: blocked nodes tabled and marked; the error box closable, clear of the pane", async () => {
      const page = suite.session().page;
      await openInPage(page, suite.session().srv.url, BERT);
      await page.fill("#opset", "7");
      await page.click("#convert-form button");
      const error = await settled(page);
      expect(error).toMatch(/^conversion: refused: \d+ problem/);
      const head = page.locator("#check-report h3[data-refused]");
      expect(await head.innerText()).toMatch(/conversion refused: \d+ node\(s\) blocked/);
      const groups = page.locator("#check-report table.report tr.group");
      expect(await groups.count()).toBeGreaterThanOrEqual(2);
      expect(
        await groups.evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.op)),
      ).toEqual(expect.arrayContaining(["Range", "Constant"]));
      expect(Number(await page.locator("#pane-a").getAttribute("data-problems"))).toBeGreaterThan(
        0,
      );
      expect(await pastEdge(page, "#side", "#check-report *")).toEqual([]);
      // the error box sits above the pane's toolbar, not over it
      const [errorBottom, barTop] = await page.evaluate(() => [
        document.getElementById("error")!.getBoundingClientRect().bottom,
        document.querySelector("#pane-a .bar")!.getBoundingClientRect().top,
      ]);
      expect(errorBottom).toBeLessThanOrEqual(barTop);
      await page.click("#error .close-error");
      expect(await page.locator("#error").isHidden()).toBe(true);
    }, 300_000);

    // torch's names (`/features/features.0/features.0.1/LayerNormalization_output_0`), a local
    // function's domain (`torchvision.models.convnext`) and its "Open function …" button: each was
    // drawn past the panel's edge (the details 591 px wide in a 366 px box).
    for (const [model, query] of [
      ["convnext_tiny_legacy_op17", "LayerNorm"],
      ["convnext_tiny_functions_op17", "CNBlock"],
    ] as const) {
      const file = join(root, "corpus", "exported", model, "model.onnx");
      it.skipIf(!existsSync(file))(
        `${model}: a node's details fit the panel (names, inferred types, titles wrap)`,
        async () => {
          const page = suite.session().page;
          await openInPage(page, suite.session().srv.url, file);
          await page.fill("#find", query);
          await page.press("#find", "Enter");
          expect(await settled(page)).toBe("");
          const details = page.locator("#details");
          expect(await details.isVisible()).toBe(true);
          expect(await details.locator("table.outputs").innerText()).toMatch(/float\[/);
          expect(await pastEdge(page, "#details", "#details *")).toEqual([]);
          expect(await pastEdge(page, "#side", "#side *")).toEqual([]);
          const widths = await page.evaluate(() =>
            ["details", "side"].map((id) => {
              const e = document.getElementById(id)!;
              return e.scrollWidth - e.clientWidth;
            }),
          );
          expect(widths).toEqual([0, 0]);
        },
        300_000,
      );
    }

    it.skipIf(!existsSync(SILERO))(
      "silero-vad runs on random inputs with no dims given, saying the sizes taken",
      async () => {
        const page = suite.session().page;
        await openInPage(page, suite.session().srv.url, SILERO);
        await page.selectOption("#run-mode", "random");
        await page.fill("#dims", "");
        await page.click("#run-form button");
        expect(await settled(page)).toBe("");
        const dims = page.locator("#run-dims");
        expect(await dims.getAttribute("data-taken")).toBe("batch=1,sequence=192");
        expect(await dims.innerText()).toMatch(/sequence=192 \(Conv '\/model\/stft\/Conv' makes/);
        expect(await page.locator("#run-report").innerText()).toContain("stateN");
      },
      300_000,
    );

    it("a run that fails on a dim left to its default names the dims taken and where to set them", async () => {
      const page = suite.session().page;
      const file = join(suite.work(), "gather.onnxtxt");
      writeFileSync(
        file,
        `<ir_version: 8, opset_import: ["" : 18]>
g (float[n] x) => (float y) {
  i = Constant <value: tensor = int64 {3}> ()
  y = Gather (x, i)
}
`,
      );
      await openInPage(page, suite.session().srv.url, file);
      await page.selectOption("#run-mode", "random");
      await page.fill("#dims", "");
      await page.click("#run-form button");
      expect(await settled(page)).toMatch(
        /out of range.*\(the input dims not given were taken as n=1: set them with the dims box \(name=value\)\)/,
      );
      await page.fill("#dims", "n=4");
      await page.click("#run-form button");
      expect(await settled(page)).toBe("");
      expect(await page.locator("#run-dims").count()).toBe(0);
    }, 300_000);

    it("times a median of several runs; the first divergence beside the worst; no differences said", async () => {
      const page = suite.session().page;
      await openInPage(page, suite.session().srv.url, BERT);
      await page.click("#expand-form button");
      await page.locator("#pane-b[data-drawn]").waitFor({ timeout: 120_000 });
      expect(await settled(page)).toBe("");
      await page.selectOption("#run-mode", "random");
      await page.fill("#dims", "batch=1,sequence=8");
      await page.click("#run-form button");
      expect(await settled(page)).toBe("");
      const bar = page.locator("#paint-bar");
      const runs = Number(await bar.getAttribute("data-runs"));
      expect(runs).toBeGreaterThanOrEqual(3);
      const first = await bar.getAttribute("data-first");
      expect(first).toMatch(/^n\d+$/);
      await page.click("#paint-first");
      expect(await settled(page)).toBe("");
      expect(await page.locator("#pane-b").getAttribute("data-selected")).toBe(first);
      expect(await page.locator("#status").innerText()).toMatch(
        /^First divergence: .+, \d+ of \d+ values differ/,
      );
      await page.selectOption("#paint-mode", "time");
      expect(await bar.locator(".paint-legend").innerText()).toContain(`median of ${runs} runs`);
      await page.click("#paint-worst");
      expect(await settled(page)).toBe("");
      expect(await page.locator("#status").innerText()).toMatch(
        new RegExp(`^The slowest node: [\\d.]+ ms \\(median of ${runs} runs\\)`),
      );

      // A conversion that changes no number: said as such, and no node picked.
      await page.fill("#opset", "15");
      await page.click("#convert-form button");
      await page.locator("#pane-b[data-drawn]").waitFor({ timeout: 120_000 });
      expect(await settled(page)).toBe("");
      await page.click("#run-form button");
      expect(await settled(page)).toBe("");
      expect(await bar.getAttribute("data-first")).toBe("none");
      expect(await page.locator("#no-differences").isVisible()).toBe(true);
      await page.click("#paint-worst");
      expect(await settled(page)).toBe("");
      expect(await page.locator("#status").innerText()).toMatch(/^No differences: /);
      expect(await page.locator("#pane-b").getAttribute("data-selected")).toBeNull();
    }, 300_000);
  },
);
