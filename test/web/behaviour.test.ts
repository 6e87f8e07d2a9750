// The inspector's behaviour in headless Chromium (issue 17, items 3 to 7), served by the real
// `onnx-expand inspect` server with its headers: one busy state with every action disabled and a
// Cancel that restores the model; errors beside the action and in view; a failed load that changes
// nothing; nothing stale left after a new model or result; search, next/previous change, Check
// problems on the graph, the keyboard, the diff's pairing between panes; node details (constant
// values, inferred types, the schema's summary); SVG/PNG export; `file://`; the opset box's
// bounds and an empty "only" list. Skipped, saying why, when no Chromium is installed.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveInspector, type InspectServer } from "../../src/cli/server.js";
import { SchemaRegistry } from "../../src/schema/registry.js";
import {
  findChromium,
  NO_CHROMIUM,
  startPageSession,
  type PageSession,
} from "../helpers/browser.js";

const root = join(import.meta.dirname, "..", "..");
const chromium = findChromium();

const GELU = `<ir_version: 9, opset_import: ["" : 20]>
g (float[2,3] x) => (float[2,3] y) {
  [first] t = Abs (x)
  [act] u = Gelu (t)
  [last] y = Abs (u)
}`;

const CONSTANTS = `<ir_version: 9, opset_import: ["" : 18]>
g (float[2,3] x) => (float[2,3] y) <float[3] w = {1, 2, 6}> {
  [k] c = Constant <value: tensor = float[3] {4, 5, 9}> ()
  [add] t = Add (x, w)
  [mul] y = Mul (t, c)
}`;

const BROKEN = `<ir_version: 9, opset_import: ["" : 18]>
g (float[2] x) => (float[2] y) {
  [fine] t = Relu (x)
  [odd] y = NoSuchOp (t)
}`;

/** 71 nodes in two scopes (/a/, /b/) named as torch's exporter names them: both start collapsed. */
function scoped(): string {
  const lines: string[] = [];
  let v = "x";
  for (const scope of ["a", "b"])
    for (let i = 0; i < 35; i++) {
      const name = scope === "b" && i === 20 ? "/b/target" : `/${scope}/Abs_${i}`;
      lines.push(`  ["${name}"] ${scope}${i} = ${name === "/b/target" ? "Neg" : "Abs"} (${v})`);
      v = `${scope}${i}`;
    }
  lines.push(`  [out] y = Identity (${v})`);
  return `<ir_version: 9, opset_import: ["" : 18]>
g (float[2] x) => (float[2] y) {
${lines.join("\n")}
}`;
}

/** A model whose run takes many seconds even with fast kernels: 40 MatMuls of 1000x1000 matrices (40 G multiply-adds). */
function slowModel(): string {
  const lines: string[] = [];
  let v = "x";
  for (let i = 0; i < 40; i++) {
    lines.push(`  m${i} = MatMul (${v}, x)`);
    v = `m${i}`;
  }
  lines.push(`  y = Identity (${v})`);
  return `<ir_version: 9, opset_import: ["" : 18]>
g (float[1000,1000] x) => (float[1000,1000] y) {
${lines.join("\n")}
}`;
}

const state = (page: Page) => page.evaluate(() => document.body.dataset.state);
const attr = (page: Page, sel: string, name: string) => page.locator(sel).getAttribute(name);

async function settled(page: Page): Promise<void> {
  await page.locator("body:not([data-state=busy])").waitFor({ timeout: 60_000 });
}

/** Whether an element lies wholly inside the 1400x900 viewport. */
async function inView(page: Page, sel: string): Promise<boolean> {
  const b = await page.locator(sel).boundingBox();
  return !!b && b.y >= 0 && b.y + Math.min(b.height, 40) <= 900 && b.x >= 0;
}

