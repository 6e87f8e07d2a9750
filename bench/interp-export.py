# Exports the models bench/interp-models.ts measures (random weights, never committed):
# resnet18 (legacy exporter, opset 13, BatchNorm statistics recalibrated on random inputs so that
# the outputs are not ~0), convnext_tiny (opset 17) and a PP-OCR-like detection net (depthwise
# convolutions, hardswish, Resize, ConvTranspose), swin_t (opset 17), a BERT of 2 layers of
# hidden size 32 (transformers; three int64 inputs), mobilenet_v3_small (opset 17), and for
# bench:targets a ViT and a Whisper encoder (transformers, 2 layers of hidden size 64, opset 17).
# Each model gets its input files. `vit_tiny_dynamo` (torch's dynamo exporter, a dynamic batch,
# 1 layer of hidden size 32 on 32x32 images, opset 18, one file) is the test model of
# test/targets/webgpu-judge.test.ts (test/data/targets/vit_tiny_dynamo.onnx).
# Usage: python bench/interp-export.py OUT_DIR [name ...]
import os
import sys
import types

import numpy as np
import onnx
import torch
import torch.nn as nn

# torchvision's compiled ops (nms, roi_align) are not needed for these models, and its fake-op
# registrations fail where its extension does not match the installed torch: skip them.
sys.modules.setdefault("torchvision._meta_registrations", types.ModuleType("_meta"))
import torchvision  # noqa: E402
from onnx import numpy_helper


def recalibrate(model, shape, batches=4):
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.reset_running_stats()
            m.momentum = None  # a cumulative average over the batches below
    model.train()
    with torch.no_grad():
        for _ in range(batches):
            model(torch.randn(*shape))
    model.eval()


