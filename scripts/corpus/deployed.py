"""Makes the project's corpus of models as they are deployed, with the tools that make them.

Driven by scripts/corpus/deployed.ts (`npm run corpus:deployed`). Small float models with random
weights (torch and transformers, nothing loaded from a hub) are quantized by onnxruntime's
quantizer (QDQ and QOperator, per-tensor and per-channel, A16W8, int4 blocked QDQ and MatMulNBits,
dynamic LSTM), converted to float16 / bfloat16, fused by onnxruntime's transformers optimizer, or
saved by an onnxruntime session after its graph optimizations. Each model goes to OUT/<name>/ in
the ONNX backend-test layout (model.onnx, test_data_set_0/input_<i>.pb and output_<i>.pb, the
outputs onnxruntime's for those inputs) with recipe.json: the tool and options that made it, its
op histogram, and how far apart onnxruntime's own execution modes are on it (graph optimizations
on and off). OUT/manifest.json maps every op to the models that use it.

    python deployed.py --out DIR [--only SUBSTRING] [--list]
"""

import argparse
import collections
import json
import os
import shutil
import sys
import tempfile
import time
import traceback

import numpy as np
import onnx
import onnxruntime as ort
import torch
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export import import_torchvision  # noqa: E402  (transformers imports torchvision)

SEED = 20261205
# Width of the transformer models: small enough that the whole corpus is a few MB.
HIDDEN = 32


def seeded(offset: int = 0) -> np.random.RandomState:
    return np.random.RandomState(SEED + offset)


# ---- float models ----------------------------------------------------------------------------


class SmallCnn(torch.nn.Module):
    """Conv + BatchNorm + Relu, MaxPool, a residual Add, a sigmoid gate (Mul), LeakyRelu, Concat,
    a clipped Conv, global average pooling, a classifier (Gemm) and Softmax: every op the
    QOperator quantizer turns into a com.microsoft QLinear op."""

    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.b1 = torch.nn.BatchNorm2d(8)
        self.c2 = torch.nn.Conv2d(8, 8, 3, padding=1)
        self.c3 = torch.nn.Conv2d(8, 8, 1)
        self.c4 = torch.nn.Conv2d(16, 16, 3, stride=2, padding=1)
        self.fc = torch.nn.Linear(16, 10)

    def forward(self, x):
        a = torch.relu(self.b1(self.c1(x)))
        a = torch.nn.functional.max_pool2d(a, 2)
        b = torch.relu(self.c2(a) + a)
        g = torch.sigmoid(self.c3(b))
        c = torch.nn.functional.leaky_relu(b * g, 0.1)
        d = torch.cat([c, b], 1)
        d = torch.nn.functional.hardtanh(self.c4(d), 0, 6)
        p = torch.nn.functional.adaptive_avg_pool2d(d, 1).flatten(1)
        return torch.softmax(self.fc(p) * 4, -1)


def image(rs: np.random.RandomState, n: int = 1, size: int = 32) -> np.ndarray:
    """Smooth fields with a little noise, like normalised photographs rather than white noise."""
    coarse = torch.from_numpy(rs.rand(n, 3, 5, 5).astype(np.float32))
    img = torch.nn.functional.interpolate(coarse, size=(size, size), mode="bilinear", align_corners=False)
    img = img + 0.05 * torch.from_numpy(rs.randn(n, 3, size, size).astype(np.float32))
    return ((img - 0.5) / 0.25).numpy().astype(np.float32)


def export_cnn(path: str):
    torch.manual_seed(SEED)
    m = SmallCnn()
    # BatchNorm statistics from images, so that activations are normalised.
    m.b1.momentum = None
    m.train()
    with torch.no_grad():
        for i in range(4):
            m(torch.from_numpy(image(seeded(100 + i), 8)))
    m.eval()
    x = image(seeded(1))
    torch.onnx.export(m, (torch.from_numpy(x),), path, dynamo=False, opset_version=13,
                      input_names=["input"], output_names=["probs"],
                      dynamic_axes={"input": {0: "batch"}, "probs": {0: "batch"}})
    return {"input": x}


class TupleOutputs(torch.nn.Module):
    def __init__(self, inner, names, n):
        super().__init__()
        self.inner, self.names, self.n = inner, names, n

    def forward(self, *args):
        out = self.inner(**dict(zip(self.names, args)), return_dict=False)
        return tuple(out[: self.n])


