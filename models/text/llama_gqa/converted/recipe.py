"""text / llama_gqa: the model of this recipe.

transformers 5.23.0: LlamaForCausalLM(LlamaConfig(vocab_size=2048, hidden_size=256,
intermediate_size=704, num_hidden_layers=4, num_attention_heads=8,
num_key_value_heads=2, rope_theta=10000)) (a reduced Llama: GQA 8/2 heads, RoPE,
RMSNorm, SwiGLU), 32 tokens, logits

Random init: no weights can be downloaded here; gpuclean.zoo seeds torch (0) before build().
Real weights: --weights PATH on the export and dump scripts (see load_weights).
"""
import torch

from gpuclean.zoo_hf import build_causal_lm, load_causal_lm

FAMILY, NAME = "text", "llama_gqa"
SOURCE = 'transformers 5.23.0: LlamaForCausalLM(LlamaConfig(vocab_size=2048, hidden_size=256, intermediate_size=704, num_hidden_layers=4, num_attention_heads=8, num_key_value_heads=2, rope_theta=10000)) (a reduced Llama: GQA 8/2 heads, RoPE, RMSNorm, SwiGLU), 32 tokens, logits'
ARGMAX = True

CONFIG = dict(vocab_size=2048, hidden_size=256, intermediate_size=704, num_hidden_layers=4,
              num_attention_heads=8, num_key_value_heads=2, max_position_embeddings=256,
              rms_norm_eps=1e-5, tie_word_embeddings=False, use_cache=False)


def build():
    return build_causal_lm("Llama", CONFIG)


def inputs(gen):
    return (torch.randint(0, CONFIG["vocab_size"], (1, 32), generator=gen, dtype=torch.int32),)


def load_weights(model, path):
    """A local Hugging Face folder (config.json + weights) or a state_dict file."""
    return load_causal_lm(model, path, "Llama")
