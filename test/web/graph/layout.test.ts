// The layered layout's properties: no two boxes of a layer overlap, every edge goes down, chains
// are straight, constants fold into their consumers (or are drawn just above them), collapsed
// groups are one box and open ones frame their contents, and large or deep graphs lay out
// without recursion (20,000-node chain, 10,000-deep chain, 100 branches of 200).

import { describe, expect, it } from "vitest";
import { layered } from "../../../web/graph/layered.js";
import { layoutScene } from "../../../web/graph/layout.js";
import type { Layout, LayoutItem } from "../../../web/graph/types.js";
import { chain, node, scene, wide } from "./fixtures.js";

const lay = (s: ReturnType<typeof scene>, constantsAsNodes = false, open: string[] = []) =>
  layoutScene(s, { open, constantsAsNodes }, undefined, { id: "main", title: "t" });

function noOverlaps(items: LayoutItem[]): void {
  const rows = new Map<number, LayoutItem[]>();
  for (const it of items) {
    const key = Math.round(it.y + it.h / 2);
    const r = rows.get(key) ?? [];
    r.push(it);
    rows.set(key, r);
  }
  const bad: string[] = [];
  for (const r of rows.values()) {
    r.sort((a, b) => a.x - b.x);
    for (let k = 1; k < r.length; k++)
      if (r[k]!.x < r[k - 1]!.x + r[k - 1]!.w - 1e-6) bad.push(`${r[k - 1]!.key} / ${r[k]!.key}`);
  }
  expect(bad).toEqual([]);
}

function edgesDown(l: Layout): void {
  const byKey = new Map(l.items.map((it) => [it.key, it] as const));
  const bad: string[] = [];
  for (const e of l.edges) {
    const a = byKey.get(e.from)!;
    const b = byKey.get(e.to)!;
    if (b.y <= a.y + a.h - 1e-6) bad.push(`${e.from} → ${e.to}`);
    for (let j = 3; j < e.points.length; j += 2)
      if (e.points[j]! < e.points[j - 2]! - 1e-6) bad.push(`${e.from} → ${e.to} point ${j}`);
  }
  expect(bad).toEqual([]);
}

