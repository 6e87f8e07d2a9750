// Runs ONNX backend-test directories (model.onnx + test_data_set_*/input_*.pb, output_*.pb)
// through the interpreter and compares with the expected outputs.

import { existsSync, readdirSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { OnnxError } from "../errors.js";
import { bfloat16BitsToNumber, dtypeName, float16Table } from "../ir/dtype.js";
import { walkNodes } from "../ir/visit.js";
import { DataType, type Model, type Type } from "../ir/types.js";
import { loadModel, readRegularFile } from "../io/files.js";
import { decodeValueProto } from "./value-proto.js";
import { runValues, unsupportedOps } from "./executor.js";
import { elementString } from "./tensor.js";
import type { RTensor, RValue } from "./types.js";

export interface Tolerance {
  rtol: number;
  atol: number;
  /**
   * When set, float tensors are judged as a whole, ‖a − b‖₂ ≤ atol·√n + normRtol·‖b‖₂ (the
   * norm-wise error ‖a − b‖₂ / ‖b‖₂ at most normRtol, with atol's allowance per element), instead
   * of every element within atol + rtol·|b|. NaN and infinities must still be where the expected
   * ones are.
   */
  normRtol?: number;
}
/** ONNX's own tolerances for its backend tests. */
export const DEFAULT_TOLERANCE: Tolerance = { rtol: 1e-3, atol: 1e-7 };

/** How far a computed float tensor is from the expected one. */
export interface FloatErrors {
  /** The largest |a − b| over the finite elements, and its index. */
  maxAbs: number;
  maxAbsAt: number[];
  /** The largest |a − b| / |b| (infinite where b is 0 and a is not), and its index. */
  maxRel: number;
  maxRelAt: number[];
  /** ‖a − b‖₂ / ‖b‖₂ over the finite elements (0 when a = b, infinite when b = 0 ≠ a). */
  norm: number;
  /** Elements where a NaN or an infinity is not matched by the same in the other. */
  nonFinite: number;
  /** ‖a − b‖₂ and ‖b‖₂ over the finite elements. */
  diffNorm: number;
  refNorm: number;
}

export interface BackendTestResult {
  dir: string;
  ok: boolean;
  /** Why it failed (one line). */
  reason?: string;
  /** Ops of the model the interpreter has no kernel for (the failure is then expected). */
  missingOps: string[];
  /** Ops used by the model (ai.onnx ops by type, others as domain.op), including subgraphs. */
  ops: string[];
  /** The errors of each float output compared, per data set (up to the first failure). */
  errors?: OutputErrors[];
}

export interface OutputErrors {
  /** The data set's folder name. */
  set: string;
  output: string;
  errors: FloatErrors;
}

/** Compares a computed value with an expected one: undefined when they agree, else what differs. */
export type Compare<T> = (actual: T, expected: T, tol?: Tolerance) => string | undefined;

function numericValue(t: RTensor, i: number): number | bigint | string {
  const v = t.data[i]!;
  if (t.dtype === DataType.FLOAT16) return float16Table()[v as number]!;
  if (t.dtype === DataType.BFLOAT16) return bfloat16BitsToNumber(v as number);
  return v;
}

const isFloatTensor = (t: RTensor) =>
  t.dtype === DataType.FLOAT ||
  t.dtype === DataType.DOUBLE ||
  t.dtype === DataType.FLOAT16 ||
  t.dtype === DataType.BFLOAT16;

/** A flat index as a multi-index of the shape. */
function unravel(i: number, shape: readonly number[]): number[] {
  const at = new Array<number>(shape.length).fill(0);
  for (let k = shape.length - 1; k >= 0 && i > 0; k--) {
    const d = shape[k]!;
    at[k] = d > 0 ? i % d : 0;
    i = d > 0 ? Math.floor(i / d) : 0;
  }
  return at;
}

const sameShape = (a: RTensor, b: RTensor) =>
  a.dtype === b.dtype &&
  a.shape.length === b.shape.length &&
  a.shape.every((d, i) => d === b.shape[i]);

/**
 * The errors of a computed float tensor against the expected one: the largest absolute and
 * relative error and where they are, and the norm-wise error. Undefined when the tensors are not
 * floats of the same type and shape.
 */
export function floatErrors(actual: RTensor, expected: RTensor): FloatErrors | undefined {
  if (!isFloatTensor(expected) || !sameShape(actual, expected)) return undefined;
  let maxAbs = 0;
  let maxAbsI = 0;
  let maxRel = 0;
  let maxRelI = 0;
  let diff2 = 0;
  let ref2 = 0;
  let nonFinite = 0;
  for (let i = 0; i < expected.data.length; i++) {
    const x = numericValue(actual, i) as number;
    const y = numericValue(expected, i) as number;
    if (!Number.isFinite(y) || !Number.isFinite(x)) {
      if (!(Number.isNaN(x) && Number.isNaN(y)) && x !== y) nonFinite++;
      continue;
    }
    const d = Math.abs(x - y);
    diff2 += d * d;
    ref2 += y * y;
    if (d > maxAbs) {
      maxAbs = d;
      maxAbsI = i;
    }
    const r = d === 0 ? 0 : y === 0 ? Infinity : d / Math.abs(y);
    if (r > maxRel) {
      maxRel = r;
      maxRelI = i;
    }
  }
  const norm = diff2 === 0 ? 0 : ref2 === 0 ? Infinity : Math.sqrt(diff2 / ref2);
  return {
    maxAbs,
    maxAbsAt: unravel(maxAbsI, expected.shape),
    maxRel,
    maxRelAt: unravel(maxRelI, expected.shape),
    norm,
    nonFinite,
    diffNorm: Math.sqrt(diff2),
    refNorm: Math.sqrt(ref2),
  };
}

const g3 = (x: number) => String(Number.isFinite(x) ? Number(x.toPrecision(3)) : x);

/** One line: "max abs error 2e-6 at [0,3], max rel error 0.00105 at [0,7], norm-wise 3.1e-7". */
export function formatFloatErrors(e: FloatErrors): string {
  return (
    `max abs error ${g3(e.maxAbs)} at [${e.maxAbsAt.join(",")}], ` +
    `max rel error ${g3(e.maxRel)} at [${e.maxRelAt.join(",")}], norm-wise ${g3(e.norm)}` +
    (e.nonFinite ? `, ${e.nonFinite} unmatched NaN or infinities` : "")
  );
}

/**
 * Compares a computed tensor with an expected one: same dtype and shape; floats within
 * atol + rtol·|expected| (NaN equals NaN, infinities must match exactly), or with
 * `tol.normRtol` by their norm-wise error; others exactly.
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
  const isFloat = isFloatTensor(expected);
  if (isFloat && tol.normRtol !== undefined) {
    const e = floatErrors(actual, expected)!;
    // The element-wise rule's norm-wise form: ‖a − b‖ ≤ atol·√n + normRtol·‖b‖.
    if (e.nonFinite === 0 && e.diffNorm <= tol.atol * Math.sqrt(n) + tol.normRtol * e.refNorm)
      return undefined;
    return `norm-wise error ${g3(e.norm)} is over ${tol.normRtol} (${formatFloatErrors(e)})`;
  }
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
    const errors: OutputErrors[] = [];
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
        const got = outputs[name]!; // (outputs: the run's, a null-prototype record)
        const e = "dtype" in got && "dtype" in value ? floatErrors(got, value) : undefined;
        if (e) errors.push({ set: set.name, output: name, errors: e });
        const diff = compareValues(got, value, tol);
        if (diff)
          return {
            dir,
            ok: false,
            reason: `${set.name}: output '${name}': ${diff}`,
            missingOps,
            ops,
            errors,
          };
      }
    }
    return { dir, ok: true, missingOps, ops, errors };
  } catch (e) {
    return { dir, ok: false, reason: (e as Error).message.split("\n")[0], missingOps, ops };
  }
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
    const inputs: Record<string, RValue> = Object.create(null);
    numbered(sdir, "input_").forEach((f, i) => {
      const target = feedable[i];
      const file = join(sdir, f);
      const bytes = readRegularFile(file, "tensor file");
      const { name, value } = decodeValueProto(bytes, target?.type, file, dirname(resolve(file)));
      const vi = model.graph.inputs.find((v) => v.name === name) ?? target;
      if (!vi) throw new OnnxError("E_RUNTIME", `${f} has no matching graph input`);
      if (Object.hasOwn(inputs, vi.name))
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
