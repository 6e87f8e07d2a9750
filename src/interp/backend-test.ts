// Runs ONNX backend-test directories (model.onnx + test_data_set_*/input_*.pb, output_*.pb)
// through the interpreter and compares with the expected outputs.

import { existsSync, readdirSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { OnnxError } from "../errors.js";
import { bfloat16BitsToNumber, dtypeName, float16Table } from "../ir/dtype.js";
import { walkNodes } from "../ir/traverse.js";
import { DataType, type Model, type Type } from "../ir/types.js";
import { loadModel, readRegularFile } from "../io/files.js";
import { decodeValueProto } from "./value-proto.js";
import { runValues, unsupportedOps } from "./executor.js";
import { elementString } from "./tensor.js";
import type { RTensor, RValue } from "./types.js";

export interface Tolerance {
  rtol: number;
  atol: number;
}
export const DEFAULT_TOLERANCE: Tolerance = { rtol: 1e-3, atol: 1e-7 };

export interface BackendTestResult {
  dir: string;
  ok: boolean;
  /** Why it failed (one line). */
  reason?: string;
  /** Ops of the model the interpreter has no kernel for (the failure is then expected). */
  missingOps: string[];
  /** Ops used by the model (ai.onnx ops by type, others as domain.op), including subgraphs. */
  ops: string[];
}

/** Compares a computed value with an expected one: undefined when they agree, else what differs. */
export type Compare<T> = (actual: T, expected: T, tol?: Tolerance) => string | undefined;

function numericValue(t: RTensor, i: number): number | bigint | string {
  const v = t.data[i]!;
  if (t.dtype === DataType.FLOAT16) return float16Table()[v as number]!;
  if (t.dtype === DataType.BFLOAT16) return bfloat16BitsToNumber(v as number);
  return v;
}

/**
 * Compares a computed tensor with an expected one: same dtype and shape; floats within
 * atol + rtol·|expected| (NaN equals NaN, infinities must match exactly); others exactly.
 * Returns undefined when they agree, else a one-line description of the first difference.
 */
export const compareTensors: Compare<RTensor> = (actual, expected, tol = DEFAULT_TOLERANCE) => {
  if (actual.dtype !== expected.dtype)
    return `type ${dtypeName(actual.dtype)}, expected ${dtypeName(expected.dtype)}`;
  if (
    actual.shape.length !== expected.shape.length ||
    actual.shape.some((d, i) => d !== expected.shape[i])
  )
    return `shape [${actual.shape.join(",")}], expected [${expected.shape.join(",")}]`;
  const n = expected.data.length;
  const isFloat =
    expected.dtype === DataType.FLOAT ||
    expected.dtype === DataType.DOUBLE ||
    expected.dtype === DataType.FLOAT16 ||
    expected.dtype === DataType.BFLOAT16;
  let bad = 0;
  let first = -1;
  for (let i = 0; i < n; i++) {
    const a = numericValue(actual, i);
    const b = numericValue(expected, i);
    let same: boolean;
    if (isFloat) {
      const x = a as number;
      const y = b as number;
      if (Number.isNaN(y)) same = Number.isNaN(x);
      else if (!Number.isFinite(y)) same = x === y;
      else same = Math.abs(x - y) <= tol.atol + tol.rtol * Math.abs(y);
    } else same = a === b;
    if (!same) {
      if (first < 0) first = i;
      bad++;
    }
  }
  if (bad === 0) return undefined;
  return `element ${first} is ${elementString(actual, first)}, expected ${elementString(expected, first)} (${bad} of ${n} differ)`;
};

/** A uint16 tensor stored for a bfloat16 value (as older ONNX test data does) read as bfloat16. */
export function legacyBfloat16(v: RValue, type: Type | undefined): RValue {
  if (
    "dtype" in v &&
    v.dtype === DataType.UINT16 &&
    type?.kind === "tensor" &&
    type.elemType === DataType.BFLOAT16
  )
    return { dtype: DataType.BFLOAT16, shape: v.shape, data: v.data };
  return v;
}

/** compareTensors for any value: sequences item by item, optionals by presence. */
export const compareValues: Compare<RValue> = (actual, expected, tol = DEFAULT_TOLERANCE) => {
  const kind = (v: RValue) => ("dtype" in v ? "tensor" : v.kind);
  if (kind(actual) !== kind(expected)) return `a ${kind(actual)}, expected a ${kind(expected)}`;
  if ("dtype" in actual) return compareTensors(actual, expected as RTensor, tol);
  if ("dtype" in expected) return "not a tensor";
  if (actual.kind === "sequence" && expected.kind === "sequence") {
    if (actual.items.length !== expected.items.length)
      return `a sequence of ${actual.items.length}, expected ${expected.items.length}`;
    for (let i = 0; i < actual.items.length; i++) {
      const d = compareTensors(actual.items[i]!, expected.items[i]!, tol);
      if (d) return `sequence item ${i}: ${d}`;
    }
  }
  return undefined;
};

function numbered(dir: string, prefix: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.startsWith(prefix) && f.endsWith(".pb"))
    .sort((a, b) => Number(a.slice(prefix.length, -3)) - Number(b.slice(prefix.length, -3)));
}

