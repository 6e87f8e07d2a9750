// Values for a model's graph inputs, bound the same way on the command line and in the page:
// files (.npy by extension or signature, else a TensorProto, or a Sequence/OptionalProto for inputs
// declared so), JSON literals read at the declared element type, and seeded random tensors.
// Files are read through a callback, so this holds no file system and the page can use it.

import { OnnxError } from "../errors.js";
import type { Model, Type, ValueInfo } from "../ir/types.js";
import { DataType } from "../ir/types.js";
import { parseJsonTensor } from "../interp/json-tensor.js";
import { decodeNpy } from "../interp/npy.js";
import type { RValue } from "../interp/types.js";
import { decodeValueProto } from "../interp/value-proto.js";
import { parseDims } from "./dims.js";
import { randomInputs } from "./random-inputs.js";
import type { TakenDim } from "./random-dims.js";

/** One given input: a JSON literal or a file, for a named input or the next one in order. */
export type InputArg = { name?: string } & ({ json: string } | { file: string });

/** A file's bytes; `baseDir`: where a TensorProto's external data lives (none in the page). */
export interface InputFile {
  bytes: Uint8Array;
  baseDir?: string;
}

/** How the page asks for inputs: seeded random, a JSON object by input name, or files. */
export type InputRequest =
  | { mode: "random"; seed?: number; dims?: string }
  | { mode: "json"; json: string }
  | { mode: "files"; files: { name: string; bytes: Uint8Array }[] };

/** The element type an input declares (float when it declares none). */
export function declaredDtype(t: Type | undefined): number {
  return t && t.kind === "tensor" && t.elemType ? t.elemType : DataType.FLOAT;
}

/** Graph inputs a caller must give: those without an initializer as default, in order. */
export function requiredInputs(model: Model): ValueInfo[] {
  const defaults = new Set(model.graph.initializers.map((t) => t.name));
  return model.graph.inputs.filter((v) => !defaults.has(v.name));
}

/** A value from a file's bytes, decoded as `vi` declares it; errors name the file. */
export function decodeInputFile(name: string, f: InputFile, vi: ValueInfo): RValue {
  const b = f.bytes;
  if (name.endsWith(".npy") || (b[0] === 0x93 && b[1] === 0x4e)) return decodeNpy(b, name);
  return decodeValueProto(b, vi.type, name, f.baseDir).value;
}

/**
 * Binds given inputs to graph inputs: a named one to that input, an unnamed one to the next
 * input in graph order that has no default and is not yet given. `read` is asked for a file's
 * bytes only once its input is known.
 */
export function bindInputs(
  model: Model,
  args: InputArg[],
  read: (file: string) => InputFile,
): Record<string, RValue> {
  const g = model.graph;
  const byName = new Map(g.inputs.map((v) => [v.name, v]));
  const positional = requiredInputs(model);
  // Keyed by the model's input names: an input `__proto__` is a name like any other.
  const out: Record<string, RValue> = Object.create(null);
  let next = 0;
  for (const arg of args) {
    let vi: ValueInfo | undefined;
    if (arg.name !== undefined) {
      vi = byName.get(arg.name);
      if (!vi)
        throw new OnnxError(
          "E_USAGE",
          `the model has no input named '${arg.name}' (inputs: ${g.inputs.map((v) => v.name).join(", ") || "none"})`,
        );
      if (Object.hasOwn(out, arg.name))
        throw new OnnxError("E_USAGE", `input '${arg.name}' is given twice`);
    } else {
      while (next < positional.length && Object.hasOwn(out, positional[next]!.name)) next++;
      vi = positional[next++];
      if (!vi)
        throw new OnnxError(
          "E_USAGE",
          `too many inputs: the model takes ${positional.length} (${positional.map((v) => v.name).join(", ")})`,
          "file" in arg ? arg.file : undefined,
        );
    }
    out[vi.name] =
      "json" in arg
        ? parseJsonTensor(arg.json, declaredDtype(vi.type), `input '${vi.name}'`)
        : decodeInputFile(arg.file, read(arg.file), vi);
  }
  return out;
}

/** A JSON object of input name → literal, as InputArgs. */
export function jsonInputArgs(text: string): InputArg[] {
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch (e) {
    throw new OnnxError("E_USAGE", `inputs JSON: ${(e as Error).message}`);
  }
  if (!obj || typeof obj !== "object" || Array.isArray(obj))
    throw new OnnxError("E_USAGE", 'inputs JSON must be an object: {"input name": [values...]}');
  return Object.entries(obj).map(([name, value]) => ({ name, json: JSON.stringify(value) }));
}

/**
 * The page's inputs: random, JSON or files (a file named after an input, `x.npy` or `x.pb`, goes
 * to that input, the others in graph order as on the command line). Every input without a default
 * must be given. Random inputs push the dims they chose to `taken` (random-dims.ts).
 */
export function requestedInputs(
  model: Model,
  req: InputRequest,
  taken?: TakenDim[],
): Record<string, RValue> {
  let out: Record<string, RValue>;
  if (req.mode === "random")
    out = randomInputs(model, req.seed ?? 0, parseDims(req.dims ?? ""), [], taken);
  else if (req.mode === "json") out = bindInputs(model, jsonInputArgs(req.json), noFiles);
  else {
    const names = new Set(model.graph.inputs.map((v) => v.name));
    const bytes = new Map(req.files.map((f) => [f.name, f.bytes] as const));
    const args: InputArg[] = req.files.map((f) => {
      const stem = f.name.replace(/\.(npy|pb)$/, "");
      return names.has(stem) ? { name: stem, file: f.name } : { file: f.name };
    });
    out = bindInputs(model, args, (name) => ({ bytes: bytes.get(name)! }));
  }
  for (const v of requiredInputs(model))
    if (!Object.hasOwn(out, v.name))
      throw new OnnxError("E_USAGE", `input '${v.name}' is not given`);
  return out;
}

function noFiles(file: string): never {
  throw new OnnxError("E_USAGE", "no files given", file);
}