describe("layered layout", () => {
  it("lays out a 20,000-node chain as one straight column", () => {
    const g = chain(20000);
    const l = lay(scene(g.nodes, g.inputs, g.outputs));
    expect(l.items.length).toBe(20002);
    expect(l.edges.length).toBe(20001);
    expect(l.total).toBe(20000);
    const ops = l.items.filter((it) => it.kind === "op");
    const cx = ops[0]!.x + ops[0]!.w / 2;
    expect(ops.filter((it) => Math.abs(it.x + it.w / 2 - cx) > 1e-6)).toEqual([]);
    edgesDown(l);
  });

  it("handles a 10,000-deep chain without recursion (layered alone, no stack)", () => {
    const n = 10000;
    const edges: number[] = [];
    for (let i = 0; i + 1 < n; i++) edges.push(i, i + 1);
    const r = layered({
      n,
      w: new Float64Array(n).fill(40),
      h: new Float64Array(n).fill(20),
      top: new Uint8Array(n),
      edges,
    });
    expect(r.layer[n - 1]).toBe(n - 1);
    expect(r.height).toBeGreaterThan(n * 20);
  });

  it("lays out 100 branches of 200 with no overlaps and every edge going down", () => {
    const g = wide(100, 199);
    const l = lay(scene(g.nodes, g.inputs, g.outputs));
    expect(l.total).toBe(19901);
    noOverlaps(l.items);
    edgesDown(l);
    // each branch is a straight column
    const first = l.items.filter((it) => it.key === "n0" || it.key === "n198");
    expect(first[0]!.x).toBeCloseTo(first[1]!.x, 6);
  });

  it("survives a cycle", () => {
    const s = scene([node("A", ["x", "b"], ["a"]), node("B", ["a"], ["b"])], ["x"], ["a"]);
    const l = lay(s);
    expect(l.items.length).toBe(4);
    noOverlaps(l.items);
  });

  it("folds constants into their consumers, or draws them just above", () => {
    const nodes = [];
    for (let i = 0; i < 50; i++) {
      nodes.push(node("Constant", [], [`k${i}`]));
      nodes.push(node("Add", [i ? `v${i - 1}` : "x", `k${i}`, "w"], [`v${i}`]));
    }
    const s = scene(nodes, ["x"], ["v49"], { initializers: ["w"] });
    const folded = lay(s);
    expect(folded.items.filter((it) => it.kind === "const")).toEqual([]);
    const add = folded.items.find((it) => it.key === "n1")!;
    expect(add.folded!.map((f) => f.name)).toEqual(["k0", "w"]);
    expect(add.folded![0]!.index).toBe(0);
    edgesDown(folded);
    const shown = lay(s, true);
    const consts = shown.items.filter((it) => it.kind === "const");
    expect(consts.length).toBe(51);
    const byKey = new Map(shown.items.map((it) => [it.key, it] as const));
    // each Constant sits in the layer just above its consumer, not in the top row
    for (let i = 0; i < 50; i++) {
      const c = byKey.get(`c${2 * i}`)!;
      const user = byKey.get(`n${2 * i + 1}`)!;
      expect(user.y - (c.y + c.h)).toBeLessThan(80);
    }
    noOverlaps(shown.items);
    edgesDown(shown);
  });

  it("draws a collapsed group as one box and an open one as a frame around its contents", () => {
    const nodes = [];
    for (let b = 0; b < 30; b++)
      for (let k = 0; k < 3; k++)
        nodes.push(
          node(
            "Relu",
            [k ? `v${b}_${k - 1}` : b ? `v${b - 1}_2` : "x"],
            [`v${b}_${k}`],
            `/m/block${b}/Relu_${k}`,
          ),
        );
    const s = scene(nodes, ["x"], ["v29_2"]);
    const closed = lay(s);
    expect(closed.items.filter((it) => it.kind === "group").length).toBe(30);
    expect(closed.items.find((it) => it.key === "gm/block0")!.count).toBe(3);
    expect(closed.frames).toEqual([]);
    edgesDown(closed);
    const opened = lay(s, false, ["gm/block4"]);
    expect(opened.frames.map((f) => f.key)).toEqual(["gm/block4"]);
    const f = opened.frames[0]!;
    const inside = opened.items.filter((it) => it.parent === "gm/block4");
    expect(inside.map((it) => it.key)).toEqual(["n12", "n13", "n14"]);
    for (const it of inside) {
      expect(it.x).toBeGreaterThanOrEqual(f.x);
      expect(it.y).toBeGreaterThanOrEqual(f.y);
      expect(it.x + it.w).toBeLessThanOrEqual(f.x + f.w);
      expect(it.y + it.h).toBeLessThanOrEqual(f.y + f.h);
    }
    // no box of the top level overlaps the frame
    for (const it of opened.items.filter((it) => it.parent === ""))
      expect(
        it.y + it.h <= f.y || it.y >= f.y + f.h || it.x + it.w <= f.x || it.x >= f.x + f.w,
      ).toBe(true);
    edgesDown(opened);
    // the edge into the open group ends at the box inside it
    expect(opened.edges.some((e) => e.from === "gm/block3" && e.to === "n12")).toBe(true);
  });

  it("marks boxes and groups with the diff", () => {
    const s = scene([node("A", ["x"], ["a"]), node("B", ["a"], ["y"])], ["x"], ["y"]);
    const l = layoutScene(s, { open: [], constantsAsNodes: false }, new Map([[1, "added"]]), {
      id: "main",
      title: "t",
    });
    expect(l.items.find((it) => it.key === "n1")!.mark).toBe("added");
    expect(l.items.find((it) => it.key === "n0")!.mark).toBeUndefined();
  });
});

describe("nested groups", () => {
  it("lays out frames inside frames, each inside its parent, edges going down", () => {
    const nodes = [];
    let prev = "x";
    for (let a = 0; a < 8; a++)
      for (let b = 0; b < 5; b++)
        for (let k = 0; k < 3; k++) {
          const v = `v${a}_${b}_${k}`;
          nodes.push(node("Relu", [prev], [v], `/m/outer${a}/inner${b}/Relu_${k}`));
          prev = v;
        }
    const s = scene(nodes, ["x"], [prev]);
    // outer2 opened: its level is small, so its inner groups open with it
    const l = lay(s, false, ["gm/outer2"]);
    expect(l.frames.map((f) => f.key)).toEqual([
      "gm/outer2",
      ...[0, 1, 2, 3, 4].map((b) => `gm/outer2/inner${b}`),
    ]);
    const outer = l.frames[0]!;
    for (const inner of l.frames.slice(1)) {
      expect(inner.parent).toBe("gm/outer2");
      expect(inner.x).toBeGreaterThanOrEqual(outer.x);
      expect(inner.y).toBeGreaterThanOrEqual(outer.y);
      expect(inner.x + inner.w).toBeLessThanOrEqual(outer.x + outer.w);
      expect(inner.y + inner.h).toBeLessThanOrEqual(outer.y + outer.h);
      const inside = l.items.filter((it) => it.parent === inner.key);
      expect(inside.length).toBe(3);
      for (const it of inside) expect(it.y).toBeGreaterThanOrEqual(inner.y);
    }
    edgesDown(l);
    // one closed by the user: a box inside the open frame
    const c = layoutScene(
      s,
      { open: ["gm/outer2"], closed: ["gm/outer2/inner3"], constantsAsNodes: false },
      undefined,
      { id: "main", title: "t" },
    );
    expect(c.frames.length).toBe(5);
    expect(c.items.find((it) => it.key === "gm/outer2/inner3")!.parent).toBe("gm/outer2");
    edgesDown(c);
  });
});
