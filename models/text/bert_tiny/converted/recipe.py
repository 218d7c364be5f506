"""text / bert_tiny: the model of this recipe.

transformers 5.23.0: BertModel(BertConfig(vocab_size=30522, hidden_size=128,
num_hidden_layers=2, num_attention_heads=2, intermediate_size=512))
(google/bert_uncased_L-2_H-128_A-2's config), 32 tokens with a padding mask;
last_hidden_state

Random init: no weights can be downloaded here; gpuclean.zoo seeds torch (0) before build().
Real weights: --weights PATH on the export and dump scripts (see load_weights).
"""
import os  # noqa: F401

import torch

FAMILY, NAME = "text", "bert_tiny"
SOURCE = "transformers 5.23.0: BertModel(BertConfig(vocab_size=30522, hidden_size=128, num_hidden_layers=2, num_attention_heads=2, intermediate_size=512)) (google/bert_uncased_L-2_H-128_A-2's config), 32 tokens with a padding mask; last_hidden_state"
ARGMAX = False

CONFIG = dict(vocab_size=30522, hidden_size=128, num_hidden_layers=2, num_attention_heads=2,
              intermediate_size=512, max_position_embeddings=512)


class Encoder(torch.nn.Module):
    """last_hidden_state [1, 32, 128] of BertModel given ids and a 0/1 padding mask."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, input_ids, attention_mask):
        return self.net(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state


def build():
    from transformers import BertConfig, BertModel
    cfg = BertConfig(**CONFIG)
    cfg._attn_implementation = "sdpa"
    return Encoder(BertModel(cfg, add_pooling_layer=False))


def inputs(gen):
    ids = torch.randint(0, CONFIG["vocab_size"], (1, 32), generator=gen, dtype=torch.int32)
    mask = torch.ones(1, 32, dtype=torch.int32)
    mask[:, 28:] = 0                                   # 4 padding tokens
    return (ids, mask)


def load_weights(model, path):
    """A local Hugging Face folder (config.json + weights) or a state_dict file."""
    from transformers import BertModel
    if os.path.isdir(path):
        return Encoder(BertModel.from_pretrained(path, add_pooling_layer=False))
    from gpuclean.zoo import load_state_dict
    load_state_dict(model.net, path)
    return model