/** Ops a model uses, including those inside subgraphs and local functions. */
export function modelOps(model: Model): string[] {
  const ops = new Set<string>();
  for (const { node: n } of walkNodes(model))
    ops.add(n.domain === "" || n.domain === "ai.onnx" ? n.opType : `${n.domain}.${n.opType}`);
  return [...ops].sort();
}

/** Runs one backend-test directory; never throws for a failing test. */
export function runBackendTest(
  dir: string,
  opts: {
    tolerance?: Tolerance;
    maxElements?: number;
    maxMemory?: number;
    /** Run this model on the folder's data instead of its model.onnx (e.g. a transformed copy). */
    model?: Model;
  } = {},
): BackendTestResult {
  const tol = opts.tolerance ?? DEFAULT_TOLERANCE;
  let model: Model;
  try {
    model = opts.model ?? loadModel(join(dir, "model.onnx"), { regularFileOnly: true });
  } catch (e) {
    return {
      dir,
      ok: false,
      reason: `cannot load model: ${(e as Error).message}`,
      missingOps: [],
      ops: [],
    };
  }
  const ops = modelOps(model);
  const missingOps = unsupportedOps(model);
  if (missingOps.length)
    return { dir, ok: false, reason: `no kernel for ${missingOps.join(", ")}`, missingOps, ops };
  try {
    const sets = readDataSets(dir, model);
    if (sets.length === 0)
      return { dir, ok: false, reason: "no test_data_set_* folder", missingOps, ops };
    for (const set of sets) {
      const outputs = runValues(model, set.inputs, {
        ...(opts.maxElements !== undefined ? { maxElements: opts.maxElements } : {}),
        ...(opts.maxMemory !== undefined ? { maxMemory: opts.maxMemory } : {}),
      });
      // One reference file per graph output, as the ONNX runner requires: with fewer, outputs
      // would go unchecked (none at all would pass vacuously); with more, some are spurious.
      if (set.expected.length !== model.graph.outputs.length)
        return {
          dir,
          ok: false,
          reason: `${set.name}: ${set.expected.length} output_*.pb file${set.expected.length === 1 ? "" : "s"}, but the model has ${model.graph.outputs.length} output${model.graph.outputs.length === 1 ? "" : "s"}`,
          missingOps,
          ops,
        };
      for (const [name, value] of set.expected) {
        const diff = compareValues(outputs[name]!, value, tol);
        if (diff)
          return {
            dir,
            ok: false,
            reason: `${set.name}: output '${name}': ${diff}`,
            missingOps,
            ops,
          };
      }
    }
  } catch (e) {
    return { dir, ok: false, reason: (e as Error).message.split("\n")[0], missingOps, ops };
  }
  return { dir, ok: true, missingOps, ops };
}

