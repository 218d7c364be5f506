"""vision / mobilenet_v3_small: the model of this recipe.

torchvision 0.29.2: torchvision.models.mobilenet_v3_small(weights=None)

Random init: no weights can be downloaded here; gpuclean.zoo seeds torch (0) before build().
Real weights: --weights PATH on the export and dump scripts (see load_weights).
"""
import torch

FAMILY, NAME = "vision", "mobilenet_v3_small"
SOURCE = 'torchvision 0.29.2: torchvision.models.mobilenet_v3_small(weights=None)'
ARGMAX = True

def build():
    import torchvision
    return torchvision.models.mobilenet_v3_small(weights=None)


def inputs(gen):
    return (torch.randn(1, 3, 224, 224, generator=gen),)
