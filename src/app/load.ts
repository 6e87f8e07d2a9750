// A model from a file's name and bytes, decided by the one rule of io/format.ts, as the command
// line's loadModel (io/files.ts) decides on disk. No file system here, so the page can use it.
// acceptModel holds every model to the rules of loading, wherever it was read.

import { assertOpsetImports } from "../check/opsets.js";
import { OnnxError } from "../errors.js";
import { decodeModel } from "../io/codec.js";
import { isTextPath, modelFromBytes as decodedFromBytes } from "../io/format.js";
import { externalLocation, externalRange } from "../io/external-range.js";
import { compactModel, LAZY_FROM, RANGED_FROM } from "../io/ranged.js";
import type { ByteSource } from "../ir/tensor.js";
import { walkTensors } from "../ir/visit.js";
import type { Model } from "../ir/types.js";

export { isTextPath as isTextModelName, looksBinary } from "../io/format.js";

/**
 * Every rule a model is held to when it is loaded, by the command line (cli/util.ts loadModel) and
 * the page (Session) alike, after decoding: its opset imports, each domain once at a version this
 * tool knows (check/opsets.ts), so that no command guesses at a duplicate or an unknown opset.
 * `where` names the file in the error. Returns the model.
 */
export function acceptModel(model: Model, where?: string): Model {
  assertOpsetImports(model, where);
  return model;
}

/** A model decoded from a file's name and bytes (io/format.ts), held to the rules of loading. */
export function modelFromBytes(bytes: Uint8Array, name: string): Model {
  return acceptModel(decodedFromBytes(bytes, name), name);
}

/** A file picked with a model (the page) or found beside it: its name and its bytes as a source. */
export interface PickedFile {
  /** The file's name, or its path inside a picked folder (`folder/model.onnx`). */
  name: string;
  source: ByteSource;
}

/** A model opened from picked files, and the data files it names that were not picked. */
export interface OpenedModel {
  name: string;
  model: Model;
  /** Locations of external data that no picked file provides (their tensors cannot be read). */
  missing: string[];
}

/**
 * The model among picked files, its external tensors given the range of the picked data files
 * they name (nothing read). A model file of RANGED_FROM bytes or more is read in ranges, as on
 * disk. The model is the one `.onnx` or `.onnxtxt` file, or the only file.
 */
export function modelFromFiles(files: PickedFile[]): OpenedModel {
  const models = files.filter((f) => /\.onnx(txt)?$/.test(f.name));
  const picked = models.length === 1 ? models[0] : files.length === 1 ? files[0] : undefined;
  if (!picked)
    throw new OnnxError(
      "E_USAGE",
      models.length
        ? `pick one model with its data files, not ${models.length} models (${models.map((m) => m.name).join(", ")})`
        : `none of the ${files.length} files picked is a model (.onnx or .onnxtxt)`,
    );
  const { name, source } = picked;
  let model: Model;
  if (!isTextPath(name) && source.size >= RANGED_FROM) {
    const compact = compactModel(source, LAZY_FROM, name);
    model = acceptModel(decodeModel(compact.bytes, { where: name, holes: compact.holes }), name);
  } else model = modelFromBytes(source.read(0, source.size), name);
  const folder = name.includes("/") ? name.slice(0, name.lastIndexOf("/") + 1) : "";
  const byName = new Map(files.map((f) => [f.name, f.source] as const));
  const missing = new Set<string>();
  for (const t of walkTensors(model)) {
    if (t.data.kind !== "external") continue;
    const loc = externalLocation(t);
    const path = insideFolder(folder, loc);
    if (path === undefined)
      throw new OnnxError(
        "E_MODEL",
        `external data location '${loc}' of tensor '${t.name}' escapes the model's folder`,
        name,
      );
    // A file picked on its own has no folder: it is found by its name.
    const s = byName.get(path) ?? byName.get(path.slice(path.lastIndexOf("/") + 1));
    if (!s) {
      missing.add(loc);
      continue;
    }
    t.data.range = { source: s, ...externalRange(t, s.size, name) };
  }
  return { name, model, missing: [...missing] };
}

/** `loc` inside `folder` as one path (no `.` or `..` left), or undefined when it leaves it. */
function insideFolder(folder: string, loc: string): string | undefined {
  if (loc === "" || loc.startsWith("/") || /^[A-Za-z]:[\\/]/.test(loc)) return undefined;
  const parts = folder.split("/").filter(Boolean);
  const base = parts.length;
  for (const p of loc.split(/[\\/]/)) {
    if (p === "" || p === ".") continue;
    if (p === "..") {
      if (parts.length === base) return undefined;
      parts.pop();
    } else parts.push(p);
  }
  return parts.join("/");
}
