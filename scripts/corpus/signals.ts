// Inputs that mean something to the npm-shipped models, made here rather than downloaded: a page
// of printed text (for the OCR models) and a voiced sound (for voice activity and wake-word
// detection). Deterministic: the same bytes every run.

/** A 5×7 bitmap font: each glyph is 7 rows of 5 pixels, '#' ink. */
const FONT: Record<string, string> = {
  A: ".###.|#...#|#...#|#####|#...#|#...#|#...#",
  B: "####.|#...#|#...#|####.|#...#|#...#|####.",
  C: ".###.|#...#|#....|#....|#....|#...#|.###.",
  D: "####.|#...#|#...#|#...#|#...#|#...#|####.",
  E: "#####|#....|#....|####.|#....|#....|#####",
  F: "#####|#....|#....|####.|#....|#....|#....",
  G: ".###.|#...#|#....|#.###|#...#|#...#|.###.",
  H: "#...#|#...#|#...#|#####|#...#|#...#|#...#",
  I: ".###.|..#..|..#..|..#..|..#..|..#..|.###.",
  K: "#...#|#..#.|#.#..|##...|#.#..|#..#.|#...#",
  L: "#....|#....|#....|#....|#....|#....|#####",
  M: "#...#|##.##|#.#.#|#.#.#|#...#|#...#|#...#",
  N: "#...#|##..#|#.#.#|#..##|#...#|#...#|#...#",
  O: ".###.|#...#|#...#|#...#|#...#|#...#|.###.",
  P: "####.|#...#|#...#|####.|#....|#....|#....",
  R: "####.|#...#|#...#|####.|#.#..|#..#.|#...#",
  S: ".####|#....|#....|.###.|....#|....#|####.",
  T: "#####|..#..|..#..|..#..|..#..|..#..|..#..",
  U: "#...#|#...#|#...#|#...#|#...#|#...#|.###.",
  V: "#...#|#...#|#...#|#...#|#...#|.#.#.|..#..",
  W: "#...#|#...#|#...#|#.#.#|#.#.#|##.##|#...#",
  X: "#...#|#...#|.#.#.|..#..|.#.#.|#...#|#...#",
  Y: "#...#|#...#|.#.#.|..#..|..#..|..#..|..#..",
  "0": ".###.|#...#|#..##|#.#.#|##..#|#...#|.###.",
  "1": "..#..|.##..|..#..|..#..|..#..|..#..|.###.",
  "2": ".###.|#...#|....#|...#.|..#..|.#...|#####",
  "3": "####.|....#|....#|.###.|....#|....#|####.",
  "4": "...#.|..##.|.#.#.|#..#.|#####|...#.|...#.",
  "5": "#####|#....|####.|....#|....#|#...#|.###.",
  "6": ".###.|#....|#....|####.|#...#|#...#|.###.",
  "7": "#####|....#|...#.|..#..|.#...|.#...|.#...",
  "8": ".###.|#...#|#...#|.###.|#...#|#...#|.###.",
  "9": ".###.|#...#|#...#|.####|....#|....#|.###.",
  ".": ".....|.....|.....|.....|.....|.##..|.##..",
  "-": ".....|.....|.....|.###.|.....|.....|.....",
};

/** A grey image (0 ink … 255 paper), row-major. */
export interface Gray {
  width: number;
  height: number;
  data: Float32Array;
}

/**
 * Lines of text printed on white paper: each glyph pixel a `scale`×`scale` square of dark ink,
 * a pixel of space between glyphs, softened by a 3×3 blur as a scan would be.
 */
export function renderPage(
  lines: string[],
  width: number,
  height: number,
  scale = 2,
  margin = 8,
): Gray {
  const data = new Float32Array(width * height).fill(245);
  let y0 = margin;
  for (const line of lines) {
    let x0 = margin;
    for (const ch of line.toUpperCase()) {
      const g = FONT[ch];
      if (g)
        g.split("|").forEach((row, r) => {
          for (let c = 0; c < 5; c++) {
            if (row[c] !== "#") continue;
            for (let dy = 0; dy < scale; dy++)
              for (let dx = 0; dx < scale; dx++) {
                const x = x0 + c * scale + dx;
                const y = y0 + r * scale + dy;
                if (x < width && y < height) data[y * width + x] = 25;
              }
          }
        });
      x0 += 6 * scale;
    }
    y0 += 11 * scale;
  }
  return blur({ width, height, data });
}

