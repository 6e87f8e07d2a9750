// Saving a model: where each tensor's bytes go (inline, a reference kept, or a data file beside
// the output), then the model and its data file written together, atomically, with tensor bytes
// streamed from wherever they are (memory, a range of the input file, a data file) to the output
// in chunks. The rules (docs/semantics.md, "Models of any size"):
//
// - no protobuf reaches 2 GiB: an output that would is written with external data, always, and
//   one that cannot fit even then (or must be inline: `inlineData`) is refused;
// - a tensor that was external stays external: into the folder its data file is in, the output
//   refers to the same file (unless that file is the one being written); into another folder its
//   bytes are copied into the output's data file;
// - in a model with external data, every other tensor of `threshold` bytes or more (what a
//   transform made, large inline data) goes to the output's data file;
// - `externalData` moves every tensor of `threshold` bytes or more into the file it names; the
//   rest is inline;
// - tensors in a data file start at multiples of 4 KiB (runtimes may map the file into memory).

import { ftruncateSync, statSync, writeSync } from "node:fs";
import { basename, dirname, join, resolve, sep } from "node:path";
import { OnnxError } from "../errors.js";
import { Tensor, type ByteRange } from "../ir/tensor.js";
import type { Model } from "../ir/types.js";
import { walkTensors } from "../ir/traverse.js";
import { isRangePiece, type Piece } from "../proto/writer.js";
import { printModel } from "../text/print.js";
import { writeFilesAtomic } from "./atomic.js";
import { encodeModelPieces } from "./encode.js";
import { externalFile } from "./external.js";
import { FileSource } from "./file-source.js";
import { isTextPath } from "./format.js";

/** Protobuf's limit on a message: its readers (onnxruntime's, ONNX's) refuse anything larger. */
export const PROTOBUF_LIMIT = 2147483647;
/** ONNX's default threshold for tensors written to external data. */
export const DEFAULT_THRESHOLD = 1024;
const ALIGN = 4096;
/** Chunks of a range copied from its source to the output. */
const COPY_CHUNK = 8 << 20;

export interface SaveOptions {
  /** Allow the output to replace the input file. */
  force?: boolean;
  /** The path the model was loaded from; saving onto it needs `force`. */
  inputPath?: string;
  /**
   * Write every tensor of at least `threshold` bytes (default: `sizeThreshold`, else 1024) into
   * this file beside the model (a plain file name).
   */
  externalData?: { location: string; threshold?: number };
  /** Every tensor inline; refused when the model would reach protobuf's 2 GiB limit. */
  inlineData?: boolean;
  /** The smallest tensor (bytes) written to a data file by the rules above (default 1024). */
  sizeThreshold?: number;
  /** For text output: omit large initializer data. */
  initializers?: boolean;
  /** Testing: the size limit of one protobuf (default: protobuf's 2 GiB). */
  limit?: number;
}

/** What a save wrote. */
export interface SaveReport {
  /** Bytes of the model file. */
  modelBytes: number;
  /** The data file written, with its size and the number of tensors in it. */
  data?: { path: string; bytes: number; tensors: number };
  /** Tensors left referring to data files that were already there. */
  kept: number;
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

/** An item of the data file: bytes in memory or a range, at an offset. */
interface DataItem {
  at: number;
  bytes: Uint8Array | ByteRange;
}

type Placement = "keep" | "inline" | "data";

/** Where every tensor of a model goes, and the data file's contents. */
class Layout {
  readonly items: DataItem[] = [];
  private size = 0;
  private readonly done = new Map<Tensor, Tensor>();
  kept = 0;

  constructor(
    private readonly dataName: string,
    private readonly place: (t: Tensor) => Placement,
  ) {}

  get dataBytes(): number {
    return this.size;
  }

  /** The tensor as the output holds it (called by the encoder for each tensor it writes). */
  readonly hook = (t: Tensor): Tensor => {
    const hit = this.done.get(t);
    if (hit) return hit;
    const out = this.map(t);
    this.done.set(t, out);
    return out;
  };

