// Tokens of the ONNX text syntax. The lexer is pulled one token at a time, so that a tensor
// literal of a million numbers never becomes a million-element token array.

import { OnnxError } from "../errors.js";

export type TokenKind =
  | "id" // [A-Za-z_][A-Za-z0-9_]*
  | "string" // "..." with backslash escapes, value unescaped
  | "int" // -?[0-9]+ or 0x[0-9a-fA-F]+
  | "float" // -?[0-9]+ '.' [0-9]* exponent? | -?[0-9]+ exponent
  | "punct" // ( ) [ ] { } < > , : = @ ? . - => ...
  | "eof";

export interface Token {
  kind: TokenKind;
  /** Identifier, unescaped string, number text, or the punctuation itself. */
  text: string;
  /** Offset of the token's first character. */
  pos: number;
}

const isIdStart = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
const isIdChar = (c: number): boolean => isIdStart(c) || (c >= 48 && c <= 57);
const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isHex = (c: number): boolean => isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);

const ID_TABLE_MASK = 4095;

/** The one-character punctuation, by character code. */
const PUNCT: readonly (string | undefined)[] = (() => {
  const table: (string | undefined)[] = new Array(128).fill(undefined);
  for (const p of "()[]{}<>,:=@?.-") table[p.charCodeAt(0)] = p;
  return table;
})();

/** 1-based line and column (in code points) of an offset. */
export function lineCol(text: string, pos: number): { line: number; col: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < pos && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  let col = 1;
  for (let i = lineStart; i < pos && i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff && i > lineStart) continue; // low surrogate: same code point
    col++;
  }
  return { line, col };
}

export function describeToken(t: Token): string {
  switch (t.kind) {
    case "eof":
      return "end of input";
    case "string":
      return `string ${JSON.stringify(t.text.length > 40 ? t.text.slice(0, 40) + "…" : t.text)}`;
    case "id":
      return `'${t.text}'`;
    case "int":
    case "float":
      return `number ${t.text}`;
    case "punct":
      return `'${t.text}'`;
  }
}

export class Lexer {
  private pos = 0;
  /** Tokens peeked at and not yet taken: `count` of them from `head`, in a ring of 8. */
  private readonly ring: Token[] = [];
  private head = 0;
  private count = 0;

  constructor(
    readonly text: string,
    readonly file?: string,
  ) {
    if (text.charCodeAt(0) === 0xfeff) this.pos = 1; // a byte-order mark is not content
  }

  where(pos: number): string {
    const { line, col } = lineCol(this.text, pos);
    return this.file !== undefined ? `${this.file}:${line}:${col}` : `line ${line}:${col}`;
  }

  error(pos: number, message: string): OnnxError {
    return new OnnxError("E_PARSE", message, this.where(pos));
  }

  /** The token k ahead (k < 8). */
  peek(k = 0): Token {
    while (this.count <= k) this.ring[(this.head + this.count++) & 7] = this.scan();
    return this.ring[(this.head + k) & 7]!;
  }

  next(): Token {
    let t: Token;
    if (this.count === 0) t = this.scan();
    else {
      t = this.ring[this.head]!;
      this.head = (this.head + 1) & 7;
      this.count--;
    }
    this.lastEnd = t.kind === "punct" ? t.pos + t.text.length : -1;
    return t;
  }

  /** Offset just past the last token taken, when it was punctuation (else -1). */
  lastEnd = -1;

  /** How many tokens have been peeked at and not taken. */
  pending(): number {
    return this.count;
  }

  /** Goes on from offset `pos` (text the caller has read itself), dropping the tokens peeked at. */
  jump(pos: number): void {
    this.pos = pos;
    this.count = 0;
  }

  private skipSpace(): void {
    const s = this.text;
    const n = s.length;
    let p = this.pos;
    for (;;) {
      while (p < n) {
        const c = s.charCodeAt(p);
        if (c === 32 || c === 9 || c === 10 || c === 13 || c === 11 || c === 12) p++;
        else break;
      }
      if (p < n && s.charCodeAt(p) === 35 /* # */) {
        while (p < n && s.charCodeAt(p) !== 10) p++;
        continue;
      }
      this.pos = p;
      return;
    }
  }

