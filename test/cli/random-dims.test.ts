// `run --random` on the dims the user did not set (random-dims.ts): each is said by name with the
// size taken; where the graph's own shapes need a size other than 1 (silero-vad's STFT Conv and
// the Squeeze after its encoder, a Reshape to [-1, 512]) the default meets them; a run that
// still fails names the dims taken and how to set them.

import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

const root = join(import.meta.dirname, "..", "..");
const SILERO = join(root, "node_modules", "@jjhbw", "silero-vad", "weights");
const work = mkdtempSync(join(tmpdir(), "random-dims-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function model(name: string, text: string): string {
  const f = join(work, name);
  writeFileSync(f, text);
  return f;
}

describe("run --random: dims not given", () => {
  for (const [file, said] of [
    [
      "silero_vad.onnx",
      /input\[1\]=192 \(Conv '[^']*stft\/Conv' makes a dim floor\(\(input\[1\]-64\)\/128\), at least 1\)/,
    ],
    ["silero_vad_16k_op15.onnx", /sequence=192 \(Conv '\/model\/stft\/Conv' makes/],
    ["silero_vad_half.onnx", /sequence=192 \(Conv '\/stft\/Conv' makes/],
    ["silero_vad_op18_ifless.onnx", /sequence=192 \(Conv 'node_Conv_29' makes/],
  ] as const)
    it.skipIf(!existsSync(join(SILERO, file)))(
      `${file}: runs, saying the sizes taken`,
      () => {
        const r = runCli(["run", "--random", join(SILERO, file)]);
        expect(r.stderr).toMatch(/^onnx-expand: input dims not given, taken as /);
        expect(r.stderr).toMatch(said);
        expect(r.code).toBe(0);
        expect(r.stdout).toMatch(/^output: float \[1,1\] = /m);
      },
      120_000,
    );

  it("a dim the user sets is not said; the others are", () => {
    const f = join(SILERO, "silero_vad_16k_op15.onnx");
    if (!existsSync(f)) return;
    const r = runCli(["run", "--random", "--dim", "sequence=512", f]);
    expect(r.code).toBe(0);
    expect(r.stderr.trim()).toBe("onnx-expand: input dims not given, taken as batch=1");
  }, 120_000);

  it("a Reshape to [-1, 512] gets a multiple of 512 on the innermost dim", () => {
    const f = model(
      "reshape.onnxtxt",
      `<ir_version: 8, opset_import: ["" : 18]>
g (float[batch, n] x) => (float[a, b] y) {
  shape = Constant <value: tensor = int64[2] {-1, 512}> ()
  y = Reshape (x, shape)
}
`,
    );
    const r = runCli(["run", "--random", f]);
    expect(r.stderr.trim()).toBe(
      "onnx-expand: input dims not given, taken as batch=1, n=512 (Reshape to [-1,512] needs a multiple of 512 elements)",
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^y: float \[1,512\]/);
  });

  it("a Conv's channels and window, an LSTM's input size", () => {
    const ones = (n: number) => Array(n).fill(1).join(",");
    const f = model(
      "conv-lstm.onnxtxt",
      `<ir_version: 8, opset_import: ["" : 18]>
g (float[b, c, n] x, float[s, k, i] z) => (float[p, q, r] y, float[t, u, v, w] h) {
  W = Constant <value: tensor = float[4,3,3] {${ones(36)}}> ()
  y = Conv (x, W)
  LW = Constant <value: tensor = float[1,8,5] {${ones(40)}}> ()
  LR = Constant <value: tensor = float[1,8,2] {${ones(16)}}> ()
  h = LSTM <hidden_size: int = 2> (z, LW, LR)
}
`,
    );
    const r = runCli(["run", "--random", f]);
    expect(r.stderr.trim()).toBe(
      "onnx-expand: input dims not given, taken as b=1, c=3 (Conv's input channels = 3), " +
        "n=3 (Conv's window needs its spatial dim 0 ≥ 3), s=1, k=1, i=5 (LSTM's input size = 5)",
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^y: float \[1,4,1\]/m);
    expect(r.stdout).toMatch(/^h: float \[1,1,1,2\]/m);
  });

  it("a run that still fails names the dims taken and how to set them", () => {
    const f = model(
      "gather.onnxtxt",
      `<ir_version: 8, opset_import: ["" : 18]>
g (float[n] x) => (float y) {
  i = Constant <value: tensor = int64 {3}> ()
  y = Gather (x, i)
}
`,
    );
    const r = runCli(["run", "--random", f]);
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^onnx-expand: error: .*out of range.*\(the input dims not given were taken as n=1: set them with --dim name=value\)$/,
    );
    expect(runCli(["run", "--random", "--dim", "n=4", f]).code).toBe(0);
  });
});
