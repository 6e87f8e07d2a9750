"""The float16 references of the deployed corpus (docs/semantics.md, "float16 models").

A float16 model is judged against the exact computation of its ops with a float16 rounding at each
op boundary: every float16 tensor (inputs, initializers, constants) taken as float64, every op
computed in float64 by ONNX's reference evaluator, and each output an op writes in float16 rounded
to float16 before the next op reads it. ONNX's reference evaluator on the float16 model as it is
(numpy's float16 arithmetic) is the second opinion. onnxruntime's com.microsoft ops that the corpus's
float16 models hold are given to the evaluator here (Attention with key lengths,
SkipLayerNormalization, BiasGelu), computed in float64.

Used by deployed.py; `python fp16_reference.py MODEL_DIR` prints the errors of the stored outputs.
"""

import copy
import math
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper, shape_inference
from onnx.reference import ReferenceEvaluator
from onnx.reference.op_run import OpRun

F16 = TensorProto.FLOAT16
F64 = TensorProto.DOUBLE


def _erf(x):
    return np.vectorize(math.erf)(x)


class OrtBiasGelu(OpRun):
    op_domain = "com.microsoft"

    def _run(self, A, B):
        x = A.astype(np.float64) + B.astype(np.float64)
        return ((0.5 * x * (1 + _erf(x / math.sqrt(2)))).astype(A.dtype),)


class OrtSkipLayerNormalization(OpRun):
    op_domain = "com.microsoft"

    def _run(self, input, skip, gamma, beta=None, bias=None, epsilon=None):
        t = input.dtype
        s = input.astype(np.float64) + skip.astype(np.float64)
        if bias is not None:
            s = s + bias.astype(np.float64)
        s = s.astype(t).astype(np.float64)  # the sum is a value of the input's type
        m = s.mean(-1, keepdims=True)
        v = ((s - m) ** 2).mean(-1, keepdims=True)
        y = (s - m) / np.sqrt(v + epsilon) * gamma.astype(np.float64)
        if beta is not None:
            y = y + beta.astype(np.float64)
        inv = 1 / np.sqrt(v + epsilon)
        return (y.astype(t), m.astype(np.float32), inv.astype(np.float32), s.astype(t))


class OrtAttention(OpRun):
    op_domain = "com.microsoft"

    def _run(self, input, weights, bias=None, mask_index=None, past=None, attention_bias=None,
             past_sequence_length=None, num_heads=None, mask_filter_value=None, scale=None,
             unidirectional=None, qkv_hidden_sizes=None, do_rotary=None, past_present_share_buffer=None,
             rotary_embedding_dim=None):
        t = input.dtype
        x = input.astype(np.float64) @ weights.astype(np.float64)
        if bias is not None:
            x = x + bias.astype(np.float64)
        x = x.astype(t).astype(np.float64)  # the projection is a float16 matrix product
        B, S, D3 = x.shape
        D = D3 // 3
        H = D // num_heads
        q, k, v = (x[..., i * D:(i + 1) * D].reshape(B, S, num_heads, H).transpose(0, 2, 1, 3) for i in range(3))
        sc = scale if scale else 1 / math.sqrt(H)
        s = q @ k.transpose(0, 1, 3, 2) * sc
        if mask_index is not None:
            filt = mask_filter_value if mask_filter_value is not None else -10000.0
            keep = np.arange(S)[None, :] < mask_index.reshape(-1, 1)
            s = s + np.where(keep, 0.0, filt)[:, None, None, :]
        if unidirectional:
            s = s + np.where(np.tril(np.ones((S, S))) > 0, 0.0, -np.inf)
        s = s - s.max(-1, keepdims=True)
        p = np.exp(s)
        p = p / p.sum(-1, keepdims=True)
        o = (p @ v).transpose(0, 2, 1, 3).reshape(B, S, D)
        return (o.astype(t),)


CONTRIB = [OrtBiasGelu, OrtSkipLayerNormalization, OrtAttention]


def _evaluable(m: onnx.ModelProto) -> onnx.ModelProto:
    """The model for ONNX's evaluator: nodes in topological order (onnxruntime's float16 converter
    appends its input casts at the end), com.microsoft ops renamed to the classes above (the
    evaluator would take ai.onnx's Attention for onnxruntime's)."""
    m = copy.deepcopy(m)
    g = m.graph
    known = {i.name for i in g.input} | {t.name for t in g.initializer} | {""}
    pending = list(g.node)
    ordered = []
    while pending:
        rest = []
        for n in pending:
            if all(x in known for x in n.input):
                ordered.append(n)
                known.update(n.output)
            else:
                rest.append(n)
        if len(rest) == len(pending):
            raise ValueError("the graph has a cycle or an undefined input")
        pending = rest
    for n in ordered:
        if n.domain == "com.microsoft":
            n.op_type = "Ort" + n.op_type
    del g.node[:]
    g.node.extend(ordered)
    return m


