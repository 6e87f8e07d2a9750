// An attribute's schema default as the attribute a node would carry (a leaf module: the body
// builders read it, and so do facts.ts's readers, without importing the registry).

import { attr } from "../ir/builder.js";
import type { Attribute } from "../ir/types.js";
import type { OpVersion } from "./types.js";

/**
 * The default of attribute `name` as the attribute a node would carry, named `as`: of the
 * attribute's own type (INTS as bigint[], FLOAT(S) rounded to float32), or undefined when the
 * version states none. What a reader of an attribute falls back to, wherever it reads one.
 */
export function defaultAttribute(
  v: OpVersion,
  name: string,
  as: string = name,
): Attribute | undefined {
  const spec = v.attributes.find((a) => a.name === name);
  return spec?.default === undefined ? undefined : attr(as, spec.default, spec.type);
}
