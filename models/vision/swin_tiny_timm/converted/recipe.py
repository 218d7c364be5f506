"""vision / swin_tiny_timm: the model of this recipe.

timm 1.0.31: timm.create_model('swin_tiny_patch4_window7_224', pretrained=False)

Random init: no weights can be downloaded here; gpuclean.zoo seeds torch (0) before build().
Real weights: --weights PATH on the export and dump scripts (see load_weights).
"""
import torch

FAMILY, NAME = "vision", "swin_tiny_timm"
SOURCE = "timm 1.0.31: timm.create_model('swin_tiny_patch4_window7_224', pretrained=False)"
ARGMAX = True

def build():
    import timm
    return timm.create_model("swin_tiny_patch4_window7_224", pretrained=False)


def inputs(gen):
    return (torch.randn(1, 3, 224, 224, generator=gen),)
