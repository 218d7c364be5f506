"""vision / shufflenet_v2_x0_5: the model of this recipe.

torchvision 0.29.2: torchvision.models.shufflenet_v2_x0_5(weights=None)

Random init: no weights can be downloaded here; gpuclean.zoo seeds torch (0) before build().
Real weights: --weights PATH on the export and dump scripts (see load_weights).
"""
import torch

FAMILY, NAME = "vision", "shufflenet_v2_x0_5"
SOURCE = 'torchvision 0.29.2: torchvision.models.shufflenet_v2_x0_5(weights=None)'
ARGMAX = True

def build():
    import torchvision
    return torchvision.models.shufflenet_v2_x0_5(weights=None)


def inputs(gen):
    return (torch.randn(1, 3, 224, 224, generator=gen),)
