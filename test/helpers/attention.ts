// A decoder's attention written out as Attention-23's body writes it, for the legalization tests:
// scores of embedded tokens plus a mask, a softmax with the two guards of a fully masked row
// (Where(Equal(rowmax, -inf), 0, rowmax) and Where(Equal(rowsum, 0), 1, rowsum)), and the
// weighted values. The caller's lines compute `mask` (0 and -inf) from its inputs; the graph
// needs `emb`, `zero`, `one`, `ninf` and `last` (-1) among its constants and an input `ids`.

/** The body, with the caller's lines computing `mask` in place. */
export function guardedAttention(maskLines: string): string {
  return `  e = Gather (emb, ids)
  et = Transpose <perm = [0, 2, 1]> (e)
  s0 = MatMul (e, et)
${maskLines}
  s = Add (s0, mask)
  m = ReduceMax (s, last)
  isinf = Equal (m, ninf)
  g1 = Where (isinf, zero, m)
  d = Sub (s, g1)
  x = Exp (d)
  t = ReduceSum (x, last)
  none = Equal (t, zero)
  g2 = Where (none, one, t)
  p = Div (x, g2)
  y = MatMul (p, e)`;
}

/** n·8 embedding values, a few distinct multiples of v. */
export const embeddingValues = (n: number, v: number) =>
  Array.from({ length: n * 8 }, (_, i) => (((i * 13) % 7) - 3) * v).join(", ");
