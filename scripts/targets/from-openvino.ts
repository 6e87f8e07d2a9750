// Writes targets/openvino.json from the table of ONNX ops OpenVINO's ONNX frontend translates
// (src/frontends/onnx/docs/supported_ops.md of the openvinotoolkit/openvino repository at a
// commit, given as a file; the cells may be padded or not).
//
// Per row: "Supported Version" lists the `since` versions the frontend has a translator from
// (empty: not supported, left out); a translator serves every version from its own up to the
// next one listed. The profile's opset range is 1 to the newest defined version of an ai.onnx op
// (Attention-23), the table stating none. The frontend registers its last translator of an
// ai.onnx op for every opset from its own to the newest it reads (`OPSET_SINCE`: up to its
// LATEST_SUPPORTED_ONNX_OPSET_VERSION, at least 23 since it registers Attention-23), so that
// translator serves up to the profile's top, not only to the op's newest "Defined Version" (a
// column that stops at Reshape-21 and Cast-21 beside Attention-23: Reshape-23 in an opset-23
// model goes to the Reshape translator from 1). Other domains keep the table's defined versions. The only limitation the table states
// ("only in certain patterns", on the Sequence ops) is a caveat in our own words (which graph
// patterns it translates is the frontend's code, not a rule to check); any
// other stops the script, to be read. ai.onnx rows the schemas do not know (ATen, Affine,
// ConstantFill, Crop, ImageScaler, IsFinite: experimental or removed ops) are left out and listed;
// other domains' rows are kept as the table has them.
//
//   git -C <openvino clone> show <commit>:src/frontends/onnx/docs/supported_ops.md > /tmp/openvino.md
//   npx tsx scripts/targets/from-openvino.ts /tmp/openvino.md <commit> <date read, yyyy-mm-dd>

import { readFileSync } from "node:fs";
import type { OpRow } from "../../src/targets/profile.js";
import { digest, row, schemaName, writeProfile } from "./common.js";

const [file, commit, date] = process.argv.slice(2);
if (!file || !commit || !date)
  throw new Error("usage: from-openvino.ts supported_ops.md COMMIT DATE(yyyy-mm-dd)");

/** Limitation notes, by digest, as this tool records them. */
const LIMITATIONS: Record<string, string> = {
  fdb0c0cc: "only some graph patterns are translated",
};

const list = (cell: string) =>
  cell
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean)
    .map(Number)
    .sort((a, b) => a - b);

const ops: Record<string, OpRow> = {};
const skipped: string[] = [];
let max = 0;
for (const line of readFileSync(file, "utf8").split("\n")) {
  const c = line.split("|").map((x) => x.trim());
  // | Domain | Operation Name | Supported Version | Defined Version | Limitation |
  if (c.length < 7 || !/^\w+$/.test(c[2] ?? "") || c[2] === "Operation") continue;
  const [domain, name, supported, defined, limitation] = c.slice(1, 6) as string[];
  const s = list(supported!);
  const d = list(defined!);
  if (s.some(Number.isNaN) || d.some(Number.isNaN)) throw new Error(`${name}: versions unread`);
  if (!s.length) continue; // not supported
  if (!d.length) {
    skipped.push(name!); // no ONNX definition: nothing to key versions to
    continue;
  }
  let op = name!;
  if (domain === "") {
    const known = schemaName("", op);
    if (!known) {
      skipped.push(op);
      continue;
    }
    op = known;
    max = Math.max(max, d.at(-1)!);
  }
  const top = d.at(-1)!;
  const versions = s.map((from, i) => ({ from, to: i + 1 < s.length ? s[i + 1]! - 1 : top }));
  let caveat: string | undefined;
  if (limitation) {
    caveat = LIMITATIONS[digest(limitation)];
    if (!caveat) throw new Error(`${op}: a limitation not read yet (digest ${digest(limitation)})`);
  }
  ops[domain ? `${domain}.${op}` : op] = row(domain!, versions, { caveat });
}
// the last translator of each ai.onnx op serves up to the newest opset the frontend reads
for (const r of Object.values(ops)) if (r.domain === "") r.versions.at(-1)!.to = max;
console.log(`left out (no ONNX definition the schemas know): ${skipped.join(", ")}`);

await writeProfile({
  name: "openvino",
  version: 2,
  backend: "Intel OpenVINO, through its ONNX frontend",
  backendVersion: `master, table read ${date}`,
  source: {
    url: `https://github.com/openvinotoolkit/openvino/blob/${commit}/src/frontends/onnx/docs/supported_ops.md`,
    commit,
    date,
  },
  opset: { min: 1, max },
  ops,
});