class ClassicBert(torch.nn.Module):
    """A BERT encoder written as transformers wrote it until 2024 (an additive -10000 mask,
    scores divided by sqrt(d), tanh or erf GELU): the graph onnxruntime's transformers optimizer
    recognises (its fusions match that export, not the later mask and attention code)."""

    def __init__(self, vocab=128, hidden=HIDDEN, heads=4, layers=2, inter=2 * HIDDEN, positions=32, tanh=False):
        super().__init__()
        self.h, self.d = heads, hidden // heads
        self.tanh = tanh
        self.word = torch.nn.Embedding(vocab, hidden)
        self.pos = torch.nn.Embedding(positions, hidden)
        self.segment = torch.nn.Embedding(2, hidden)
        self.ln0 = torch.nn.LayerNorm(hidden, eps=1e-12)
        L = torch.nn.Linear
        self.layers = torch.nn.ModuleList(
            torch.nn.ModuleDict({"q": L(hidden, hidden), "k": L(hidden, hidden), "v": L(hidden, hidden),
                                 "o": L(hidden, hidden), "ln1": torch.nn.LayerNorm(hidden, eps=1e-12),
                                 "i": L(hidden, inter), "out": L(inter, hidden),
                                 "ln2": torch.nn.LayerNorm(hidden, eps=1e-12)})
            for _ in range(layers))

    def heads(self, x):
        b, s, _ = x.shape
        return x.view(b, s, self.h, self.d).permute(0, 2, 1, 3)

    def forward(self, input_ids, attention_mask, token_type_ids):
        s = input_ids.shape[1]
        pos = torch.arange(s, dtype=torch.long).unsqueeze(0)
        x = self.ln0(self.word(input_ids) + self.pos(pos) + self.segment(token_type_ids))
        ext = (1.0 - attention_mask[:, None, None, :].to(torch.float32)) * -10000.0
        for l in self.layers:
            q, k, v = self.heads(l["q"](x)), self.heads(l["k"](x)), self.heads(l["v"](x))
            scores = torch.matmul(q, k.transpose(-1, -2)) / (self.d ** 0.5) + ext
            ctx = torch.matmul(torch.softmax(scores, -1), v).permute(0, 2, 1, 3).contiguous()
            ctx = ctx.view(ctx.shape[0], ctx.shape[1], self.h * self.d)
            x = l["ln1"](l["o"](ctx) + x)
            hmid = l["i"](x)
            if self.tanh:
                hmid = torch.nn.functional.gelu(hmid, approximate="tanh")
            else:
                hmid = torch.nn.functional.gelu(hmid)
            x = l["ln2"](l["out"](hmid) + x)
        return x


def randomize_norms(model: torch.nn.Module) -> None:
    """LayerNorm weights and biases away from their initial 1 and 0, as a trained model's are (the
    optimizer would otherwise share one initializer among all of them)."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.LayerNorm):
                m.weight.copy_(1 + 0.2 * torch.randn(m.weight.shape))
                m.bias.copy_(0.1 * torch.randn(m.bias.shape))


def export_bert(path: str, opset: int = 14, tanh: bool = False):
    torch.manual_seed(SEED)
    model = ClassicBert(tanh=tanh).eval()
    randomize_norms(model)
    seq = 16
    rs = seeded(2)
    ids = rs.randint(1, 128, (2, seq)).astype(np.int64)
    mask = np.ones((2, seq), np.int64)
    mask[1, -5:] = 0
    types = np.zeros((2, seq), np.int64)
    types[:, seq // 2:] = 1
    axes = {0: "batch", 1: "sequence"}
    names = ["input_ids", "attention_mask", "token_type_ids"]
    torch.onnx.export(model, tuple(torch.from_numpy(a) for a in (ids, mask, types)), path, dynamo=False,
                      opset_version=opset, input_names=names, output_names=["last_hidden_state"],
                      dynamic_axes={**{n: axes for n in names}, "last_hidden_state": axes})
    return dict(zip(names, (ids, mask, types)))


def export_gpt2(path: str):
    from transformers import GPT2Config, GPT2Model

    torch.manual_seed(SEED)
    cfg = GPT2Config(vocab_size=128, n_embd=HIDDEN, n_layer=2, n_head=4, n_positions=32, use_cache=False,
                     attn_implementation="eager")
    model = TupleOutputs(GPT2Model(cfg).eval(), ["input_ids", "attention_mask"], 1).eval()
    randomize_norms(model)
    rs = seeded(3)
    ids = rs.randint(0, 128, (1, 16)).astype(np.int64)
    mask = np.ones((1, 16), np.int64)
    axes = {0: "batch", 1: "sequence"}
    torch.onnx.export(model, (torch.from_numpy(ids), torch.from_numpy(mask)), path, dynamo=False, opset_version=14,
                      input_names=["input_ids", "attention_mask"], output_names=["last_hidden_state"],
                      dynamic_axes={"input_ids": axes, "attention_mask": axes, "last_hidden_state": axes})
    return {"input_ids": ids, "attention_mask": mask}


def export_clip_text(path: str):
    from transformers import CLIPTextConfig, CLIPTextModel

    torch.manual_seed(SEED)
    cfg = CLIPTextConfig(vocab_size=128, hidden_size=HIDDEN, intermediate_size=2 * HIDDEN, num_hidden_layers=2,
                         num_attention_heads=4, max_position_embeddings=32, hidden_act="quick_gelu",
                         attn_implementation="eager")
    model = TupleOutputs(CLIPTextModel(cfg).eval(), ["input_ids"], 1).eval()
    randomize_norms(model)
    ids = seeded(4).randint(0, 128, (1, 16)).astype(np.int64)
    torch.onnx.export(model, (torch.from_numpy(ids),), path, dynamo=False, opset_version=14,
                      input_names=["input_ids"], output_names=["last_hidden_state"])
    return {"input_ids": ids}


def export_llama(path: str, seq: int = 8):
    from transformers import LlamaConfig, LlamaModel

    torch.manual_seed(SEED)
    cfg = LlamaConfig(vocab_size=128, hidden_size=HIDDEN, intermediate_size=2 * HIDDEN, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                      use_cache=False, attn_implementation="eager")
    model = TupleOutputs(LlamaModel(cfg).eval(), ["input_ids", "attention_mask"], 1).eval()
    ids = seeded(5).randint(0, 128, (1, seq)).astype(np.int64)
    mask = np.ones((1, seq), np.int64)
    axes = {0: "batch", 1: "sequence"}
    torch.onnx.export(model, (torch.from_numpy(ids), torch.from_numpy(mask)), path, dynamo=False, opset_version=18,
                      input_names=["input_ids", "attention_mask"], output_names=["last_hidden_state"],
                      dynamic_axes={"input_ids": axes, "attention_mask": axes, "last_hidden_state": axes})
    return {"input_ids": ids, "attention_mask": mask}


class Recurrent(torch.nn.Module):
    def __init__(self, kind: str):
        super().__init__()
        cls = torch.nn.LSTM if kind == "lstm" else torch.nn.GRU
        self.rnn = cls(16, 32, num_layers=1, batch_first=False, bidirectional=True)
        self.head = torch.nn.Linear(64, 8)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.head(y)


def export_recurrent(path: str, kind: str):
    torch.manual_seed(SEED)
    m = Recurrent(kind).eval()
    x = seeded(6).randn(10, 2, 16).astype(np.float32)
    torch.onnx.export(m, (torch.from_numpy(x),), path, dynamo=False, opset_version=14,
                      input_names=["x"], output_names=["y"])
    return {"x": x}


def export_mobilenet(path: str, size: int = 64, width: float = 0.5, classes: int = 10):
    """mobilenet_v3_small from torchvision with random weights, its BatchNorm statistics taken
    from images, exported at opset 17 (HardSwish and HardSigmoid as ONNX ops). The defaults keep
    the corpus small; `size=224, width=1.0, classes=1000` is the full model."""
    from export import image_batch, recalibrate_batchnorm
    from torchvision.models import mobilenet_v3_small

    torch.manual_seed(SEED)
    gen = torch.Generator().manual_seed(SEED)
    m = mobilenet_v3_small(weights=None, width_mult=width, num_classes=classes)
    recalibrate_batchnorm(m, gen, size)
    x = image_batch(gen, 1, size).numpy().astype(np.float32)
    torch.onnx.export(m, (torch.from_numpy(x),), path, dynamo=False, opset_version=17,
                      input_names=["input"], output_names=["logits"])
    # The exporter shares equal biases through Identity nodes; the quantizer wants each Conv's
    # bias to be an initializer of its own.
    g = onnx.load(path)
    inits = {t.name: t for t in g.graph.initializer}
    for n in [n for n in g.graph.node if n.op_type == "Identity" and n.input[0] in inits]:
        t = onnx.TensorProto()
        t.CopyFrom(inits[n.input[0]])
        t.name = n.output[0]
        g.graph.initializer.append(t)
        g.graph.node.remove(n)
    onnx.save(g, path)
    return {"input": x}


def mobilenet_calibration(size: int = 64):
    from export import image_batch

    gen = torch.Generator().manual_seed(SEED + 300)
    return [{"input": image_batch(gen, 1, size).numpy().astype(np.float32)} for _ in range(6)]


# ---- the tools ----------------------------------------------------------------------------------


class Reader:
    """Calibration data for quantize_static: a few inputs like the test's."""

    def __init__(self, batches):
        self.it = iter(batches)

    def get_next(self):
        return next(self.it, None)


