"""MobileNet-V2, width 1.0 (Sandler et al. 2018, table 2), as torchvision lays it out: a 3x3/2
conv to 32 channels, 17 inverted-residual blocks (1x1 expansion, 3x3 depthwise conv as a
grouped Conv, linear 1x1 projection; a shortcut when stride is 1 and the width is kept),
a 1x1 conv to 1280, global average pool and a fully connected layer to 1000 classes. Every
conv is followed by BN; activations are ReLU6 (Clip 0..6)."""

from onnx import TensorProto

from cnn_layers import classifier, conv_bn, relu6
from graph_builder import GraphBuilder, ModelInput, batch_dim

# (expansion t, output channels c, repeats n, first stride s), the paper's table 2.
INVERTED_RESIDUAL_SETTING = [
    (1, 16, 1, 1),
    (6, 24, 2, 2),
    (6, 32, 3, 2),
    (6, 64, 4, 2),
    (6, 96, 3, 1),
    (6, 160, 3, 2),
    (6, 320, 1, 1),
]
STEM_CHANNELS = 32
LAST_CHANNELS = 1280
CLASSES = 1000


def inverted_residual(b, x, name, c_in, c_out, stride, expansion):
    hidden = c_in * expansion
    y = x
    if expansion != 1:
        y = conv_bn(b, y, f"{name}.expand", c_in, hidden, 1, activation=relu6)
    y = conv_bn(b, y, f"{name}.depthwise", hidden, hidden, 3, stride, group=hidden, activation=relu6)
    if stride == 1 and c_in == c_out:
        # Smaller projection scale on residual blocks so the sums stay O(1).
        y = conv_bn(b, y, f"{name}.project", hidden, c_out, 1, gamma=0.5)
        return b.node("Add", [x, y], f"{name}.add")
    return conv_bn(b, y, f"{name}.project", hidden, c_out, 1)


def build(image_size=224, seed=0, dynamic=False):
    """Returns (model, parameter count, [ModelInput]). `dynamic` declares the batch
    dimension symbolic, as exporters do with dynamic axes (the test input has batch 1)."""
    b = GraphBuilder("mobilenetv2", seed)
    shape = (1, 3, image_size, image_size)
    y = conv_bn(b, "x", "features.0", 3, STEM_CHANNELS, 3, stride=2, activation=relu6)
    c_in, index = STEM_CHANNELS, 1
    for t, c, n, s in INVERTED_RESIDUAL_SETTING:
        for i in range(n):
            y = inverted_residual(b, y, f"features.{index}", c_in, c, s if i == 0 else 1, t)
            c_in, index = c, index + 1
    y = conv_bn(b, y, f"features.{index}", c_in, LAST_CHANNELS, 1, activation=relu6)
    logits = classifier(b, y, LAST_CHANNELS, CLASSES)
    batch = batch_dim(dynamic)
    model = b.model(
        [("x", TensorProto.FLOAT, (batch, *shape[1:]))],
        [(logits, TensorProto.FLOAT, (batch, CLASSES))],
    )
    return model, b.parameter_count(), [ModelInput("x", shape)]