  private map(t: Tensor): Tensor {
    const d = t.data;
    if (d.kind === "string" || d.kind === "none") return t;
    switch (this.place(t)) {
      case "keep":
        this.kept++;
        return t;
      case "inline": {
        if (d.kind !== "external") return t;
        if (!d.range)
          throw new OnnxError(
            "E_IO",
            `tensor '${t.name}' has external data that was never found, so it cannot be written inline`,
          );
        return withData(t, { kind: "lazy", range: d.range });
      }
      case "data": {
        const bytes = d.kind === "lazy" ? d.range : d.kind === "external" ? d.range : t.rawBytes();
        if (!bytes)
          throw new OnnxError(
            "E_IO",
            `tensor '${t.name}' has external data that was never found, so it cannot be copied`,
          );
        const at = Math.ceil(this.size / ALIGN) * ALIGN;
        this.items.push({ at, bytes });
        this.size = at + bytes.length;
        return withData(t, {
          kind: "external",
          entries: [
            ["location", this.dataName],
            ["offset", String(at)],
            ["length", String(bytes.length)],
          ],
        });
      }
    }
  }
}

/** A copy of a tensor with other data (name, type, doc string and the rest kept). */
function withData(t: Tensor, data: Tensor["data"]): Tensor {
  const out = new Tensor(t.dataType, t.dims, data, t.name);
  if (t.docString !== undefined) out.docString = t.docString;
  if (t.metadataProps) out.metadataProps = t.metadataProps;
  if (t.segment) out.segment = t.segment;
  return out;
}

/** The tensors of a model that hold data, each once. */
function dataTensors(model: Model): Tensor[] {
  return [...new Set(walkTensors(model))].filter(
    (t) => t.data.kind !== "string" && t.data.kind !== "none",
  );
}

/** Saves a model as .onnx or (by extension) .onnxtxt, atomically, under the rules above. */
export function saveModel(model: Model, path: string, opts: SaveOptions = {}): SaveReport {
  if (opts.inputPath && !opts.force && samePath(opts.inputPath, path))
    throw new OnnxError("E_USAGE", "output would overwrite the input (use --force to allow)", path);
  if (opts.inlineData && opts.externalData)
    throw new OnnxError(
      "E_USAGE",
      "inline data and an external data file exclude each other",
      path,
    );
  const outDir = dirname(resolve(path));
  const explicit = opts.externalData;
  const dataName = explicit?.location ?? `${basename(path)}.data`;
  if (dataName.includes("/") || dataName.includes(sep) || dataName === ".." || dataName === ".")
    throw new OnnxError(
      "E_USAGE",
      `external data location '${dataName}' must be a plain file name`,
      path,
    );
  const dataPath = join(outDir, dataName);
  if (samePath(dataPath, path))
    throw new OnnxError(
      "E_USAGE",
      `external data file '${dataName}' cannot be the output model itself`,
      path,
    );
  const threshold = explicit?.threshold ?? opts.sizeThreshold ?? DEFAULT_THRESHOLD;
  const tensors = dataTensors(model);
  const hasExternal = tensors.some((t) => t.data.kind === "external");
  const hasLazy = tensors.some((t) => !t.inMemory);

  // A data file already there that tensors refer to is never written over in place: those
  // tensors are copied into the new one (their file stays open, so they read what was there).
  const rewrites = (t: Tensor) => {
    try {
      return samePath(externalFile(t), dataPath);
    } catch {
      return false;
    }
  };
  const keeps = (t: Tensor) =>
    t.data.kind === "external" && resolve(t.data.baseDir ?? outDir) === outDir && !rewrites(t);
  const large = (t: Tensor) => t.byteLength >= threshold;

  /** The placement rule; `spill`: tensors not kept go to the data file when large. */
  const rule = (spill: boolean) => (t: Tensor) => {
    if (opts.inlineData) return "inline";
    if (explicit) return large(t) ? "data" : "inline";
    if (keeps(t)) return "keep";
    if (t.data.kind === "external") return "data";
    return spill && large(t) ? "data" : "inline";
  };

  if (opts.inputPath && !opts.force && samePath(opts.inputPath, dataPath))
    throw new OnnxError(
      "E_USAGE",
      `external data file '${dataName}' would overwrite the input (use --force to allow)`,
      path,
    );

  if (isTextPath(path)) {
    // Text holds tensor data inline as values; what was external stays external (no 2 GiB limit).
    const layout = new Layout(dataName, rule(false));
    const text = printModel(model, {
      initializers: opts.initializers ?? true,
      ...(hasExternal || explicit || opts.inlineData ? { tensorHook: layout.hook } : {}),
    });
    const files = dataFile(dataPath, layout);
    writeFilesAtomic([...files, { path, write: (fd) => writeAll(fd, Buffer.from(text, "utf8")) }]);
    return report(layout, dataPath, Buffer.byteLength(text, "utf8"));
  }

  const limit = opts.limit ?? PROTOBUF_LIMIT;
  // A model whose tensors are all inline and in memory is written as before, with no hook.
  const plain = !hasExternal && !hasLazy && !explicit;
  let layout = new Layout(dataName, rule(hasExternal));
  let pieces = encodeModelPieces(model, plain ? {} : { tensorHook: layout.hook });
  let size = totalLength(pieces);
  if (size > limit && !explicit) {
    if (opts.inlineData)
      throw new OnnxError(
        "E_USAGE",
        `the model is ${size} bytes with its tensors inline, past protobuf's 2 GiB limit: save it with external data`,
        path,
      );
    // Past the limit: every large tensor not kept goes to the data file.
    layout = new Layout(dataName, rule(true));
    pieces = encodeModelPieces(model, { tensorHook: layout.hook });
    size = totalLength(pieces);
  }
  if (size > limit)
    throw new OnnxError(
      "E_USAGE",
      `the model is ${size} bytes even with every tensor of ${threshold} bytes or more in external data, past protobuf's 2 GiB limit${threshold > 1 ? " (a lower --size-threshold may help)" : ""}`,
      path,
    );
  writeFilesAtomic([
    ...dataFile(dataPath, layout),
    { path, write: (fd) => writePieces(fd, pieces) },
  ]);
  return report(layout, dataPath, size);
}

function report(layout: Layout, dataPath: string, modelBytes: number): SaveReport {
  return {
    modelBytes,
    kept: layout.kept,
    ...(layout.items.length
      ? { data: { path: dataPath, bytes: layout.dataBytes, tensors: layout.items.length } }
      : {}),
  };
}

/** The data file to write, when any tensor goes to it. */
function dataFile(
  dataPath: string,
  layout: Layout,
): { path: string; write: (fd: number) => void }[] {
  if (layout.items.length === 0) return [];
  return [
    {
      path: dataPath,
      write: (fd) => {
        const out = new Sink(fd);
        for (const item of layout.items) {
          out.skip(item.at - out.pos); // alignment padding: a hole, read as zeros
          out.piece(item.bytes);
        }
        out.end();
      },
    },
  ];
}

function totalLength(pieces: Piece[]): number {
  let n = 0;
  for (const p of pieces) n += p.length;
  return n;
}

export function writeAll(fd: number, c: Uint8Array): void {
  let off = 0;
  while (off < c.length) off += writeSync(fd, c, off, c.length - off);
}

/**
 * Writes a model's pieces to `fd`, one write each (not writev: measured here, one writevSync of
 * 230 pieces of 1 MiB took 3.7 s where 230 writeSync calls took 64-148 ms), ranges copied from
 * their source in chunks.
 */
export function writePieces(fd: number, pieces: Piece[]): void {
  const out = new Sink(fd);
  for (const piece of pieces) out.piece(piece);
  out.end();
}

let copyBuffer: Uint8Array | undefined;

/**
 * An output file written front to back at positions of its own. A chunk of a range that is all
 * zeros is not written but skipped (a hole, as `cp --sparse=auto` leaves): a sparse input stays
 * sparse, and real data pays one look at its first bytes.
 */
class Sink {
  pos = 0;
  private holeAtEnd = false;
  constructor(private readonly fd: number) {}

