"""Hugging Face causal LMs as zoo recipes: one wrapper and one weight loader shared by
every decoder recipe (models/text/*_gqa), so each recipe names only its class and config.

    CausalLM(net)                 forward(input_ids [1, T] int32) -> logits [1, T, vocab],
                                  no KV cache (use_cache=False)
    build_causal_lm(name, config) transformers.<name>ForCausalLM(<name>Config(**config)),
                                  attention "sdpa" (what litert-torch lowers), random init
    load_causal_lm(model, path, name)
                                  a local Hugging Face folder (config.json + weights ->
                                  from_pretrained, nothing downloaded) or a state_dict file
                                  loaded strictly into model.net
"""
from __future__ import annotations

import importlib
import os

import torch

__all__ = ["CausalLM", "build_causal_lm", "load_causal_lm"]


class CausalLM(torch.nn.Module):
    """logits [1, T, vocab] of a causal LM, no KV cache."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, input_ids):
        return self.net(input_ids=input_ids, use_cache=False).logits


def _classes(name):
    tf = importlib.import_module("transformers")
    return getattr(tf, name + "Config"), getattr(tf, name + "ForCausalLM")


def build_causal_lm(name, config):
    """`name` is the transformers model prefix: "Llama", "Qwen3", ..."""
    cfg_cls, lm_cls = _classes(name)
    cfg = cfg_cls(**config)
    cfg._attn_implementation = "sdpa"
    return CausalLM(lm_cls(cfg))


def load_causal_lm(model, path, name):
    if os.path.isdir(path):
        return CausalLM(_classes(name)[1].from_pretrained(path))
    from gpuclean.zoo import load_state_dict
    load_state_dict(model.net, path)
    return model
