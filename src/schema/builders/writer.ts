// A small helper for writing function bodies in code: fresh value names, Constant nodes, and
// attributes that either carry a value or forward the caller's attribute by reference.

import { attr, type AttrInput } from "../../ir/builder.js";
import { Tensor } from "../../ir/tensor.js";
import { DataType, type Attribute, type Graph, type Node } from "../../ir/types.js";

export class BodyWriter {
  readonly nodes: Node[] = [];
  private count = 0;

  /** `prefix` starts every intermediate name, so they never meet the op's formal names. */
  constructor(private readonly prefix: string) {}

  fresh(hint: string): string {
    return `${this.prefix}${hint}${this.count++}`;
  }

  /** Adds a node; returns its (first) output name, `out` when given. */
  op(
    opType: string,
    inputs: string[],
    attrs: (Attribute | [string, AttrInput])[] = [],
    out?: string,
  ): string {
    const output = out ?? this.fresh(opType.toLowerCase());
    this.nodes.push({
      opType,
      domain: "",
      inputs,
      outputs: [output],
      attributes: attrs.map((a) => (Array.isArray(a) ? attr(a[0], a[1]) : a)),
    });
    return output;
  }

  /** Adds a node with several outputs. */
  opN(
    opType: string,
    inputs: string[],
    outputs: string[],
    attrs: (Attribute | [string, AttrInput])[] = [],
  ): string[] {
    this.nodes.push({
      opType,
      domain: "",
      inputs,
      outputs,
      attributes: attrs.map((a) => (Array.isArray(a) ? attr(a[0], a[1]) : a)),
    });
    return outputs;
  }

  constant(t: Tensor, hint = "c"): string {
    return this.op("Constant", [], [attr("value", t)], this.fresh(hint));
  }

  ints(values: number[], hint = "i"): string {
    return this.constant(
      Tensor.from(
        DataType.INT64,
        [values.length],
        values.map((v) => BigInt(v)),
      ),
      hint,
    );
  }

  scalar(dataType: number, value: number, hint = "s"): string {
    return this.constant(Tensor.scalar(dataType, value), hint);
  }

  cast(input: string, to: number): string {
    return this.op("Cast", [input], [["to", to]]);
  }

  graphAttr(name: string, g: Graph): Attribute {
    return { name, type: "GRAPH", value: g };
  }
}

/** An INT attribute that forwards the calling node's attribute of the same name. */
export function intRef(name: string, ref: string = name): Attribute {
  return { name, type: "INT", value: undefined, refAttrName: ref };
}
