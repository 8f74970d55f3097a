"""Phase names and the chart buckets they fall into.

Mirrors harness/phase.cpp exactly (names, order and bucket of every phase); a test parses
that file and fails when the two drift apart.
"""

PHASES = (
    "embed", "attn_norm", "attn_qkv", "attn_rope", "attn_kv_write", "flash_attn", "attn_out",
    "ssm_proj", "ssm_conv", "ssm_delta", "ssm_gnorm", "ssm_out",
    "moe_router", "moe_topk", "moe_gate_up", "moe_swiglu", "moe_down", "moe_acc",
    "shared_expert",
    "ffn_norm", "ffn_gate_up", "ffn_act", "ffn_down",
    "final_norm", "lm_head", "sample",
)

BUCKETS = ("embed", "ssm_projections", "ssm_other", "attention", "moe", "shared_expert",
           "dense_ffn", "tail")

# The wall time no GPU phase covers: host recording, vkQueueSubmit and waiting on fences.
GAP = "gap"

_EXPLICIT = {
    "embed": "embed",
    "ssm_proj": "ssm_projections", "ssm_out": "ssm_projections",
    "ssm_conv": "ssm_other", "ssm_delta": "ssm_other", "ssm_gnorm": "ssm_other",
    "shared_expert": "shared_expert",
    "final_norm": "tail", "lm_head": "tail", "sample": "tail",
}


def bucket_of(phase: str) -> str:
    """The bucket of a phase name; unknown names land in `tail` like Phase::Count does."""
    if phase in _EXPLICIT:
        return _EXPLICIT[phase]
    if phase.startswith("attn_") or phase == "flash_attn":
        return "attention"
    if phase.startswith("moe_"):
        return "moe"
    if phase.startswith("ffn_"):
        return "dense_ffn"
    return "tail"
