// The mixture-of-experts op builders, in the order a layer uses them:
//   moe_routing_ops.h  routing buffers, moe_topk_op, moe_group_op (phase moe_topk)
//   moe_dmmv_op.h      moe_dmmv_ops: expert gate/up (moe_gate_up) and down (moe_down)
//   moe_acc_op.h       moe_acc_op: the weighted sum into the residual (moe_acc)
//   moe_block_ops.h    moe_block_ops: the whole block, router and shared expert included
//   moe_cost.h         bytes and FLOPs of an expert DMMV, counting selected experts only
// The router, the SwiGLU and the shared expert reuse dmmv_op.h, glu_op.h, sigmoid_mul_op.h
// and add_op.h.
#pragma once

#include "engine/ops/moe_acc_op.h"
#include "engine/ops/moe_block_ops.h"
#include "engine/ops/moe_cost.h"
#include "engine/ops/moe_dmmv_op.h"
#include "engine/ops/moe_routing_ops.h"
#include "engine/ops/moe_shape.h"