  private scan(): Token {
    this.skipSpace();
    const s = this.text;
    const start = this.pos;
    if (start >= s.length) return { kind: "eof", text: "", pos: start };
    const c = s.charCodeAt(start);
    if (isIdStart(c)) {
      let p = start + 1;
      let h = c;
      while (p < s.length) {
        const d = s.charCodeAt(p);
        if (!isIdChar(d)) break;
        h = Math.imul(h ^ d, 0x01000193);
        p++;
      }
      this.pos = p;
      return { kind: "id", text: this.intern(s, start, p, h), pos: start };
    }
    if (c === 34 /* " */) return this.scanString(start);
    if (isDigit(c) || (c === 45 /* - */ && isDigit(s.charCodeAt(start + 1))))
      return this.scanNumber(start);
    if (c === 61 /* = */ && s.charCodeAt(start + 1) === 62 /* > */) {
      this.pos = start + 2;
      return { kind: "punct", text: "=>", pos: start };
    }
    if (c === 46 && s.startsWith("...", start)) {
      this.pos = start + 3;
      return { kind: "punct", text: "...", pos: start };
    }
    const ch = c < 128 ? PUNCT[c] : undefined;
    if (ch !== undefined) {
      this.pos = start + 1;
      return { kind: "punct", text: ch, pos: start };
    }
    const cp = String.fromCodePoint(s.codePointAt(start)!);
    throw this.error(start, `unexpected character ${JSON.stringify(cp)}`);
  }

  /**
   * Identifiers from a small table of recent ones by hash: a model repeats op, attribute and value
   * names (each value is named where it is made and where it is used), and a repeat then costs
   * no new string.
   */
  private intern(s: string, start: number, stop: number, h: number): string {
    const n = stop - start;
    if (n > 32) return s.slice(start, stop);
    const slot = (h ^ (h >>> 15)) & ID_TABLE_MASK;
    const hit = this.ids[slot];
    if (hit !== undefined && hit.length === n && s.startsWith(hit, start)) return hit;
    const id = s.slice(start, stop);
    this.ids[slot] = id;
    return id;
  }
  private readonly ids: (string | undefined)[] = new Array(ID_TABLE_MASK + 1);

  private scanString(start: number): Token {
    const s = this.text;
    let p = start + 1;
    let out = "";
    let chunk = p;
    for (;;) {
      if (p >= s.length) throw this.error(start, "string is not closed: missing '\"'");
      const c = s.charCodeAt(p);
      if (c === 34) break;
      if (c === 92 /* \ */) {
        // Like the reference parser: a backslash makes the next character literal. Except
        // \xHH, an extension: the ASCII character with that code (the printer writes control
        // characters so, which raw would make the text look like binary data).
        out += s.slice(chunk, p);
        if (p + 1 >= s.length) throw this.error(start, "string is not closed: missing '\"'");
        const hex = /^x([0-9a-fA-F]{2})/.exec(s.slice(p + 1, p + 4));
        if (hex) {
          const code = parseInt(hex[1]!, 16);
          if (code > 0x7f)
            throw this.error(p, `escape '\\x${hex[1]}' is not ASCII: \\xHH stands for 00 to 7f`);
          out += String.fromCharCode(code);
          p += 4;
          chunk = p;
          continue;
        }
        const cp = s.codePointAt(p + 1)!;
        const ch = String.fromCodePoint(cp);
        out += ch;
        p += 1 + ch.length;
        chunk = p;
        continue;
      }
      p++;
    }
    out += s.slice(chunk, p);
    this.pos = p + 1;
    return { kind: "string", text: out, pos: start };
  }

  private scanNumber(start: number): Token {
    const s = this.text;
    let p = start;
    if (s.charCodeAt(p) === 45) p++;
    if (s.charCodeAt(p) === 48 && (s.charCodeAt(p + 1) === 120 || s.charCodeAt(p + 1) === 88)) {
      let q = p + 2;
      while (q < s.length && isHex(s.charCodeAt(q))) q++;
      if (q === p + 2) throw this.error(start, "hexadecimal number has no digits");
      this.pos = q;
      return { kind: "int", text: s.slice(start, q), pos: start };
    }
    while (p < s.length && isDigit(s.charCodeAt(p))) p++;
    let float = false;
    if (s.charCodeAt(p) === 46 && !s.startsWith("...", p)) {
      float = true;
      p++;
      while (p < s.length && isDigit(s.charCodeAt(p))) p++;
    }
    const e = s.charCodeAt(p);
    if (e === 101 || e === 69) {
      let q = p + 1;
      if (s.charCodeAt(q) === 43 || s.charCodeAt(q) === 45) q++;
      if (isDigit(s.charCodeAt(q))) {
        while (q < s.length && isDigit(s.charCodeAt(q))) q++;
        p = q;
        float = true;
      }
    }
    if (p < s.length && isIdChar(s.charCodeAt(p)))
      throw this.error(
        start,
        `malformed number '${s.slice(start, p + 1)}' (a name starting with a digit must be quoted)`,
      );
    this.pos = p;
    return { kind: float ? "float" : "int", text: s.slice(start, p), pos: start };
  }
}
