// The weight a norm-writing producer multiplies by: the norm's stored weight w, or 1 + w for
// the models that store it with the 1 taken out (Gemma, Qwen3.5), as rmsnorm's ADD_ONE does.
// Specialization constant 11, set by the producers' builders from NormEpilogue::add_one
// (engine/ops/dmmv_intdot_op.h); free in every kernel that includes this file.
#ifndef PB_NORM_WEIGHT_ADD_ONE_GLSL
#define PB_NORM_WEIGHT_ADD_ONE_GLSL

layout(constant_id = 11) const int NORM_ADD_ONE = 0;

float applied_norm_weight(float stored) { return NORM_ADD_ONE != 0 ? 1.0 + stored : stored; }

#endif