function blur(img: Gray): Gray {
  const { width: w, height: h, data } = img;
  const out = new Float32Array(w * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      let s = 0;
      let n = 0;
      for (let dy = -1; dy <= 1; dy++)
        for (let dx = -1; dx <= 1; dx++) {
          const yy = y + dy;
          const xx = x + dx;
          if (yy >= 0 && yy < h && xx >= 0 && xx < w) {
            s += data[yy * w + xx]! * (dx === 0 && dy === 0 ? 4 : 1);
            n += dx === 0 && dy === 0 ? 4 : 1;
          }
        }
      out[y * w + x] = s / n;
    }
  return { width: w, height: h, data: out };
}

/** A region of an image resized (bilinear) to the given size. */
export function resize(img: Gray, width: number, height: number): Gray {
  const out = new Float32Array(width * height);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const sy = Math.min(img.height - 1, ((y + 0.5) * img.height) / height - 0.5);
      const sx = Math.min(img.width - 1, ((x + 0.5) * img.width) / width - 0.5);
      const y0 = Math.max(0, Math.floor(sy));
      const x0 = Math.max(0, Math.floor(sx));
      const y1 = Math.min(img.height - 1, y0 + 1);
      const x1 = Math.min(img.width - 1, x0 + 1);
      const fy = Math.max(0, sy - y0);
      const fx = Math.max(0, sx - x0);
      const p = (yy: number, xx: number) => img.data[yy * img.width + xx]!;
      out[y * width + x] =
        (p(y0, x0) * (1 - fx) + p(y0, x1) * fx) * (1 - fy) +
        (p(y1, x0) * (1 - fx) + p(y1, x1) * fx) * fy;
    }
  return { width, height, data: out };
}

/**
 * An NCHW float tensor of 3 equal channels, each value (v/255 − mean[c]) / std[c]: the
 * normalisation PaddleOCR's models were trained with.
 */
export function toNCHW(
  img: Gray,
  mean: [number, number, number],
  std: [number, number, number],
): { shape: number[]; data: Float32Array } {
  const n = img.width * img.height;
  const data = new Float32Array(3 * n);
  for (let c = 0; c < 3; c++)
    for (let i = 0; i < n; i++) data[c * n + i] = (img.data[i]! / 255 - mean[c]!) / std[c]!;
  return { shape: [1, 3, img.height, img.width], data };
}

/**
 * A voiced sound at 16 kHz: a glottal pulse train whose pitch glides from 110 to 150 Hz, shaped by
 * the formants of an open vowel (700, 1220, 2600 Hz), rising and falling in loudness, after
 * `silence` seconds of faint noise. Peak amplitude `peak`.
 */
export function voice(seconds: number, silence = 0.2, peak = 0.5, rate = 16000): Float32Array {
  const n = Math.round(seconds * rate);
  const src = new Float64Array(n);
  let phase = 0;
  let noise = 12345;
  const rand = () => {
    noise = (noise * 1103515245 + 12345) >>> 0;
    return noise / 4294967296 - 0.5;
  };
  const start = Math.round(silence * rate);
  for (let i = 0; i < n; i++) {
    const t = i / rate;
    if (i >= start) {
      const f0 = 110 + (40 * (i - start)) / Math.max(1, n - start);
      phase += f0 / rate;
      if (phase >= 1) {
        phase -= 1;
        src[i] = 1;
      }
      const k = (i - start) / Math.max(1, n - start);
      src[i] = src[i]! * Math.sin(Math.PI * Math.min(1, k * 1.2)) + 0.02 * rand();
    } else src[i] = 0.002 * rand();
    void t;
  }
  // Formants: two-pole resonators in parallel.
  const out = new Float64Array(n);
  for (const [f, bw, gain] of [
    [700, 110, 1],
    [1220, 120, 0.5],
    [2600, 160, 0.25],
  ] as const) {
    const r = Math.exp((-Math.PI * bw) / rate);
    const a1 = 2 * r * Math.cos((2 * Math.PI * f) / rate);
    const a2 = -r * r;
    let y1 = 0;
    let y2 = 0;
    for (let i = 0; i < n; i++) {
      const y = src[i]! + a1 * y1 + a2 * y2;
      y2 = y1;
      y1 = y;
      out[i] = out[i]! + gain * y;
    }
  }
  let max = 0;
  for (let i = 0; i < n; i++) max = Math.max(max, Math.abs(out[i]!));
  const result = new Float32Array(n);
  for (let i = 0; i < n; i++) result[i] = (out[i]! / max) * peak;
  return result;
}
