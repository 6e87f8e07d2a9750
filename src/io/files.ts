// Models on disk: .onnx (protobuf) and .onnxtxt (ONNX text syntax), external data, atomic writes.

import {
  closeSync,
  existsSync,
  fstatSync,
  openSync,
  readFileSync,
  readSync,
  realpathSync,
  statSync,
  writeSync,
  type Stats,
} from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { OnnxError } from "../errors.js";
import { dtypeName, rawByteLength } from "../ir/dtype.js";
import { Tensor } from "../ir/tensor.js";
import { DataType, type Model } from "../ir/types.js";
import { printModel } from "../text/print.js";
import { encodeModelPieces, type EncodeOptions } from "./encode.js";
import { walkTensors } from "../ir/traverse.js";
import { decodeModel, encodeModel } from "./codec.js";
import { writeFileAtomic } from "./atomic.js";
import { isTextPath, modelFromBytes } from "./format.js";

export { decodeModel, encodeModel };
export {
  guardTempFiles,
  removeStaleTempFiles,
  writeFileAtomic,
  writeFilesAtomic,
} from "./atomic.js";

export { isTextPath };

/**
 * Writes a model's pieces to `fd`, one write each. (Not writev: measured here, one writevSync of
 * 230 pieces of 1 MiB took 3.7 s where 230 writeSync calls took 64-148 ms; at 11 MB the two were
 * alike. The model is encoded while the temporary file is open, as before: an error or Ctrl-C
 * then removes it, and nothing else was touched.)
 */
function writePieces(fd: number, pieces: Uint8Array[]): void {
  for (const piece of pieces) writeAll(fd, piece);
}

/**
 * The bytes of an input file. Folders, devices (/dev/zero never ends) and sockets are refused
 * before anything is read, and so are FIFOs unless `fifoOk` (a pipe given on the command line
 * ends; one found by listing a folder may never be written to).
 */
export function readInputFile(path: string, what = "file", fifoOk = false): Buffer {
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new OnnxError("E_IO", "no such file", path);
  }
  if (st.isDirectory()) throw new OnnxError("E_IO", `is a directory, not a ${what}`, path);
  if (st.isFIFO() && !fifoOk)
    throw new OnnxError("E_IO", `is a FIFO (named pipe), not a regular ${what}`, path);
  if (!st.isFile() && !st.isFIFO())
    throw new OnnxError("E_IO", `is a device or socket, not a ${what}`, path);
  try {
    return readFileSync(path);
  } catch (e) {
    throw new OnnxError(
      "E_IO",
      `cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      path,
    );
  }
}

/** readInputFile refusing FIFOs too: for files found by listing a folder. */
export function readRegularFile(path: string, what = "file"): Buffer {
  return readInputFile(path, what, false);
}

export interface LoadOptions {
  /** Read external tensor data into memory now (default: keep references, check the files exist). */
  loadExternal?: boolean;
  /** Force a format instead of going by the extension (.onnxtxt is text, anything else binary). */
  format?: "binary" | "text";
  /** Refuse anything but a regular file (a FIFO too), as for files found by listing a folder. */
  regularFileOnly?: boolean;
}

/** Loads a .onnx or .onnxtxt file. */
export function loadModel(path: string, opts: LoadOptions = {}): Model {
  const buf = readInputFile(path, "model file", !opts.regularFileOnly);
  const baseDir = dirname(resolve(path));
  let model: Model;
  // Decoding counts the tensors whose data is external; a model parsed from text is walked.
  const found = { external: -1 };
  model = modelFromBytes(buf, path, { format: opts.format, decode: { baseDir, found } });
  if (found.external === 0) return model;
  for (const t of walkTensors(model)) {
    if (t.data.kind !== "external") continue;
    t.data.baseDir ??= baseDir;
    checkExternalData(t, path);
    if (opts.loadExternal) loadExternalData(t, path);
  }
  return model;
}

/** The stat of a tensor's external data file, refused unless it is a regular file. */
function regularExternal(t: Tensor, st: Stats, where?: string): Stats {
  if (!st.isFile())
    throw new OnnxError(
      "E_IO",
      `external data location '${externalLocation(t)}' of tensor '${t.name}' is not a regular file`,
      where,
    );
  return st;
}

/**
 * Checks a tensor's external data without reading it: the location stays inside the folder of
 * the file that refers to it, names a regular file (not a FIFO, a device or a folder), and the
 * range lies inside that file. Returns the file and the range.
 */
export function checkExternalData(
  t: Tensor,
  where?: string,
): { file: string; offset: number; length: number } {
  const file = externalFile(t, where);
  if (!existsSync(file))
    throw new OnnxError(
      "E_IO",
      `external data file '${externalLocation(t)}' of tensor '${t.name}' does not exist`,
      where,
    );
  const st = regularExternal(t, statSync(file), where);
  return { file, ...externalRange(t, st.size, where) };
}

export function externalEntry(t: Tensor, key: string): string | undefined {
  if (t.data.kind !== "external") return undefined;
  return t.data.entries.find(([k]) => k === key)?.[1];
}
function externalLocation(t: Tensor): string {
  return externalEntry(t, "location") ?? "";
}

/** The absolute path of a tensor's external data file, refusing locations outside the model's folder. */
export function externalFile(t: Tensor, where?: string): string {
  if (t.data.kind !== "external") throw new Error("not an external tensor");
  const loc = externalLocation(t);
  const base = t.data.baseDir ?? process.cwd();
  if (loc === "")
    throw new OnnxError(
      "E_MODEL",
      `tensor '${t.name}' has external data without a location`,
      where,
    );
  const full = resolve(base, loc);
  const rel = relative(base, full);
  if (isAbsolute(loc) || rel.startsWith("..") || isAbsolute(rel))
    throw new OnnxError(
      "E_MODEL",
      `external data location '${loc}' of tensor '${t.name}' escapes the model's folder`,
      where,
    );
  if (existsSync(full)) {
    const realBase = realpathSync(base);
    const realRel = relative(realBase, realpathSync(full));
    if (realRel.startsWith("..") || isAbsolute(realRel))
      throw new OnnxError(
        "E_MODEL",
        `external data location '${loc}' of tensor '${t.name}' escapes the model's folder`,
        where,
      );
  }
  return full;
}

