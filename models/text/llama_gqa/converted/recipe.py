"""text / llama_gqa: the model of this recipe.

transformers 5.23.0: LlamaForCausalLM(LlamaConfig(vocab_size=2048, hidden_size=256,
intermediate_size=704, num_hidden_layers=4, num_attention_heads=8,
num_key_value_heads=2, rope_theta=10000)) (a reduced Llama: GQA 8/2 heads, RoPE,
RMSNorm, SwiGLU), 32 tokens, logits

Random init: no weights can be downloaded here; gpuclean.zoo seeds torch (0) before build().
Real weights: --weights PATH on the export and dump scripts (see load_weights).
"""
import os  # noqa: F401

import torch

FAMILY, NAME = "text", "llama_gqa"
SOURCE = 'transformers 5.23.0: LlamaForCausalLM(LlamaConfig(vocab_size=2048, hidden_size=256, intermediate_size=704, num_hidden_layers=4, num_attention_heads=8, num_key_value_heads=2, rope_theta=10000)) (a reduced Llama: GQA 8/2 heads, RoPE, RMSNorm, SwiGLU), 32 tokens, logits'
ARGMAX = True

CONFIG = dict(vocab_size=2048, hidden_size=256, intermediate_size=704, num_hidden_layers=4,
              num_attention_heads=8, num_key_value_heads=2, max_position_embeddings=256,
              rms_norm_eps=1e-5, tie_word_embeddings=False, use_cache=False)


class CausalLM(torch.nn.Module):
    """logits [1, 32, vocab] of a causal LM, no KV cache."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, input_ids):
        return self.net(input_ids=input_ids, use_cache=False).logits


def build():
    from transformers import LlamaConfig, LlamaForCausalLM
    cfg = LlamaConfig(**CONFIG)
    cfg._attn_implementation = "sdpa"
    return CausalLM(LlamaForCausalLM(cfg))


def inputs(gen):
    return (torch.randint(0, CONFIG["vocab_size"], (1, 32), generator=gen, dtype=torch.int32),)


def load_weights(model, path):
    """A local Hugging Face folder (config.json + weights) or a state_dict file."""
    from transformers import LlamaForCausalLM
    if os.path.isdir(path):
        return CausalLM(LlamaForCausalLM.from_pretrained(path))
    from gpuclean.zoo import load_state_dict
    load_state_dict(model.net, path)
    return model
