"""vision / mobilevit_xxs: the model of this recipe.

timm 1.0.31: timm.create_model('mobilevit_xxs', pretrained=False), 256x256

Random init: no weights can be downloaded here; gpuclean.zoo seeds torch (0) before build().
Real weights: --weights PATH on the export and dump scripts (see load_weights).
"""
import torch

FAMILY, NAME = "vision", "mobilevit_xxs"
SOURCE = "timm 1.0.31: timm.create_model('mobilevit_xxs', pretrained=False), 256x256"
ARGMAX = True

def build():
    import timm
    return timm.create_model("mobilevit_xxs", pretrained=False)


def inputs(gen):
    return (torch.randn(1, 3, 256, 256, generator=gen),)
