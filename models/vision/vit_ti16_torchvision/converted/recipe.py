"""vision / vit_ti16_torchvision: the model of this recipe.

torchvision 0.29.2: torchvision.models.VisionTransformer(image_size=224, patch_size=16,
num_layers=12, num_heads=3, hidden_dim=192, mlp_dim=768) (the ViT-Ti/16 config;
torchvision ships no tiny builder)

Random init: no weights can be downloaded here; gpuclean.zoo seeds torch (0) before build().
Real weights: --weights PATH on the export and dump scripts (see load_weights).
"""
import torch

FAMILY, NAME = "vision", "vit_ti16_torchvision"
SOURCE = 'torchvision 0.29.2: torchvision.models.VisionTransformer(image_size=224, patch_size=16, num_layers=12, num_heads=3, hidden_dim=192, mlp_dim=768) (the ViT-Ti/16 config; torchvision ships no tiny builder); head re-initialised N(0, 0.02) because torchvision zero-initialises it'
ARGMAX = True

def build():
    from torchvision.models.vision_transformer import VisionTransformer
    m = VisionTransformer(image_size=224, patch_size=16, num_layers=12, num_heads=3,
                          hidden_dim=192, mlp_dim=768)
    # torchvision zero-initialises the classifier head (for fine-tuning): with random init
    # every logit would be exactly 0 whatever the input, and parity would prove nothing.
    torch.nn.init.normal_(m.heads.head.weight, std=0.02)
    return m


def inputs(gen):
    return (torch.randn(1, 3, 224, 224, generator=gen),)
