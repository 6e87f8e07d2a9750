// Every view first-class, and change stepping that follows the pane (the inspector's third round),
// in headless Chromium on real models: npm's silero-vad (51 views: If branches nested four deep,
// the LSTMs only in the branches) and torch's BERT-tiny export (legacy exporter, opset 17)
// expanded. Search covers every view, its hits labelled by view and listed by kind; a step opens
// the hit's view; a run paints the subgraph views that ran; the branch views are grouped in the
// selector and their inlined prefix is not drawn. `n` steps the changes of the pane that has
// focus, one distinct changed box a step, and the other pane follows to the match or the place.
// And the smaller things: the constants switch, "0 changes", metadata_props, pane titles cut in
// the middle, the minimap out of the way, groups opened in both panes, a double-click on an op.
// Skipped, saying why, when no Chromium is installed (and each model when it is absent).

import { copyFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { findChromium, NO_CHROMIUM, openInPage, pageSuite } from "../helpers/browser.js";

const root = join(import.meta.dirname, "..", "..");
const chromium = findChromium();
const SILERO = join(root, "node_modules", "@jjhbw", "silero-vad", "weights", "silero_vad.onnx");
const BERT = join(root, "corpus", "exported", "bert_tiny_legacy_op17", "model.onnx");
const QDQ = join(root, "test", "data", "deployed", "cnn_qdq_per_tensor", "model.onnx");

interface Hook {
  panes: Record<
    string,
    {
      items(): { key: string; kind: string; sub: string; folded?: { name: string }[] }[];
      frames(): { key: string }[];
      marks(): [number, string][];
      canvas(): { screenBox(key: string): { x: number; y: number; w: number; h: number } };
    }
  >;
}

async function settled(page: Page): Promise<void> {
  await page.locator("body:not([data-state=busy])").waitFor({ timeout: 300_000 });
}

const attr = (page: Page, sel: string, name: string) => page.locator(sel).getAttribute(name);
const count = (page: Page) => page.locator("#find-count").textContent() as Promise<string>;
const marks = (page: Page, side: string) =>
  page.evaluate(
    (side) => (window as unknown as { __inspector: Hook }).__inspector.panes[side]!.marks(),
    side,
  );
const items = (page: Page, side: string) =>
  page.evaluate(
    (side) =>
      (window as unknown as { __inspector: Hook }).__inspector.panes[side]!.items().map((i) => ({
        key: i.key,
        kind: i.kind,
        sub: i.sub,
        folded: (i.folded ?? []).map((f) => f.name),
      })),
    side,
  );

/** Focus on a pane: a click in its corner (on no box). */
async function focus(page: Page, side: string): Promise<void> {
  await page
    .locator(`#pane-${side} canvas`)
    .first()
    .click({ position: { x: 3, y: 3 } });
  await settled(page);
}

describe.skipIf(!chromium)(
  `every view, and stepping by pane${chromium ? "" : ` (${NO_CHROMIUM})`}`,
  () => {
    const suite = pageSuite("inspector-views-");

    it.skipIf(!existsSync(SILERO))(
      "silero-vad: search finds the LSTMs in the branches, labelled by view, and a step opens the view",
      async () => {
        const page = suite.session().page;
        await openInPage(page, suite.session().srv.url, SILERO);
        await page.fill("#find", "LSTM");
        await page.keyboard.press("Enter");
        await settled(page);
        // four LSTMs, every one in a branch (the main graph has five nodes, none an LSTM)
        const ops = page.locator("#hit-list button[data-kind=op]");
        expect(await ops.count()).toBe(4);
        for (const t of await ops.allTextContents())
          expect(t).toMatch(/LSTM .* \(op\) in If_0 \(If\) /);
        // value-name hits (the Squeezes reading LSTM outputs) listed apart, after the ops
        const values = page.locator("#hit-list button[data-kind=value]");
        expect(await values.count()).toBeGreaterThan(0);
        expect(await page.locator("#hit-list h4").allTextContents()).toEqual([
          "ops and nodes (4)",
          `value names (${await values.count()})`,
        ]);
        // the list is readable: a panel, not a strip
        const box = (await page.locator("#hit-list").boundingBox())!;
        expect(box.width).toBeGreaterThan(400);
        expect(box.height).toBeGreaterThan(100);
        expect(await count(page)).toMatch(/^1 of \d+: LSTM .* in the original in If_0 \(If\) /);
        const views = new Set<string>();
        for (let k = 0; k < 4; k++) {
          const view = (await attr(page, "#pane-a", "data-view"))!;
          expect(view).toMatch(/^main\/2\./);
          views.add(view);
          const selected = (await attr(page, "#pane-a", "data-selected"))!;
          expect((await items(page, "a")).map((i) => i.key)).toContain(selected);
          expect(await page.locator("#details h3").first().textContent()).toMatch(/^LSTM/);
          await page.keyboard.press("Enter");
          await settled(page);
        }
        expect(views.size).toBe(4);
        // The branch's inlined prefix is not drawn: torch's path is, and groups by it.
        const subs = (await items(page, "a")).filter((i) => i.kind === "op").map((i) => i.sub);
        expect(subs.length).toBeGreaterThan(0);
        for (const s of subs) expect(s).not.toMatch(/__Inline_0__/);
        for (const i of await items(page, "a"))
          for (const f of i.folded) expect(f).not.toMatch(/^If_0_(then|else)_branch__Inline/);
        // The selector groups the branch views by their If, each entry short.
        const groups = await page
          .locator("#pane-a select.views optgroup")
          .evaluateAll((gs) => gs.map((g) => (g as HTMLOptGroupElement).label));
        expect(groups).toEqual(["If_0 (If) subgraphs"]);
        const options = await page.locator("#pane-a select.views option").allTextContents();
        expect(options.length).toBe(51);
        for (const o of options) expect(o.length).toBeLessThan(70);
      },
      300_000,
    );

    it.skipIf(!existsSync(SILERO))(
      "silero-vad: a run paints the branch views that ran, with their times",
      async () => {
        const page = suite.session().page;
        await openInPage(page, suite.session().srv.url, SILERO);
        await page.selectOption("#run-mode", "random");
        await page.fill("#dims", "input[1]=512");
        await page.click("#run-form button");
        await settled(page);
        expect(await page.locator("#error").isVisible()).toBe(false);
        const painted: Record<string, number> = {};
        for (const v of ["main", "main/2.then_branch", "main/2.else_branch"]) {
          await page.selectOption("#pane-a select.views", v);
          await settled(page);
          painted[v] = Number(await attr(page, "#pane-a [data-painted]", "data-painted"));
        }
        // the main view's five nodes; one branch of If_0 ran (the seeded sample rate picks it),
        // every node of it painted, and the other not (it did not run)
        expect(painted.main).toBe(5);
        const ran =
          painted["main/2.then_branch"]! > 0 ? "main/2.then_branch" : "main/2.else_branch";
        const idle = ran === "main/2.then_branch" ? "main/2.else_branch" : "main/2.then_branch";
        expect(painted[ran]).toBeGreaterThanOrEqual(113);
        expect(painted[idle]).toBe(0);
        await page.selectOption("#pane-a select.views", ran);
        await settled(page);
        // "ms" labels on the boxes: the paint's text is a time
        expect(await page.evaluate(() => document.body.dataset.paint)).toBe("time");
      },
      300_000,
    );

    it.skipIf(!existsSync(SILERO))(
      "silero-vad converted: n opens the branch view of each change, the other pane follows",
      async () => {
        const page = suite.session().page;
        await openInPage(page, suite.session().srv.url, SILERO);
        await page.fill("#opset", "18");
        await page.click("#convert-form button");
        await settled(page);
        await focus(page, "b");
        const seen: string[] = [];
        for (let k = 0; k < 3; k++) {
          await page.keyboard.press("n");
          await settled(page);
          const c = await count(page);
          expect(c).toMatch(new RegExp(`^change ${k + 1} of 3 in the result`));
          const view = (await attr(page, "#pane-b", "data-view"))!;
          seen.push(`${view}:${await attr(page, "#pane-b", "data-selected")}`);
          // the other pane shows the same view, at the match or the change's place
          expect(await attr(page, "#pane-a", "data-view")).toBe(view);
          expect(await attr(page, "#pane-a", "data-selected")).toMatch(/^n\d+$/);
          if (/\(added\)/.test(c)) {
            expect(await attr(page, "#pane-a", "data-near")).toBe("1");
            const removed = new Map(await marks(page, "a"));
            const at = Number((await attr(page, "#pane-a", "data-selected"))!.slice(1));
            expect(removed.get(at)).toBe("removed");
          }
        }
        expect(new Set(seen).size).toBe(3);
        expect(seen.filter((s) => s.startsWith("main/")).length).toBe(2);
        // a run of both: the result's branch that ran painted with its differences
        await page.selectOption("#run-mode", "random");
        await page.fill("#dims", "input[1]=512");
        await page.click("#run-form button");
        await settled(page);
        expect(await page.evaluate(() => document.body.dataset.paint)).toBe("diff");
        const painted: number[] = [];
        for (const v of ["main/2.then_branch", "main/2.else_branch"]) {
          await page.selectOption("#pane-b select.views", v);
          await settled(page);
          painted.push(Number(await attr(page, "#pane-b [data-painted]", "data-painted")));
        }
        expect(Math.max(...painted)).toBeGreaterThanOrEqual(113);
        expect(Math.min(...painted)).toBe(0);
      },
      300_000,
    );

    it.skipIf(!existsSync(BERT))(
      "BERT-tiny expanded: n steps the pane that has focus, each change once, the other follows",
      async () => {
        const page = suite.session().page;
        await openInPage(page, suite.session().srv.url, BERT);
        await page.click("#expand-form button");
        await settled(page);
        // pane a: two steps of a's list
        await focus(page, "a");
        for (let k = 0; k < 2; k++) {
          await page.keyboard.press("n");
          await settled(page);
          expect(await count(page)).toMatch(
            new RegExp(`^change ${k + 1} of \\d+ in the original \\(removed\\)`),
          );
        }
        // pane b: its own list from its start, never an unchanged node, each box once
        await focus(page, "b");
        const marked = new Map(await marks(page, "b"));
        const total = Number(
          /of (\d+)/.exec(
            (await (async () => {
              await page.keyboard.press("n");
              await settled(page);
              return count(page);
            })())!,
          )![1],
        );
        expect(await count(page)).toMatch(/^change 1 of \d+ in the result \((added|changed)\)/);
        expect(total).toBeGreaterThan(100);
        const seen = new Set<string>();
        for (let k = 0; k < total; k++) {
          if (k > 0) {
            await page.keyboard.press("n");
            await settled(page);
          }
          const key = (await attr(page, "#pane-b", "data-selected"))!;
          const index = Number(key.slice(1));
          // a folded Constant steps as its consumer's box: that box or the Constant is marked
          expect(marked.has(index) || (await count(page)).includes("(added)")).toBe(true);
          seen.add(key);
          if (k % 40 === 0) {
            // a follows to the removed node the addition came from
            const removed = new Map(await marks(page, "a"));
            const at = Number((await attr(page, "#pane-a", "data-selected"))!.slice(1));
            expect(removed.get(at)).toBe("removed");
          }
        }
        expect(seen.size).toBe(total);
        // and back to a: its own place kept (step 3 next), p goes back
        await focus(page, "a");
        await page.keyboard.press("n");
        await settled(page);
        expect(await count(page)).toMatch(/^change 3 of \d+ in the original/);
        await page.keyboard.press("p");
        await settled(page);
        expect(await count(page)).toMatch(/^change 2 of \d+ in the original/);
      },
      600_000,
    );

    it.skipIf(!existsSync(BERT))(
      "BERT-tiny: groups open in both panes, the title keeps its end, the minimap is out of the way, a double-click is not busy",
      async () => {
        const page = suite.session().page;
        // a long file name: the titles are cut in the middle
        const long = join(
          suite.work(),
          "bert_tiny_exported_by_the_legacy_exporter_at_opset_17.onnx",
        );
        copyFileSync(BERT, long);
        await openInPage(page, suite.session().srv.url, long);
        await page.click("#expand-form button");
        await settled(page);
        const title = (await page.locator("#pane-b .bar b").textContent())!;
        expect(title).toMatch(/^bert_tiny.*….*\(expanded\)$/);
        // drawn whole: nothing of it cut off at its end
        for (const side of ["a", "b"]) {
          const fits = await page
            .locator(`#pane-${side} .bar b`)
            .evaluate(
              (b) =>
                b.scrollWidth <= b.clientWidth &&
                b.getBoundingClientRect().right < b.parentElement!.getBoundingClientRect().right,
            );
          expect(fits).toBe(true);
        }
        // the minimaps in two panes: smaller than a fifth of the pane's width
        const pane = (await page.locator("#pane-a").boundingBox())!;
        const mini = (await page.locator("#pane-a canvas.minimap").boundingBox())!;
        expect(mini.width).toBeLessThan(pane.width / 5);
        // a closed group of a in view (the whole graph fitted), double-clicked: open in a and in b
        await focus(page, "a");
        await page.keyboard.press("0");
        await page.waitForTimeout(100);
        const canvas = (await page.locator("#pane-a canvas").first().boundingBox())!;
        const screen = (key: string) =>
          page.evaluate(
            (key) =>
              (window as unknown as { __inspector: Hook }).__inspector.panes
                .a!.canvas()
                .screenBox(key),
            key,
          );
        let closed: { key: string } | undefined;
        let box: { x: number; y: number; w: number; h: number } | undefined;
        for (const i of await items(page, "a")) {
          if (i.kind !== "group") continue;
          const b = await screen(i.key);
          const inside = b.x > 0 && b.y > 0 && b.x + b.w < canvas.width - 120;
          if (inside && b.y + b.h < canvas.height - 80) {
            closed = i;
            box = b;
            break;
          }
        }
        expect(closed).toBeDefined();
        expect((await items(page, "b")).some((i) => i.key === closed!.key)).toBe(true);
        await page.mouse.dblclick(canvas.x + box!.x + box!.w / 2, canvas.y + box!.y + box!.h / 2);
        await settled(page);
        const frames = (side: string) =>
          page.evaluate(
            (side) =>
              (window as unknown as { __inspector: Hook }).__inspector.panes[side]!.frames().map(
                (f) => f.key,
              ),
            side,
          );
        expect(await frames("a")).toContain(closed!.key);
        expect(await frames("b")).toContain(closed!.key);
        // a double-click on an op: its details, no "Busy"
        const op = (await items(page, "a")).find((i) => i.kind === "op")!;
        const ob = await screen(op.key);
        await page.mouse.dblclick(canvas.x + ob.x + ob.w / 2, canvas.y + ob.y + ob.h / 2);
        await settled(page);
        expect(await page.locator("#status").textContent()).not.toMatch(/Busy/);
        expect(await attr(page, "#pane-a", "data-selected")).toBe(op.key);
      },
      300_000,
    );

    it.skipIf(!existsSync(QDQ))(
      "quantized CNN: constants as nodes, Expand with nothing to do says 0 changes, metadata_props shown",
      async () => {
        const page = suite.session().page;
        await openInPage(page, suite.session().srv.url, QDQ);
        expect(await page.locator("#facts tr.metadata").first().innerText()).toMatch(
          /^onnx\.infer/,
        );
        const boxes = Number(await attr(page, "#pane-a", "data-boxes"));
        const consts = (await items(page, "a")).filter((i) => i.kind === "const").length;
        expect(consts).toBe(0);
        await page.check("#const-nodes");
        await settled(page);
        const asNodes = (await items(page, "a")).filter((i) => i.kind === "const").length;
        expect(asNodes).toBeGreaterThan(0);
        expect(Number(await attr(page, "#pane-a", "data-drawn"))).toBeGreaterThan(0);
        void boxes;
        await page.uncheck("#const-nodes");
        await settled(page);
        await page.selectOption("#expand-mode", "only");
        await page.fill("#expand-ops", "Nope");
        await page.click("#expand-form button");
        await settled(page);
        expect(await page.locator("#status").textContent()).toMatch(
          /: 0 changes, the result is the original model/,
        );
      },
      300_000,
    );
  },
);
