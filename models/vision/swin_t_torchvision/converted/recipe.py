"""vision / swin_t_torchvision: the model of this recipe.

torchvision 0.29.2: torchvision.models.swin_t(weights=None)

Random init: no weights can be downloaded here; gpuclean.zoo seeds torch (0) before build().
Real weights: --weights PATH on the export and dump scripts (see load_weights).
"""
import torch

FAMILY, NAME = "vision", "swin_t_torchvision"
SOURCE = 'torchvision 0.29.2: torchvision.models.swin_t(weights=None)'
ARGMAX = True

def build():
    import torchvision
    return torchvision.models.swin_t(weights=None)


def inputs(gen):
    return (torch.randn(1, 3, 224, 224, generator=gen),)
