// Data files are the user's data too: no command writes a file that tensors of its input are read
// from (-o, --external-data, <output>.data, run --output-dir; by path, symbolic and hard link),
// whatever --force says; small tensors are packed without 4 KiB alignment; external data entries
// and locations are read as ONNX and the file system read them.

import {
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  statSync,
  symlinkSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkModel } from "../../src/check/index.js";
import { serveInspector } from "../../src/cli/server.js";
import { loadModel, saveModel } from "../../src/io/files.js";
import { Tensor } from "../../src/ir/tensor.js";
import { DataType, type Model } from "../../src/ir/types.js";
import { parseModelText } from "../../src/text/parse.js";
import { expectOneLineError, runCli } from "../helpers/cli.js";

const tmp = () => mkdtempSync(join(tmpdir(), "onnx-expand-data-files-"));

/** The bytes of every file in a folder, to show that a refused command changed none. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of readdirSync(dir).sort())
    if (statSync(join(dir, f)).isFile()) out[f] = readFileSync(join(dir, f)).toString("base64");
  return out;
}

/**
 * model.onnx: y = x + w + (c1 + c2), w float[1024] in `data.bin`; the constants c1 and c2 fold
 * into a float[1024] that simplify writes to a data file.
 */
function modelWithData(dir: string, location = "data.bin"): string {
  const m = parseModelText(`<ir_version: 8, opset_import: ["" : 13]>
g (float[1024] x) => (float[1024] y) {
  c1 = Constant <value_float = 1.5> ()
  c2 = ConstantOfShape <value = float[1] {2.0}> (s)
  c = Add (c1, c2)
  t = Add (x, w)
  y = Add (t, c)
}
`);
  const w = new Float32Array(1024).map((_, i) => i / 7);
  writeFileSync(join(dir, location), new Uint8Array(w.buffer));
  m.graph.initializers = [
    new Tensor(
      DataType.FLOAT,
      [1024],
      { kind: "external", entries: [["location", location]] },
      "w",
    ),
    new Tensor(
      DataType.INT64,
      [1],
      { kind: "raw", bytes: new Uint8Array(new BigInt64Array([1024n]).buffer) },
      "s",
    ),
  ];
  const file = join(dir, "model.onnx");
  saveModel(m, file);
  return file;
}

const REFUSED =
  /would write over '.*data\.bin', a data file that tensors of the input are read from/;