def cnn_calibration():
    return [{"input": image(seeded(200 + i), 1)} for i in range(6)]


def quant_static(src: str, dst: str, calibration=cnn_calibration, **kw):
    from onnxruntime.quantization import quantize_static

    quantize_static(src, dst, Reader(calibration()), **kw)


def optimized_by_session(src: str, dst: str, level):
    so = ort.SessionOptions()
    so.graph_optimization_level = level
    so.optimized_model_filepath = dst
    ort.InferenceSession(src, so, providers=["CPUExecutionProvider"])


def transformers_optimize(src: str, dst: str, model_type: str, fp16: bool = False, **options):
    from onnxruntime.transformers import optimizer
    from onnxruntime.transformers.fusion_options import FusionOptions

    opts = FusionOptions(model_type)
    for k, v in options.items():
        setattr(opts, k, v)
    m = optimizer.optimize_model(src, model_type=model_type, num_heads=4, hidden_size=HIDDEN,
                                 optimization_options=opts, opt_level=0)
    if fp16:
        m.convert_float_to_float16(keep_io_types=True)
    m.save_model_to_file(dst)


def to_float16(src: str, dst: str, keep_io_types: bool):
    from onnxruntime.transformers.float16 import convert_float_to_float16

    m = convert_float_to_float16(onnx.load(src), keep_io_types=keep_io_types)
    onnx.save(m, dst)


def to_bfloat16_weights(src: str, dst: str):
    """Weights stored as bfloat16 and cast to float where they are read: how bfloat16
    checkpoints reach CPU runtimes, which have few bfloat16 kernels."""
    m = onnx.load(src)
    g = m.graph
    casts = []
    for t in g.initializer:
        if t.data_type != TensorProto.FLOAT or len(t.dims) < 1 or np.prod(t.dims) < 16:
            continue
        a = numpy_helper.to_array(t)
        bits = (a.view(np.uint32) + 0x7FFF + ((a.view(np.uint32) >> 16) & 1)) >> 16
        name = t.name
        t.data_type = TensorProto.BFLOAT16
        t.raw_data = bits.astype(np.uint16).tobytes()
        t.name = name + "_bf16"
        casts.append(helper.make_node("Cast", [t.name], [name], to=TensorProto.FLOAT, name=name + "_cast"))
    for n in reversed(casts):
        g.node.insert(0, n)
    onnx.save(m, dst)


