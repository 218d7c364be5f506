"""vision / regnet_y_400mf: the model of this recipe.

torchvision 0.29.2: torchvision.models.regnet_y_400mf(weights=None)

Random init: no weights can be downloaded here; gpuclean.zoo seeds torch (0) before build().
Real weights: --weights PATH on the export and dump scripts (see load_weights).
"""
import torch

FAMILY, NAME = "vision", "regnet_y_400mf"
SOURCE = 'torchvision 0.29.2: torchvision.models.regnet_y_400mf(weights=None)'
ARGMAX = True

def build():
    import torchvision
    return torchvision.models.regnet_y_400mf(weights=None)


def inputs(gen):
    return (torch.randn(1, 3, 224, 224, generator=gen),)
