// `onnx-expand check`: what a user sees and the exit codes scripts rely on.

import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { describeType } from "../../src/check/index.js";
import { encodeModel, loadModel } from "../../src/io/files.js";
import { graph, model, node, valueInfo } from "../../src/ir/builder.js";
import { runCli } from "../helpers/cli.js";

const NODE_TESTS = new URL("../data/onnx-node-tests/", import.meta.url).pathname;

describe("onnx-expand check", () => {
  let dir: string;
  let broken: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "check-cli-"));
    broken = join(dir, "broken.onnx");
    // Two problems: an int64 input to Log, and an output nothing produces.
    const m = model(
      graph({
        nodes: [node("Log", ["x"], ["y"], {}, { name: "log" })],
        inputs: [valueInfo("x", "int64", [3])],
        outputs: [{ name: "y" }, { name: "z" }],
      }),
    );
    writeFileSync(broken, encodeModel(m));
  });

  it("a valid model: ok and exit 0", () => {
    const file = `${NODE_TESTS}test_reduce_log_sum_exp_keepdims_random_expanded/model.onnx`;
    const r = runCli(["check", file]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(`ok: ${file}\n`);
    expect(r.code).toBe(0);
  });

  it("a broken model: one line per problem, a count, exit 1", () => {
    const r = runCli(["check", broken]);
    expect(r.code).toBe(1);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toContain("node 'log' (Log): input 'x' is tensor(int64)");
    expect(lines[1]).toContain("graph output 'z' is not produced");
    expect(lines[2]).toBe(`2 problems in ${broken}`);
  });

  it("--json gives the same problems as data", () => {
    const r = runCli(["check", broken, "--json"]);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as {
      ok: boolean;
      problems: { code: string; where: string }[];
    };
    expect(out.ok).toBe(false);
    expect(out.problems.map((p) => p.code)).toEqual(["type-not-allowed", "output-not-produced"]);
    expect(out.problems[0]!.where).toBe("node 'log' (Log)");
  });

  it("a file that cannot be read or decoded: exit 2 with one error line", () => {
    const missing = runCli(["check", join(dir, "missing.onnx")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim().split("\n")).toHaveLength(1);
    expect(missing.stderr).toContain("no such file");
    const junk = join(dir, "junk.onnx");
    writeFileSync(junk, Buffer.from([0xff, 0xff, 0xff, 0x07, 0x01]));
    const bad = runCli(["check", junk]);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe("");
  });

  it("--write-value-info stores the inferred types of a clean model, and writes nothing for a broken one", () => {
    const src = `${NODE_TESTS}test_reduce_l2_keep_dims_example_expanded/model.onnx`;
    const out = join(dir, "with-vi.onnx");
    const r = runCli(["check", src, "--write-value-info", out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`wrote ${out}`);
    const before = loadModel(src);
    const after = loadModel(out);
    expect(before.graph.valueInfo).toEqual([]);
    const inner = before.graph.nodes
      .flatMap((n) => n.outputs)
      .filter((o) => !before.graph.outputs.some((g) => g.name === o));
    expect(after.graph.valueInfo.map((v) => v.name).sort()).toEqual(inner.sort());
    // The data input is float[3,2,2]; its square keeps the shape.
    const sq = after.graph.valueInfo.find((v) => describeType(v.type) === "float[3,2,2]");
    expect(sq).toBeDefined();
    const notOut = join(dir, "not-written.onnx");
    const b = runCli(["check", broken, "--write-value-info", notOut]);
    expect(b.code).toBe(1);
    expect(b.stdout).toContain(`not written: ${notOut}`);
    expect(existsSync(notOut)).toBe(false);
  });

  it("--write-value-info names a dimension inference cannot name unk__N (as ONNX does); --no-fresh-dims leaves it unknown", () => {
    const src = join(dir, "nonzero.onnx");
    writeFileSync(
      src,
      encodeModel(
        model(
          graph({
            nodes: [node("NonZero", ["x"], ["a"]), node("Relu", ["a"], ["y"])],
            inputs: [valueInfo("x", "float", [3, 4])],
            outputs: [{ name: "y" }],
          }),
        ),
      ),
    );
    const shapeOf = (file: string) => {
      const t = loadModel(file).graph.valueInfo[0]?.type;
      return t?.kind === "tensor" ? t.shape : undefined;
    };
    const named = join(dir, "nonzero-named.onnx");
    expect(runCli(["check", src, "--write-value-info", named]).code).toBe(0);
    expect(shapeOf(named)).toEqual([2, "unk__0"]);
    const unnamed = join(dir, "nonzero-unnamed.onnx");
    expect(runCli(["check", src, "--write-value-info", unnamed, "--no-fresh-dims"]).code).toBe(0);
    expect(shapeOf(unnamed)).toEqual([2, null]);
  });
});