def nbits(src: str, dst: str, fmt: str, accuracy_level=None, symmetric=False):
    from onnxruntime.quantization import QuantFormat
    from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer

    q = MatMulNBitsQuantizer(onnx.load(src), bits=4, block_size=32, is_symmetric=symmetric,
                             accuracy_level=accuracy_level,
                             quant_format=QuantFormat.QDQ if fmt == "qdq" else QuantFormat.QOperator)
    q.process()
    q.model.save_model_to_file(dst, False)


def quant_dynamic(src: str, dst: str, **kw):
    from onnxruntime.quantization import quantize_dynamic

    quantize_dynamic(src, dst, **kw)


def cut_rotary_caches(path: str, positions: int = 64):
    """The optimizer writes cos/sin caches for 131,072 positions (8 MiB for a 64-wide model):
    cut to the positions the model is given (position ids stay below 64)."""
    m = onnx.load(path)
    for t in m.graph.initializer:
        if t.name in ("cos_cache", "sin_cache") and t.dims[0] > positions:
            a = numpy_helper.to_array(t)[:positions]
            t.CopyFrom(numpy_helper.from_array(np.ascontiguousarray(a), t.name))
    onnx.save(m, path)


def llama_optimized(src: str, dst: str):
    transformers_optimize(src, dst, "gpt2")
    cut_rotary_caches(dst)


def gqa_decoder(dst: str, past: bool):
    """A decoder layer in the form onnxruntime's generation tools write it (their
    replace_mha_with_gqa: seqlens_k and total_sequence_length from the attention mask, packed QKV,
    GroupQueryAttention with rotary inside; RMS norms as SimplifiedLayerNormalization and
    SkipSimplifiedLayerNormalization), written with onnx.helper: the optimizer's rotary attention
    fusion does not match the attention code of the transformers release installed here."""
    rs = seeded(7)
    vocab, hidden, heads, kv_heads, head = 128, 64, 4, 2, 16  # onnxruntime wants head sizes of 16k
    qkv = (heads + 2 * kv_heads) * head
    f = lambda *shape, scale=0.2: (rs.randn(*shape) * scale).astype(np.float32)
    inv = 1.0 / (10000 ** (np.arange(0, head, 2) / head))
    ang = np.arange(64)[:, None] * inv[None, :]
    inits = [
        numpy_helper.from_array(f(vocab, hidden, scale=1.0), "embed"),
        numpy_helper.from_array(1 + f(hidden, scale=0.1), "norm1"),
        numpy_helper.from_array(f(hidden, qkv), "w_qkv"),
        numpy_helper.from_array(f(heads * head, hidden), "w_o"),
        numpy_helper.from_array(1 + f(hidden, scale=0.1), "norm2"),
        numpy_helper.from_array(np.cos(ang).astype(np.float32), "cos_cache"),
        numpy_helper.from_array(np.sin(ang).astype(np.float32), "sin_cache"),
        numpy_helper.from_array(np.array([1], np.int64), "one"),
    ]
    nodes = [
        helper.make_node("Gather", ["embed", "input_ids"], ["x"], name="embed_tokens"),
        helper.make_node("SimplifiedLayerNormalization", ["x", "norm1"], ["h"], axis=-1, epsilon=1e-6,
                         stash_type=1, name="input_norm"),
        helper.make_node("MatMul", ["h", "w_qkv"], ["qkv"], name="qkv_proj"),
        helper.make_node("ReduceSum", ["attention_mask", "one"], ["mask_sum"], keepdims=1, name="mask_sum"),
        helper.make_node("Sub", ["mask_sum", "one"], ["seqlens_k_64"], name="seqlens_sub"),
        helper.make_node("Cast", ["seqlens_k_64"], ["seqlens_k"], to=TensorProto.INT32, name="seqlens_cast"),
        helper.make_node("Shape", ["attention_mask"], ["mask_shape"], name="mask_shape"),
        helper.make_node("Gather", ["mask_shape", "one"], ["total_64"], axis=0, name="total_gather"),
        helper.make_node("Cast", ["total_64"], ["total_sequence_length"], to=TensorProto.INT32, name="total_cast"),
        helper.make_node("GroupQueryAttention",
                         ["qkv", "", "", "past_key" if past else "", "past_value" if past else "", "seqlens_k",
                          "total_sequence_length", "cos_cache", "sin_cache"],
                         ["attn", "present_key", "present_value"] if past else ["attn"],
                         domain="com.microsoft", num_heads=heads, kv_num_heads=kv_heads, do_rotary=1,
                         rotary_interleaved=0, name="gqa"),
        helper.make_node("MatMul", ["attn", "w_o"], ["o"], name="o_proj"),
        helper.make_node("SkipSimplifiedLayerNormalization", ["x", "o", "norm2"], ["y", "", "", "residual"],
                         domain="com.microsoft", epsilon=1e-6, name="post_norm"),
    ]
    B = 2
    S = 1 if past else 8
    P = 7 if past else 0
    ins = [helper.make_tensor_value_info("input_ids", TensorProto.INT64, [B, "sequence"]),
           helper.make_tensor_value_info("attention_mask", TensorProto.INT64, [B, "total_sequence"])]
    outs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, [B, "sequence", hidden]),
            helper.make_tensor_value_info("residual", TensorProto.FLOAT, [B, "sequence", hidden])]
    if past:
        for n in ("past_key", "past_value"):
            ins.append(helper.make_tensor_value_info(n, TensorProto.FLOAT, [B, kv_heads, "past", head]))
        for n in ("present_key", "present_value"):
            outs.append(helper.make_tensor_value_info(n, TensorProto.FLOAT, [B, kv_heads, "total_sequence", head]))
    g = helper.make_graph(nodes, "gqa_decoder", ins, outs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)],
                          producer_name="onnx-expand corpus")
    m.ir_version = 8
    onnx.save(m, dst)
    feeds = {"input_ids": rs.randint(0, vocab, (B, S)).astype(np.int64),
             "attention_mask": np.ones((B, P + S), np.int64)}
    if past:
        feeds["past_key"] = f(B, kv_heads, P, head, scale=1.0)
        feeds["past_value"] = f(B, kv_heads, P, head, scale=1.0)
    return feeds


