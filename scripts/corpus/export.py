"""Exports the project's corpus of real model architectures, with random weights.

Driven by scripts/corpus/export.ts (`npm run corpus:export`); nothing is loaded from a hub.
Each model goes to OUT/<name>/ in the ONNX backend-test layout: model.onnx (and model.onnx.data
for the LLM's weights) and test_data_set_0/input_<i>.pb, output_<i>.pb, the outputs being
onnxruntime's for those inputs; export.json says how it was made (sizes, op counts, times).

    python export.py --out DIR [--only SUBSTRING] [--list] [--llm-size tiny|small|medium|large]
"""

import argparse
import json
import os
import sys
import time
import traceback

import numpy as np
import onnx
import onnxruntime
import torch
from onnx import numpy_helper

LEGACY_OPSETS = (11, 13, 17)
FUNCTIONS_OPSET = 17
SEED = 20261203


def import_torchvision():
    """torchvision, also where its compiled operators (nms, roi_align: detection only) do not
    match the installed torch (a CPU torch with a CUDA torchvision wheel): the classification
    models are plain Python and need none of them."""
    try:
        import torchvision  # noqa: F401
    except RuntimeError as e:
        if "torchvision::" not in str(e):
            raise
        import types

        for k in [k for k in sys.modules if k.startswith("torchvision")]:
            del sys.modules[k]
        sys.modules["torchvision._meta_registrations"] = types.ModuleType("torchvision._meta_registrations")
        import torchvision  # noqa: F401
    return sys.modules["torchvision"]


def image_batch(gen: torch.Generator, n: int, size: int) -> torch.Tensor:
    """Images that look like photographs after ImageNet normalisation: smooth colour fields with
    edges and a little noise, not white noise."""
    coarse = torch.rand(n, 3, 7, 7, generator=gen)
    img = torch.nn.functional.interpolate(coarse, size=(size, size), mode="bicubic", align_corners=False)
    ys = torch.linspace(0, 1, size).view(1, 1, size, 1)
    xs = torch.linspace(0, 1, size).view(1, 1, 1, size)
    for i in range(n):
        cy, cx, r = torch.rand(3, generator=gen).tolist()
        disc = ((ys - cy) ** 2 + (xs - cx) ** 2 < (0.1 + 0.3 * r) ** 2).float()
        img[i] = img[i] * (1 - disc[0]) + disc[0] * torch.rand(3, 1, 1, generator=gen)
    img = (img + 0.03 * torch.randn(img.shape, generator=gen)).clamp(0, 1)
    mean = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
    std = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)
    return (img - mean) / std


def recalibrate_batchnorm(model: torch.nn.Module, gen: torch.Generator, size: int) -> None:
    """Running statistics from random images (cumulative average), so that activations after
    each BatchNorm are normalised and the outputs are far from 0."""
    bns = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    if not bns:
        return
    for m in bns:
        m.reset_running_stats()
        m.momentum = None
    model.train()
    with torch.no_grad():
        for _ in range(4):
            model(image_batch(gen, 8, size))
    model.eval()


def torchvision_model(arch: str, gen: torch.Generator):
    torchvision = import_torchvision()
    torch.manual_seed(SEED)
    model = getattr(torchvision.models, arch)(weights=None)
    if arch == "convnext_tiny":
        # With every module a function the exporter writes one with a duplicate attribute
        # (Sequential); the blocks and their LayerNorm nest as functions instead.
        from torchvision.models import convnext

        model.function_modules = {convnext.CNBlock, convnext.LayerNorm2d}
    if arch == "mobilenet_v3_small":
        # Every module a function fails in the exporter ("outstanding annotated attribute"): the
        # inverted residual blocks, their squeeze-excitation and Hardswish nest instead.
        from torchvision.models import mobilenetv3
        from torchvision.ops.misc import SqueezeExcitation

        model.function_modules = {mobilenetv3.InvertedResidual, SqueezeExcitation, torch.nn.Hardswish}
    with torch.no_grad():
        for name, p in model.named_parameters():
            # ConvNeXt starts its residual branches at 1e-6: make them count.
            if name.endswith("layer_scale"):
                p.fill_(0.2)
    size = 224
    recalibrate_batchnorm(model, gen, size)
    model.eval()
    # The classifier's small initial weights give logits of ~1e-3: scale its last layer so that
    # they are of order 1, as a trained model's are.
    last = [m for m in model.modules() if isinstance(m, torch.nn.Linear)][-1]
    with torch.no_grad():
        rms = model(image_batch(gen, 4, size)).pow(2).mean().sqrt().item()
        last.weight.div_(rms)
        last.bias.div_(rms)
    x = image_batch(gen, 1, size)
    return model, (x,), ["input"], ["logits"], {"input": {0: "batch"}, "logits": {0: "batch"}}


