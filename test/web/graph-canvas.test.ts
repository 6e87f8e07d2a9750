// The graph canvas in real headless Chromium: a 20,000-node chain and a 100-branch graph drawn
// (only what is in view), a frame after a wheel zoom timed by the canvas itself, groups of a
// torch-style model collapsed and opened with their +/− buttons, clicks selecting boxes, the
// minimap moving the view, and the SVG and PNG exports. Skipped when no Chromium is installed.

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { InspectServer } from "../../src/cli/commands/inspect.js";
import { encodeModel } from "../../src/io/codec.js";
import { graph, model, node, valueInfo } from "../../src/ir/builder.js";
import type { Node } from "../../src/ir/types.js";
import {
  findChromium,
  NO_CHROMIUM,
  startPageSession,
  type PageSession,
} from "../helpers/browser.js";

const root = join(import.meta.dirname, "..", "..");
const shots = join(root, "test", "web", "screenshots");
const chromium = findChromium();

function bytesOf(nodes: Node[], outputs: string[]): Buffer {
  const m = model(
    graph({
      name: "g",
      nodes,
      inputs: [valueInfo("x", "float", [1, 4])],
      outputs: outputs.map((o) => valueInfo(o, "float")),
    }),
    18,
  );
  return Buffer.from(encodeModel(m));
}

function chainModel(n: number): Buffer {
  const nodes: Node[] = [];
  for (let i = 0; i < n; i++)
    nodes.push(node("Relu", [i ? `v${i - 1}` : "x"], [i === n - 1 ? "y" : `v${i}`]));
  return bytesOf(nodes, ["y"]);
}

function wideModel(branches: number, depth: number): Buffer {
  const nodes: Node[] = [];
  const ends: string[] = [];
  for (let b = 0; b < branches; b++)
    for (let d = 0; d < depth; d++) {
      nodes.push(node("Relu", [d ? `b${b}_${d - 1}` : "x"], [`b${b}_${d}`]));
      if (d === depth - 1) ends.push(`b${b}_${d}`);
    }
  nodes.push(node("Concat", ends, ["y"], { axis: 0 }));
  return bytesOf(nodes, ["y"]);
}

/** 30 blocks of 3 nodes named the legacy exporter's way: /model/block<b>/Relu_<k>. */
function scopedModel(): Buffer {
  const nodes: Node[] = [];
  let prev = "x";
  for (let b = 0; b < 30; b++)
    for (let k = 0; k < 3; k++) {
      const out = b === 29 && k === 2 ? "y" : `v${b}_${k}`;
      nodes.push(node("Relu", [prev], [out], {}, { name: `/model/block${b}/Relu_${k}` }));
      prev = out;
    }
  return bytesOf(nodes, ["y"]);
}

interface Hook {
  canvas(): {
    lastFrameMs: number;
    drawnItems: number;
    view: { scale: number; tx: number; ty: number };
    screenBox(key: string): { x: number; y: number; w: number; h: number } | undefined;
    exportSvg(): string;
    exportPng(): Promise<Blob>;
    fit(): void;
    flush(): void;
  };
  items(): { key: string; kind: string; parent: string }[];
  frames(): { key: string }[];
}

