"""SqueezeNet 1.1 (Iandola et al. 2016; torchvision's `squeezenet1_1` layout): a 3x3/2 conv
to 64 channels, ReLU, and eight Fire modules between three 3x3/2 max pools (ceil mode). A
Fire module squeezes with a 1x1 conv, then expands with a 1x1 and a 3x3 conv side by side
and concatenates them along channels; every conv has a bias and a ReLU (no batch
normalization). The head is dropout-free: a 1x1 conv to 1000 classes, ReLU, global average
pool and flatten."""

from onnx import TensorProto

from cnn_layers import conv, relu
from graph_builder import GraphBuilder, ModelInput, batch_dim

# (squeeze channels, expand channels per branch) of Fire modules 2..9; a max pool comes
# before the modules whose index is in POOL_BEFORE.
FIRES = [(16, 64), (16, 64), (32, 128), (32, 128), (48, 192), (48, 192), (64, 256), (64, 256)]
POOL_BEFORE = {0, 2, 4}
CLASSES = 1000


def max_pool(b, x, name):
    return b.node("MaxPool", [x], name, kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)


def conv_relu(b, x, name, c_in, c_out, kernel, stride=1, pad=None):
    y = conv(b, x, name, c_in, c_out, kernel, stride, bias=True, pad=pad)
    return relu(b, y, f"{name}.relu")


def fire(b, x, name, c_in, squeeze, expand):
    s = conv_relu(b, x, f"{name}.squeeze", c_in, squeeze, 1)
    e1 = conv_relu(b, s, f"{name}.expand1x1", squeeze, expand, 1)
    e3 = conv_relu(b, s, f"{name}.expand3x3", squeeze, expand, 3)
    return b.node("Concat", [e1, e3], f"{name}.cat", axis=1)


def build(image_size=224, seed=0, dynamic=False):
    """Returns (model, parameter count, [ModelInput]). `dynamic` declares the batch
    dimension symbolic, as exporters do with dynamic axes (the test input has batch 1)."""
    b = GraphBuilder("squeezenet", seed)
    shape = (1, 3, image_size, image_size)
    # torchvision's stem has no padding.
    y = conv_relu(b, "x", "features.0", 3, 64, 3, stride=2, pad=0)
    c_in = 64
    for i, (squeeze, expand) in enumerate(FIRES):
        if i in POOL_BEFORE:
            y = max_pool(b, y, f"pool{i}")
        y = fire(b, y, f"fire{i + 2}", c_in, squeeze, expand)
        c_in = 2 * expand
    y = conv_relu(b, y, "classifier.1", c_in, CLASSES, 1)
    pooled = b.node("GlobalAveragePool", [y], "avgpool")
    logits = b.node("Flatten", [pooled], "flatten", axis=1)
    batch = batch_dim(dynamic)
    model = b.model(
        [("x", TensorProto.FLOAT, (batch, *shape[1:]))],
        [(logits, TensorProto.FLOAT, (batch, CLASSES))],
    )
    return model, b.parameter_count(), [ModelInput("x", shape)]
