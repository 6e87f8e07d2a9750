// Where each tensor of a model goes when it is written (no file system here: the command line's
// saveModel and the page's download share it): kept as a reference to the data file it is in,
// inline, or into the output's data file (at a 4 KiB aligned offset when of 1 MiB or more); then the model encoded with
// that placement, its protobuf held under 2 GiB. The rules are docs/semantics.md's "Models of
// any size"; io/save.ts writes the result.

import { OnnxError } from "../errors.js";
import { Tensor, type ByteRange, type ByteSource } from "../ir/tensor.js";
import { walkTensors } from "../ir/visit.js";
import type { Model } from "../ir/types.js";
import type { Piece } from "../proto/writer.js";
import { printModel } from "../text/print.js";
import { encodeModelPieces } from "./encode.js";

/** Protobuf's limit on a message: its readers (onnxruntime's, ONNX's) refuse anything larger. */
export const PROTOBUF_LIMIT = 2147483647;
/** ONNX's default threshold for tensors written to external data. */
export const DEFAULT_THRESHOLD = 1024;
/** Tensors of ALIGN_FROM bytes or more start at a multiple of ALIGN (a page: mapped in place). */
const ALIGN = 4096;
/** Smaller ones are packed one after the other: aligning them would pad a byte to 4 KiB. */
export const ALIGN_FROM = 1 << 20;

export interface PlaceOptions {
  /** The output's data file (a plain name beside it). */
  dataName: string;
  /** Every tensor of `threshold` bytes or more to the data file, the rest inline. */
  external?: boolean;
  /** Every tensor inline. */
  inline?: boolean;
  /** The smallest tensor the rules put in the data file. */
  threshold: number;
  /** Whether an external tensor keeps referring to its data file (the same folder, not rewritten). */
  keeps: (t: Tensor) => boolean;
  /** The size limit of one protobuf (default: protobuf's). */
  limit?: number;
  /**
   * Whether a source can be copied whole into the data file by the writer (the kernel copies a
   * file faster than any loop of reads and writes); absent: never.
   */
  copiesWhole?: (s: ByteSource) => boolean;
}

/**
 * A source copied whole to the start of the data file, its tensors at their own offsets: one
 * whose tensors going to the data file cover at least this share of it (so that the data file
 * holds little that no tensor needs) and at least COPY_WHOLE_FROM bytes.
 */
const COPY_WHOLE_SHARE = 0.9;
const COPY_WHOLE_FROM = 1 << 20;

/** An item of the data file: bytes in memory or a range, at an offset. */
export interface DataItem {
  at: number;
  bytes: Uint8Array | ByteRange;
  /** The item is a whole source (at 0), copied by the kernel. */
  whole?: boolean;
}

type Placement = "keep" | "inline" | "data";

/** Where every tensor of a model goes, and the data file's contents. */
export class Layout {
  readonly items: DataItem[] = [];
  private size = 0;
  private readonly done = new Map<Tensor, Tensor>();
  kept = 0;

