"""onnxruntime as the reference implementation: sessions on the CPU execution provider with
a given number of intra-op threads."""

import onnxruntime as ort


def session(model_path, threads=None):
    options = ort.SessionOptions()
    if threads is not None:
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
    return ort.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])


def run(sess, inputs):
    """Runs `sess` on `inputs` (numpy arrays in graph-input order); returns the outputs."""
    feed = {i.name: x for i, x in zip(sess.get_inputs(), inputs)}
    return sess.run(None, feed)
