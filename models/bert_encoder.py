"""A BERT-style encoder: BERT-base's layer structure (post-LayerNorm, multi-head
self-attention, GELU feed-forward) at a smaller size, written node by node the way the
PyTorch exporter writes a Hugging Face BertModel at opset 17 (no attention mask, no token
types): token-embedding Gather + position-embedding Add + LayerNormalization, the position
embeddings being the first `seq` rows of a 512-row table, sliced by a Shape -> Gather ->
Unsqueeze -> Slice subgraph on input_ids (so the sequence length may be symbolic); then per
layer

    q, k, v = x Wq + bq, x Wk + bk, x Wv + bv        (MatMul + Add)
    heads: Reshape [0, 0, heads, head_dim], Transpose (k straight to [b, h, d, s])
    probs = Softmax(q k^T / sqrt(head_dim))
    ctx   = Transpose/Reshape(probs v) Wo + bo
    x     = LayerNorm(x + ctx)
    x     = LayerNorm(x + Gelu(x W1 + b1) W2 + b2),  Gelu(h) = h * 0.5 * (1 + Erf(h / sqrt 2))

The output is the last hidden state [1, seq, hidden]."""

import numpy as np
from onnx import TensorProto

from graph_builder import GraphBuilder, ModelInput, batch_dim


class Config:
    def __init__(self, layers=4, hidden=256, heads=4, ffn=1024, seq=128, vocab=1000, max_positions=512):
        assert hidden % heads == 0, "hidden must split evenly over the heads"
        assert 0 < seq <= max_positions, "the sequence must fit the position table"
        self.layers, self.hidden, self.heads, self.ffn = layers, hidden, heads, ffn
        self.seq, self.vocab, self.max_positions = seq, vocab, max_positions
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


def position_embeddings(b, ids, cfg):
    """Rows [0, seq) of the position table, seq read from the ids' shape at run time."""
    table = b.normal("embeddings.position", (cfg.max_positions, cfg.hidden), std=1.0)
    seq = b.node("Gather", [b.node("Shape", [ids], "embeddings.ids_shape"), b.shared_constant("one_i64", np.array(1))],
                 "embeddings.seq_len", axis=0)
    seq = b.node("Unsqueeze", [seq, b.shared_constant("axes_0", np.array([0]))], "embeddings.seq_len_1d")
    return b.node("Slice", [table, b.shared_constant("zero_1d", np.array([0])), seq, b.shared_constant("axes_0", np.array([0]))],
                  "embeddings.positions")


def build(cfg=None, seed=0, dynamic=False):
    """Returns (model, parameter count, [ModelInput]). `dynamic` declares the batch and
    sequence dimensions symbolic, as exporters do with dynamic axes (the test input is
    1 x cfg.seq)."""
    cfg = cfg or Config()
    b = GraphBuilder("bert", seed)
    tokens = b.normal("embeddings.word", (cfg.vocab, cfg.hidden), std=1.0)
    x = b.node("Gather", [tokens, "input_ids"], "embeddings.gather", axis=0)
    x = b.node("Add", [x, position_embeddings(b, "input_ids", cfg)], "embeddings.add_position")
    x = layer_norm(b, x, "embeddings.norm", cfg.hidden)
    for i in range(cfg.layers):
        x = encoder_layer(b, x, f"encoder.layer.{i}", cfg)
    batch, seq = batch_dim(dynamic), "sequence" if dynamic else cfg.seq
    model = b.model(
        [("input_ids", TensorProto.INT64, (batch, seq))],
        [(x, TensorProto.FLOAT, (batch, seq, cfg.hidden))],
    )
    return model, b.parameter_count(), [ModelInput("input_ids", (1, cfg.seq), "int64", cfg.vocab)]
