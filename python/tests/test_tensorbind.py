"""The Python API against onnxruntime: compile ONNX models with tensorbind, run them on
numpy arrays, and compare every output with what onnxruntime computes."""

import numpy as np
import pytest


def reference(model_bytes, feeds):
    import onnxruntime

    session = onnxruntime.InferenceSession(model_bytes, providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def dense_model(batch="N"):
    """y = relu(x @ w + b) with a named input `features`, a named output `scores` and a
    dynamic batch dimension."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(7)
    w = numpy_helper.from_array(rng.standard_normal((16, 8)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.standard_normal(8).astype(np.float32), "b")
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["features", "w"], ["xw"], name="project"),
            helper.make_node("Add", ["xw", "b"], ["pre"], name="bias"),
            helper.make_node("Relu", ["pre"], ["scores"], name="activate"),
        ],
        "dense",
        [helper.make_tensor_value_info("features", TensorProto.FLOAT, [batch, 16])],
        [helper.make_tensor_value_info("scores", TensorProto.FLOAT, [batch, 8])],
        initializer=[w, b],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    return model.SerializeToString()


def test_cnn_example_matches_onnxruntime(repo):
    import tensorbind

    module = tensorbind.compile(repo / "examples" / "cnn.onnx")
    image = np.load(repo / "examples" / "cnn-input.npy")
    (probabilities,) = module.run(image)
    (expected,) = reference((repo / "examples" / "cnn.onnx").read_bytes(), {"image": image})
    np.testing.assert_allclose(probabilities, expected, rtol=1e-4, atol=1e-5)


def test_inputs_and_outputs_carry_the_onnx_names():
    import tensorbind

    module = tensorbind.compile(dense_model(batch=3))
    assert [t.name for t in module.inputs] == ["features"]
    assert [t.name for t in module.outputs] == ["scores"]
    assert module.inputs[0].shape == (3, 16)
    assert module.outputs[0].dtype == np.float32


def test_model_bytes_with_a_dynamic_dimension_and_threads():
    import tensorbind

    model = dense_model()
    module = tensorbind.compile(model, threads=2, input_shapes={"features": (5, 16)})
    x = np.random.default_rng(1).standard_normal((5, 16)).astype(np.float32)
    (scores,) = module.run(x)
    (expected,) = reference(model, {"features": x})
    np.testing.assert_allclose(scores, expected, rtol=1e-4, atol=1e-5)


def test_save_and_load_give_the_same_results(tmp_path):
    import tensorbind

    model = dense_model(batch=2)
    x = np.linspace(-1, 1, 32, dtype=np.float32).reshape(2, 16)
    (before,) = tensorbind.compile(model, opt_level=1).run(x)
    tensorbind.compile(model).save(tmp_path / "saved")
    assert sorted(p.name for p in (tmp_path / "saved").iterdir()) == [
        "libmodel.h",
        "libmodel.json",
        "libmodel.so",
    ]
    (after,) = tensorbind.load(tmp_path / "saved").run(x)
    np.testing.assert_allclose(after, before, rtol=1e-6)


def test_wrong_input_shape_is_refused():
    import tensorbind

    module = tensorbind.compile(dense_model(batch=2))
    with pytest.raises(ValueError, match=r"input 'features' has shape \(3, 16\)"):
        module.run(np.zeros((3, 16), np.float32))


def test_unknown_target_is_refused():
    import tensorbind

    with pytest.raises(ValueError, match="unknown target 'tpu'"):
        tensorbind.compile(dense_model(batch=1), target="tpu")


def test_a_model_that_does_not_import_raises_the_tools_error():
    import tensorbind

    with pytest.raises(tensorbind.TensorBindError, match="dynamic shape"):
        tensorbind.compile(dense_model())


def embedding_model():
    """An embedding lookup: Gather of a 5x3 table at int64 `ids` (node `embed_lookup`)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    table = numpy_helper.from_array(np.arange(15, dtype=np.float32).reshape(5, 3), "table")
    graph = helper.make_graph(
        [helper.make_node("Gather", ["table", "ids"], ["emb"], name="embed_lookup")],
        "lookup",
        [helper.make_tensor_value_info("ids", TensorProto.INT64, [4])],
        [helper.make_tensor_value_info("emb", TensorProto.FLOAT, [4, 3])],
        initializer=[table],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


def test_gather_with_valid_indices_matches_onnxruntime():
    import tensorbind

    model = embedding_model()
    ids = np.array([0, 4, -1, -5], dtype=np.int64)
    (emb,) = tensorbind.compile(model).run(ids)
    (expected,) = reference(model, {"ids": ids})
    np.testing.assert_array_equal(emb, expected)


def test_out_of_range_gather_index_raises_with_the_node_name(tmp_path):
    import tensorbind

    module = tensorbind.compile(embedding_model())
    module.save(tmp_path)
    for loaded in (module, tensorbind.load(tmp_path)):
        with pytest.raises(tensorbind.TensorBindError, match="Gather node 'embed_lookup': an index is out of range"):
            loaded.run(np.array([0, 5, 1, 2], dtype=np.int64))


def test_compile_runs_the_compiler_in_process(monkeypatch, tmp_path):
    import importlib.machinery
    import shutil
    from pathlib import Path

    import tensorbind
    from tensorbind import _native

    assert _native.__file__.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))
    # No TensorBind tool is reachable (only the C compiler that links the library).
    monkeypatch.setenv("PATH", str(Path(shutil.which("cc")).parent))
    monkeypatch.setenv("TB_BIN_DIR", str(tmp_path))
    module = tensorbind.compile(dense_model(batch=2), threads=2)
    features = np.ones((2, 16), dtype=np.float32)
    (scores,) = module.run(features)
    (expected,) = reference(dense_model(batch=2), {"features": features})
    np.testing.assert_allclose(scores, expected, rtol=1e-5, atol=1e-5)