/** Where a tensor's bytes lie in its external data file of `size` bytes; refuses bad or out-of-file ranges. */
function externalRange(
  t: Tensor,
  size: number,
  where?: string,
): { offset: number; length: number } {
  for (const key of ["offset", "length"]) {
    const v = externalEntry(t, key);
    if (v !== undefined && !/^\d+$/.test(v.trim()))
      throw new OnnxError(
        "E_MODEL",
        `external data ${key} '${v}' of tensor '${t.name}' is not a non-negative integer`,
        where,
      );
  }
  const offset = Number(externalEntry(t, "offset") ?? "0");
  const lengthEntry = externalEntry(t, "length");
  const needed = rawByteLength(t.dataType, t.elementCount);
  if (t.dataType === DataType.STRING)
    throw new OnnxError(
      "E_MODEL",
      `tensor '${t.name}' is a string tensor, which cannot keep its data in an external file`,
      where,
    );
  if (lengthEntry !== undefined && needed >= 0 && Number(lengthEntry) !== needed)
    throw new OnnxError(
      "E_MODEL",
      `external data of tensor '${t.name}' is ${lengthEntry} bytes long, but ${tensorLabel(t)} takes ${needed}`,
      where,
    );
  // Without a length entry the tensor's bytes start at the offset and are as many as it takes.
  const length =
    lengthEntry !== undefined ? Number(lengthEntry) : needed >= 0 ? needed : size - offset;
  if (!(length >= 0) || offset + length > size)
    throw new OnnxError(
      "E_IO",
      `external data of tensor '${t.name}' (offset ${offset}, length ${length}${lengthEntry === undefined ? ` for ${tensorLabel(t)}` : ""}) is past the end of '${externalLocation(t)}' (${size} bytes)`,
      where,
    );
  return { offset, length };
}

/** A tensor's type as a user writes it: float[1024]. */
function tensorLabel(t: Tensor): string {
  return `${dtypeName(t.dataType)}[${t.dims.join(",")}]`;
}

/** Replaces a tensor's external reference with its bytes. */
export function loadExternalData(t: Tensor, where?: string): void {
  if (t.data.kind !== "external") return;
  const { file } = checkExternalData(t, where);
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    throw new OnnxError(
      "E_IO",
      `external data file '${externalLocation(t)}' of tensor '${t.name}' cannot be opened`,
      where,
    );
  }
  try {
    const st = regularExternal(t, fstatSync(fd), where);
    const { offset, length } = externalRange(t, st.size, where);
    const bytes = new Uint8Array(length);
    let got = 0;
    while (got < length) {
      const n = readSync(fd, bytes, got, length - got, offset + got);
      if (n <= 0) break;
      got += n;
    }
    t.data = { kind: "raw", bytes };
  } finally {
    closeSync(fd);
  }
}

