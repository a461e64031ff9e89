"""GraphBuilder: assembles an ONNX graph node by node, with uniquely named values and
seeded random weights, and checks the finished model."""

from dataclasses import dataclass

import numpy as np
import onnx
from onnx import helper, numpy_helper

OPSET = 17


@dataclass
class ModelInput:
    """A graph input and how to draw a test value for it: float inputs are standard
    normal, integer inputs (token ids) uniform in [0, high)."""

    name: str
    shape: tuple
    dtype: str = "float32"
    high: int = 0

    def random(self, rng):
        if self.dtype == "float32":
            return rng.standard_normal(self.shape).astype(np.float32)
        return rng.integers(0, self.high, size=self.shape, dtype=self.dtype)


def batch_dim(dynamic):
    """Dimension 0 of inputs and outputs: 1, or the symbolic 'batch' exporters write."""
    return "batch" if dynamic else 1


class GraphBuilder:
    def __init__(self, name, seed):
        self.name = name
        self.rng = np.random.default_rng(seed)
        self.nodes = []
        self.initializers = []
        self._used_names = set()
        self._parameter_count = 0
        self._shared = {}

    def fresh(self, base):
        """A value or node name not used before: `base`, else `base_1`, `base_2`, ..."""
        name, i = base, 0
        while name in self._used_names:
            i += 1
            name = f"{base}_{i}"
        self._used_names.add(name)
        return name

    # --- initializers -----------------------------------------------------------------

    def constant(self, name, array, parameter=False):
        """An initializer; `parameter` marks learned weights (counted by parameter_count),
        as opposed to running statistics and constants such as shapes and clip bounds."""
        array = np.asarray(array)
        name = self.fresh(name)
        self.initializers.append(numpy_helper.from_array(array, name))
        if parameter:
            self._parameter_count += array.size
        return name

    def shared_constant(self, name, array):
        """A constant initializer created once and reused by every node that asks by name."""
        if name not in self._shared:
            self._shared[name] = self.constant(name, array)
        return self._shared[name]

    def normal(self, name, shape, std, mean=0.0):
        values = self.rng.standard_normal(shape) * std + mean
        return self.constant(name, values.astype(np.float32), parameter=True)

    def he_normal(self, name, shape, fan_in, gain=2.0):
        """Weights with variance gain/fan_in: gain 2 keeps the variance of activations
        through a ReLU layer (He et al.), gain 1 through a linear one."""
        return self.normal(name, shape, std=np.sqrt(gain / fan_in))

    # --- nodes ------------------------------------------------------------------------

    def node(self, op_type, inputs, name, num_outputs=1, **attrs):
        """Adds one node named `name` (made unique); returns its output name, or the list of
        names when it has several outputs."""
        name = self.fresh(name)
        outputs = [name] if num_outputs == 1 else [self.fresh(f"{name}.{i}") for i in range(num_outputs)]
        self.nodes.append(helper.make_node(op_type, list(inputs), outputs, name=name, **attrs))
        return outputs[0] if num_outputs == 1 else outputs

    # --- the model --------------------------------------------------------------------

    def model(self, inputs, outputs):
        """The checked model. `inputs` and `outputs` are (name, TensorProto elem type,
        shape) triples, a dimension being a number or a symbolic name ('batch'); every
        intermediate shape must be inferable (strict mode), and the inferred output shapes
        must agree with the declared ones."""
        graph = helper.make_graph(
            self.nodes,
            self.name,
            [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
            [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs],
            initializer=self.initializers,
        )
        model = helper.make_model(
            graph,
            opset_imports=[helper.make_opsetid("", OPSET)],
            producer_name="tensorbind-models",
            # IR 10 (ONNX 1.16): what every onnxruntime since 1.17 loads, whatever onnx
            # version writes the model.
            ir_version=10,
        )
        # Models over 2 GB would need external data; ours are far below.
        onnx.checker.check_model(model, full_check=True)
        inferred = onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True)
        for out, (name, _, shape) in zip(inferred.graph.output, outputs):
            dims = [d.dim_value if d.HasField("dim_value") else None for d in out.type.tensor_type.shape.dim]
            # A symbolic dimension must stay symbolic; a number must be inferred exactly.
            want = [d if isinstance(d, int) else None for d in shape]
            if dims != want:
                raise ValueError(f"{self.name}: output {name} infers as {dims}, declared {list(shape)}")
        return model

    def parameter_count(self):
        """Learned weights, counted as torchvision and Hugging Face count them."""
        return self._parameter_count
