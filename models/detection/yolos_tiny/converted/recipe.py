"""detection / yolos_tiny: the model of this recipe.

transformers 5.23.0: YolosForObjectDetection(YolosConfig(hidden_size=192,
num_hidden_layers=12, num_attention_heads=3, intermediate_size=768, image_size=[800,
1333], num_detection_tokens=100, use_mid_position_embeddings=False)) (hustvl/yolos-tiny's config), 1x3x256x256 input so the
position embeddings are interpolated

Random init: no weights can be downloaded here; gpuclean.zoo seeds torch (0) before build().
Real weights: --weights PATH on the export and dump scripts (see load_weights).
"""
import os  # noqa: F401

import torch

FAMILY, NAME = "detection", "yolos_tiny"
SOURCE = "transformers 5.23.0: YolosForObjectDetection(YolosConfig(hidden_size=192, num_hidden_layers=12, num_attention_heads=3, intermediate_size=768, image_size=[800, 1333], num_detection_tokens=100, use_mid_position_embeddings=False)) (hustvl/yolos-tiny's config), 1x3x256x256 input so the position embeddings are interpolated"
ARGMAX = False

CONFIG = dict(hidden_size=192, num_hidden_layers=12, num_attention_heads=3, intermediate_size=768,
              image_size=[800, 1333], num_detection_tokens=100, num_labels=91,
              use_mid_position_embeddings=False)


class Detector(torch.nn.Module):
    """(logits [1, 100, 92], pred_boxes [1, 100, 4]) of YolosForObjectDetection."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, pixel_values):
        o = self.net(pixel_values=pixel_values)
        return o.logits, o.pred_boxes


def build():
    from transformers import YolosConfig, YolosForObjectDetection
    cfg = YolosConfig(**CONFIG)
    cfg._attn_implementation = "sdpa"
    return Detector(YolosForObjectDetection(cfg))


def inputs(gen):
    return (torch.randn(1, 3, 256, 256, generator=gen),)


def load_weights(model, path):
    """A local Hugging Face folder (config.json + weights) or a state_dict file."""
    from transformers import YolosForObjectDetection
    if os.path.isdir(path):
        return Detector(YolosForObjectDetection.from_pretrained(path))
    from gpuclean.zoo import load_state_dict
    load_state_dict(model.net, path)
    return model
