"""Precision lowering, judged in Python (`npm run bench:precision` and the tests):

  precision.py anchor MODEL OUT_DEFAULT OUT_KEEP_IO
      onnxruntime.transformers.float16.convert_float_to_float16 on MODEL, with its defaults and
      with keep_io_types=True; prints {"default": error-or-null, "keep_io": error-or-null}.
  precision.py judge FLOAT32_MODEL INPUTS_DIR MODEL...
      for each MODEL: ONNX's full checker, a run on onnxruntime (CPU) with the inputs (TensorProto
      files input_<i>.pb, cast to the type each model's input declares), the outputs' norm-wise
      error against FLOAT32_MODEL's run, the Cast count and the share of stored float bytes in half.
      Prints one JSON object per MODEL, a line each.
  precision.py reference MODEL INPUTS_DIR OUT_DIR
      the reference of a float16 or bfloat16 model (docs/semantics.md, "float16 models"): every op
      computed in float64 by ONNX's reference evaluator, each output the model writes in the half
      type rounded to it before the next op reads it; writes output_<i>.pb (as float64).
  precision.py values MODEL INPUTS_DIR OUT_DIR
      the same reference, every value a node of MODEL writes kept (for the node-by-node check of
      scripts/corpus/precision-nodes.ts): v<i>.pb each in the type MODEL gives the value (a half value is
      exact in it: the reference rounds there), and values.json mapping each name to its file."""

import glob
import json
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper

HALF = {onnx.TensorProto.FLOAT16, onnx.TensorProto.BFLOAT16}


def first_line(e):
    return next((l for l in str(e).splitlines() if l.strip()), type(e).__name__)[:300]


def anchor(src, out_default, out_keep):
    from onnxruntime.transformers.float16 import convert_float_to_float16

    answer = {}
    for key, out, keep in (("default", out_default, False), ("keep_io", out_keep, True)):
        try:
            m = convert_float_to_float16(onnx.load(src), keep_io_types=keep)
            onnx.save(m, out)
            answer[key] = None
        except Exception as e:  # noqa: BLE001 - the failure is the answer
            answer[key] = first_line(e)
    print(json.dumps(answer))


def stored_share(m):
    half = total = 0
    tensors = list(m.graph.initializer)
    for n in m.graph.node:
        if n.op_type == "Constant":
            tensors += [a.t for a in n.attribute if a.type == onnx.AttributeProto.TENSOR]
    for t in tensors:
        count = int(np.prod(t.dims)) if len(t.dims) else 1
        if t.data_type in HALF:
            half += 2 * count
            total += 2 * count
        elif t.data_type == onnx.TensorProto.FLOAT:
            total += 4 * count
    return half / total if total else 1.0


def ort_run(path, feeds):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.log_severity_level = 3
    s = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
    given = {}
    for i in s.get_inputs():
        x = feeds[i.name]
        if i.type == "tensor(float16)":
            x = x.astype(np.float16)
        elif i.type == "tensor(float)":
            x = x.astype(np.float32)
        given[i.name] = x
    names = [o.name for o in s.get_outputs()]
    return dict(zip(names, s.run(None, given)))


def norm_error(a, b):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        return float("inf")
    same = (a == b) | (np.isnan(a) & np.isnan(b))
    d = np.where(same, 0.0, a - b)
    if not np.all(np.isfinite(d)):
        return float("inf")
    nb = np.sqrt(np.sum(np.where(np.isfinite(b), b, 0.0) ** 2))
    nd = float(np.sqrt(np.sum(d**2)))
    return nd / nb if nb > 0 else nd


def read_inputs(m, inputs_dir):
    """The model's inputs (those without an initializer) from input_<i>.pb, by name."""
    init = {t.name for t in m.graph.initializer}
    names = [i.name for i in m.graph.input if i.name not in init]
    feeds = {}
    for i, name in enumerate(names):
        t = onnx.TensorProto()
        with open(os.path.join(inputs_dir, f"input_{i}.pb"), "rb") as f:
            t.ParseFromString(f.read())
        feeds[name] = numpy_helper.to_array(t)
    return feeds


