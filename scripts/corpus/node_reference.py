"""Who is right about one node: onnxruntime, or the op's specification?

For a node that scripts/divergence.ts names as the first where the interpreter and onnxruntime
part ways: its inputs are taken from onnxruntime (graph optimizations off) on the model's inputs,
the node is run alone by onnxruntime, by ONNX's reference evaluator as it is (numpy arithmetic in
the node's types) and by the float64 reference (every float input widened to float64, the node
computed in float64 by the reference evaluator, each output rounded once to its type), and the
three are compared element by element in ulps. The interpreter's output on the same node is
scripts/divergence.ts's to compare with (it names the count and ulps against onnxruntime).

    python node_reference.py MODEL NODE_NAME INPUT_DIR [--save DIR]

INPUT_DIR holds input_<i>.pb in the order of the model's inputs. --save writes the node's inputs
and the three outputs as .npy files.
"""

import argparse
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

FLOATS = {np.dtype(np.float32), np.dtype(np.float16)}


def ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance in ulps of two float32 (or float16) arrays; NaN against NaN is 0."""
    if a.dtype == np.float16:
        ia, ib = a.view(np.int16).astype(np.int64), b.view(np.int16).astype(np.int64)
        sign = 0x8000
    else:
        ia, ib = a.astype(np.float32).view(np.int32).astype(np.int64), b.astype(np.float32).view(np.int32).astype(np.int64)
        sign = 0x80000000
    ia = np.where(ia < 0, -(ia & (sign - 1)), ia)
    ib = np.where(ib < 0, -(ib & (sign - 1)), ib)
    d = np.abs(ia - ib)
    both_nan = np.isnan(a.astype(np.float64)) & np.isnan(b.astype(np.float64))
    return np.where(both_nan, 0, d)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("node")
    ap.add_argument("inputs")
    ap.add_argument("--save", default=None)
    a = ap.parse_args()
    m = onnx.load(a.model)
    nodes = [n for n in m.graph.node if n.name == a.node]
    if not nodes:
        print(f"node_reference: no node named '{a.node}' in the main graph", file=sys.stderr)
        return 2
    node = nodes[0]
    inits = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
    graph_inputs = [i for i in m.graph.input if i.name not in inits]
    feeds = {}
    for k, vi in enumerate(graph_inputs):
        t = onnx.TensorProto()
        with open(os.path.join(a.inputs, f"input_{k}.pb"), "rb") as f:
            t.ParseFromString(f.read())
        feeds[vi.name] = numpy_helper.to_array(t)

    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    so.log_severity_level = 3
    # The node's inputs as onnxruntime computes them, and its outputs in the model.
    wanted = [i for i in node.input if i and i not in inits and i not in feeds]
    exposed = onnx.load(a.model)
    del exposed.graph.output[:]
    for name in wanted + list(node.output):
        exposed.graph.output.append(helper.make_empty_tensor_value_info(name))
    got = ort.InferenceSession(exposed.SerializeToString(), so, providers=["CPUExecutionProvider"]).run(None, feeds)
    values = dict(zip(wanted + list(node.output), got))
    values.update({k: v for k, v in inits.items() if k in node.input})
    values.update({k: v for k, v in feeds.items() if k in node.input})

    def single(widen: bool) -> onnx.ModelProto:
        ins, consts = [], []
        for i, name in enumerate(node.input):
            if not name:
                continue
            v = values[name]
            if widen and v.dtype in FLOATS:
                v = v.astype(np.float64)
            consts.append(numpy_helper.from_array(v, f"in{i}"))
        n = helper.make_node(node.op_type, [f"in{i}" if name else "" for i, name in enumerate(node.input)],
                             [f"out{i}" for i in range(len(node.output))], domain=node.domain)
        n.attribute.extend(node.attribute)
        g = helper.make_graph([n], "node", ins, [helper.make_empty_tensor_value_info(f"out{i}") for i in range(len(node.output))], consts)
        opsets = [o for o in m.opset_import if o.domain in ("", "ai.onnx", node.domain)]
        return helper.make_model(g, opset_imports=opsets, ir_version=min(m.ir_version, 10))

    alone = ort.InferenceSession(single(False).SerializeToString(), so, providers=["CPUExecutionProvider"]).run(None, {})
    native = ReferenceEvaluator(single(False)).run(None, {})
    wide = ReferenceEvaluator(single(True)).run(None, {})
    print(f"{node.op_type} '{node.name}': inputs " + ", ".join(f"{values[i].dtype}{list(values[i].shape)}" for i in node.input if i))
    for k, out in enumerate(node.output):
        in_model = values[out]
        same = np.array_equal(np.asarray(alone[k]).view(np.uint8), in_model.view(np.uint8))
        ref64 = np.asarray(wide[k]).astype(in_model.dtype)
        nat = np.asarray(native[k]).astype(in_model.dtype)
        exact = np.asarray(wide[k]).astype(np.float64)
        print(f"  output '{out}' {in_model.dtype}{list(in_model.shape)} (onnxruntime alone = in the model: {same})")
        if in_model.dtype not in FLOATS:
            for name, v in (("onnxruntime", in_model), ("ONNX reference", nat)):
                print(f"    {name} vs float64 reference: {int((v != ref64).sum())} of {v.size} differ")
            continue
        for name, v in (("onnxruntime", in_model), ("ONNX reference", nat)):
            d = ulps(v, ref64)
            err = np.abs(v.astype(np.float64) - exact)
            print(f"    {name} vs float64 reference rounded once: {int((d > 0).sum())} of {v.size} differ, "
                  f"largest {int(d.max())} ulps; |error| to the float64 value: max {err.max():.3g}, "
                  f"rms {np.sqrt(np.mean(err ** 2)):.3g}")
        if a.save:
            os.makedirs(a.save, exist_ok=True)
            for i, name in enumerate(node.input):
                if name:
                    np.save(os.path.join(a.save, f"input_{i}.npy"), np.ascontiguousarray(values[name]))
            for tag, v in (("onnxruntime", in_model), ("onnx_reference", nat), ("float64_reference", ref64)):
                np.save(os.path.join(a.save, f"{tag}_{k}.npy"), np.ascontiguousarray(v))
    return 0


if __name__ == "__main__":
    sys.exit(main())