class TupleOutputs(torch.nn.Module):
    """A transformers model called with return_dict=False, so that outputs are a plain tuple."""

    def __init__(self, inner: torch.nn.Module, names: list, n_outputs: int):
        super().__init__()
        self.inner = inner
        self.names = names
        self.n = n_outputs

    def forward(self, *args):
        out = self.inner(**dict(zip(self.names, args)), return_dict=False)
        return tuple(out[: self.n])


def bert(gen: torch.Generator):
    from transformers import BertConfig, BertModel
    from transformers.models.bert import modeling_bert as bm

    torch.manual_seed(SEED)
    cfg = BertConfig(
        vocab_size=1000,
        hidden_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=128,
        max_position_embeddings=128,
        attn_implementation="eager",
    )
    model = TupleOutputs(BertModel(cfg).eval(), ["input_ids", "attention_mask", "token_type_ids"], 2).eval()
    model.function_modules = {torch.nn.LayerNorm, bm.BertIntermediate, bm.BertLayer}
    seq = 16
    ids = torch.randint(1, 1000, (1, seq), generator=gen)
    ids[0, 0] = 101 % 1000
    mask = torch.ones(1, seq, dtype=torch.int64)
    mask[0, -3:] = 0  # padding at the end
    types = torch.zeros(1, seq, dtype=torch.int64)
    types[0, seq // 2 :] = 1
    axes = {0: "batch", 1: "sequence"}
    return (
        model,
        (ids, mask, types),
        ["input_ids", "attention_mask", "token_type_ids"],
        ["last_hidden_state", "pooler_output"],
        {"input_ids": axes, "attention_mask": axes, "token_type_ids": axes, "last_hidden_state": axes},
    )


def gpt2(gen: torch.Generator):
    from transformers import GPT2Config, GPT2LMHeadModel
    from transformers.models.gpt2 import modeling_gpt2 as gm

    torch.manual_seed(SEED)
    cfg = GPT2Config(
        vocab_size=1000,
        n_embd=64,
        n_layer=2,
        n_head=4,
        n_positions=128,
        use_cache=False,
        attn_implementation="eager",
    )
    model = TupleOutputs(GPT2LMHeadModel(cfg).eval(), ["input_ids", "attention_mask"], 1).eval()
    model.function_modules = {torch.nn.LayerNorm, gm.GPT2MLP, gm.GPT2Block}
    seq = 16
    ids = torch.randint(0, 1000, (1, seq), generator=gen)
    mask = torch.ones(1, seq, dtype=torch.int64)
    axes = {0: "batch", 1: "sequence"}
    return (
        model,
        (ids, mask),
        ["input_ids", "attention_mask"],
        ["logits"],
        {"input_ids": axes, "attention_mask": axes, "logits": axes},
    )


# Llama-style decoders (RMSNorm, rotary embeddings, grouped-query attention), built from a config in
# code. "tiny" is the committed test fixture (test/data/llm), "small" the corpus' (tens of MB of
# weights), "medium" the page's (803 MB of float32 weights: what the inspector opens, draws, lowers
# and runs within its memory budget), "large" the benchmark's (3.1 GiB of float32 weights;
# TinyLlama's shape with 16 layers).
LLM_SIZES = {
    "tiny": dict(vocab_size=512, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                 num_attention_heads=4, num_key_value_heads=2),
    "small": dict(vocab_size=8192, hidden_size=256, intermediate_size=688, num_hidden_layers=4,
                  num_attention_heads=8, num_key_value_heads=2),
    "medium": dict(vocab_size=32000, hidden_size=1024, intermediate_size=2816, num_hidden_layers=12,
                   num_attention_heads=16, num_key_value_heads=4),
    "large": dict(vocab_size=32000, hidden_size=2048, intermediate_size=5632, num_hidden_layers=16,
                  num_attention_heads=32, num_key_value_heads=4),
}
# The exports of each size: torch's default opset (attention, RMSNorm and rotary embedding in
# primitive ops), opset 23 (its Attention, RMSNormalization and RotaryEmbedding function ops), and
# opset 23 with past keys and values as inputs and the present ones as outputs (one decoding step
# after a prefix).
LLM_VARIANTS = {
    "dynamo": {"kind": "llm", "opset": None, "past": False},
    "dynamo_op23": {"kind": "llm", "opset": 23, "past": False},
    "kv_dynamo_op23": {"kind": "llm", "opset": 23, "past": True},
}
# The period of the weights' pattern: a prime, so that no tensor's rows repeat and no offset that
# is a multiple of a page finds the same bytes.
FILL_PERIOD = 1_048_573


def fill_weights(model: torch.nn.Module, gen: torch.Generator) -> None:
    """Fills every parameter with its own non-zero pattern, fast: one period of uniform random
    values, each tensor a different rotation of it times its own scale (std 0.02, as Llama's
    initializer; norm weights 1 +- 0.1). For the large size (3.1 GiB) torch's own initialisation
    took 7.0-12.2 s on this 2-core machine when quiet, this 3.5-3.6 s in the same run, most of it
    the first writes to fresh memory."""
    base = torch.rand(FILL_PERIOD, generator=gen) * 2 - 1
    base[base.abs() < 1e-6] = 0.5
    twice = torch.cat([base, base])  # each rotation a slice of it
    with torch.no_grad():
        for name, p in model.named_parameters():
            off = int(torch.randint(FILL_PERIOD, (1,), generator=gen))
            scale = float(torch.empty(1).uniform_(0.9, 1.1, generator=gen))
            norm = p.dim() == 1 and name.endswith("norm.weight")
            pattern = twice[off : off + FILL_PERIOD] * (0.1 * scale if norm else 0.02 * 3**0.5 * scale)
            if norm:
                pattern += 1
            # Whole periods in one copy from a broadcast view (a copy per period is 20x slower).
            flat = p.view(-1)
            periods = flat.numel() // FILL_PERIOD
            if periods:
                whole = flat[: periods * FILL_PERIOD].view(periods, FILL_PERIOD)
                whole.copy_(pattern.expand(periods, FILL_PERIOD))
            flat[periods * FILL_PERIOD :].copy_(pattern[: flat.numel() - periods * FILL_PERIOD])


def llama_model(size: str, gen: torch.Generator) -> torch.nn.Module:
    """A LlamaForCausalLM of the size's config, its weights filled by fill_weights: made on the meta
    device (no memory, no initialisation), then given memory and filled; the rotary embedding's
    inverse frequencies, which are computed rather than learned, are made again on the CPU."""
    from transformers import LlamaConfig, LlamaForCausalLM

    cfg = LlamaConfig(**LLM_SIZES[size], max_position_embeddings=4096, tie_word_embeddings=False,
                      attn_implementation="sdpa")
    with torch.device("meta"):
        model = LlamaForCausalLM(cfg)
    model = model.to_empty(device="cpu")
    model.model.rotary_emb = type(model.model.rotary_emb)(cfg)
    for name, b in model.named_buffers():
        if b.is_meta or not name.startswith("model.rotary_emb."):
            raise RuntimeError(f"buffer {name} is not remade")
    fill_weights(model, gen)
    return model.eval()


class Prefill(torch.nn.Module):
    """A causal LM's prompt step: token ids, mask and positions in, logits out, no cache. (Without
    positions torch 2.13 writes RotaryEmbedding-23 with cos/sin caches of batch 1 for inputs of
    batch 2, which onnxruntime refuses: "Inputs 'cos_cache' and 'sin_cache' are expected to have
    the same shape as input 'x'".)"""

    def __init__(self, inner: torch.nn.Module):
        super().__init__()
        self.inner = inner

    def forward(self, input_ids, attention_mask, position_ids):
        return self.inner(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids,
                          use_cache=False, return_dict=False)[0]


class DecodeWithPast(torch.nn.Module):
    """A causal LM's step after a prefix: the past keys and values of each layer as inputs, the
    logits and the present keys and values (past and new) as outputs."""

    def __init__(self, inner: torch.nn.Module):
        super().__init__()
        self.inner = inner
        self.layers = inner.config.num_hidden_layers

    def forward(self, input_ids, attention_mask, position_ids, past):
        from transformers import DynamicCache

        cache = DynamicCache(ddp_cache_data=[(past[2 * i], past[2 * i + 1]) for i in range(self.layers)],
                             config=self.inner.config)
        out = self.inner(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids,
                         past_key_values=cache, use_cache=True, return_dict=True)
        return (out.logits, *[t for layer in out.past_key_values.layers for t in (layer.keys, layer.values)])


def export_llm(size: str, variant: dict, path: str) -> tuple[list, dict]:
    """Exports a Llama of the size by the dynamo exporter with its weights in model.onnx.data;
    gives the inputs (2 sequences: a prompt of 16 tokens, the second's last 4 padding; or 4 tokens
    after 8 whose keys and values are random) and the times taken."""
    gen = torch.Generator().manual_seed(SEED)
    times = {}
    t = time.time()
    model = llama_model(size, gen)
    times["init"] = round(time.time() - t, 1)
    cfg = model.config
    vocab, layers = cfg.vocab_size, cfg.num_hidden_layers
    kv_heads, head_dim = cfg.num_key_value_heads, cfg.hidden_size // cfg.num_attention_heads
    batch, past_len = 2, 8
    seq = 4 if variant["past"] else 16
    # Named dimensions, not dynamic_axes: from those torch 2.13 names the mask's length
    # "sequence" in the decoding step, where it is past + new.
    dim = {n: torch.export.Dim(n) for n in ("batch", "sequence", "past_sequence", "total_sequence")}
    step = {0: dim["batch"], 1: dim["sequence"]}
    ids = torch.randint(0, vocab, (batch, seq), generator=gen)
    if variant["past"]:
        mask = torch.ones(batch, past_len + seq, dtype=torch.int64)
        pos = torch.arange(past_len, past_len + seq).unsqueeze(0).expand(batch, seq).contiguous()
        past = tuple(torch.randn(batch, kv_heads, past_len, head_dim, generator=gen) for _ in range(2 * layers))
        pasts = [f"past_key_values.{i}.{kv}" for i in range(layers) for kv in ("key", "value")]
        presents = [f"present.{i}.{kv}" for i in range(layers) for kv in ("key", "value")]
        args = (ids, mask, pos, past)
        flat = [ids, mask, pos, *past]
        in_names = ["input_ids", "attention_mask", "position_ids", *pasts]
        out_names = ["logits", *presents]
        shapes = (step, {0: dim["batch"], 1: dim["total_sequence"]}, step,
                  tuple({0: dim["batch"], 2: dim["past_sequence"]} for _ in past))
        wrapped = DecodeWithPast(model).eval()
    else:
        mask = torch.ones(batch, seq, dtype=torch.int64)
        mask[1, seq - 4 :] = 0
        pos = torch.arange(seq).unsqueeze(0).expand(batch, seq).contiguous()
        args = (ids, mask, pos)
        flat = [ids, mask, pos]
        in_names, out_names = ["input_ids", "attention_mask", "position_ids"], ["logits"]
        shapes = (step, step, step)
        wrapped = Prefill(model).eval()
    t = time.time()
    torch.onnx.export(
        wrapped, args, path, dynamo=True, opset_version=variant["opset"], input_names=in_names,
        output_names=out_names, dynamic_shapes=shapes, external_data=True, verbose=False,
    )
    times["export"] = round(time.time() - t, 1)
    params = sum(p.numel() for p in model.parameters())
    config = {**LLM_SIZES[size], "parameters": params, "attn_implementation": "sdpa"}
    return [a.numpy() for a in flat], {"config": config, "times": times}


ARCHS = {
    "resnet18": lambda g: torchvision_model("resnet18", g),
    "mobilenet_v3_small": lambda g: torchvision_model("mobilenet_v3_small", g),
    "convnext_tiny": lambda g: torchvision_model("convnext_tiny", g),
    "bert_tiny": bert,
    "gpt2_tiny": gpt2,
}


def variants(llm_size: str):
    for arch in ARCHS:
        for opset in LEGACY_OPSETS:
            yield arch, f"{arch}_legacy_op{opset}", {"kind": "legacy", "opset": opset}
        yield arch, f"{arch}_dynamo", {"kind": "dynamo"}
        yield arch, f"{arch}_functions_op{FUNCTIONS_OPSET}", {"kind": "functions", "opset": FUNCTIONS_OPSET}
    for suffix, v in LLM_VARIANTS.items():
        yield f"llama_{llm_size}", f"llama_{llm_size}_{suffix}", {**v, "size": llm_size}


def keep_plain_module_attributes():
    """With export_modules_as_functions, the legacy exporter records every annotated attribute
    of every module as a function attribute, and fails on the dicts and classes transformers'
    models annotate; keep the attributes an ONNX attribute can hold."""
    from torch.onnx._internal.torchscript_exporter import utils

    original = utils._get_module_attributes

    def plain(v) -> bool:
        if isinstance(v, (bool, int, float, str, torch.Tensor)):
            return True
        return isinstance(v, (list, tuple)) and len(v) > 0 and all(isinstance(x, (int, float)) for x in v)

    def filtered(module):
        return {k: v for k, v in original(module).items() if plain(v)}

    utils._get_module_attributes = filtered

    def restore():
        utils._get_module_attributes = original

    return restore


def export_one(arch: str, variant: dict, path: str) -> tuple[list, dict]:
    if variant["kind"] == "llm":
        return export_llm(variant["size"], variant, path)
    gen = torch.Generator().manual_seed(SEED)
    model, args, in_names, out_names, axes = ARCHS[arch](gen)
    if variant["kind"] == "dynamo":
        try:
            torch.onnx.export(
                model, args, path, dynamo=True, input_names=in_names, output_names=out_names,
                dynamic_axes=axes, external_data=False, verbose=False,
            )
        except Exception:
            # A dynamic export can fail where a static one works: keep the static one.
            torch.onnx.export(
                model, args, path, dynamo=True, input_names=in_names, output_names=out_names,
                external_data=False, verbose=False,
            )
    else:
        # Only where a set of classes is given: elsewhere (torchvision) every instance of a class
        # must keep the same attributes, which filtering by value could break.
        restore = (
            keep_plain_module_attributes()
            if variant["kind"] == "functions" and hasattr(model, "function_modules")
            else None
        )
        try:
            torch.onnx.export(
                model, args, path, dynamo=False, opset_version=variant["opset"],
                input_names=in_names, output_names=out_names, dynamic_axes=axes,
                export_modules_as_functions=(
                    # Every module, or the given classes (nested where they nest).
                    getattr(model, "function_modules", True) if variant["kind"] == "functions" else False
                ),
            )
        finally:
            if restore:
                restore()
    return [a.numpy() for a in args], {}


def write_references(folder: str, inputs: list) -> dict:
    model_path = os.path.join(folder, "model.onnx")
    sess = onnxruntime.InferenceSession(model_path, providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    feeds = dict(zip(names, inputs))
    outs = sess.run(None, feeds)
    data = os.path.join(folder, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    for i, (n, v) in enumerate(feeds.items()):
        with open(os.path.join(data, f"input_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(v, n).SerializeToString())
    out_names = [o.name for o in sess.get_outputs()]
    for i, (n, v) in enumerate(zip(out_names, outs)):
        with open(os.path.join(data, f"output_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(np.asarray(v), n).SerializeToString())
    return {n: {"shape": list(np.shape(v)), "rms": float(np.sqrt(np.mean(np.square(v.astype(np.float64)))))} for n, v in zip(out_names, outs)}


def sizes(folder: str, m: onnx.ModelProto) -> dict:
    """The bytes of the model file and its data files, and the count of each op."""
    from onnx.external_data_helper import uses_external_data

    data = sorted({e.value for t in m.graph.initializer if uses_external_data(t)
                   for e in t.external_data if e.key == "location"})
    ops: dict = {}
    for n in m.graph.node:
        ops[n.op_type] = ops.get(n.op_type, 0) + 1
    return {"model_bytes": os.path.getsize(os.path.join(folder, "model.onnx")),
            "data_bytes": {d: os.path.getsize(os.path.join(folder, d)) for d in data},
            "ops": dict(sorted(ops.items(), key=lambda kv: (-kv[1], kv[0])))}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", default=None)
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--llm-size", default="small", choices=list(LLM_SIZES),
                    help="the size of the llama_* exports (tiny: the test fixture, medium: the page's "
                         "803 MB, large: 3.1 GiB)")
    a = ap.parse_args()
    import_torchvision()  # before transformers, which imports it too
    todo = [v for v in variants(a.llm_size) if a.only is None or a.only in v[1]]
    if a.list:
        for _, name, _ in todo:
            print(name)
        return 0
    os.makedirs(a.out, exist_ok=True)
    failures = 0
    for arch, name, variant in todo:
        folder = os.path.join(a.out, name)
        os.makedirs(folder, exist_ok=True)
        if os.path.exists(os.path.join(folder, "FAILED")):
            os.remove(os.path.join(folder, "FAILED"))
        t0 = time.time()
        try:
            path = os.path.join(folder, "model.onnx")
            inputs, extra = export_one(arch, variant, path)
            m = onnx.load(path, load_external_data=False)
            # By path: the checker then finds external data beside the model.
            t = time.time()
            onnx.checker.check_model(path, full_check=True)
            checked = time.time() - t
            t = time.time()
            outputs = write_references(folder, inputs)
            if "times" in extra:
                extra["times"].update(check=round(checked, 1), reference=round(time.time() - t, 1))
            opset = next(o.version for o in m.opset_import if o.domain in ("", "ai.onnx"))
            info = {"name": name, "arch": arch, **variant, "opset": opset, "ir": m.ir_version,
                    "nodes": len(m.graph.node), "functions": len(m.functions), **sizes(folder, m),
                    **extra, "outputs": outputs, "torch": torch.__version__,
                    "seconds": round(time.time() - t0, 1)}
            with open(os.path.join(folder, "export.json"), "w") as f:
                json.dump(info, f, indent=1)
            print(f"{name}: opset {opset}, IR {m.ir_version}, {len(m.graph.node)} nodes, "
                  f"{len(m.functions)} functions, output rms "
                  + ", ".join(f"{k} {v['rms']:.3g}" for k, v in outputs.items())
                  + (f", data {sum(info['data_bytes'].values()):,} bytes" if info["data_bytes"] else "")
                  + f" ({info['seconds']} s)", flush=True)
        except Exception as e:
            failures += 1
            print(f"{name}: FAILED: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}", flush=True)
            if os.environ.get("CORPUS_VERBOSE"):
                traceback.print_exc()
            with open(os.path.join(folder, "FAILED"), "w") as f:
                f.write(traceback.format_exc())
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