class ConvBn(nn.Sequential):
    def __init__(self, cin, cout, k=3, s=1, groups=1, act=True):
        layers = [nn.Conv2d(cin, cout, k, s, k // 2, groups=groups, bias=False), nn.BatchNorm2d(cout)]
        if act:
            layers.append(nn.Hardswish())
        super().__init__(*layers)


class OcrDet(nn.Module):
    """A small DB-style text detector: depthwise-separable backbone, FPN, ConvTranspose head."""

    def __init__(self):
        super().__init__()
        chans = [16, 24, 48, 96, 192]
        self.stem = ConvBn(3, chans[0], 3, 2)
        stages = []
        for i in range(1, 5):
            cin, cout = chans[i - 1], chans[i]
            stages.append(
                nn.Sequential(
                    ConvBn(cin, cin, 5, 2, groups=cin),
                    ConvBn(cin, cout, 1),
                    ConvBn(cout, cout, 3, 1, groups=cout),
                    ConvBn(cout, cout, 1),
                )
            )
        self.stages = nn.ModuleList(stages)
        self.lat = nn.ModuleList([nn.Conv2d(c, 64, 1) for c in chans[1:]])
        self.smooth = nn.ModuleList([nn.Conv2d(64, 16, 3, padding=1) for _ in chans[1:]])
        self.head = nn.Sequential(
            ConvBn(64, 16, 3),
            nn.ConvTranspose2d(16, 16, 2, 2),
            nn.BatchNorm2d(16),
            nn.ReLU(),
            nn.ConvTranspose2d(16, 1, 2, 2),
            nn.Sigmoid(),
        )

    def forward(self, x):
        x = self.stem(x)
        feats = []
        for s in self.stages:
            x = s(x)
            feats.append(x)
        lat = [l(f) for l, f in zip(self.lat, feats)]
        for i in range(len(lat) - 1, 0, -1):
            lat[i - 1] = lat[i - 1] + nn.functional.interpolate(lat[i], scale_factor=2, mode="nearest")
        size = lat[0].shape[-2:]
        outs = [
            nn.functional.interpolate(s(l), size=size, mode="nearest") for s, l in zip(self.smooth, lat)
        ]
        return self.head(torch.cat(outs, 1))


def export(name, model, shape, opset, out_dir, inputs=None):
    torch.manual_seed(0)
    xs = inputs if inputs is not None else {"input": torch.randn(*shape)}
    path = os.path.join(out_dir, f"{name}.onnx")
    torch.onnx.export(
        model, tuple(xs.values()), path, opset_version=opset, input_names=list(xs),
        output_names=["output"], dynamo=False,
    )
    folder = os.path.join(out_dir, name)
    os.makedirs(folder, exist_ok=True)
    for i, (k, x) in enumerate(xs.items()):
        t = numpy_helper.from_array(x.numpy(), k)
        with open(os.path.join(folder, f"input_{i}.pb"), "wb") as f:
            f.write(t.SerializeToString())
    onnx.checker.check_model(path)
    print(path)


class Bert(nn.Module):
    """BERT with 2 layers of hidden size 32 (transformers), its last hidden state as the output."""

    def __init__(self):
        super().__init__()
        from transformers import BertConfig, BertModel

        cfg = BertConfig(
            vocab_size=1000, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
            intermediate_size=128, max_position_embeddings=128, attn_implementation="eager",
        )
        self.inner = BertModel(cfg).eval()

    def forward(self, input_ids, attention_mask, token_type_ids):
        out = self.inner(
            input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids,
            return_dict=False,
        )
        return out[0]


def bert_inputs(seq=16):
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(1, 1000, (1, seq), generator=g)
    mask = torch.ones(1, seq, dtype=torch.int64)
    mask[0, -3:] = 0
    types = torch.zeros(1, seq, dtype=torch.int64)
    types[0, seq // 2 :] = 1
    return {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}


class Vit(nn.Module):
    """A ViT (transformers) of 2 layers of hidden size 64 on 224x224 images: its last hidden state."""

    def __init__(self, image=224, patch=16, hidden=64, layers=2):
        super().__init__()
        from transformers import ViTConfig, ViTModel

        cfg = ViTConfig(
            image_size=image, patch_size=patch, hidden_size=hidden, num_hidden_layers=layers,
            num_attention_heads=4, intermediate_size=2 * hidden, attn_implementation="eager",
        )
        self.inner = ViTModel(cfg, add_pooling_layer=False).eval()

    def forward(self, pixel_values):
        return self.inner(pixel_values=pixel_values, return_dict=False)[0]


class WhisperEncoder(nn.Module):
    """Whisper's encoder (transformers) of 2 layers of d_model 64 on 80 mel bins x 3000 frames."""

    def __init__(self):
        super().__init__()
        from transformers import WhisperConfig, WhisperModel

        cfg = WhisperConfig(
            d_model=64, encoder_layers=2, decoder_layers=1, encoder_attention_heads=4,
            decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128, num_mel_bins=80,
            vocab_size=1000, pad_token_id=0, bos_token_id=1, eos_token_id=2,
            decoder_start_token_id=1, attn_implementation="eager",
        )
        self.inner = WhisperModel(cfg).get_encoder().eval()

    def forward(self, input_features):
        return self.inner(input_features=input_features, return_dict=False)[0]


def main():
    out_dir = sys.argv[1]
    names = sys.argv[2:] or ["resnet18", "convnext_tiny", "ocr_det"]
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(0)
    for name in names:
        if name == "resnet18":
            m = torchvision.models.resnet18(weights=None)
            recalibrate(m, (8, 3, 224, 224))
            export(name, m, (1, 3, 224, 224), 13, out_dir)
        elif name == "convnext_tiny":
            m = torchvision.models.convnext_tiny(weights=None).eval()
            export(name, m, (1, 3, 224, 224), 17, out_dir)
        elif name == "ocr_det":
            m = OcrDet()
            recalibrate(m, (2, 3, 640, 640))
            export(name, m, (1, 3, 640, 640), 13, out_dir)
        elif name == "swin_t":
            m = torchvision.models.swin_t(weights=None).eval()
            export(name, m, (1, 3, 224, 224), 17, out_dir)
        elif name == "bert":
            export(name, Bert().eval(), None, 17, out_dir, bert_inputs())
        elif name == "mobilenet_v3_small":
            m = torchvision.models.mobilenet_v3_small(weights=None)
            recalibrate(m, (8, 3, 224, 224))
            export(name, m, (1, 3, 224, 224), 17, out_dir)
        elif name == "vit":
            export(name, Vit().eval(), (1, 3, 224, 224), 17, out_dir)
        elif name == "vit_tiny_dynamo":
            path = os.path.join(out_dir, f"{name}.onnx")
            batch = torch.export.Dim("batch", min=1, max=64)
            torch.onnx.export(
                Vit(32, 8, 32, 1).eval(), (torch.randn(2, 3, 32, 32),), path, dynamo=True,
                input_names=["pixel_values"], output_names=["last_hidden_state"],
                dynamic_shapes={"pixel_values": {0: batch}}, opset_version=18,
            )
            onnx.save(onnx.load(path), path)  # one file: the weights back inside
            data = path + ".data"
            if os.path.exists(data):
                os.remove(data)
            onnx.checker.check_model(path)
            print(path)
        elif name == "whisper_encoder":
            export(name, WhisperEncoder().eval(), (1, 80, 3000), 17, out_dir)
        else:
            raise SystemExit(f"unknown model '{name}'")


if __name__ == "__main__":
    main()