def bias_add_block(dst: str):
    """BiasAdd as the optimizer's unet fusion writes it (X, bias, skip: [N, S, C] with C one of
    the widths onnxruntime's kernels take), written with onnx.helper: onnxruntime has no CPU
    kernel for BiasAdd, so the reference outputs are computed here with numpy."""
    rs = seeded(8)
    C = 320
    b = (rs.randn(C) * 0.1).astype(np.float32)
    nodes = [helper.make_node("Relu", ["x"], ["rx"], name="act"),
             helper.make_node("BiasAdd", ["rx", "b", "skip"], ["y"], domain="com.microsoft", name="bias_add")]
    g = helper.make_graph(nodes, "bias_add",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4, C]),
                           helper.make_tensor_value_info("skip", TensorProto.FLOAT, [2, 4, C])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4, C])],
                          [numpy_helper.from_array(b, "b")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)],
                          producer_name="onnx-expand corpus")
    m.ir_version = 8
    onnx.save(m, dst)
    x = rs.randn(2, 4, C).astype(np.float32)
    skip = rs.randn(2, 4, C).astype(np.float32)
    return {"x": x, "skip": skip, "__reference__": {"y": (np.maximum(x, 0) + b + skip).astype(np.float32)}}


def ort_dataset(name: str):
    """A model onnxruntime ships in its Python package (onnxruntime.datasets), copied as it is."""
    def make(_src, dst):
        from onnxruntime import datasets

        shutil.copy(datasets.get_example(name), dst)
        m = onnx.load(dst)
        rs = seeded(9)
        feeds = {}
        for i in m.graph.input:
            if i.name in {t.name for t in m.graph.initializer}:
                continue
            dims = [d.dim_value or 1 for d in i.type.tensor_type.shape.dim]
            feeds[i.name] = rs.randn(*dims).astype(np.float32)
        return feeds
    return make


# ---- recipes ------------------------------------------------------------------------------------
#
# name: (float model, tool, options); the float models are made once and shared.

