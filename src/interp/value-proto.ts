// Value files: TensorProto messages (read and written), and the SequenceProto and OptionalProto
// messages of onnx-data.proto (read), as the backend tests store inputs and outputs.

import protobuf from "protobufjs";
import { OnnxError } from "../errors.js";
import type { Type } from "../ir/types.js";
import { decodeIR } from "../io/decode.js";
import { encodeTensorBytes } from "../io/encode.js";
import { Tensor } from "../ir/tensor.js";
import { DataType } from "../ir/types.js";
import { fromIRTensor, toIRTensor } from "./ir-tensors.js";
import { allocWasmBacked } from "./kernels/wasm/memory.js";
import { WASM_BACKED_MIN_ELEMENTS } from "./tensor.js";
import type { RTensor, RValue } from "./types.js";

/** The bytes of a TensorProto message holding the tensor. */
export function encodeTensorProto(t: RTensor, name = ""): Uint8Array {
  return encodeTensorBytes(toIRTensor(t, name));
}

/** Below this many bytes of data, encodeTensorProtoParts encodes the message whole. */
const PARTS_MIN_BYTES = 1 << 16;

/**
 * The same bytes as encodeTensorProto, in pieces to write one after the other: for a numeric
 * tensor with much data, the message up to its raw_data's length, then the tensor's own storage
 * (a view: the values are not copied into a message buffer).
 */
export function encodeTensorProtoParts(t: RTensor, name = ""): Uint8Array[] {
  const ir = toIRTensor(t, name);
  if (ir.data.kind !== "raw" || ir.data.bytes.length < PARTS_MIN_BYTES)
    return [encodeTensorBytes(ir)];
  const data = ir.data.bytes;
  // The message with empty raw_data ends in its tag and a zero length when raw_data is its last
  // field; the real length then goes in place of the zero.
  const head = encodeTensorBytes(
    new Tensor(ir.dataType, ir.dims, { kind: "raw", bytes: new Uint8Array(0) }, name),
  );
  if (head.length < 2 || head[head.length - 2] !== RAW_DATA_TAG || head[head.length - 1] !== 0)
    return [encodeTensorBytes(ir)];
  const length: number[] = [];
  for (let v = data.length; ; v = Math.floor(v / 128)) {
    if (v < 128) {
      length.push(v);
      break;
    }
    length.push((v % 128) | 0x80);
  }
  const prefix = new Uint8Array(head.length - 1 + length.length);
  prefix.set(head.subarray(0, head.length - 1));
  prefix.set(length, head.length - 1);
  return [prefix, data];
}

/** Protobuf's limit on one message (its readers refuse more). */
const PROTOBUF_LIMIT = 2147483647;

/**
 * A tensor as the files `run --output-dir` writes: the TensorProto's pieces, and, for a tensor
 * whose message would pass protobuf's 2 GiB limit (`limit`), its data for a file of its own
 * beside the message (`dataName`, offset 0), which the message then refers to.
 */
export function encodeTensorFiles(
  t: RTensor,
  name: string,
  dataName: string,
  limit = PROTOBUF_LIMIT,
): { message: Uint8Array[]; data?: Uint8Array } {
  const ir = toIRTensor(t, name);
  if (ir.data.kind !== "raw" || ir.data.bytes.length + 1024 + name.length <= limit)
    return { message: encodeTensorProtoParts(t, name) };
  const data = ir.data.bytes;
  const ref = new Tensor(
    ir.dataType,
    ir.dims,
    {
      kind: "external",
      entries: [
        ["location", dataName],
        ["offset", "0"],
        ["length", String(data.length)],
      ],
    },
    name,
  );
  return { message: [encodeTensorBytes(ref)], data };
}

/** raw_data's tag: field 9, length-delimited. */
const RAW_DATA_TAG = (9 << 3) | 2;

/** How many leading bytes of a tensor file tensorFileBuffer looks at. */
export const TENSOR_FILE_HEAD = 1 << 16;

/**
 * Where a TensorProto's raw_data lies, from the message's first bytes: the data type (0 when no
 * data_type field comes before raw_data) and the payload's offset and length. Undefined when the
 * head holds no raw_data field start or is not a well-formed message up to there.
 */
export function rawDataLayout(
  head: Uint8Array,
): { dataType: number; offset: number; length: number } | undefined {
  let pos = 0;
  let dataType = 0;
  const varint = (): number | undefined => {
    let v = 0;
    let mul = 1;
    for (let i = 0; i < 8 && pos < head.length; i++) {
      const c = head[pos++]!;
      v += (c & 0x7f) * mul;
      if (c < 0x80) return v;
      mul *= 128;
    }
    return undefined;
  };
  while (pos < head.length) {
    const tag = varint();
    if (tag === undefined) return undefined;
    const field = Math.floor(tag / 8);
    const wire = tag % 8;
    if (wire === 0) {
      const v = varint();
      if (v === undefined) return undefined;
      if (field === 2) dataType = v;
    } else if (wire === 2) {
      const length = varint();
      if (length === undefined) return undefined;
      if (field === 9) return { dataType, offset: pos, length };
      pos += length;
    } else if (wire === 5) pos += 4;
    else if (wire === 1) pos += 8;
    else return undefined;
  }
  return undefined;
}

