// schema: operator signatures from the registry, and the difference between two versions.

import type { Command } from "commander";
import { OnnxError } from "../../errors.js";
import { diffVersions, type FormalDiff, type SchemaDiff } from "../../schema/diff.js";
import { SchemaRegistry, domainLabel, normaliseDomain } from "../../schema/registry.js";
import type { AttributeSchema, FormalSchema, OpVersion } from "../../schema/types.js";
import { action } from "../util.js";

interface SchemaOptions {
  opset?: string;
  diff?: string[];
  json?: boolean;
  domain: string;
}

function opsetNumber(text: string, what: string): number {
  if (!/^\d+$/.test(text) || Number(text) < 1)
    throw new OnnxError("E_USAGE", `${what} must be a positive integer, not '${text}'`);
  return Number(text);
}

export function registerSchemaCommands(program: Command): void {
  program
    .command("schema")
    .description(
      "show an operator's versions (signature, attributes, types), or what changed between two",
    )
    .argument("[op]", "operator name, e.g. ReduceLogSum (omit to list every operator)")
    .option("--opset <n>", "only the version in force at this opset")
    .option(
      "--diff <versions...>",
      "compare the versions in force at two opsets (or since-versions): --diff A B",
    )
    .option("--domain <domain>", "operator domain", "ai.onnx")
    .option("--json", "machine-readable output")
    .action(
      action((op: string | undefined, opts: SchemaOptions) => {
        const reg = SchemaRegistry.default();
        const domain = normaliseDomain(opts.domain);
        if (op === undefined) {
          if (opts.opset !== undefined || opts.diff !== undefined)
            throw new OnnxError("E_USAGE", "--opset and --diff need an operator name");
          const ops = reg
            .operators()
            .map((name) => ({ name, versions: reg.versions("", name).map((v) => v.since) }));
          process.stdout.write(
            opts.json
              ? `${JSON.stringify(ops, null, 2)}\n`
              : ops.map((o) => `${o.name}: ${o.versions.join(", ")}\n`).join(""),
          );
          return;
        }
        if (!reg.has(domain, op))
          throw new OnnxError(
            "E_SCHEMA",
            `unknown operator '${op}' in domain '${domainLabel(domain)}'`,
          );
        if (opts.diff !== undefined) {
          if (opts.diff.length !== 2)
            throw new OnnxError(
              "E_USAGE",
              `--diff takes two opsets (A B), got ${opts.diff.length}`,
            );
          if (opts.opset !== undefined)
            throw new OnnxError("E_USAGE", "--diff and --opset cannot be combined");
          const a = reg.resolve(domain, op, opsetNumber(opts.diff[0]!, "--diff A"));
          const b = reg.resolve(domain, op, opsetNumber(opts.diff[1]!, "--diff B"));
          const d = diffVersions(a, b);
          process.stdout.write(opts.json ? `${JSON.stringify(d, null, 2)}\n` : formatDiff(d));
          return;
        }
        const versions =
          opts.opset !== undefined
            ? [reg.resolve(domain, op, opsetNumber(opts.opset, "--opset"))]
            : reg.versions(domain, op);
        if (opts.json) {
          const out = versions.map(({ domain: d, name, ...v }) => ({
            domain: domainLabel(d),
            name,
            ...v,
          }));
          process.stdout.write(
            `${JSON.stringify(opts.opset !== undefined ? out[0] : out, null, 2)}\n`,
          );
        } else process.stdout.write(versions.map(formatVersion).join("\n"));
      }),
    );
}

function attrLine(a: AttributeSchema): string {
  const dflt =
    a.default !== undefined
      ? ` = ${JSON.stringify(a.default)}`
      : a.required
        ? " (required)"
        : " (optional, no default)";
  return `${a.name}: ${a.type}${dflt}`;
}

function formalLine(f: FormalSchema): string {
  const opts: string[] = [];
  if (f.option !== "single") opts.push(f.option);
  if (f.option === "variadic") {
    if (f.homogeneous === false) opts.push("heterogeneous");
    if (f.min_arity !== undefined) opts.push(`min ${f.min_arity}`);
  }
  return `${f.name}: ${f.type}${opts.length ? ` (${opts.join(", ")})` : ""}`;
}

function count(min: number, max: number): string {
  const hi = max === 2147483647 ? "∞" : String(max);
  return min === max ? String(min) : `${min}-${hi}`;
}

function shortType(t: string): string {
  return t.replace(/^tensor\((.*)\)$/, "$1");
}