def recipes():
    from onnxruntime.quantization import QuantFormat, QuantType

    L = ort.GraphOptimizationLevel
    U8, S8, U16 = QuantType.QUInt8, QuantType.QInt8, QuantType.QUInt16
    r = {}

    def add(name, base, tool, make, **info):
        r[name] = {"base": base, "tool": tool, "make": make, "info": info}

    add("cnn_fp32", "cnn", "torch.onnx.export (legacy, opset 13)", None)
    for fmt in ("qdq", "qop"):
        for pc in (False, True):
            qf = QuantFormat.QDQ if fmt == "qdq" else QuantFormat.QOperator
            add(f"cnn_{fmt}_{'per_channel' if pc else 'per_tensor'}", "cnn", "quantize_static",
                (lambda qf, pc: lambda s, d: quant_static(s, d, quant_format=qf, per_channel=pc,
                                                          activation_type=U8, weight_type=S8))(qf, pc),
                quant_format=fmt, per_channel=pc, activation_type="uint8", weight_type="int8")
    add("cnn_qdq_s8s8_contrib", "cnn", "quantize_static",
        lambda s, d: quant_static(s, d, quant_format=QuantFormat.QDQ, per_channel=True, activation_type=S8,
                                  weight_type=S8, extra_options={"UseQDQContribOps": True}),
        quant_format="qdq", per_channel=True, activation_type="int8", weight_type="int8", contrib_qdq=True)
    add("cnn_a16w8_contrib", "cnn", "quantize_static",
        lambda s, d: quant_static(s, d, quant_format=QuantFormat.QDQ, per_channel=True, activation_type=U16,
                                  weight_type=S8, extra_options={"UseQDQContribOps": True}),
        quant_format="qdq", per_channel=True, activation_type="uint16", weight_type="int8", contrib_qdq=True)
    add("cnn_a16w8_op21", "cnn", "quantize_static",
        lambda s, d: quant_static(s, d, quant_format=QuantFormat.QDQ, per_channel=True, activation_type=U16,
                                  weight_type=S8),
        quant_format="qdq", per_channel=True, activation_type="uint16", weight_type="int8")
    add("mobilenet_qop_per_channel", "mobilenet", "quantize_static (mobilenet_v3_small, half width)",
        lambda s, d: quant_static(s, d, calibration=mobilenet_calibration, quant_format=QuantFormat.QOperator,
                                  per_channel=True, activation_type=U8, weight_type=S8),
        quant_format="qop", per_channel=True, activation_type="uint8", weight_type="int8")
    add("cnn_fp16", "cnn", "onnxruntime.transformers.float16.convert_float_to_float16",
        lambda s, d: to_float16(s, d, keep_io_types=False), keep_io_types=False)
    add("cnn_fp16_io32", "cnn", "onnxruntime.transformers.float16.convert_float_to_float16",
        lambda s, d: to_float16(s, d, keep_io_types=True), keep_io_types=True)
    add("cnn_bf16_weights", "cnn", "bfloat16 weights, Cast to float where read (this script)",
        to_bfloat16_weights)
    add("cnn_ort_extended", "cnn", "onnxruntime session, ORT_ENABLE_EXTENDED, optimized_model_filepath",
        lambda s, d: optimized_by_session(s, d, L.ORT_ENABLE_EXTENDED), level="extended")
    add("cnn_qdq_ort_extended", "cnn_qdq_per_channel",
        "onnxruntime session, ORT_ENABLE_EXTENDED, optimized_model_filepath",
        lambda s, d: optimized_by_session(s, d, L.ORT_ENABLE_EXTENDED), level="extended")

    add("bert_fp32", "bert", "torch.onnx.export (legacy, opset 14)", None)
    add("bert_optimized", "bert", "onnxruntime.transformers.optimizer (bert)",
        lambda s, d: transformers_optimize(s, d, "bert", enable_embed_layer_norm=False))
    add("bert_optimized_default", "bert", "onnxruntime.transformers.optimizer (bert, default options)",
        lambda s, d: transformers_optimize(s, d, "bert"))
    add("bert_optimized_mha", "bert", "onnxruntime.transformers.optimizer (bert, use_multi_head_attention)",
        lambda s, d: transformers_optimize(s, d, "bert", enable_embed_layer_norm=False,
                                           use_multi_head_attention=True))
    add("bert_optimized_fp16", "bert", "onnxruntime.transformers.optimizer (bert), float16, io float",
        lambda s, d: transformers_optimize(s, d, "bert", fp16=True, enable_embed_layer_norm=False))
    add("bert_tanh_optimized", "bert_tanh", "onnxruntime.transformers.optimizer (bert, gelu tanh)",
        lambda s, d: transformers_optimize(s, d, "bert", enable_embed_layer_norm=False))
    add("bert_ort_extended", "bert", "onnxruntime session, ORT_ENABLE_EXTENDED, optimized_model_filepath",
        lambda s, d: optimized_by_session(s, d, L.ORT_ENABLE_EXTENDED), level="extended")
    add("bert_dynamic_qop", "bert", "quantize_dynamic (QOperator, MatMul)",
        lambda s, d: quant_dynamic(s, d, weight_type=S8, op_types_to_quantize=["MatMul"]))
    add("bert_dynamic_ort_extended", "bert_dynamic_qop",
        "onnxruntime session, ORT_ENABLE_EXTENDED, optimized_model_filepath",
        lambda s, d: optimized_by_session(s, d, L.ORT_ENABLE_EXTENDED), level="extended")
    add("bert_dynamic_per_channel_ort_extended", "bert_dynamic_per_channel",
        "onnxruntime session, ORT_ENABLE_EXTENDED, optimized_model_filepath",
        lambda s, d: optimized_by_session(s, d, L.ORT_ENABLE_EXTENDED), level="extended")
    add("bert_dynamic_per_channel", "bert", "quantize_dynamic (QOperator, MatMul, per channel)",
        lambda s, d: quant_dynamic(s, d, weight_type=S8, per_channel=True, op_types_to_quantize=["MatMul"]))
    add("gpt2_optimized", "gpt2", "onnxruntime.transformers.optimizer (gpt2)",
        lambda s, d: transformers_optimize(s, d, "gpt2"))
    add("clip_text_optimized", "clip_text", "onnxruntime.transformers.optimizer (clip)",
        lambda s, d: transformers_optimize(s, d, "clip"))

    add("llama_fp32", "llama", "torch.onnx.export (legacy, opset 18)", None)
    add("llama_optimized", "llama", "onnxruntime.transformers.optimizer (gpt2: rotary attention)",
        llama_optimized, rotary_caches_cut_to=64)
    add("gqa_prompt", None, "onnx.helper, in the form of replace_mha_with_gqa (no past)",
        lambda s, d: gqa_decoder(d, past=False))
    add("gqa_decode", None, "onnx.helper, in the form of replace_mha_with_gqa (past key/value)",
        lambda s, d: gqa_decoder(d, past=True))
    add("llama_matmulnbits", "llama", "MatMulNBitsQuantizer (4 bits, block 32, QOperator)",
        lambda s, d: nbits(s, d, "qop"), bits=4, block_size=32)
    add("llama_matmulnbits_acc4", "llama", "MatMulNBitsQuantizer (4 bits, block 32, accuracy_level 4)",
        lambda s, d: nbits(s, d, "qop", accuracy_level=4), bits=4, block_size=32, accuracy_level=4)
    add("llama_int4_qdq", "llama", "MatMulNBitsQuantizer (4 bits, block 32, QDQ)",
        lambda s, d: nbits(s, d, "qdq"), bits=4, block_size=32, quant_format="qdq")
    add("llama_int4_qdq_symmetric", "llama", "MatMulNBitsQuantizer (4 bits, block 32, QDQ, symmetric)",
        lambda s, d: nbits(s, d, "qdq", symmetric=True), bits=4, block_size=32, quant_format="qdq",
        symmetric=True)

    add("bias_add", None, "onnx.helper, BiasAdd as the unet fusion writes it (no CPU kernel in onnxruntime)",
        lambda s, d: bias_add_block(d), reference="numpy")
    add("ort_mul_1", None, "onnxruntime.datasets mul_1.onnx (IR 3, an initializer that is not a graph input)",
        ort_dataset("mul_1.onnx"))
    add("lstm_fp32", "lstm", "torch.onnx.export (legacy, opset 14)", None)
    add("lstm_dynamic", "lstm", "quantize_dynamic (LSTM, MatMul)",
        lambda s, d: quant_dynamic(s, d, weight_type=S8, op_types_to_quantize=["LSTM", "MatMul"]))
    add("gru_dynamic", "gru", "quantize_dynamic (GRU, MatMul)",
        lambda s, d: quant_dynamic(s, d, weight_type=S8, op_types_to_quantize=["GRU", "MatMul"]))
    return r