describe("no command writes a file the input's tensors live in", () => {
  it("-o naming the data file: convert, expand, simplify, lower, check --write-value-info, parse; --force too", () => {
    const d = tmp();
    const file = modelWithData(d);
    const data = join(d, "data.bin");
    const before = snapshot(d);
    for (const args of [
      ["convert", file, "--opset", "18", "-o", data],
      ["convert", file, "--opset", "18", "-o", data, "--force"],
      ["expand", file, "-o", data],
      ["simplify", file, "-o", data, "--force"],
      ["lower", file, "--target", "webnn", "-o", data],
      ["check", file, "--write-value-info", data, "--force"],
    ]) {
      const r = runCli(args);
      expectOneLineError(r, REFUSED);
      expect(r.stderr).toContain(`${data}: `);
    }
    // parse: a text model whose tensor lives in data.bin.
    const text = join(d, "model.onnxtxt");
    expect(runCli(["print", file]).code).toBe(0);
    writeFileSync(text, runCli(["print", file]).stdout);
    const before2 = snapshot(d);
    expectOneLineError(runCli(["parse", text, "-o", data]), REFUSED);
    expect(snapshot(d)).toEqual(before2);
    delete before2["model.onnxtxt"];
    expect(before2).toEqual(before);
    expect(runCli(["check", file]).code).toBe(0);
  }, 300_000);

  it("through a symbolic link, a hard link and a path that only resolves to it", () => {
    const d = tmp();
    const file = modelWithData(d);
    symlinkSync("data.bin", join(d, "sym.bin"));
    linkSync(join(d, "data.bin"), join(d, "hard.bin"));
    const before = snapshot(d);
    mkdirSync(join(d, "sub"));
    for (const out of ["sym.bin", "hard.bin", "sub/../data.bin"])
      expectOneLineError(runCli(["convert", file, "--opset", "18", "-o", `${d}/${out}`]), REFUSED);
    expect(snapshot(d)).toEqual(before);
  }, 300_000);

  it("--external-data naming the input's data file, and <output>.data being it", () => {
    const d = tmp();
    const file = modelWithData(d);
    const before = snapshot(d);
    // simplify folds c into a float[1024] constant, which goes to the data file.
    expectOneLineError(
      runCli(["simplify", file, "-o", join(d, "out.onnx"), "--external-data", "data.bin"]),
      REFUSED,
    );
    expect(snapshot(d)).toEqual(before);
    // <output>.data: a model whose data file is out.onnx.data, simplified to out.onnx.
    const e = tmp();
    const m2 = modelWithData(e, "out.onnx.data");
    const before2 = snapshot(e);
    expectOneLineError(
      runCli(["simplify", m2, "-o", join(e, "out.onnx")]),
      /would write over '.*out\.onnx\.data', a data file that tensors of the input are read from/,
    );
    expect(snapshot(e)).toEqual(before2);
    // Where every tensor keeps its reference and nothing is written to the data file, the same
    // names are fine (convert keeps w in out.onnx.data; c is not folded).
    const r = runCli(["convert", m2, "--opset", "18", "-o", join(e, "out.onnx")]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(snapshot(e)["out.onnx.data"]).toEqual(before2["out.onnx.data"]);
    expect(runCli(["run", join(e, "out.onnx"), "--random"]).code).toBe(0);
  }, 300_000);

  it("run --output-dir over a data file named output_0.pb", () => {
    const d = tmp();
    const file = modelWithData(d, "output_0.pb");
    const before = snapshot(d);
    expectOneLineError(
      runCli(["run", file, "--random", "--output-dir", d]),
      /output_0\.pb: would write over '.*output_0\.pb', a data file that tensors of the input are read from/,
    );
    expect(snapshot(d)).toEqual(before);
  }, 300_000);

  it("at library level: saveModel refuses the data file of a loaded model", () => {
    const d = tmp();
    const model: Model = loadModel(modelWithData(d));
    expect(() => saveModel(model, join(d, "data.bin"), { force: true })).toThrow(REFUSED);
    expect(() =>
      saveModel(model, join(d, "other.onnx"), {
        externalData: { location: "data.bin", threshold: 0 },
      }),
    ).toThrow(REFUSED);
  });
});

/** A model whose float[4] initializers w0..w{n-1} each live in a data file of their own. */
function manyDataFiles(dir: string, n: number): string {
  const m = parseModelText(`<ir_version: 8, opset_import: ["" : 13]>
g (float[4] x) => (float[4] y) {
  y = Identity (x)
}
`);
  for (let i = 0; i < n; i++) {
    writeFileSync(join(dir, `w${i}.bin`), new Uint8Array(16));
    m.graph.initializers.push(
      new Tensor(
        DataType.FLOAT,
        [4],
        { kind: "external", entries: [["location", `w${i}.bin`]] },
        `w${i}`,
      ),
    );
  }
  const file = join(dir, "model.onnx");
  saveModel(m, file);
  return file;
}

/** model.onnx with one float[1024] initializer whose external data entries are `entries`. */
function withEntries(dir: string, entries: [string, string][]): string {
  const m = parseModelText(`<ir_version: 8, opset_import: ["" : 13]>
g (float[1024] x) => (float[1024] y) {
  y = Add (x, w)
}
`);
  m.graph.initializers = [new Tensor(DataType.FLOAT, [1024], { kind: "external", entries }, "w")];
  const file = join(dir, "model.onnx");
  saveModel(m, file);
  return file;
}

describe("data-file flags and locations", () => {
  it("a tensor with two location entries is refused by check and every loader", () => {
    const d = tmp();
    writeFileSync(join(d, "data.bin"), new Uint8Array(4096));
    const file = withEntries(d, [
      ["location", "data.bin"],
      ["location", "../../../outside/secret.bin"],
    ]);
    const line = /tensor 'w' has 2 'location' entries in its external data \(one is allowed\)$/;
    expectOneLineError(runCli(["check", file]), line);
    expectOneLineError(runCli(["run", file, "--random"]), line);
    expectOneLineError(runCli(["convert", file, "--opset", "18", "-o", join(d, "o.onnx")]), line);
    expect(() => loadModel(file)).toThrow(line);
    expect(readdirSync(d).sort()).toEqual(["data.bin", "model.onnx"]);
  }, 300_000);

  it("'data.bin/' and 'a/../data.bin' are what the file system makes of them", () => {
    const d = tmp();
    writeFileSync(join(d, "data.bin"), new Uint8Array(4096));
    let file = withEntries(d, [["location", "data.bin/"]]);
    expect(() => loadModel(file)).toThrow(
      /external data file 'data\.bin\/' of tensor 'w' cannot be opened: ENOTDIR$/,
    );
    file = withEntries(d, [["location", "a/../data.bin"]]);
    expect(() => loadModel(file)).toThrow(
      /external data file 'a\/\.\.\/data\.bin' of tensor 'w' does not exist$/,
    );
    // With a folder 'a' there, the file system finds data.bin through it.
    mkdirSync(join(d, "a"));
    expect(loadModel(file).graph.initializers[0]!.data.kind).toBe("external");
    expect(runCli(["check", file]).code).toBe(0);
  }, 120_000);

  it("offsets and lengths past 2^53 are printed as written", () => {
    const d = tmp();
    writeFileSync(join(d, "data.bin"), new Uint8Array(4096));
    let file = withEntries(d, [
      ["location", "data.bin"],
      ["offset", "9007199254740993"],
    ]);
    expect(() => loadModel(file)).toThrow(
      /\(offset 9007199254740993, length 4096 for float\[1024\]\)/,
    );
    file = withEntries(d, [
      ["location", "data.bin"],
      ["length", "100000000000000000000000"],
    ]);
    expect(() => loadModel(file)).toThrow(
      /is 100000000000000000000000 bytes long, but float\[1024\] takes 4096$/,
    );
  });

  it("an axis past 2^53 is named by its own value, not a rounded or saturated one", () => {
    for (const axis of ["9007199254740993", "-9223372036854775807"]) {
      const m = parseModelText(`<ir_version: 8, opset_import: ["" : 13]>
g (float[2,3] x) => (float[2,3] y) {
  y = Softmax <axis = ${axis}> (x)
}
`);
      const r = checkModel(m);
      expect(r.problems.map((p) => p.message).join("\n")).toContain(`axis ${axis} is out of range`);
    }
  });

  it("more data files than the descriptor limit: the cause is named", () => {
    const d = tmp();
    const file = manyDataFiles(d, 300);
    const tsx = new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url).href;
    const bin = new URL("../../src/cli/bin.ts", import.meta.url).pathname;
    const r = spawnSync(
      "/bin/sh",
      [
        "-c",
        `ulimit -n 200 && exec "$0" --import "$1" "$2" check "$3"`,
        process.execPath,
        tsx,
        bin,
        file,
      ],
      { encoding: "utf8" },
    );
    expectOneLineError(
      { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr },
      /cannot be opened: EMFILE: too many open files .*ulimit -n/,
    );
  }, 120_000);

  it("--external-data '' is refused with one line", () => {
    const d = tmp();
    const file = modelWithData(d);
    expectOneLineError(
      runCli(["convert", file, "--opset", "18", "-o", join(d, "o.onnx"), "--external-data", ""]),
      /--external-data needs a file name beside the output, not ''/,
    );
  }, 120_000);
});

