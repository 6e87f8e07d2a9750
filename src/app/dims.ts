// Named dimension values, one syntax wherever a user fixes symbolic dims: `run --random --dim`,
// `lower`/`simplify --dim`, and the page's dims box. "batch=1,sequence=128": a comma-separated
// list of name=value pairs; a name is a symbolic dim's name (dim_param) as the model writes it,
// a value a non-negative integer. Repeating a name with another value is an error.

import { OnnxError } from "../errors.js";

/** Parses "name=v,name=v" (spaces around items allowed; several texts merge, as repeated flags). */
export function parseDims(...texts: string[]): Map<string, number> {
  const dims = new Map<string, number>();
  for (const text of texts) {
    for (const raw of text.split(",")) {
      const item = raw.trim();
      if (item === "") continue;
      const eq = item.lastIndexOf("=");
      const name = eq < 0 ? "" : item.slice(0, eq).trim();
      const value = eq < 0 ? "" : item.slice(eq + 1).trim();
      if (name === "" || !/^\d+$/.test(value))
        throw new OnnxError(
          "E_USAGE",
          `dim '${item}' is not name=value with a non-negative integer value`,
        );
      const v = Number(value);
      if (!Number.isSafeInteger(v))
        throw new OnnxError("E_USAGE", `dim '${item}': ${value} is too large`);
      const before = dims.get(name);
      if (before !== undefined && before !== v)
        throw new OnnxError("E_USAGE", `dim '${name}' is given twice, as ${before} and ${v}`);
      dims.set(name, v);
    }
  }
  return dims;
}

/** The text form of a dims map, as parseDims reads it. */
export function formatDims(dims: ReadonlyMap<string, number>): string {
  return [...dims].map(([n, v]) => `${n}=${v}`).join(",");
}
