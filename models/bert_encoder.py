"""A BERT-style encoder: BERT-base's layer structure (post-LayerNorm, multi-head
self-attention, GELU feed-forward) at a smaller size, written node by node the way the
PyTorch exporter writes a Hugging Face BertModel at opset 17 (no attention mask, no token
types): token-embedding Gather + position-embedding Add + LayerNormalization, then per layer

    q, k, v = x Wq + bq, x Wk + bk, x Wv + bv        (MatMul + Add)
    heads: Reshape [0, 0, heads, head_dim], Transpose (k straight to [b, h, d, s])
    probs = Softmax(q k^T / sqrt(head_dim))
    ctx   = Transpose/Reshape(probs v) Wo + bo
    x     = LayerNorm(x + ctx)
    x     = LayerNorm(x + Gelu(x W1 + b1) W2 + b2),  Gelu(h) = h * 0.5 * (1 + Erf(h / sqrt 2))

The output is the last hidden state [1, seq, hidden]."""

import numpy as np
from onnx import TensorProto

from graph_builder import GraphBuilder, ModelInput


class Config:
    def __init__(self, layers=4, hidden=256, heads=4, ffn=1024, seq=128, vocab=1000):
        assert hidden % heads == 0, "hidden must split evenly over the heads"
        self.layers, self.hidden, self.heads, self.ffn = layers, hidden, heads, ffn
        self.seq, self.vocab = seq, vocab
        self.head_dim = hidden // heads


def scalar(b, name, value):
    return b.shared_constant(name, np.array(value, dtype=np.float32))


def linear(b, x, name, d_in, d_out, gain=1.0):
    """MatMul by a [d_in, d_out] weight, then Add the bias, as exported from nn.Linear."""
    weight = b.he_normal(f"{name}.weight", (d_in, d_out), d_in, gain)
    bias = b.normal(f"{name}.bias", (d_out,), std=0.02)
    return b.node("Add", [b.node("MatMul", [x, weight], f"{name}.matmul"), bias], f"{name}.add")


def layer_norm(b, x, name, width):
    scale = b.normal(f"{name}.weight", (width,), std=0.05, mean=1.0)
    shift = b.normal(f"{name}.bias", (width,), std=0.05)
    return b.node("LayerNormalization", [x, scale, shift], name, axis=-1, epsilon=1e-12)


def gelu(b, x, name):
    """The exact (erf) GELU as the exporter decomposes it before opset 20's Gelu."""
    h = b.node("Div", [x, scalar(b, "sqrt2", np.sqrt(2.0))], f"{name}.div")
    h = b.node("Erf", [h], f"{name}.erf")
    h = b.node("Add", [h, scalar(b, "one", 1.0)], f"{name}.add")
    h = b.node("Mul", [x, h], f"{name}.mul")
    return b.node("Mul", [h, scalar(b, "half", 0.5)], f"{name}.mul_half")


def self_attention(b, x, name, cfg):
    split = b.shared_constant("heads_shape", np.array([0, 0, cfg.heads, cfg.head_dim], dtype=np.int64))
    merge = b.shared_constant("hidden_shape", np.array([0, 0, cfg.hidden], dtype=np.int64))

    def heads(proj, perm):
        y = linear(b, x, f"{name}.{proj}", cfg.hidden, cfg.hidden)
        y = b.node("Reshape", [y, split], f"{name}.{proj}.split_heads")
        return b.node("Transpose", [y], f"{name}.{proj}.transpose", perm=perm)

    q = heads("query", [0, 2, 1, 3])  # [b, h, s, d]
    k_t = heads("key", [0, 2, 3, 1])  # [b, h, d, s]
    v = heads("value", [0, 2, 1, 3])
    scores = b.node("MatMul", [q, k_t], f"{name}.scores")
    scores = b.node("Div", [scores, scalar(b, "sqrt_head_dim", np.sqrt(cfg.head_dim))], f"{name}.scale")
    probs = b.node("Softmax", [scores], f"{name}.softmax", axis=-1)
    context = b.node("MatMul", [probs, v], f"{name}.context")
    context = b.node("Transpose", [context], f"{name}.merge_transpose", perm=[0, 2, 1, 3])
    context = b.node("Reshape", [context, merge], f"{name}.merge_heads")
    return linear(b, context, f"{name}.output", cfg.hidden, cfg.hidden)


def encoder_layer(b, x, name, cfg):
    attended = self_attention(b, x, f"{name}.attention", cfg)
    x = layer_norm(b, b.node("Add", [attended, x], f"{name}.attention.residual"), f"{name}.attention.norm", cfg.hidden)
    h = linear(b, x, f"{name}.intermediate", cfg.hidden, cfg.ffn, gain=2.0)
    h = gelu(b, h, f"{name}.gelu")
    h = linear(b, h, f"{name}.output", cfg.ffn, cfg.hidden)
    return layer_norm(b, b.node("Add", [h, x], f"{name}.output.residual"), f"{name}.output.norm", cfg.hidden)


def build(cfg=None, seed=0):
    """Returns (model, parameter count, [ModelInput])."""
    cfg = cfg or Config()
    b = GraphBuilder("bert", seed)
    tokens = b.normal("embeddings.word", (cfg.vocab, cfg.hidden), std=1.0)
    positions = b.normal("embeddings.position", (1, cfg.seq, cfg.hidden), std=1.0)
    x = b.node("Gather", [tokens, "input_ids"], "embeddings.gather", axis=0)
    x = b.node("Add", [x, positions], "embeddings.add_position")
    x = layer_norm(b, x, "embeddings.norm", cfg.hidden)
    for i in range(cfg.layers):
        x = encoder_layer(b, x, f"encoder.layer.{i}", cfg)
    shape = (1, cfg.seq)
    model = b.model(
        [("input_ids", TensorProto.INT64, shape)],
        [(x, TensorProto.FLOAT, (1, cfg.seq, cfg.hidden))],
    )
    return model, b.parameter_count(), [ModelInput("input_ids", shape, "int64", cfg.vocab)]
