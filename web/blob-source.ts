// The worker's sources of tensor bytes, read in ranges, so that a model's weights stay where they
// are until a kernel or the value panel needs them:
// - a picked file (a Blob): FileReaderSync reads `blob.slice(offset, offset + length)`
//   synchronously, as a positioned read does on disk;
// - a file served by `onnx-expand inspect` (a URL): a synchronous request with a `Range` header
//   for the same bytes, answered 206 with that part alone (src/cli/server.ts), so that a data file
//   past 2 GiB, which no response body or Blob of the page can hold, is read as a picked one is.

import { OnnxError } from "../src/errors.js";
import type { ByteSource } from "../src/ir/tensor.js";

interface SyncReader {
  readAsArrayBuffer(blob: Blob): ArrayBuffer;
}
declare const FileReaderSync: { new (): SyncReader } | undefined;

let reader: SyncReader | undefined;

export class BlobSource implements ByteSource {
  readonly size: number;
  readonly key: string;

  constructor(
    readonly blob: Blob,
    readonly name: string,
  ) {
    this.size = blob.size;
    const modified = (blob as File).lastModified ?? 0;
    this.key = `blob:${name}:${blob.size}:${modified}:${(blobIds.get(blob) ?? blobIds.set(blob, ++lastId).get(blob))!}`;
  }

  read(offset: number, length: number): Uint8Array {
    if (typeof FileReaderSync === "undefined")
      throw new Error("reading a file in ranges needs a worker (FileReaderSync)");
    reader ??= new FileReaderSync();
    return new Uint8Array(reader.readAsArrayBuffer(this.blob.slice(offset, offset + length)));
  }
}

/** One number per Blob: the same file picked twice is one source, two files are two. */
const blobIds = new WeakMap<Blob, number>();
let lastId = 0;

/**
 * A file served at `url` (same origin), read in ranges by synchronous requests (allowed in a
 * worker, where they block nothing of the page). Its size comes from a HEAD request at opening;
 * a server that does not answer a range with 206 and exactly its bytes is an error, never a
 * silent read of the whole file.
 */
export class UrlSource implements ByteSource {
  readonly size: number;
  readonly key: string;

  constructor(
    readonly url: string,
    readonly name: string,
  ) {
    const head = request("HEAD", url, name);
    const size = Number(head.getResponseHeader("content-length") ?? NaN);
    if (!Number.isSafeInteger(size) || size < 0)
      throw new OnnxError("E_IO", "the server gave no size for the file", name);
    if (!/\bbytes\b/i.test(head.getResponseHeader("accept-ranges") ?? ""))
      throw new OnnxError("E_IO", "the server does not serve the file in ranges", name);
    this.size = size;
    this.key = `url:${url}:${size}:${++lastId}`;
  }

  read(offset: number, length: number): Uint8Array {
    if (length === 0) return new Uint8Array(0);
    const end = offset + length - 1;
    const x = request("GET", this.url, this.name, `bytes=${offset}-${end}`);
    const body = x.response as ArrayBuffer | null;
    if (
      x.status !== 206 ||
      x.getResponseHeader("content-range") !== `bytes ${offset}-${end}/${this.size}` ||
      body?.byteLength !== length
    )
      throw new OnnxError(
        "E_IO",
        `the server answered bytes ${offset}-${end} with status ${x.status} and ${body?.byteLength ?? 0} bytes, not that range`,
        this.name,
      );
    return new Uint8Array(body);
  }
}

/** One synchronous request; a refusal (410: the file changed on disk) is an error naming it. */
function request(method: "GET" | "HEAD", url: string, name: string, range?: string) {
  const x = new XMLHttpRequest();
  x.open(method, url, false);
  if (method === "GET") x.responseType = "arraybuffer";
  if (range) x.setRequestHeader("range", range);
  try {
    x.send();
  } catch (e) {
    throw new OnnxError("E_IO", `cannot be read from ${url}: ${(e as Error).message}`, name);
  }
  if (x.status >= 400 || x.status === 0) {
    const why =
      x.status === 410
        ? "it changed on disk since the server started"
        : `the server answered ${x.status}${x.statusText ? ` ${x.statusText}` : ""}`;
    throw new OnnxError("E_IO", `cannot be read from ${url}: ${why}`, name);
  }
  return x;
}
