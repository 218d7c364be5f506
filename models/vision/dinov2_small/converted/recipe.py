"""vision / dinov2_small: the model of this recipe.

transformers 5.23.0: Dinov2Model(Dinov2Config(hidden_size=384, num_hidden_layers=12,
num_attention_heads=6, patch_size=14, image_size=518)) (facebook/dinov2-small's config),
1x3x224x224 so the position embeddings are interpolated; output last_hidden_state

Random init: no weights can be downloaded here; gpuclean.zoo seeds torch (0) before build().
Real weights: --weights PATH on the export and dump scripts (see load_weights).
"""
import os  # noqa: F401

import torch

FAMILY, NAME = "vision", "dinov2_small"
SOURCE = "transformers 5.23.0: Dinov2Model(Dinov2Config(hidden_size=384, num_hidden_layers=12, num_attention_heads=6, patch_size=14, image_size=518)) (facebook/dinov2-small's config), 1x3x224x224 so the position embeddings are interpolated; output last_hidden_state"
ARGMAX = False

CONFIG = dict(hidden_size=384, num_hidden_layers=12, num_attention_heads=6, intermediate_size=1536,
              patch_size=14, image_size=518, layerscale_value=1.0)


class Encoder(torch.nn.Module):
    """last_hidden_state [1, 1 + 256, 384] of Dinov2Model."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, pixel_values):
        return self.net(pixel_values=pixel_values).last_hidden_state


def build():
    from transformers import Dinov2Config, Dinov2Model
    cfg = Dinov2Config(**CONFIG)
    cfg._attn_implementation = "sdpa"
    return Encoder(Dinov2Model(cfg))


def inputs(gen):
    return (torch.randn(1, 3, 224, 224, generator=gen),)


def load_weights(model, path):
    """A local Hugging Face folder (config.json + weights) or a state_dict file."""
    from transformers import Dinov2Model
    if os.path.isdir(path):
        return Encoder(Dinov2Model.from_pretrained(path))
    from gpuclean.zoo import load_state_dict
    load_state_dict(model.net, path)
    return model
