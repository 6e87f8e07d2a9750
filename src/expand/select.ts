// Which ops a user names: `--only Softmax,ReduceL1`, `--keep com.example:MyFn`, and a backend's op
// list (`--target-ops FILE`: one `[domain:]Op[:version]` a line). A final integer is a version:
// the op as defined at that opset (so `Relu:18` names Relu-14, the version in force at opset 18).

import { OnnxError } from "../errors.js";
import { normaliseDomain } from "../schema/registry.js";
import type { SchemaRegistry } from "../schema/registry.js";

export interface OpSelector {
  /** Normalised: "" is ai.onnx. */
  domain: string;
  op: string;
  /** An opset of the op's domain; absent: every version. */
  version?: number;
}

/** Parses `[domain:]Op[:version]`. */
export function parseOpSelector(text: string, where?: string): OpSelector {
  const s = text.trim();
  const parts = s.split(":");
  let version: number | undefined;
  const last = parts[parts.length - 1]!;
  if (parts.length > 1 && /^\d+$/.test(last)) {
    version = Number(last);
    parts.pop();
  }
  if (parts.length > 2 || parts.some((p) => p === "") || (version !== undefined && version < 1))
    throw new OnnxError(
      "E_USAGE",
      `'${s}' is not an op name: expected [domain:]Op[:version], e.g. Softmax, ai.onnx:Relu:14, com.example:MyFn`,
      where,
    );
  const op = parts[parts.length - 1]!;
  const domain = parts.length === 2 ? normaliseDomain(parts[0]!) : "";
  return version === undefined ? { domain, op } : { domain, op, version };
}

/** A comma- or space-separated list of selectors (a command-line option). */
export function parseOpList(text: string, where?: string): OpSelector[] {
  return text
    .split(/[\s,]+/)
    .filter((t) => t !== "")
    .map((t) => parseOpSelector(t, where));
}

/** A backend's op list: one selector a line; blank lines and `#` comments are ignored. */
export function parseTargetOps(text: string, file?: string): OpSelector[] {
  const out: OpSelector[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    const s = line.replace(/#.*/, "").trim();
    if (s === "") return;
    out.push(parseOpSelector(s, file ? `${file}:${i + 1}` : `line ${i + 1}`));
  });
  return out;
}

/** A set of selectors, asked about (domain, op, version-since) triples. */
export class OpSet {
  private readonly byOp = new Map<string, OpSelector[]>();

  constructor(
    selectors: OpSelector[],
    private readonly registry: SchemaRegistry,
  ) {
    for (const s of selectors) {
      const k = `${s.domain}\u0000${s.op}`;
      const list = this.byOp.get(k);
      if (list) list.push(s);
      else this.byOp.set(k, [s]);
    }
  }

  /**
   * Whether the set names this op. `since`: the version of the op the node resolves to (absent
   * for model-local functions, which have no versions: any selector of the name matches).
   */
  has(domain: string, op: string, since?: number): boolean {
    const list = this.byOp.get(`${normaliseDomain(domain)}\u0000${op}`);
    if (!list) return false;
    return list.some((s) => {
      if (s.version === undefined || since === undefined) return true;
      if (s.version === since) return true;
      return this.registry.tryResolve(s.domain, s.op, s.version)?.since === since;
    });
  }

  get size(): number {
    return this.byOp.size;
  }
}

/** `domain:Op` as users write it (bare for ai.onnx). */
export function opName(domain: string, op: string, version?: number): string {
  const d = normaliseDomain(domain);
  return `${d ? `${d}:` : ""}${op}${version !== undefined ? `-${version}` : ""}`;
}