describe.skipIf(!chromium)(
  `graph canvas in headless Chromium${chromium ? "" : ` (${NO_CHROMIUM})`}`,
  () => {
    let session: PageSession | undefined;
    let srv: InspectServer;
    let page: Page;

    beforeAll(async () => {
      mkdirSync(shots, { recursive: true });
      session = await startPageSession(chromium!);
      ({ srv, page } = session);
    }, 120_000);

    afterAll(async () => {
      await session?.close();
    });

    /** Picks a file; answers the milliseconds until it is drawn and the page idle. */
    async function open(name: string, buffer: Buffer): Promise<number> {
      await page.goto(srv.url);
      const t0 = Date.now();
      await page
        .locator("#file")
        .setInputFiles({ name, mimeType: "application/octet-stream", buffer });
      await page
        .locator("#pane-a[data-drawn], body[data-error]")
        .first()
        .waitFor({ timeout: 120_000 });
      await page.locator("body:not([data-state=busy])").waitFor({ timeout: 120_000 });
      expect(await page.locator("#error").isHidden()).toBe(true);
      return Date.now() - t0;
    }

    /** Canvas position (page pixels) of a box's centre. */
    async function centre(key: string): Promise<{ x: number; y: number }> {
      const box = await page.evaluate((key) => {
        const hook = (window as unknown as { __inspector: { panes: Record<string, Hook> } })
          .__inspector;
        return hook.panes.a!.canvas().screenBox(key);
      }, key);
      const r = (await page.locator("#pane-a canvas").first().boundingBox())!;
      return { x: r.x + box!.x + box!.w / 2, y: r.y + box!.y + box!.h / 2 };
    }

    const frame = () =>
      page.evaluate(
        () =>
          new Promise<{ ms: number; drawn: number; scale: number }>((resolve) =>
            requestAnimationFrame(() =>
              requestAnimationFrame(() => {
                const hook = (window as unknown as { __inspector: { panes: Record<string, Hook> } })
                  .__inspector;
                const c = hook.panes.a!.canvas();
                resolve({ ms: c.lastFrameMs, drawn: c.drawnItems, scale: c.view.scale });
              }),
            ),
          ),
      );

    for (const [name, bytes, total] of [
      ["chain-20000", () => chainModel(20000), 20000],
      ["wide-100x199", () => wideModel(100, 199), 19901],
    ] as const)
      it(`${name}: drawn from what is in view, a wheel-zoom frame well under 50 ms`, async () => {
        const ms = await open(`${name}.onnx`, bytes());
        expect(Number(await page.locator("#pane-a").getAttribute("data-drawn"))).toBe(total);
        const opened = await frame();
        expect(opened.drawn).toBeLessThan(500);
        expect(opened.scale).toBe(1);
        const r = (await page.locator("#pane-a canvas").first().boundingBox())!;
        await page.mouse.move(r.x + r.width / 2, r.y + r.height / 2);
        const times: number[] = [];
        for (let k = 0; k < 5; k++) {
          await page.mouse.wheel(0, 120);
          times.push((await frame()).ms);
        }
        // everything in view: the worst frame
        await page.evaluate(() => {
          const hook = (window as unknown as { __inspector: { panes: Record<string, Hook> } })
            .__inspector;
          hook.panes.a!.canvas().fit();
        });
        const all = await frame();
        expect(all.drawn).toBeGreaterThan(total * 0.9);
        const overview: number[] = [];
        for (let k = 0; k < 4; k++) {
          await page.mouse.wheel(0, -30);
          overview.push((await frame()).ms);
        }
        await page.screenshot({ path: join(shots, `canvas-${name}.png`) });
        console.log(
          `${name}: drawn ${ms} ms after picking; wheel frames ${times.map((t) => t.toFixed(1)).join(", ")} ms; whole graph ${all.ms.toFixed(1)} ms, then ${overview.map((t) => t.toFixed(1)).join(", ")} ms`,
        );
        // the median frame (a loaded machine's stalls and the first frame's compiling aside)
        const frames = [...times, ...overview.slice(1)].sort((a, b) => a - b);
        expect(frames[frames.length >> 1]!).toBeLessThan(50);
      }, 240_000);

    it("collapses the groups of a scoped model, opens and closes them with +/−", async () => {
      await open("scoped.onnx", scopedModel());
      const items = () =>
        page.evaluate(() => {
          const hook = (window as unknown as { __inspector: { panes: Record<string, Hook> } })
            .__inspector;
          return { items: hook.panes.a!.items(), frames: hook.panes.a!.frames() };
        });
      let s = await items();
      expect(s.items.filter((it) => it.kind === "group").length).toBe(30);
      expect(s.frames).toEqual([]);
      expect(Number(await page.locator("#pane-a").getAttribute("data-drawn"))).toBe(90);
      // the + at the top right of a group box
      const c = await centre("gmodel/block0");
      const box = await page.evaluate(() => {
        const hook = (window as unknown as { __inspector: { panes: Record<string, Hook> } })
          .__inspector;
        return hook.panes.a!.canvas().screenBox("gmodel/block0")!;
      });
      await page.mouse.click(c.x + box.w / 2 - 11, c.y - box.h / 2 + 11);
      await page.waitForFunction(() => {
        const hook = (window as unknown as { __inspector: { panes: Record<string, Hook> } })
          .__inspector;
        return hook.panes.a!.frames().length === 1;
      });
      await page.waitForFunction(() => document.body.dataset.state !== "busy");
      s = await items();
      expect(s.frames.map((f) => f.key)).toEqual(["gmodel/block0"]);
      expect(s.items.filter((it) => it.parent === "gmodel/block0").map((it) => it.key)).toEqual([
        "n0",
        "n1",
        "n2",
      ]);
      await page.screenshot({ path: join(shots, "canvas-scoped-open.png") });
      // select a box: the details panel opens
      const n1 = await centre("n1");
      await page.mouse.click(n1.x, n1.y);
      await page.waitForSelector("#details:not([hidden])");
      expect(await page.locator("#details h3").textContent()).toContain("/model/block0/Relu_1");
      expect(await page.locator("#pane-a .graph").getAttribute("data-selected")).toBe("n1");
      // the − of the frame closes it
      const fb = await page.evaluate(() => {
        const hook = (window as unknown as { __inspector: { panes: Record<string, Hook> } })
          .__inspector;
        return hook.panes.a!.canvas().screenBox("gmodel/block0")!;
      });
      const r = (await page.locator("#pane-a canvas").first().boundingBox())!;
      await page.mouse.click(r.x + fb.x + fb.w - 11, r.y + fb.y + 12);
      await page.waitForFunction(() => {
        const hook = (window as unknown as { __inspector: { panes: Record<string, Hook> } })
          .__inspector;
        return hook.panes.a!.frames().length === 0;
      });
    }, 120_000);

    it("moves the view from the minimap, and exports SVG and PNG", async () => {
      await open("chain-2000.onnx", chainModel(2000));
      const before = await frame();
      await page.locator("#pane-a canvas.minimap").scrollIntoViewIfNeeded();
      const m = (await page.locator("#pane-a canvas.minimap").boundingBox())!;
      await page.mouse.click(m.x + m.width / 2, m.y + m.height - 4);
      const view = await page.evaluate(() => {
        const hook = (window as unknown as { __inspector: { panes: Record<string, Hook> } })
          .__inspector;
        return hook.panes.a!.canvas().view;
      });
      expect(view.scale).toBe(before.scale);
      expect(view.ty).toBeLessThan(-50_000); // near the bottom of a 2,000-node column
      const out = await page.evaluate(async () => {
        const hook = (window as unknown as { __inspector: { panes: Record<string, Hook> } })
          .__inspector;
        const c = hook.panes.a!.canvas();
        const svg = c.exportSvg();
        const png = await c.exportPng();
        const head = new Uint8Array(await png.slice(0, 8).arrayBuffer());
        return {
          svg: svg.length,
          nodes: svg.split('class="node op').length - 1,
          head: [...head],
          type: png.type,
        };
      });
      expect(out.nodes).toBe(2000);
      expect(out.type).toBe("image/png");
      expect(out.head.slice(0, 4)).toEqual([0x89, 0x50, 0x4e, 0x47]);
    }, 120_000);
  },
);