/** Splits text into lines of at most `width` columns (words are not broken). */
function wrap(text: string, indent: string, width = 100): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line && indent.length + line.length + 1 + word.length > width) {
      lines.push(indent + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(indent + line);
  return lines;
}

function describe(text: string | undefined): string[] {
  return text ? wrap(text, "        ") : [];
}

export function formatVersion(v: OpVersion): string {
  const flags: string[] = [];
  if (v.function)
    flags.push(
      v.body
        ? `function (body: ${v.body.kind === "builder" ? `builder ${v.body.builder}` : "text"})`
        : "function (no body here)",
    );
  else flags.push("primitive");
  if (v.deprecated) flags.push("deprecated");
  if (v.experimental) flags.push("experimental");
  const lines = [
    `${v.name}-${v.since} (${domainLabel(v.domain)}), since opset ${v.since}: ${flags.join(", ")}`,
  ];
  if (v.description) lines.push(...wrap(v.description, "  "));
  lines.push(`  attributes:${v.attributes.length ? "" : " none"}`);
  for (const a of v.attributes) lines.push(`    ${attrLine(a)}`, ...describe(a.description));
  lines.push(`  inputs (${count(v.min_inputs, v.max_inputs)}):${v.inputs.length ? "" : " none"}`);
  for (const f of v.inputs) lines.push(`    ${formalLine(f)}`, ...describe(f.description));
  lines.push(`  outputs (${count(v.min_outputs, v.max_outputs)}):`);
  for (const f of v.outputs) lines.push(`    ${formalLine(f)}`, ...describe(f.description));
  lines.push(`  type constraints:${v.type_constraints.length ? "" : " none"}`);
  for (const t of v.type_constraints)
    lines.push(`    ${t.name}: ${t.allowed.map(shortType).join(", ")}`);
  return `${lines.join("\n")}\n`;
}

function formalSection(
  title: string,
  d: FormalDiff,
  skip: Set<string>,
  skipRemoved: Set<string>,
): string[] {
  const lines: string[] = [];
  for (const x of d.added)
    if (!skip.has(x.formal.name)) lines.push(`  + ${title} #${x.index} ${formalLine(x.formal)}`);
  for (const x of d.removed)
    if (!skipRemoved.has(x.formal.name))
      lines.push(`  - ${title} #${x.index} ${formalLine(x.formal)}`);
  for (const c of d.changed)
    lines.push(`  ~ ${title} #${c.index} '${c.after.name}': ${c.changes.join(", ")}`);
  for (const t of d.typesRemoved)
    lines.push(
      `  ~ ${title} #${t.index} '${t.name}' no longer accepts ${t.types.map(shortType).join(", ")}`,
    );
  const [a0, a1] = d.countBefore;
  const [b0, b1] = d.countAfter;
  if (a0 !== b0 || a1 !== b1) lines.push(`  ~ ${title} count ${count(a0, a1)} -> ${count(b0, b1)}`);
  return lines;
}

export function formatDiff(d: SchemaDiff): string {
  const lines = [`${d.name} (${domainLabel(d.domain)}): version ${d.from} -> ${d.to}`];
  if (d.from === d.to) lines.push("  the same version: nothing changed");
  const moved = new Set(d.attributesToInputs.map((m) => m.name));
  for (const m of d.attributesToInputs)
    lines.push(
      `  attribute '${m.name}' moved to ${m.input.option === "optional" ? "an optional" : "a required"} input #${m.index} (${formalLine(m.input)})`,
    );
  const toAttr = new Set(d.inputsToAttributes.map((m) => m.name));
  for (const m of d.inputsToAttributes)
    lines.push(`  input #${m.index} '${m.name}' moved to attribute ${attrLine(m.attribute)}`);
  for (const a of d.attributes.added)
    if (!toAttr.has(a.name)) lines.push(`  + attribute ${attrLine(a)}`);
  for (const a of d.attributes.removed)
    if (!moved.has(a.name)) lines.push(`  - attribute ${attrLine(a)}`);
  for (const c of d.attributes.changed)
    lines.push(`  ~ attribute '${c.name}': ${c.changes.join(", ")}`);
  lines.push(
    ...formalSection("input", d.inputs, moved, toAttr),
    ...formalSection("output", d.outputs, new Set(), new Set()),
  );
  for (const t of d.typeConstraints.added)
    lines.push(`  + type constraint ${t.name}: ${t.allowed.map(shortType).join(", ")}`);
  for (const t of d.typeConstraints.removed)
    lines.push(`  - type constraint ${t.name}: ${t.allowed.map(shortType).join(", ")}`);
  for (const t of d.typeConstraints.changed) {
    const parts: string[] = [];
    if (t.added.length) parts.push(`gained ${t.added.map(shortType).join(", ")}`);
    if (t.removed.length) parts.push(`lost ${t.removed.map(shortType).join(", ")}`);
    lines.push(`  ~ type constraint ${t.name}: ${parts.join("; ")}`);
  }
  if (d.function === "added")
    lines.push("  now a function (has a body that expands into other ops)");
  if (d.function === "removed") lines.push("  no longer a function");
  if (d.deprecated === "added") lines.push("  now deprecated");
  if (d.deprecated === "removed") lines.push("  no longer deprecated");
  if (lines.length === 1) lines.push("  no change to the signature");
  lines.push(`breaking: ${d.verdict.breaking ? "yes" : "no"}`);
  for (const r of d.verdict.reasons) lines.push(`  - ${r}`);
  return `${lines.join("\n")}\n`;
}
