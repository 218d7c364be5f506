"""segmentation / lraspp_mobilenet_v3_large: the model of this recipe.

torchvision 0.29.2:
torchvision.models.segmentation.lraspp_mobilenet_v3_large(weights=None,
weights_backbone=None), output 'out'

Random init: no weights can be downloaded here; gpuclean.zoo seeds torch (0) before build().
Real weights: --weights PATH on the export and dump scripts (see load_weights).
"""
import torch

FAMILY, NAME = "segmentation", "lraspp_mobilenet_v3_large"
SOURCE = "torchvision 0.29.2: torchvision.models.segmentation.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None), output 'out'"
ARGMAX = False

class Segmenter(torch.nn.Module):
    """Returns the 'out' logits [1, 21, H, W] of torchvision's dict output."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        return self.net(x)["out"]


def build():
    from torchvision.models.segmentation import lraspp_mobilenet_v3_large
    return Segmenter(lraspp_mobilenet_v3_large(weights=None, weights_backbone=None))


def inputs(gen):
    return (torch.randn(1, 3, 256, 256, generator=gen),)


def load_weights(model, path):
    from gpuclean.zoo import load_state_dict
    load_state_dict(model.net, path)
    return model