describe("inspect serves the files it checked, never a swap", () => {
  it("a data file replaced by a symbolic link to a file outside while it runs is refused", async () => {
    const d = tmp();
    const outside = tmp();
    const file = modelWithData(d);
    writeFileSync(join(outside, "secret.txt"), "secret\n");
    const { server, url } = await serveInspector({ model: file });
    try {
      const get = (p: string) =>
        fetch(new URL(p, url), { headers: { "sec-fetch-site": "same-origin" } });
      const first = await get("preload/1");
      expect(first.status).toBe(200);
      expect(Buffer.from(await first.arrayBuffer())).toEqual(readFileSync(join(d, "data.bin")));
      // Swapped for a link out of the folder: refused, and the secret never sent.
      renameSync(join(d, "data.bin"), join(d, "old.bin"));
      symlinkSync(join(outside, "secret.txt"), join(d, "data.bin"));
      const swapped = await get("preload/1");
      expect(swapped.status).toBe(410);
      expect(await swapped.text()).not.toContain("secret");
      // Swapped for another regular file: refused too (not the file checked at start).
      unlinkSync(join(d, "data.bin"));
      writeFileSync(join(d, "data.bin"), "other");
      expect((await get("preload/1")).status).toBe(410);
      // The model itself replaced by a link: refused.
      renameSync(file, join(d, "model.old"));
      symlinkSync(join(outside, "secret.txt"), file);
      expect((await get("preload")).status).toBe(410);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  }, 60_000);
});

describe("copying data files into a new folder", () => {
  /** model.onnx in `dir` with float tensors of `sizes` elements at consecutive offsets of data.bin. */
  function modelOver(dir: string, sizes: number[], fill: (i: number) => number): string {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 13]>
g (float[1] x) => (float[1] y) {
  y = Identity (x)
}
`);
    let offset = 0;
    const parts: Uint8Array[] = [];
    sizes.forEach((n, k) => {
      const f = new Float32Array(n).map((_, i) => fill(i + k));
      parts.push(new Uint8Array(f.buffer));
      m.graph.initializers.push(
        new Tensor(
          DataType.FLOAT,
          [n],
          {
            kind: "external",
            entries: [
              ["location", "data.bin"],
              ["offset", String(offset)],
              ["length", String(n * 4)],
            ],
          },
          `w${k}`,
        ),
      );
      offset += n * 4;
    });
    writeFileSync(join(dir, "data.bin"), Buffer.concat(parts));
    const file = join(dir, "model.onnx");
    saveModel(m, file);
    return file;
  }

  const offsets = (m: Model) =>
    m.graph.initializers.map((t) =>
      t.data.kind === "external" ? new Map(t.data.entries).get("offset") : undefined,
    );

  it("a data file whose tensors all go along is copied whole, each tensor at its own offset", () => {
    const d = tmp();
    const out = tmp();
    // 3,000 bytes, then 1 MiB + 4 bytes: a copy by tensors would align the second to 4 KiB.
    const file = modelOver(d, [750, (1 << 18) + 1], (i) => Math.sin(i) + 2);
    const input = loadModel(file);
    saveModel(input, join(out, "m.onnx"));
    // (Buffer.compare: toEqual walks a megabyte element by element.)
    const same = (a: Uint8Array, b: Uint8Array) => Buffer.compare(a, b) === 0;
    expect(same(readFileSync(join(out, "m.onnx.data")), readFileSync(join(d, "data.bin")))).toBe(
      true,
    );
    const copy = loadModel(join(out, "m.onnx"));
    expect(offsets(copy)).toEqual(["0", "3000"]);
    for (const [i, t] of copy.graph.initializers.entries())
      expect(same(t.rawBytes(), input.graph.initializers[i]!.rawBytes())).toBe(true);
  });

  it("a file the output keeps less than 90% of is copied by tensors; a sparse one keeps its holes", () => {
    const d = tmp();
    const out = tmp();
    const file = modelOver(d, [1 << 18, 1 << 18], (i) => i + 1);
    const input = loadModel(file);
    // Only w1 goes along (w0 dropped): 50% of the file.
    input.graph.initializers.shift();
    saveModel(input, join(out, "m.onnx"));
    expect(statSync(join(out, "m.onnx.data")).size).toBe(1 << 20);
    expect(offsets(loadModel(join(out, "m.onnx")))).toEqual(["0"]);
    // A sparse data file of 64 MiB of zeros: copied a chunk at a time, holes skipped.
    const e = tmp();
    const f2 = modelOver(e, [1], () => 0);
    const m2 = loadModel(f2);
    truncateSync(join(e, "data.bin"), 64 << 20);
    const big = new Tensor(
      DataType.FLOAT,
      [16 << 20],
      { kind: "external", entries: [["location", "data.bin"]] },
      "big",
    );
    big.data = { ...big.data, baseDir: e } as typeof big.data;
    m2.graph.initializers = [big];
    const o2 = tmp();
    saveModel(loadModel(saveAndPath(m2, e)), join(o2, "m.onnx"));
    const st = statSync(join(o2, "m.onnx.data"));
    expect(st.size).toBe(64 << 20);
    expect(st.blocks * 512).toBeLessThan(1 << 20);
  });
});

function saveAndPath(m: Model, dir: string): string {
  const p = join(dir, "sparse.onnx");
  saveModel(m, p);
  return p;
}
