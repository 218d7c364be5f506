"""vision / convnext_atto: the model of this recipe.

timm 1.0.31: timm.create_model('convnext_atto', pretrained=False)

Random init: no weights can be downloaded here; gpuclean.zoo seeds torch (0) before build().
Real weights: --weights PATH on the export and dump scripts (see load_weights).
"""
import torch

FAMILY, NAME = "vision", "convnext_atto"
SOURCE = "timm 1.0.31: timm.create_model('convnext_atto', pretrained=False)"
ARGMAX = True

def build():
    import timm
    return timm.create_model("convnext_atto", pretrained=False)


def inputs(gen):
    return (torch.randn(1, 3, 224, 224, generator=gen),)