  skip(n: number): void {
    if (n <= 0) return;
    this.pos += n;
    this.holeAtEnd = true;
  }

  write(b: Uint8Array): void {
    let off = 0;
    while (off < b.length) off += writeSync(this.fd, b, off, b.length - off, this.pos + off);
    this.pos += b.length;
    if (b.length) this.holeAtEnd = false;
  }

  /** Bytes, or a range copied a chunk at a time through one buffer. */
  piece(p: Uint8Array | ByteRange | Piece): void {
    if (!isRangePiece(p as Piece)) return this.write(p as Uint8Array);
    const r = p as ByteRange;
    const source = r.source;
    const buf = (copyBuffer ??= new Uint8Array(COPY_CHUNK));
    for (let at = 0; at < r.length;) {
      const n = Math.min(COPY_CHUNK, r.length - at);
      const chunk = buf.subarray(0, n);
      const got =
        source instanceof FileSource
          ? source.readInto(chunk, r.offset + at)
          : copyInto(chunk, source.read(r.offset + at, n));
      if (got !== n)
        throw new OnnxError(
          "E_IO",
          `'${source.name}' ended early: ${r.offset + at + got} bytes where ${r.offset + r.length} were expected (it changed while being read)`,
        );
      if (allZero(chunk)) this.skip(n);
      else this.write(chunk);
      at += n;
    }
  }

  /** Gives the file its full length when it ends in a hole. */
  end(): void {
    if (this.holeAtEnd) ftruncateSync(this.fd, this.pos);
  }
}

let zeros: Uint8Array | undefined;

/** Whether a chunk is all zeros (a native compare: ~10x a JavaScript loop over words). */
function allZero(b: Uint8Array): boolean {
  if (b.length === 0 || b[0] !== 0) return false;
  zeros ??= new Uint8Array(COPY_CHUNK);
  return Buffer.compare(b, zeros.subarray(0, b.length)) === 0;
}

function copyInto(into: Uint8Array, from: Uint8Array): number {
  into.set(from.subarray(0, into.length));
  return from.length;
}
