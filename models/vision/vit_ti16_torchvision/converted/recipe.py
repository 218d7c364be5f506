"""vision / vit_ti16_torchvision: the model of this recipe.

torchvision 0.29.2: torchvision.models.VisionTransformer(image_size=224, patch_size=16,
num_layers=12, num_heads=3, hidden_dim=192, mlp_dim=768) (the ViT-Ti/16 config;
torchvision ships no tiny builder)

Random init: no weights can be downloaded here; gpuclean.zoo seeds torch (0) before build().
Real weights: --weights PATH on the export and dump scripts (see load_weights).
"""
import torch

FAMILY, NAME = "vision", "vit_ti16_torchvision"
SOURCE = 'torchvision 0.29.2: torchvision.models.VisionTransformer(image_size=224, patch_size=16, num_layers=12, num_heads=3, hidden_dim=192, mlp_dim=768) (the ViT-Ti/16 config; torchvision ships no tiny builder)'
ARGMAX = True

def build():
    from torchvision.models.vision_transformer import VisionTransformer
    return VisionTransformer(image_size=224, patch_size=16, num_layers=12, num_heads=3,
                             hidden_dim=192, mlp_dim=768)


def inputs(gen):
    return (torch.randn(1, 3, 224, 224, generator=gen),)
