"""ResNet-18 in torchvision's layout (He et al. 2016): 7x7/2 conv, BN, ReLU, 3x3/2 max pool,
four stages of two BasicBlocks (64, 128, 256, 512 channels; the first block of stages 2-4
strides by 2 and projects its shortcut with a 1x1 conv + BN), global average pool, flatten
and a fully connected layer to 1000 classes."""

from onnx import TensorProto

from cnn_layers import batch_norm, classifier, conv, conv_bn, relu
from graph_builder import GraphBuilder, ModelInput, batch_dim

STAGES = [(64, 1), (128, 2), (256, 2), (512, 2)]  # (channels, stride of the first block)
BLOCKS_PER_STAGE = 2
CLASSES = 1000


def basic_block(b, x, name, c_in, c_out, stride):
    y = conv_bn(b, x, f"{name}.1", c_in, c_out, 3, stride, activation=relu)
    # The residual branch's last BN gets a smaller scale, as trained networks have, so the
    # sum with the shortcut keeps activations O(1) through eight blocks.
    y = conv_bn(b, y, f"{name}.2", c_out, c_out, 3, gamma=0.5)
    shortcut = x
    if stride != 1 or c_in != c_out:
        shortcut = conv(b, x, f"{name}.downsample.conv", c_in, c_out, 1, stride)
        shortcut = batch_norm(b, shortcut, f"{name}.downsample.bn", c_out)
    return relu(b, b.node("Add", [y, shortcut], f"{name}.add"), f"{name}.relu")


def build(image_size=224, seed=0, dynamic=False):
    """Returns (model, parameter count, [ModelInput]). `dynamic` declares the batch
    dimension symbolic, as exporters do with dynamic axes (the test input has batch 1)."""
    b = GraphBuilder("resnet18", seed)
    shape = (1, 3, image_size, image_size)
    y = conv_bn(b, "x", "stem", 3, 64, 7, stride=2, activation=relu)
    y = b.node("MaxPool", [y], "maxpool", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    c_in = 64
    for stage, (c_out, stride) in enumerate(STAGES, start=1):
        for block in range(BLOCKS_PER_STAGE):
            y = basic_block(b, y, f"layer{stage}.{block}", c_in, c_out, stride if block == 0 else 1)
            c_in = c_out
    logits = classifier(b, y, c_in, CLASSES)
    batch = batch_dim(dynamic)
    model = b.model(
        [("x", TensorProto.FLOAT, (batch, *shape[1:]))],
        [(logits, TensorProto.FLOAT, (batch, CLASSES))],
    )
    return model, b.parameter_count(), [ModelInput("x", shape)]