def judge(ref_path, inputs_dir, paths):
    feeds = read_inputs(onnx.load(ref_path, load_external_data=False), inputs_dir)
    ref = ort_run(ref_path, feeds)
    for path in paths:
        row = {"model": path}
        try:
            onnx.checker.check_model(path, full_check=True)
            row["checker"] = None
        except Exception as e:  # noqa: BLE001
            row["checker"] = first_line(e)
        m = onnx.load(path, load_external_data=False)
        row["casts"] = sum(1 for n in m.graph.node if n.op_type == "Cast")
        row["half_share"] = stored_share(m)
        try:
            got = ort_run(path, feeds)
            row["runs"] = None
            row["error"] = max(
                (norm_error(got[k], v) for k, v in ref.items() if k in got), default=0.0
            )
        except Exception as e:  # noqa: BLE001
            row["runs"] = first_line(e)
        print(json.dumps(row), flush=True)


def holds_bfloat16(m):
    """Whether bfloat16 appears anywhere in the main graph: a stored tensor, a value's type, a
    Cast's target or a Constant (a CNN may keep every weight float32 and still round values)."""
    bf16 = onnx.TensorProto.BFLOAT16
    g = m.graph
    if any(t.data_type == bf16 for t in g.initializer):
        return True
    for v in [*g.input, *g.output, *g.value_info]:
        if v.type.tensor_type.elem_type == bf16:
            return True
    for n in g.node:
        for a in n.attribute:
            if (a.name == "to" and a.i == bf16) or (
                a.type == onnx.AttributeProto.TENSOR and a.t.data_type == bf16
            ):
                return True
    return False


def _reference_run(m, inputs_dir, intermediate):
    """The float64 reference of m on the inputs: its outputs in order, or with intermediate every
    value by name (the rounding's own __f64/__f16 values among them)."""
    from onnx.reference import ReferenceEvaluator

    half = onnx.TensorProto.BFLOAT16 if holds_bfloat16(m) else onnx.TensorProto.FLOAT16
    feeds = {
        k: a.astype(np.float64) if a.dtype.kind == "f" and a.dtype != np.float32 else a
        for k, a in read_inputs(m, inputs_dir).items()
    }
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from fp16_reference import rounded_float64_model

    ev = ReferenceEvaluator(rounded_float64_model(m, half))
    return ev.run(None, feeds, intermediate=intermediate), half


def reference(path, inputs_dir, out_dir):
    m = onnx.load(path)
    outs, _ = _reference_run(m, inputs_dir, False)
    for i, (a, o) in enumerate(zip(outs, m.graph.output)):
        t = numpy_helper.from_array(np.asarray(a, dtype=np.float64), o.name)
        with open(os.path.join(out_dir, f"output_{i}.pb"), "wb") as f:
            f.write(t.SerializeToString())


def values(path, inputs_dir, out_dir):
    import ml_dtypes

    m = onnx.load(path)
    results, half = _reference_run(m, inputs_dir, True)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from fp16_reference import _types

    types = _types(m)
    np_half = ml_dtypes.bfloat16 if half == onnx.TensorProto.BFLOAT16 else np.float16
    index = {}
    for n in m.graph.node:
        for name in n.output:
            if not name or name not in results or name in index:
                continue
            a = np.asarray(results[name])
            t = types.get(name)
            if t == half:
                a = a.astype(np_half)  # exact: the reference rounded it there
            elif t is not None and a.dtype.kind == "f":
                a = a.astype(onnx.helper.tensor_dtype_to_np_dtype(t))
            file = f"v{len(index)}.pb"
            with open(os.path.join(out_dir, file), "wb") as f:
                f.write(numpy_helper.from_array(a, name).SerializeToString())
            index[name] = file
    with open(os.path.join(out_dir, "values.json"), "w") as f:
        json.dump(index, f)


if __name__ == "__main__":
    if sys.argv[1] == "anchor":
        anchor(*sys.argv[2:5])
    elif sys.argv[1] == "reference":
        reference(*sys.argv[2:5])
    elif sys.argv[1] == "values":
        values(*sys.argv[2:5])
    elif sys.argv[1] == "judge":
        judge(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        sys.exit(f"unknown command {sys.argv[1]}")
