// Profiles found on disk: a shipped one by its file's name in targets/ (`webnn`), an older
// version by `name@version` (the current file when it is that version, else a file
// `targets/<name>@<version>.json`), a user's own by a path (`./npu.json`), and `ai.onnx-<N>`.

import { existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { OnnxError } from "../errors.js";
import { readSmallTextFile } from "../io/files.js";
import { parseProfile, plainOpsetProfile, type Profile } from "./profile.js";

/** The folder of the shipped profiles: targets/ at the package's root. */
export function targetsDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    if (existsSync(join(dir, "targets", "README.md"))) return join(dir, "targets");
    dir = dirname(dir);
  }
  throw new OnnxError("E_IO", "the targets/ folder of profiles is missing from this install");
}

/**
 * The profile a `--target` names: `ai.onnx-N`, a shipped name (its newest version), `name@V`
 * (an older one), or a path to a profile file (anything with a slash or ending in .json).
 */
export function loadProfile(spec: string): Profile {
  const plain = /^ai\.onnx-(\d+)$/.exec(spec);
  if (plain) return plainOpsetProfile(Number(plain[1]));
  if (spec.includes("/") || spec.endsWith(".json")) {
    return parseProfile(readSmallTextFile(spec, "profile file"), spec);
  }
  const [name, version] = spec.split("@") as [string, string | undefined];
  const dir = targetsDir();
  // name@V: the current file when it is version V, else an older one kept as name@V.json.
  for (const f of version ? [`${name}.json`, `${name}@${version}.json`] : [`${name}.json`]) {
    const file = join(dir, f);
    if (!existsSync(file)) continue;
    const p = parseProfile(readSmallTextFile(file, "profile file"), file);
    if (!version || String(p.version) === version) return p;
  }
  const known = listProfiles().map((p) => p.name);
  throw new OnnxError(
    "E_USAGE",
    `no target '${spec}' (targets: ${[...new Set(known)].join(", ")}, ai.onnx-<N>, or a profile file)`,
  );
}

/** The shipped profiles, each file once (older versions too), by name then version. */
export function listProfiles(): Profile[] {
  const dir = targetsDir();
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => parseProfile(readSmallTextFile(join(dir, f), "profile file"), join(dir, f)));
}