def _types(m: onnx.ModelProto) -> dict:
    """The element type of every value the model names (inferred where not declared)."""
    inferred = shape_inference.infer_shapes(m)
    g = inferred.graph
    out = {}
    for v in list(g.input) + list(g.output) + list(g.value_info):
        if v.type.HasField("tensor_type"):
            out[v.name] = v.type.tensor_type.elem_type
    for t in g.initializer:
        out[t.name] = t.data_type
    return out


def _f16_to_f64_tensor(t: onnx.TensorProto) -> onnx.TensorProto:
    a = numpy_helper.to_array(t).astype(np.float64)
    return numpy_helper.from_array(a, t.name)


def rounded_float64_model(m: onnx.ModelProto, half: int = F16) -> onnx.ModelProto:
    """The model computed in float64 with a rounding to `half` (float16, or bfloat16 for
    precision.py's reference) after every op that writes it."""
    types = _types(m)
    m = copy.deepcopy(m)
    g = m.graph
    for i, t in enumerate(g.initializer):
        if t.data_type == half:
            g.initializer[i].CopyFrom(_f16_to_f64_tensor(t))
    for v in list(g.input) + list(g.output) + list(g.value_info):
        if v.type.tensor_type.elem_type == half:
            v.type.tensor_type.elem_type = F64
    nodes = []
    for n in g.node:
        for a in n.attribute:
            if a.name == "to" and a.i == half:
                a.i = F64
            if a.type == onnx.AttributeProto.TENSOR and a.t.data_type == half:
                a.t.CopyFrom(_f16_to_f64_tensor(a.t))
        rounded = []
        for i, o in enumerate(n.output):
            if o and types.get(o) == half:
                n.output[i] = o + "__f64"
                rounded += [helper.make_node("Cast", [o + "__f64"], [o + "__f16"], to=half),
                            helper.make_node("Cast", [o + "__f16"], [o], to=F64)]
        nodes.append(n)
        nodes += rounded
    del g.node[:]
    g.node.extend(nodes)
    del g.value_info[:]
    return m


def references(model_path: str, feeds: dict) -> tuple:
    """(the float64 reference rounded at each op boundary, ONNX's reference evaluator on the float16
    model), each a list of arrays in graph-output order (the first in the outputs' own types)."""
    m = _evaluable(onnx.load(model_path))
    out_types = {o.name: o.type.tensor_type.elem_type for o in m.graph.output}
    m64 = rounded_float64_model(m)
    f64_feeds = {k: (v.astype(np.float64) if v.dtype == np.float16 else v) for k, v in feeds.items()}
    r64 = ReferenceEvaluator(m64, new_ops=CONTRIB).run(None, f64_feeds)
    r64 = [np.asarray(a).astype(np.float16 if out_types[o.name] == F16 else np.float32)
           for a, o in zip(r64, m.graph.output)]
    native = ReferenceEvaluator(m, new_ops=CONTRIB).run(None, feeds)
    return r64, [np.asarray(a) for a in native]


def is_float16_model(model_path: str) -> bool:
    m = onnx.load(model_path)
    return any(t.data_type == F16 for t in m.graph.initializer) or any(
        v.type.tensor_type.elem_type == F16 for v in m.graph.input)


def _norm(a, b):
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-30)), float(np.abs(a - b).max())


if __name__ == "__main__":
    folder = sys.argv[1]
    m = onnx.load(os.path.join(folder, "model.onnx"))
    data = os.path.join(folder, "test_data_set_0")
    feeds = {}
    for i, inp in enumerate(m.graph.input):
        p = os.path.join(data, f"input_{i}.pb")
        if os.path.exists(p):
            t = onnx.TensorProto()
            with open(p, "rb") as f:
                t.ParseFromString(f.read())
            feeds[inp.name] = numpy_helper.to_array(t)
    r64, native = references(os.path.join(folder, "model.onnx"), feeds)
    for i, o in enumerate(m.graph.output):
        t = onnx.TensorProto()
        with open(os.path.join(data, f"output_{i}.pb"), "rb") as f:
            t.ParseFromString(f.read())
        ort_out = numpy_helper.to_array(t)
        print(o.name, "ORT vs rounded f64", _norm(ort_out, r64[i]), "ONNX ref vs rounded f64", _norm(native[i], r64[i]),
              "ORT vs ONNX ref", _norm(ort_out, native[i]))
