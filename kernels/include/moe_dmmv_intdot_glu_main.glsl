// The experts' gate and up of a decode token in one dispatch that also ranks the token's
// experts and applies the SwiGLU, writing act = silu(gate) * up in the int8 blocks the experts'
// down reads (MOE_DMMV with DMMV_GLU_EPILOGUE in dmmv_intdot_body.glsl; glu_placement:
// producer): the experts' form of dmmv_intdot_glu_epilogue.glsl, so decode's experts take two
// dispatches (this and down) where they took five (top-k, gate, up, SwiGLU, down). Neither gate,
// up nor act is written as floats. The activation is the model's (ACTIVATION, glu_activation.glsl).
//
// Routing: every workgroup ranks the token's E router logits itself (binding 10;
// moe_topk_rank.glsl: one subgroup, K rounds of subgroup minima), so no dispatch before it has
// to, and workgroup (0, 0) writes what moe_topk_group would have (the routes at bindings 11 and
// 12, the work list at 7 to 9) for down and the accumulation. The ranking compares integer keys
// of the logits, so every workgroup picks the same experts.
//
// Binding 0 holds the gate experts [E][F][cols] and, right after them, the up experts: gate row
// r of expert e is e F + r, its up row E F + e F + r (pc.rows = F, pc.expert_count = E; one
// binding, no expert slices). Workgroup (x, a): the token's route a (its assignment: one token)
// and the expert chosen there, act elements [32 x, 32 x + 32) of column a; team t
// (dmmv_intdot_block_teams.glsl) sums the gate rows 32 x + h t .. + h - 1 and the matching up
// rows (h = ROWS / 2), and the block's holders apply the unit and quantize it into bindings 5
// and 6 at column a (F elements a column). Where the input is an RMSNorm's
// output whose division was left to this projection (norm_placement: producer; RMS_EPS > 0,
// binding 4: its block squares), gate and up are divided by the RMS first, as in the dense
// form; elsewhere binding 4 is unread.
#ifndef PB_MOE_DMMV_INTDOT_GLU_MAIN_GLSL
#define PB_MOE_DMMV_INTDOT_GLU_MAIN_GLSL

layout(constant_id = 7) const int ACTIVATION = 0;
#include "glu_activation.glsl"
#include "dmmv_intdot_input_rms.glsl"  // RMS_EPS = 0 (the default): no division
#include "dmmv_intdot_block_teams.glsl"

layout(constant_id = 8) const int NORM_TOPK = 1;  // 1: the K route weights are divided by their sum
layout(binding = 7) writeonly buffer Items { uvec4 items[]; };  // (expert, 1, place, 0)
layout(binding = 8) writeonly buffer Assignments { uint assignments[]; };
layout(binding = 9) writeonly buffer Counter { uint counter[]; };  // [0]: n_items
layout(binding = 10) readonly buffer Logits { float logits[]; };   // the token's E router logits
layout(binding = 11) writeonly buffer RouteE { uint route_e[]; };  // [K]
layout(binding = 12) writeonly buffer RouteW { float route_w[]; };  // [K]
#define MOE_TOPK_GROUP
#include "moe_topk_rank.glsl"

uint moe_input_column(uint c) { return 0u; }  // one token

shared float block_gate[TEAM], block_up[TEAM];  // the workgroup's gate and up sums, in order

void main() {
  const uint a = gl_WorkGroupID.y;  // the route (and assignment: one token) this workgroup computes
  if (gl_SubgroupID == 0) {
    rank_routes(0u, pc.expert_count, pc.top_k);
    if (gl_WorkGroupID.x == 0 && a == 0) {  // the routing that down and the accumulation read
      write_routes(0u, pc.top_k, NORM_TOPK != 0);
      write_work_list(pc.expert_count, pc.top_k);
    }
  }
  barrier();
  const uint expert = chosen_e[a];
  if (expert >= pc.expert_count) return;  // uniform over the workgroup: no barrier is skipped
  gate_row0 = expert * pc.rows;  // read by DMMV_ROW
  up_row0 = (pc.expert_count + expert) * pc.rows;
  const uint t = subgroup_major_index();
  const uint team = t / TEAM, lane = t % TEAM;
  const uint block = gl_WorkGroupID.x * TEAM;              // the workgroup's first act element
  const uint first_row = block + team * uint(ROWS / 2);  // DMMV_ROW maps rows past ROWS / 2 to up
  const bool holds = t < TEAM;  // the block's holders (the first team) apply the unit and quantize
  // Only the holders need the RMS: they load their share of the input's block squares before
  // the loop, which does not wait for it (as the dense form does).
  const float squares = RMS_EPS > 0.0 && holds ? input_squares_share(t, TEAM) : 0.0;
  accumulate_team_rows(first_row, pc.rows, lane);

  // Lane j of a team puts its element j's sums in place (acc indexed by constants only).
  [[unroll]] for (int j = 0; j < ROWS / 2; ++j) {
    if (lane == uint(j)) {
      block_gate[team * uint(ROWS / 2) + uint(j)] = acc[j];
      block_up[team * uint(ROWS / 2) + uint(j)] = acc[ROWS / 2 + j];
    }
  }
  barrier();

  const float inv_rms = RMS_EPS > 0.0 ? inv_rms_of(block_float_sum(squares, TEAM)) : 1.0;
  const float v = holds ? glu_value(block_gate[t] * inv_rms, block_up[t] * inv_rms) : 0.0;
  const uint column_first = a * pc.rows;
  quantize_owned_block(v, holds, column_first + block + t, column_first + block);
}

#endif  // PB_MOE_DMMV_INTDOT_GLU_MAIN_GLSL
