"""The BERT-style encoder of bert_encoder.py written as a PyTorch module, its weights read
from the ONNX model's initializers by name, so that torch eager mode runs the very model
TensorBind compiles. It is the peer for the GPU timing of the encoder (scripts/gpu_check.py):
each layer is the usual eager code (linear layers, layer norm, softmax, exact GELU), one
kernel launch per op as PyTorch issues them.

Usage as a script: bert_encoder_torch.py MODEL_DIR [--runs 50]
  MODEL_DIR holds model.onnx, input_0.npy and expected_0.npy (models/make_models.py);
  prints the largest difference from the expected output and the median time of a forward
  pass on CUDA (CUDA events)."""

import argparse
import math
import sys

import numpy as np


def load_weights(model_path):
    import onnx
    from onnx import numpy_helper
    model = onnx.load(model_path)
    return {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}


def layer_count(weights):
    layers = 0
    while f"encoder.layer.{layers}.attention.query.weight" in weights:
        layers += 1
    return layers


def build(weights, heads, device, dtype=None):
    """An nn.Module computing the encoder's last hidden state from int64 token ids [b, s]."""
    import torch
    import torch.nn.functional as F

    dtype = dtype or torch.float32

    def tensor(name):
        return torch.from_numpy(np.ascontiguousarray(weights[name])).to(device=device, dtype=dtype)

    class Linear(torch.nn.Module):
        # ONNX stores x W with W as [in, out]; F.linear wants [out, in].
        def __init__(self, name):
            super().__init__()
            self.weight = torch.nn.Parameter(tensor(f"{name}.weight").t().contiguous(), requires_grad=False)
            self.bias = torch.nn.Parameter(tensor(f"{name}.bias"), requires_grad=False)

        def forward(self, x):
            return F.linear(x, self.weight, self.bias)

    class LayerNorm(torch.nn.Module):
        def __init__(self, name):
            super().__init__()
            self.weight = torch.nn.Parameter(tensor(f"{name}.weight"), requires_grad=False)
            self.bias = torch.nn.Parameter(tensor(f"{name}.bias"), requires_grad=False)

        def forward(self, x):
            return F.layer_norm(x, self.weight.shape, self.weight, self.bias, eps=1e-12)

    class Layer(torch.nn.Module):
        def __init__(self, name):
            super().__init__()
            self.query, self.key, self.value = (Linear(f"{name}.attention.{p}") for p in ("query", "key", "value"))
            self.attention_output = Linear(f"{name}.attention.output")
            self.attention_norm = LayerNorm(f"{name}.attention.norm")
            self.intermediate = Linear(f"{name}.intermediate")
            self.output = Linear(f"{name}.output")
            self.output_norm = LayerNorm(f"{name}.output.norm")

        def forward(self, x):
            b, s, hidden = x.shape
            d = hidden // heads

            def split(t):
                return t.view(b, s, heads, d).transpose(1, 2)

            q, k, v = split(self.query(x)), split(self.key(x)), split(self.value(x))
            probs = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(d), dim=-1)
            context = (probs @ v).transpose(1, 2).reshape(b, s, hidden)
            x = self.attention_norm(x + self.attention_output(context))
            h = F.gelu(self.intermediate(x))
            return self.output_norm(x + self.output(h))

    class Encoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.word = torch.nn.Parameter(tensor("embeddings.word"), requires_grad=False)
            self.position = torch.nn.Parameter(tensor("embeddings.position"), requires_grad=False)
            self.norm = LayerNorm("embeddings.norm")
            self.layers = torch.nn.ModuleList(Layer(f"encoder.layer.{i}") for i in range(layer_count(weights)))

        def forward(self, ids):
            x = self.norm(self.word[ids] + self.position[: ids.shape[1]])
            for layer in self.layers:
                x = layer(x)
            return x

    return Encoder().eval()


def time_forward(module, ids, runs):
    """Median milliseconds of a forward pass between two CUDA events, after warm-up."""
    import torch
    with torch.inference_mode():
        for _ in range(5):
            module(ids)
        torch.cuda.synchronize()
        times = []
        for _ in range(runs):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            module(ids)
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end))
    return sorted(times)[len(times) // 2]


def run(model_dir, heads=4, runs=50):
    """Returns {'max_abs_error', 'torch_eager_ms'} for the model in model_dir, on CUDA."""
    import os

    import torch
    weights = load_weights(os.path.join(model_dir, "model.onnx"))
    module = build(weights, heads, "cuda")
    ids = torch.from_numpy(np.load(os.path.join(model_dir, "input_0.npy"))).to("cuda")
    with torch.inference_mode():
        got = module(ids).float().cpu().numpy()
    want = np.load(os.path.join(model_dir, "expected_0.npy"))
    return {"max_abs_error": float(np.max(np.abs(got.astype(np.float64) - want))),
            "torch_eager_ms": time_forward(module, ids, runs)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model_dir")
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--runs", type=int, default=50)
    args = ap.parse_args(argv)
    print(run(args.model_dir, args.heads, args.runs))


if __name__ == "__main__":
    sys.exit(main())