export interface SaveOptions {
  /** Allow the output to replace the input file. */
  force?: boolean;
  /** The path the model was loaded from; saving onto it needs `force`. */
  inputPath?: string;
  /** Write tensors of at least `threshold` bytes (default 1024) into this file beside the model. */
  externalData?: { location: string; threshold?: number };
  /** For text output: omit large initializer data. */
  initializers?: boolean;
}

function samePath(a: string, b: string): boolean {
  const ra = resolve(a);
  const rb = resolve(b);
  if (ra === rb) return true;
  try {
    const sa = statSync(ra);
    const sb = statSync(rb);
    return sa.ino === sb.ino && sa.dev === sb.dev;
  } catch {
    return false;
  }
}

function writeAll(fd: number, c: Uint8Array): void {
  let off = 0;
  while (off < c.length) off += writeSync(fd, c, off, c.length - off);
}

/** Saves a model as .onnx or (by extension) .onnxtxt, atomically. */
export function saveModel(model: Model, path: string, opts: SaveOptions = {}): void {
  if (opts.inputPath && !opts.force && samePath(opts.inputPath, path))
    throw new OnnxError("E_USAGE", "output would overwrite the input (use --force to allow)", path);
  const outDir = dirname(resolve(path));
  // Tensors whose external file would no longer be found from the new folder are read in.
  for (const t of walkTensors(model))
    if (t.data.kind === "external" && resolve(t.data.baseDir ?? outDir) !== outDir)
      loadExternalData(t);
  if (isTextPath(path)) {
    if (opts.externalData)
      throw new OnnxError(
        "E_USAGE",
        "external data is for binary models; ONNX text holds tensor data inline",
        path,
      );
    const text = printModel(model, { initializers: opts.initializers ?? true });
    writeFileAtomic(path, (fd) => writeAll(fd, Buffer.from(text, "utf8")));
    return;
  }

  const ext = opts.externalData;
  if (!ext) {
    writeFileAtomic(path, (fd) => writePieces(fd, encodeModelPieces(model)));
    return;
  }
  if (ext.location.includes("/") || ext.location.includes(sep) || ext.location === "..")
    throw new OnnxError(
      "E_USAGE",
      `external data location '${ext.location}' must be a plain file name`,
      path,
    );
  const threshold = ext.threshold ?? 1024;
  const dataPath = join(outDir, ext.location);
  if (samePath(dataPath, path))
    throw new OnnxError(
      "E_USAGE",
      `external data file '${ext.location}' cannot be the output model itself`,
      path,
    );
  if (opts.inputPath && !opts.force && samePath(opts.inputPath, dataPath))
    throw new OnnxError(
      "E_USAGE",
      `external data file '${ext.location}' would overwrite the input (use --force to allow)`,
      path,
    );
  // Tensors that still refer to the file about to be rewritten are read in first.
  for (const t of walkTensors(model))
    if (t.data.kind === "external" && samePath(externalFile(t), dataPath)) loadExternalData(t);
  writeFileAtomic(dataPath, (dataFd) => {
    let offset = 0;
    const opts: EncodeOptions = {
      tensorHook: (t) => {
        if (t.data.kind !== "raw" || t.data.bytes.length < threshold) return t;
        const bytes = t.data.bytes;
        // Keep offsets aligned to 4 KiB so the data file can be memory-mapped by runtimes.
        const pad = (4096 - (offset % 4096)) % 4096;
        if (pad) writeAll(dataFd, new Uint8Array(pad));
        offset += pad;
        writeAll(dataFd, bytes);
        const entries: [string, string][] = [
          ["location", ext.location],
          ["offset", String(offset)],
          ["length", String(bytes.length)],
        ];
        offset += bytes.length;
        const out = new Tensor(t.dataType, t.dims, { kind: "external", entries }, t.name);
        if (t.docString !== undefined) out.docString = t.docString;
        if (t.metadataProps) out.metadataProps = t.metadataProps;
        if (t.segment) out.segment = t.segment;
        return out;
      },
    };
    writeFileAtomic(path, (fd) => writePieces(fd, encodeModelPieces(model, opts)));
  });
}
