"""audio / whisper_tiny_encoder: the model of this recipe.

transformers 5.23.0: WhisperModel(WhisperConfig(d_model=384, encoder_layers=4,
encoder_attention_heads=6, encoder_ffn_dim=1536, num_mel_bins=80)) encoder
(openai/whisper-tiny's config), 80x3000 log-mel input; last_hidden_state

Random init: no weights can be downloaded here; gpuclean.zoo seeds torch (0) before build().
Real weights: --weights PATH on the export and dump scripts (see load_weights).
"""
import os  # noqa: F401

import torch

FAMILY, NAME = "audio", "whisper_tiny_encoder"
SOURCE = "transformers 5.23.0: WhisperModel(WhisperConfig(d_model=384, encoder_layers=4, encoder_attention_heads=6, encoder_ffn_dim=1536, num_mel_bins=80)) encoder (openai/whisper-tiny's config), 80x3000 log-mel input; last_hidden_state"
ARGMAX = False

CONFIG = dict(d_model=384, encoder_layers=4, encoder_attention_heads=6, encoder_ffn_dim=1536,
              decoder_layers=4, decoder_attention_heads=6, decoder_ffn_dim=1536,
              num_mel_bins=80, max_source_positions=1500, vocab_size=51865)


class Encoder(torch.nn.Module):
    """last_hidden_state [1, 1500, 384] of the Whisper encoder."""

    def __init__(self, enc):
        super().__init__()
        self.enc = enc

    def forward(self, input_features):
        return self.enc(input_features=input_features).last_hidden_state


def build():
    from transformers import WhisperConfig, WhisperModel
    cfg = WhisperConfig(**CONFIG)
    cfg._attn_implementation = "sdpa"
    return Encoder(WhisperModel(cfg).get_encoder())


def inputs(gen):
    return (torch.randn(1, 80, 3000, generator=gen),)


def load_weights(model, path):
    """A local Hugging Face folder (config.json + weights) or a state_dict file of the
    whole WhisperModel; only the encoder is kept."""
    from transformers import WhisperModel
    if os.path.isdir(path):
        return Encoder(WhisperModel.from_pretrained(path).get_encoder())
    from gpuclean.zoo import load_state_dict
    load_state_dict(model.enc, path)
    return model