/**
 * A buffer to read a tensor file of `size` bytes into, given its first bytes: for a TensorProto
 * whose raw_data holds a large float32 tensor, a view into memory that the WebAssembly kernels
 * read in place (interp/tensor.ts's wasm-backed storage), placed so that the raw_data is aligned:
 * decoding then views the values where the file was read, and no kernel copies them. Otherwise a
 * plain buffer.
 */
export function tensorFileBuffer(size: number, head: Uint8Array): Uint8Array {
  const isNpy = head[0] === 0x93 && head[1] === 0x4e;
  const at = isNpy ? undefined : rawDataLayout(head);
  if (
    at &&
    at.dataType === DataType.FLOAT &&
    at.length >= WASM_BACKED_MIN_ELEMENTS * 4 &&
    at.offset + at.length <= size
  ) {
    const pad = (8 - (at.offset % 8)) % 8;
    const shared = allocWasmBacked(size + pad);
    if (shared) return new Uint8Array(shared, pad, size);
  }
  return new Uint8Array(size);
}

/** Decodes a TensorProto message (a backend-test input_*.pb / output_*.pb file). */
export function decodeTensorProto(
  bytes: Uint8Array,
  where?: string,
  baseDir?: string,
): { name: string; tensor: RTensor } {
  const t = decodeIR("TensorProto", bytes, {
    ...(baseDir !== undefined ? { baseDir } : {}),
    ...(where !== undefined ? { where } : {}),
  });
  if (t.dataType === 0)
    throw new OnnxError("E_DECODE", "not a TensorProto: it has no data type", where);
  // External data is resolved against the folder of the file the message came from, under a
  // model's rules (io/files.ts); without such a folder it is refused, never read from the cwd.
  if (t.data.kind === "external" && t.data.baseDir === undefined)
    throw new OnnxError(
      "E_IO",
      `tensor '${t.name}' has external data, but was not read from a file whose folder could hold it`,
      where,
    );
  return { name: t.name, tensor: fromIRTensor(t, where) };
}

// SequenceProto and OptionalProto (onnx-data.proto) are not in the model schema; their few fields
// are read directly: name = 1, elem_type = 2, then tensor(s) = 3, sequence = 5, optional = 7.
const SEQ_TENSORS = 3;
const SEQ_SEQUENCES = 5;
const SEQ_OPTIONALS = 7;

interface DataMessage {
  name: string;
  elemType: number;
  tensors: Uint8Array[];
  sequences: Uint8Array[];
  optionals: Uint8Array[];
  other: number[];
}

function readDataMessage(bytes: Uint8Array, what: string, where?: string): DataMessage {
  const r = protobuf.Reader.create(bytes);
  const out: DataMessage = {
    name: "",
    elemType: 0,
    tensors: [],
    sequences: [],
    optionals: [],
    other: [],
  };
  try {
    while (r.pos < r.len) {
      const tag = r.uint32();
      const field = tag >>> 3;
      const wire = tag & 7;
      if (field === 1 && wire === 2) out.name = r.string();
      else if (field === 2 && wire === 0) out.elemType = r.int32();
      else if (
        wire === 2 &&
        (field === SEQ_TENSORS || field === SEQ_SEQUENCES || field === SEQ_OPTIONALS)
      ) {
        const b = r.bytes();
        (field === SEQ_TENSORS
          ? out.tensors
          : field === SEQ_SEQUENCES
            ? out.sequences
            : out.optionals
        ).push(b);
      } else {
        if (wire === 2) out.other.push(field);
        r.skipType(wire);
      }
    }
  } catch (e) {
    throw new OnnxError("E_DECODE", `not a valid ${what}: ${(e as Error).message}`, where);
  }
  return out;
}

/**
 * Decodes a backend-test value file by the declared type: a TensorProto for tensors, a
 * SequenceProto of tensors for sequences, an OptionalProto for optionals.
 */
export function decodeValueProto(
  bytes: Uint8Array,
  type: Type | undefined,
  where?: string,
  baseDir?: string,
): { name: string; value: RValue } {
  if (!type || type.kind === "tensor" || type.kind === "none") {
    const { name, tensor } = decodeTensorProto(bytes, where, baseDir);
    return { name, value: tensor };
  }
  if (type.kind === "sequence") {
    const m = readDataMessage(bytes, "SequenceProto", where);
    if (m.sequences.length || m.optionals.length || m.other.length)
      throw new OnnxError("E_UNSUPPORTED", "only sequences of tensors are supported", where);
    const items = m.tensors.map((b) => decodeTensorProto(b, where, baseDir).tensor);
    const elem =
      type.elem && type.elem.kind === "tensor" ? type.elem.elemType : (items[0]?.dtype ?? 0);
    return { name: m.name, value: { kind: "sequence", elemDtype: elem, items } };
  }
  if (type.kind === "optional") {
    const m = readDataMessage(bytes, "OptionalProto", where);
    if (m.tensors.length)
      return { name: m.name, value: decodeTensorProto(m.tensors[0]!, where, baseDir).tensor };
    if (m.sequences.length)
      return {
        name: m.name,
        value: decodeValueProto(m.sequences[0]!, type.elem ?? { kind: "sequence" }, where, baseDir)
          .value,
      };
    if (m.other.length || m.optionals.length)
      throw new OnnxError("E_UNSUPPORTED", "optional of this kind is not supported", where);
    return { name: m.name, value: { kind: "optional-none" } };
  }
  throw new OnnxError("E_UNSUPPORTED", `values of kind ${type.kind} are not supported`, where);
}