export interface DataSet {
  /** The folder's name: test_data_set_<i>. */
  name: string;
  inputs: Record<string, RValue>;
  /** Graph output name and expected value, one per output_<i>.pb, in file order. */
  expected: [string, RValue][];
}

/** The test_data_set_* folders of a backend-test directory, decoded for the given model. */
export function readDataSets(dir: string, model: Model): DataSet[] {
  const sets = readdirSync(dir)
    .filter((f) => f.startsWith("test_data_set_") && statSync(join(dir, f)).isDirectory())
    .sort();
  const initializerNames = new Set(model.graph.initializers.map((t) => t.name));
  const feedable = model.graph.inputs.filter((v) => !initializerNames.has(v.name));
  return sets.map((set) => {
    const sdir = join(dir, set);
    const inputs: Record<string, RValue> = {};
    numbered(sdir, "input_").forEach((f, i) => {
      const target = feedable[i];
      const file = join(sdir, f);
      const bytes = readRegularFile(file, "tensor file");
      const { name, value } = decodeValueProto(bytes, target?.type, file, dirname(resolve(file)));
      const vi = model.graph.inputs.find((v) => v.name === name) ?? target;
      if (!vi) throw new OnnxError("E_RUNTIME", `${f} has no matching graph input`);
      if (vi.name in inputs)
        throw new OnnxError(
          "E_RUNTIME",
          `${f} gives input '${vi.name}' again (an earlier input file already did)`,
        );
      inputs[vi.name] = legacyBfloat16(value, vi.type);
    });
    const expected: [string, RValue][] = numbered(sdir, "output_").map((f, i) => {
      const target = model.graph.outputs[i];
      const file = join(sdir, f);
      const { name, value } = decodeValueProto(
        readRegularFile(file, "tensor file"),
        target?.type,
        file,
        dirname(resolve(file)),
      );
      const out = model.graph.outputs.find((o) => o.name === name) ?? target;
      if (!out) throw new OnnxError("E_RUNTIME", `${f} has no matching graph output`);
      return [out.name, legacyBfloat16(value, out.type)];
    });
    return { name: set, inputs, expected };
  });
}

/** How deep below a given folder test folders are looked for. */
const MAX_SEARCH_DEPTH = 64;

/**
 * The test directories under the given paths: a path holding model.onnx is one test; otherwise
 * its subfolders (recursively) that hold one are.
 */
export function findBackendTestDirs(paths: string[]): string[] {
  const out: string[] = [];
  // Folders already searched, by real path: a symlink back up the tree is followed once.
  const seen = new Set<string>();
  const visit = (p: string, depth: number) => {
    if (existsSync(join(p, "model.onnx"))) {
      out.push(p);
      return;
    }
    if (depth > MAX_SEARCH_DEPTH) return;
    let real: string;
    try {
      real = realpathSync(p);
    } catch {
      return;
    }
    if (seen.has(real)) return;
    seen.add(real);
    let entries: string[];
    try {
      entries = readdirSync(p).sort();
    } catch {
      return;
    }
    for (const e of entries) {
      const sub = join(p, e);
      try {
        if (statSync(sub).isDirectory() && !basename(sub).startsWith("test_data_set_"))
          visit(sub, depth + 1);
      } catch {
        /* unreadable: skip */
      }
    }
  };
  for (const p of paths) {
    if (!existsSync(p)) throw new OnnxError("E_IO", "no such directory", p);
    if (!statSync(p).isDirectory())
      throw new OnnxError("E_IO", "is a file, not a test folder (or a folder of them)", p);
    const before = out.length;
    visit(p, 0);
    if (out.length === before)
      throw new OnnxError("E_IO", "holds no model.onnx (not a backend-test directory)", p);
  }
  return out;
}