describe.skipIf(!chromium)(
  `inspector behaviour in headless Chromium${chromium ? "" : ` (${NO_CHROMIUM})`}`,
  () => {
    let session: PageSession | undefined;
    let srv: InspectServer;
    let page: Page;
    let work: string;
    const file = (name: string, text: string) => {
      const p = join(work, name);
      writeFileSync(p, text);
      return p;
    };

    /** Picks a file; waits until the page has been busy with it and is idle again. */
    async function open(path: string): Promise<void> {
      await page.evaluate(() => {
        const w = window as unknown as { sawBusy: boolean };
        w.sawBusy = false;
        new MutationObserver(() => {
          if (document.body.dataset.state === "busy") w.sawBusy = true;
        }).observe(document.body, { attributes: true, attributeFilter: ["data-state"] });
      });
      await page.setInputFiles("#file", path);
      await page.waitForFunction(
        () =>
          (window as unknown as { sawBusy: boolean }).sawBusy &&
          document.body.dataset.state !== "busy",
      );
    }

    async function fresh(path?: string): Promise<void> {
      await page.goto(srv.url);
      await page.locator("body[data-state=ready]").waitFor({ timeout: 60_000 });
      if (path) {
        await open(path);
        expect(await state(page)).toBe("ready");
      }
    }

    beforeAll(async () => {
      work = mkdtempSync(join(tmpdir(), "inspector-behaviour-"));
      session = await startPageSession(chromium!, { acceptDownloads: true });
      ({ srv, page } = session);
    }, 120_000);

    afterAll(async () => {
      await session?.close();
      if (work) rmSync(work, { recursive: true, force: true });
    });

    it("file:// says in the page why it cannot work and how to serve it", async () => {
      await page.goto(pathToFileURL(join(root, "dist", "web", "index.html")).href);
      const note = page.locator("#file-note");
      await note.waitFor({ state: "visible", timeout: 10_000 });
      expect(await note.textContent()).toContain("npx onnx-expand inspect");
      expect(await note.textContent()).toMatch(/static web server/);
      expect(await state(page)).toBe("error");
    });

    it("data-state: busy while loading, ready when drawn; the opset box is bounded", async () => {
      await page.addInitScript(() => {
        const seen: string[] = [];
        (window as unknown as { seen: string[] }).seen = seen;
        new MutationObserver(() => {
          const s = document.body.dataset.state!;
          if (seen[seen.length - 1] !== s) seen.push(s);
        }).observe(document, {
          subtree: true,
          attributes: true,
          attributeFilter: ["data-state"],
        });
      });
      await fresh(file("gelu.onnxtxt", GELU));
      const seen = await page.evaluate(() => (window as unknown as { seen: string[] }).seen);
      expect(seen.slice(-2)).toEqual(["busy", "ready"]);
      expect(Number(await attr(page, "#pane-a", "data-drawn"))).toBe(3);
      const max = SchemaRegistry.default().maxOpset("");
      expect(await attr(page, "#opset", "max")).toBe(String(max));
      await page.fill("#opset", String(max + 1));
      await page.click("#convert-form button");
      await settled(page);
      expect(await state(page)).toBe("error");
      expect(await page.locator("#error").textContent()).toBe(
        `conversion: target opset '${max + 1}' is not one this tool knows (ai.onnx 1 to ${max})`,
      );
      expect(await page.locator("#pane-b").isHidden()).toBe(true);
    }, 60_000);

    it("an empty 'only' list is refused with a message beside Expand, in view", async () => {
      await fresh(file("gelu.onnxtxt", GELU));
      await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
      await page.selectOption("#expand-mode", "only");
      await page.fill("#expand-ops", "  ");
      await page.click("#expand-form button");
      await settled(page);
      expect(await state(page)).toBe("error");
      expect(await page.locator("#error").textContent()).toMatch(
        /^expansion: expand only: name at least one op/,
      );
      expect(await inView(page, "#error")).toBe(true);
      // The message names the form that failed and sits under the bars, above the pane's toolbar.
      expect(await attr(page, "#error", "data-near")).toBe("expand-form");
      expect(
        await page.evaluate(
          () =>
            document.getElementById("error")!.getBoundingClientRect().bottom <=
            document.querySelector("#pane-a .bar")!.getBoundingClientRect().top,
        ),
      ).toBe(true);
      // A later success clears the error and the state.
      await page.selectOption("#expand-mode", "all");
      await page.click("#expand-form button");
      await settled(page);
      expect(await state(page)).toBe("ready");
      expect(await page.locator("#error").isHidden()).toBe(true);
      expect(await page.locator("#status").textContent()).not.toMatch(/Failed/);
    }, 60_000);

    it("busy: every action disabled, Cancel stops the run and leaves the model as it was", async () => {
      await fresh(file("slow.onnxtxt", slowModel()));
      await page.click("#run-form button");
      await page.locator("body[data-state=busy]").waitFor();
      for (const sel of [
        "#convert-form button",
        "#expand-form button",
        "#check",
        "#run-form button",
        "#file",
        "#find",
      ])
        expect(await page.locator(sel).isDisabled(), sel).toBe(true);
      expect(await page.locator("#cancel").isVisible()).toBe(true);
      // A file dropped meanwhile is not ignored without a word.
      const dropped = await page.evaluateHandle(() => {
        const dt = new DataTransfer();
        dt.items.add(new File(["x"], "later.onnx"));
        return dt;
      });
      await page.dispatchEvent("body", "drop", { dataTransfer: dropped });
      expect(await page.locator("#error").textContent()).toMatch(
        /cannot open later\.onnx now: busy with run/,
      );
      await page.click("#cancel");
      await settled(page);
      expect(await state(page)).toBe("ready");
      expect(await page.locator("#status").textContent()).toMatch(
        /cancelled; everything is as it was/,
      );
      expect(await page.locator("#run-report").isHidden()).toBe(true);
      expect(await page.locator("#cancel").isHidden()).toBe(true);
      expect(await page.locator("#check").isEnabled()).toBe(true);
      // The fresh worker holds the model again.
      await page.click("#check");
      await settled(page);
      expect(await state(page)).toBe("ready");
      expect(await attr(page, "#check-report h3", "data-problems")).toBe("0");
    }, 90_000);

    it("a failed load leaves everything as it was; a new model clears every old panel", async () => {
      await fresh(file("gelu.onnxtxt", GELU));
      await page.click("#expand-form button");
      await settled(page);
      await page.click("#run-form button");
      await settled(page);
      await page.click("#check");
      await settled(page);
      const drawnB = await attr(page, "#pane-b", "data-drawn");
      expect(drawnB).toBe("10");
      const bytes = readFileSync(join(root, "examples", "reduce-13.onnx"));
      await open(file("broken.onnx", bytes.subarray(0, 20).toString("latin1")));
      expect(await state(page)).toBe("error");
      expect(await page.locator("#error").textContent()).toMatch(
        /^cannot open the file: broken\.onnx: /,
      );
      expect(await inView(page, "#error")).toBe(true);
      for (const sel of ["#pane-b", "#diff", "#run-report", "#check-report"])
        expect(await page.locator(sel).isVisible(), sel).toBe(true);
      expect(await attr(page, "#pane-b", "data-drawn")).toBe(drawnB);
      expect(await attr(page, "#summary h3", "data-model")).toBe("gelu.onnxtxt");
      // Each panel names its model.
      expect(await attr(page, "#run-report h3", "data-model")).toBe(
        "gelu.onnxtxt vs gelu.onnxtxt (expanded)",
      );
      // The worker still holds the first model and its result: a run compares them.
      await page.click("#run-form button");
      await settled(page);
      expect(await state(page)).toBe("ready");
      expect(await page.locator("#run-report h3").textContent()).toMatch(/original vs result/);

      await open(join(root, "examples", "reduce-13.onnx"));
      expect(await state(page)).toBe("ready");
      for (const sel of [
        "#pane-b",
        "#diff",
        "#run-report",
        "#check-report",
        "#details",
        "#downloads",
      ])
        expect(await page.locator(sel).isHidden(), sel).toBe(true);
      expect(await attr(page, "#summary h3", "data-model")).toBe("reduce-13.onnx");
      await page.click("#run-form button");
      await settled(page);
      expect(await page.locator("#run-report h3").textContent()).not.toMatch(/vs/);
    }, 90_000);

    it("search (Ctrl+F), details with constant values, types and the schema", async () => {
      await fresh(file("constants.onnxtxt", CONSTANTS));
      await page.locator("body").press("Control+f");
      expect(await page.evaluate(() => document.activeElement?.id)).toBe("find");
      await page.keyboard.type("mul");
      await page.keyboard.press("Enter");
      await settled(page);
      expect(await attr(page, "#pane-a", "data-selected")).toBe("n2");
      expect(await page.locator("#find-count").textContent()).toMatch(/^1 of 1: Mul 'mul' \(op\)/);
      const details = page.locator("#details");
      expect(await details.isVisible()).toBe(true);
      expect(await attr(page, "#details h3", "data-model")).toBe("constants.onnxtxt › graph g");
      expect(await details.locator("table.outputs").textContent()).toContain("float[2,3]");
      const c = details.locator("table.value[data-name=c]");
      expect(await c.textContent()).toContain("(Constant)");
      expect(await c.textContent()).toContain("4, 5, 9");
      expect(await c.textContent()).toContain("min 4 · max 9 · mean 6");
      expect(await details.locator(".schema h4").textContent()).toMatch(/^Mul-14/);
      expect(await details.locator(".schema a").getAttribute("href")).toBe(
        "https://onnx.ai/onnx/operators/onnx__Mul.html",
      );
      // a value name: the initializer w is read by Add
      await page.fill("#find", "w");
      await page.keyboard.press("Enter");
      await settled(page);
      expect(await attr(page, "#pane-a", "data-selected")).toBe("n1");
      const w = details.locator("table.value[data-name=w]");
      expect(await w.textContent()).toContain("(initializer)");
      expect(await w.textContent()).toContain("min 1 · max 6 · mean 3");
      // the Constant, drawn inside Mul: its own value
      await page.fill("#find", "k");
      await page.keyboard.press("Enter");
      await settled(page);
      expect(await attr(page, "#pane-a", "data-selected")).toBe("n0");
      expect(await page.locator("#details h3").textContent()).toMatch(/^Constant 'k'/);
      expect(await details.locator("table.value").first().textContent()).toContain("4, 5, 9");
      // no match
      await page.fill("#find", "Conv");
      await page.keyboard.press("Enter");
      await settled(page);
      expect(await page.locator("#find-count").textContent()).toMatch(/no match/);
    }, 60_000);

    it("a search hit inside a collapsed group opens the group", async () => {
      await fresh(file("scoped.onnxtxt", scoped()));
      const keys = () =>
        page.evaluate(() =>
          (
            window as unknown as {
              __inspector: { panes: { a: { items(): { key: string; kind: string }[] } } };
            }
          ).__inspector.panes.a.items(),
        );
      const before = await keys();
      expect(before.filter((i) => i.kind === "group").length).toBe(2);
      expect(before.some((i) => i.key === "n55")).toBe(false);
      await page.fill("#find", "target");
      await page.keyboard.press("Enter");
      await settled(page);
      expect(await attr(page, "#pane-a", "data-selected")).toBe("n55");
      expect((await keys()).some((i) => i.key === "n55")).toBe(true);
      expect(await page.locator("#details h3").textContent()).toMatch(/^Neg '\/b\/target'/);
    }, 60_000);

    it("next/previous change, selection paired across panes, both panes fitted", async () => {
      await fresh(file("gelu.onnxtxt", GELU));
      const fitsBefore = Number((await attr(page, "#pane-a", "data-fits")) ?? 0);
      await page.click("#expand-form button");
      await settled(page);
      await page.waitForFunction(
        (n) => Number(document.getElementById("pane-a")!.dataset.fits ?? 0) > n,
        fitsBefore,
      );
      expect(Number(await attr(page, "#pane-b", "data-fits"))).toBeGreaterThan(0);
      expect(await attr(page, "#pane-a", "data-removed")).toBe("1");
      await page.locator("#pane-a").click({ position: { x: 5, y: 40 } });
      await page.keyboard.press("n");
      await settled(page);
      expect(await attr(page, "#pane-a", "data-selected")).toBe("n1");
      expect(await page.locator("#find-count").textContent()).toBe(
        "change 1 of 1 in the original (removed)",
      );
      // Abs 'last' is matched: selecting it in a selects its match in b.
      await page.fill("#find", "last");
      await page.keyboard.press("Enter");
      await settled(page);
      expect(await attr(page, "#pane-a", "data-selected")).toBe("n2");
      const paired = await attr(page, "#pane-b", "data-selected");
      expect(paired).toMatch(/^n\d+$/);
      const b = await page.evaluate(() => document.getElementById("pane-b")!.dataset.drawn);
      expect(Number(paired!.slice(1))).toBe(Number(b) - 1);
      // In the result, the added nodes are the changes: 8, one step per box (the 3 Constants are
      // drawn inside added nodes, which are steps of their own).
      await page.locator("#pane-b").click({ position: { x: 5, y: 40 } });
      await page.keyboard.press("n");
      await settled(page);
      expect(await page.locator("#find-count").textContent()).toMatch(
        /^change 1 of 5 in the result \(added\)/,
      );
      await page.keyboard.press("p");
      await settled(page);
      expect(await page.locator("#find-count").textContent()).toMatch(
        /^change 5 of 5 in the result \(added\)/,
      );
    }, 60_000);

    it("the keyboard zooms, pans and fits the active pane", async () => {
      await fresh(file("gelu.onnxtxt", GELU));
      const pane = page.locator("#pane-a .graph");
      const scale = async () => Number(await pane.getAttribute("data-scale"));
      await pane.click({ position: { x: 3, y: 3 } });
      await page.keyboard.press("0");
      await page.waitForTimeout(100);
      const fitted = await scale();
      const before = await pane.screenshot();
      await page.keyboard.press("+");
      await expect.poll(scale).toBeCloseTo(fitted * 1.25, 3);
      await page.waitForTimeout(100);
      const zoomed = await pane.screenshot();
      expect(zoomed.equals(before)).toBe(false);
      await page.keyboard.press("ArrowLeft");
      await page.waitForTimeout(100);
      expect((await pane.screenshot()).equals(zoomed)).toBe(false);
      await page.keyboard.press("-");
      await expect.poll(scale).toBeCloseTo(fitted, 3);
      await page.keyboard.press("-");
      await expect.poll(scale).toBeCloseTo(fitted * 0.8, 3);
      await page.keyboard.press("0");
      await expect.poll(scale).toBeCloseTo(fitted, 3);
    }, 60_000);

    it("Check marks its problems on the graph and jumps to each", async () => {
      await fresh(file("broken.onnxtxt", BROKEN));
      await page.click("#check");
      await settled(page);
      expect(Number(await attr(page, "#check-report h3", "data-problems"))).toBeGreaterThan(0);
      expect(await attr(page, "#pane-a", "data-problems")).toBe("1");
      await page.locator("#check-report button.open-group").first().click();
      await page.locator("#check-report button.problem").first().click();
      await settled(page);
      expect(await attr(page, "#pane-a", "data-selected")).toBe("n1");
      expect(await page.locator("#details h3").textContent()).toMatch(/NoSuchOp 'odd'/);
    }, 60_000);

    it("exports the view as SVG and PNG", async () => {
      await fresh(file("gelu.onnxtxt", GELU));
      const [svg] = await Promise.all([
        page.waitForEvent("download"),
        page.click("#pane-a .export-svg"),
      ]);
      expect(svg.suggestedFilename()).toBe("gelu.onnxtxt-main.svg");
      const text = readFileSync((await svg.path())!, "utf8");
      expect(text).toMatch(/^<svg/);
      expect(text).toContain("Gelu");
      // Each box's text is clipped to its box (a long constant never runs over a neighbour).
      const boxes = text.match(/<g class="node /g)!.length;
      expect(text.match(/<clipPath id="clip-\d+">/g)).toHaveLength(boxes);
      expect(text.match(/<g clip-path="url\(#clip-\d+\)">/g)).toHaveLength(boxes);
      const [png] = await Promise.all([
        page.waitForEvent("download"),
        page.click("#pane-a .export-png"),
      ]);
      expect(png.suggestedFilename()).toBe("gelu.onnxtxt-main.png");
      const bytes = readFileSync((await png.path())!);
      expect(bytes.subarray(1, 4).toString()).toBe("PNG");
      await settled(page);
      expect(await state(page)).toBe("ready");
    }, 60_000);
  },
);