BASES = {
    "cnn": export_cnn,
    "bert": lambda p: export_bert(p),
    "bert_tanh": lambda p: export_bert(p, tanh=True),
    "gpt2": export_gpt2,
    "clip_text": export_clip_text,
    "llama": export_llama,
    "lstm": lambda p: export_recurrent(p, "lstm"),
    "gru": lambda p: export_recurrent(p, "gru"),
    "mobilenet": export_mobilenet,
}


# ---- running and recording ---------------------------------------------------------------------


def session(path: str, level):
    so = ort.SessionOptions()
    so.graph_optimization_level = level
    so.log_severity_level = 3
    # DEPLOYED_ORT_THREADS of deployed-transforms.ts: DynamicQuantizeLSTM's numbers follow the
    # thread count (the rows one thread computes share a scale), the default is the machine's
    so.intra_op_num_threads = 2
    return ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])


def feeds_for(sess, inputs: dict) -> dict:
    """The inputs in the model's element types (a float16 model takes float16 images)."""
    types = {"tensor(float)": np.float32, "tensor(float16)": np.float16, "tensor(int64)": np.int64,
             "tensor(int32)": np.int32}
    return {i.name: inputs[i.name].astype(types[i.type]) for i in sess.get_inputs()}


def write_reference(folder: str, feeds: dict, reference: dict) -> dict:
    """Inputs and outputs computed by this script (a model onnxruntime cannot run on CPU)."""
    m = onnx.load(os.path.join(folder, "model.onnx"))
    data = os.path.join(folder, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    for i, inp in enumerate(m.graph.input):
        with open(os.path.join(data, f"input_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(feeds[inp.name], inp.name).SerializeToString())
    for i, out in enumerate(m.graph.output):
        with open(os.path.join(data, f"output_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(reference[out.name], out.name).SerializeToString())
    return {}


def write_folder(folder: str, feeds: dict) -> dict:
    if "__reference__" in feeds:
        ref = feeds["__reference__"]
        return write_reference(folder, {k: v for k, v in feeds.items() if k != "__reference__"}, ref)
    path = os.path.join(folder, "model.onnx")
    full = session(path, ort.GraphOptimizationLevel.ORT_ENABLE_ALL)
    plain = session(path, ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
    feeds = feeds_for(full, feeds)
    outs = full.run(None, feeds)
    outs_plain = plain.run(None, feeds)
    data = os.path.join(folder, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    for i, (n, v) in enumerate(feeds.items()):
        with open(os.path.join(data, f"input_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(v, n).SerializeToString())
    plain_dir = os.path.join(folder, "ort_disable_all")
    os.makedirs(plain_dir, exist_ok=True)
    spread = {}
    for i, (o, v, w) in enumerate(zip(full.get_outputs(), outs, outs_plain)):
        v = np.asarray(v)
        with open(os.path.join(data, f"output_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(v, o.name).SerializeToString())
        with open(os.path.join(plain_dir, f"output_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(np.asarray(w), o.name).SerializeToString())
        a, b = v.astype(np.float64), np.asarray(w).astype(np.float64)
        d = np.abs(a - b)
        spread[o.name] = {
            "shape": list(v.shape),
            "rms": float(np.sqrt(np.mean(a * a))) if a.size else 0.0,
            "max_abs": float(d.max()) if d.size else 0.0,
            "differing": int((d > 0).sum()),
            "norm_rel": float(np.linalg.norm(a - b) / max(np.linalg.norm(a), 1e-30)),
        }
    return spread


def write_fp16_references(folder: str) -> dict:
    """For a float16 model: the float64 reference rounded at each op boundary (fp16_reference/)
    and ONNX's reference evaluator's outputs (onnx_reference/), with onnxruntime's norm-wise error
    against the first (fp16_reference.py)."""
    from fp16_reference import is_float16_model, references

    path = os.path.join(folder, "model.onnx")
    if not is_float16_model(path):
        return {}
    m = onnx.load(path)
    data = os.path.join(folder, "test_data_set_0")
    feeds = {}
    for i, inp in enumerate(m.graph.input):
        t = onnx.TensorProto()
        with open(os.path.join(data, f"input_{i}.pb"), "rb") as f:
            t.ParseFromString(f.read())
        feeds[inp.name] = numpy_helper.to_array(t)
    r64, native = references(path, feeds)
    info = {}
    for sub, values in (("fp16_reference", r64), ("onnx_reference", native)):
        os.makedirs(os.path.join(folder, sub), exist_ok=True)
        for i, (o, v) in enumerate(zip(m.graph.output, values)):
            with open(os.path.join(folder, sub, f"output_{i}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(np.asarray(v), o.name).SerializeToString())
    for i, o in enumerate(m.graph.output):
        t = onnx.TensorProto()
        with open(os.path.join(data, f"output_{i}.pb"), "rb") as f:
            t.ParseFromString(f.read())
        ort_out = numpy_helper.to_array(t).astype(np.float64)
        ref = r64[i].astype(np.float64)
        nat = native[i].astype(np.float64)
        info[o.name] = {
            "ort_vs_reference": float(np.linalg.norm(ort_out - ref) / np.linalg.norm(ref)),
            "onnx_reference_vs_reference": float(np.linalg.norm(nat - ref) / np.linalg.norm(ref)),
        }
    return info


def op_histogram(m: onnx.ModelProto) -> dict:
    h = collections.Counter()

    def walk(g):
        for n in g.node:
            h[(n.domain if n.domain not in ("", "ai.onnx") else "") + ("." if n.domain not in ("", "ai.onnx") else "") + n.op_type] += 1
            for a in n.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    walk(a.g)
                for sg in a.graphs:
                    walk(sg)

    walk(m.graph)
    return dict(sorted(h.items()))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", default=None)
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    import_torchvision()
    todo = {k: v for k, v in recipes().items() if a.only is None or a.only in k}
    if a.list:
        for k, v in todo.items():
            print(f"{k}: {v['tool']}")
        return 0
    os.makedirs(a.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="deployed-")
    bases = {}  # base name -> (path, inputs)
    all_recipes = recipes()

    def base(name: str):
        """A float model, or another recipe's output (a quantized model optimized again)."""
        if name in bases:
            return bases[name]
        if name in BASES:
            p = os.path.join(work, name + ".onnx")
            inputs = BASES[name](p)
        else:
            p, inputs = make(name, all_recipes[name], os.path.join(work, name))
        bases[name] = (p, inputs)
        return bases[name]

    def make(name, rec, folder):
        os.makedirs(folder, exist_ok=True)
        dst = os.path.join(folder, "model.onnx")
        if rec["base"] is None:  # a model written here, with its inputs
            return dst, rec["make"](None, dst)
        src, inputs = base(rec["base"])
        if rec["make"] is None:
            shutil.copy(src, dst)
        else:
            rec["make"](src, dst)
        return dst, inputs

    failures = 0
    manifest = {"onnxruntime": ort.__version__, "onnx": onnx.__version__, "torch": torch.__version__,
                "models": {}, "ops": {}}
    manifest_path = os.path.join(a.out, "manifest.json")
    if os.path.exists(manifest_path) and a.only is not None:
        with open(manifest_path) as f:
            manifest["models"] = json.load(f).get("models", {})
    for name, rec in todo.items():
        folder = os.path.join(a.out, name)
        shutil.rmtree(folder, ignore_errors=True)
        t0 = time.time()
        try:
            path, inputs = make(name, rec, folder)
            m = onnx.load(path)
            spread = write_folder(folder, inputs)
            fp16 = write_fp16_references(folder)
            opsets = {(o.domain or "ai.onnx"): o.version for o in m.opset_import}
            info = {"name": name, "tool": rec["tool"], "base": rec["base"], **rec["info"],
                    "opsets": opsets, "ir": m.ir_version, "nodes": len(m.graph.node),
                    "bytes": os.path.getsize(path), "ops": op_histogram(m),
                    "ort_optimization_spread": spread, **({"float16": fp16} if fp16 else {}),
                    "seconds": round(time.time() - t0, 1)}
            with open(os.path.join(folder, "recipe.json"), "w") as f:
                json.dump(info, f, indent=1)
            manifest["models"][name] = {k: info[k] for k in ("tool", "opsets", "bytes", "ops")}
            contrib = sorted(k for k in info["ops"] if "." in k)
            print(f"{name}: {len(m.graph.node)} nodes, {info['bytes'] // 1024} KiB, "
                  f"{', '.join(contrib) or 'ai.onnx only'}; ORT optimization spread "
                  + ", ".join(f"{k} {v['max_abs']:.3g}" for k, v in spread.items())
                  + f" ({info['seconds']} s)", flush=True)
        except Exception as e:
            failures += 1
            shutil.rmtree(folder, ignore_errors=True)
            os.makedirs(folder, exist_ok=True)
            print(f"{name}: FAILED: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}", flush=True)
            if os.environ.get("CORPUS_VERBOSE"):
                traceback.print_exc()
            with open(os.path.join(folder, "FAILED"), "w") as f:
                f.write(traceback.format_exc())
    ops = collections.defaultdict(list)
    for name, info in sorted(manifest["models"].items()):
        for op in info["ops"]:
            ops[op].append(name)
    manifest["ops"] = dict(sorted(ops.items()))
    with open(manifest_path, "w") as f:
        json.dump(manifest, f, indent=1)
    shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