  constructor(
    private readonly dataName: string,
    private readonly place: (t: Tensor) => Placement,
    private readonly whole?: ByteSource,
  ) {
    if (whole) {
      this.items.push({
        at: 0,
        bytes: { source: whole, offset: 0, length: whole.size },
        whole: true,
      });
      this.size = whole.size;
    }
  }

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
        let at: number;
        if (this.whole && !(bytes instanceof Uint8Array) && bytes.source === this.whole) {
          at = bytes.offset; // in the copy of its whole file, where it was
        } else {
          at = bytes.length >= ALIGN_FROM ? Math.ceil(this.size / ALIGN) * ALIGN : this.size;
          this.items.push({ at, bytes });
          this.size = at + bytes.length;
        }
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

/** The placement rule; `spill`: tensors not kept go to the data file when large. */
function rule(o: PlaceOptions, spill: boolean): (t: Tensor) => Placement {
  return (t) => {
    if (o.inline) return "inline";
    const large = t.byteLength >= o.threshold;
    if (o.external) return large ? "data" : "inline";
    if (o.keeps(t)) return "keep";
    if (t.data.kind === "external") return "data";
    return spill && large ? "data" : "inline";
  };
}

/**
 * The placement of a text output (no size limit: what was external stays external, the rest is
 * printed), or undefined when every tensor is printed as it is.
 */
export function textLayout(model: Model, o: PlaceOptions): Layout | undefined {
  const hasExternal = dataTensors(model).some((t) => t.data.kind === "external");
  if (!hasExternal && !o.external && !o.inline) return undefined;
  return new Layout(o.dataName, rule(o, false));
}

/** A model encoded for writing: its pieces (ranges among them), their size, the data file's items. */
export interface Placed {
  pieces: Piece[];
  size: number;
  layout: Layout;
}

/**
 * The model encoded under the rules: one protobuf of at most `limit` bytes, with what does not
 * fit (or must not be inline) in the data file. Refused with one line when it cannot fit.
 */
export function placeModel(model: Model, o: PlaceOptions, where?: string): Placed {
  const tensors = dataTensors(model);
  const hasExternal = tensors.some((t) => t.data.kind === "external");
  const hasStored = tensors.some((t) => !t.inMemory);
  const limit = o.limit ?? PROTOBUF_LIMIT;
  // A model whose tensors are all inline and in memory is encoded as before, with no hook.
  const plain = !hasExternal && !hasStored && !o.external;
  let layout = new Layout(
    o.dataName,
    rule(o, hasExternal),
    wholeSource(tensors, o, rule(o, hasExternal)),
  );
  let pieces = encodeModelPieces(model, plain ? {} : { tensorHook: layout.hook });
  let size = totalLength(pieces);
  if (size > limit && !o.external) {
    if (o.inline)
      throw new OnnxError(
        "E_USAGE",
        `the model is ${size} bytes with its tensors inline, past protobuf's 2 GiB limit: save it with external data`,
        where,
      );
    // Past the limit: every large tensor not kept goes to the data file.
    layout = new Layout(o.dataName, rule(o, true), wholeSource(tensors, o, rule(o, true)));
    pieces = encodeModelPieces(model, { tensorHook: layout.hook });
    size = totalLength(pieces);
  }
  if (size > limit)
    throw new OnnxError(
      "E_USAGE",
      `the model is ${size} bytes even with every tensor of ${o.threshold} bytes or more in external data, past protobuf's 2 GiB limit${o.threshold > 1 ? " (a lower --size-threshold may help)" : ""}`,
      where,
    );
  return { pieces, size, layout };
}

/**
 * The source to copy whole into the data file, if any: the one whose ranges going there cover
 * the most of it, when they cover at least COPY_WHOLE_SHARE of a source the writer can copy.
 */
function wholeSource(
  tensors: Tensor[],
  o: PlaceOptions,
  place: (t: Tensor) => Placement,
): ByteSource | undefined {
  if (!o.copiesWhole) return undefined;
  const ranges = new Map<ByteSource, [number, number][]>();
  for (const t of tensors) {
    const d = t.data;
    const r = d.kind === "lazy" || d.kind === "external" ? d.range : undefined;
    if (!r || r.length === 0 || place(t) !== "data") continue;
    let list = ranges.get(r.source);
    if (!list) ranges.set(r.source, (list = []));
    list.push([r.offset, r.offset + r.length]);
  }
  let best: ByteSource | undefined;
  let bestCovered = 0;
  for (const [source, list] of ranges) {
    if (source.size < COPY_WHOLE_FROM || !o.copiesWhole(source)) continue;
    list.sort((a, b) => a[0] - b[0]);
    let covered = 0;
    let end = 0;
    for (const [a, b] of list) {
      if (b <= end) continue;
      covered += b - Math.max(a, end);
      end = b;
    }
    if (covered >= COPY_WHOLE_SHARE * source.size && covered > bestCovered) {
      best = source;
      bestCovered = covered;
    }
  }
  return best;
}

function totalLength(pieces: Piece[]): number {
  let n = 0;
  for (const p of pieces) n += p.length;
  return n;
}

/** A model as saving writes it: the model file's pieces and size, and its data file's layout. */
export interface SavedForm {
  pieces: Piece[];
  size: number;
  /** The data file's tensors at their offsets (none: the model keeps no data file). */
  layout?: Layout;
}

/**
 * The one function that turns a model into what a save writes, binary (placeModel) or text (its
 * tensors placed as textLayout says): the command line's saveModel writes it to disk, the page's
 * downloads (app/save.ts) make files of it, so both hold the same bytes for the same model.
 * `initializers: false` (text only) elides large tensors.
 */
export function savedForm(
  model: Model,
  format: "binary" | "text",
  o: PlaceOptions,
  where?: string,
  initializers = true,
): SavedForm {
  if (format === "binary") {
    return placeModel(model, o, where);
  }
  // Text holds tensor data inline as values; what was external stays external (no 2 GiB limit).
  const layout = textLayout(model, o);
  const text = printModel(model, { initializers, ...(layout ? { tensorHook: layout.hook } : {}) });
  const bytes = new TextEncoder().encode(text);
  return { pieces: [bytes], size: bytes.length, ...(layout ? { layout } : {}) };
}

/** A layout's data file as pieces, the gaps that align each tensor as zeros. */
export function dataPieces(layout: Layout): Piece[] {
  const out: Piece[] = [];
  let pos = 0;
  for (const item of layout.items) {
    if (item.at > pos) out.push(new Uint8Array(item.at - pos));
    out.push(item.bytes);
    pos = item.at + item.bytes.length;
  }
  return out;
}
