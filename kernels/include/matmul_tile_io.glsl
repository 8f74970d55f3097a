// What the scalar and the cooperative-matrix matmul share: the push constants, the activation
// and output bindings, and the fetch of one K step's tiles into registers. The including file
// has included a matmul_weights_<format>.glsl (binding 0: WeightGroup, matmul_fetch_group,
// matmul_zero_group and a decode; MATMUL_GROUP if its groups are not 8 weights), declared BM,
// BN and BK, set the workgroup size and enabled GL_EXT_control_flow_attributes.
//
// Y[c][row] (+)= sum_k W[row][k] X[c][k] for one BM (rows) x BN (tokens) tile per workgroup:
// gl_WorkGroupID.x picks the tokens, .y the rows, so the workgroups that run together share
// weight tiles (read from memory once, then from L2) rather than activation tiles (which are
// far smaller). The fetch of step k + BK is issued before step k's products and holds the raw
// words: nothing uses them until the body decodes them into shared memory after the products,
// so the global loads can be in flight while the products run (NVIDIA's driver, measured, does
// not keep them so: docs/GPU_FIGURES.md; still no slower than loading and waiting at once).
#ifndef PB_MATMUL_TILE_IO_GLSL
#define PB_MATMUL_TILE_IO_GLSL

layout(binding = 1) readonly buffer X { vec4 x4[]; };  // column c at c * x_stride floats
layout(binding = 2) buffer Y { float y[]; };            // column c at c * y_stride floats

#ifdef MOE_MATMUL
// The experts' form (kernels/moe_matmul_*.comp; engine/ops/moe_matmul_op.h): workgroup z is
// work item z of moe_group.comp (an expert and the assignments routed to it), and the tile's
// tokens are that item's assignments, gathered from x and scattered to y by index: the input
// column of assignment a is the token a / K for gate and up (INPUT_PER_ASSIGNMENT 0) or a
// itself for down (1); its output column is a. The weight binding stacks expert_count experts
// of `rows` rows from expert_first. Items past the counter, of another slice's experts, or
// with fewer assignments than the workgroup's first token, leave at once.
layout(constant_id = 8) const int INPUT_PER_ASSIGNMENT = 0;
layout(binding = 3) readonly buffer Items { uvec4 items[]; };  // (expert, count, first, 0)
layout(binding = 4) readonly buffer Assignments { uint assignments[]; };  // grouped by expert
layout(binding = 5) readonly buffer Counter { uint counter[]; };          // [0]: n_items

layout(push_constant) uniform Push {  // the expert DMMV's block (engine MoeDmmvPush)
  uint rows;          // rows of one expert's matrix
  uint cols;          // K: input length, a multiple of 8 (and of the block size)
  uint top_k;         // K of the routing: assignment a belongs to token a / top_k
  uint x_stride;      // floats between x columns, a multiple of 4
  uint y_stride;      // floats between y columns
  uint x_offset;      // floats from the x binding's start to column 0, a multiple of 4
  uint y_offset;      // floats from the y binding's start to column 0
  uint expert_first;  // expert held first by this dispatch's weight binding
  uint expert_count;  // experts in that binding
} pc;

uint item_row0;   // the item's expert's first row in the weight binding
uint item_count;  // its assignments: the tokens of its tile
uint item_first;  // where they start in assignments[]

// Sets the item's globals for the workgroup whose first token is col0; false (uniform over the
// workgroup) when it has nothing to compute.
bool moe_item_begin(uint col0) {
  const uint item = gl_WorkGroupID.z;
  if (item >= counter[0]) return false;
  const uvec4 it = items[item];
  if (it.x < pc.expert_first || it.x - pc.expert_first >= pc.expert_count || col0 >= it.y) return false;
  item_row0 = (it.x - pc.expert_first) * pc.rows;
  item_count = it.y;
  item_first = it.z;
  return true;
}

uint moe_x_column(uint c) {
  const uint a = assignments[item_first + c];
  return INPUT_PER_ASSIGNMENT != 0 ? a : a / pc.top_k;
}
#define MATMUL_X_COLUMN(c) moe_x_column(c)
#define MATMUL_Y_COLUMN(c) assignments[item_first + (c)]
#define MATMUL_NCOLS item_count
#define MATMUL_ROW_BASE 0u
#define MATMUL_WEIGHT_ROW(row) (item_row0 + (row))
#define MATMUL_WEIGHT_ROWS (pc.expert_count * pc.rows)
#else
layout(push_constant) uniform Push {
  uint rows;      // rows of this dispatch's weight slice
  uint cols;      // K: input length, a multiple of 8 (and of the block size)
  uint ncols;     // tokens (activation columns) of this dispatch
  uint x_stride;  // floats between x columns, a multiple of 4
  uint y_stride;  // floats between y columns
  uint row_base;  // row index in y of the slice's first row
  uint x_offset;  // floats from the x binding's start to column 0, a multiple of 4
  uint y_offset;  // floats from the y binding's start to column 0
} pc;

// Macros, not functions, so the dense kernels' SPIR-V stays what it was before the experts' form.
#define MATMUL_X_COLUMN(c) (c)
#define MATMUL_Y_COLUMN(c) (c)
#define MATMUL_NCOLS pc.ncols
#define MATMUL_ROW_BASE pc.row_base
#define MATMUL_WEIGHT_ROW(row) (row)
#define MATMUL_WEIGHT_ROWS pc.rows
#endif

// A tile step is BM * BK / MATMUL_GROUP weight groups (MATMUL_GROUP consecutive weights of one
// row, so neighbouring threads read neighbouring bytes of a row) and BN * BK / 4 activation
// vec4s (BK / 4 per token), spread round-robin over the workgroup. BK must be a
// multiple of MATMUL_GROUP (the op builder checks).
#ifndef MATMUL_GROUP
#define MATMUL_GROUP 8
#endif
const uint W_GROUPS = BM * BK / MATMUL_GROUP;
const uint X_VECS = BN * BK / 4;
const uint W_PER_THREAD = (W_GROUPS + gl_WorkGroupSize.x - 1) / gl_WorkGroupSize.x;
const uint X_PER_THREAD = (X_VECS + gl_WorkGroupSize.x - 1) / gl_WorkGroupSize.x;

WeightGroup w_reg[W_PER_THREAD];  // raw words of tile group w_group_of(i), decoded by the body
vec4 x_reg[X_PER_THREAD];         // activation vec4 x_vec_of(i)

// The tile group and the activation vec4 that this invocation's register i holds.
uint w_group_of(uint i) { return gl_LocalInvocationID.x + i * gl_WorkGroupSize.x; }
uint x_vec_of(uint i) { return gl_LocalInvocationID.x + i * gl_WorkGroupSize.x; }

// Where weight group g and activation vec4 v sit in the tile.
uint w_group_row(uint g) { return g / (BK / MATMUL_GROUP); }
uint w_group_k(uint g) { return (g % (BK / MATMUL_GROUP)) * MATMUL_GROUP; }
uint x_vec_token(uint v) { return v / (BK / 4); }
uint x_vec_k(uint v) { return (v % (BK / 4)) * 4; }

// Loads this invocation's share of step k0's tiles into w_reg and x_reg; zero beyond the
// slice's rows, ncols or cols (cols is a multiple of the group, so a group or vec4 is either
// wholly inside or wholly outside).
void fetch_tiles(uint row0, uint col0, uint k0) {
  [[unroll]] for (uint i = 0; i < W_PER_THREAD; ++i) {
    const uint g = w_group_of(i);
    const uint row = row0 + w_group_row(g), k = k0 + w_group_k(g);
    w_reg[i] = matmul_zero_group();
    if (g < W_GROUPS && row < pc.rows && k < pc.cols) {
      w_reg[i] = matmul_fetch_group(MATMUL_WEIGHT_ROW(row), k, pc.cols, MATMUL_WEIGHT_ROWS);
    }
  }
  [[unroll]] for (uint i = 0; i < X_PER_THREAD; ++i) {
    const uint v = x_vec_of(i);
    const uint c = col0 + x_vec_token(v), k = k0 + x_vec_k(v);
    x_reg[i] = vec4(0.0);
    if (v < X_VECS && c < MATMUL_NCOLS && k < pc.cols) {
      x_reg[i] = x4[(pc.x_offset + MATMUL_X_COLUMN(c) * pc.x_stride + k) >> 2];
    }
  }
}

// Writes (or, with `accumulate`, adds) one result; skips rows and tokens outside the problem.
void matmul_store(uint row, uint c, float value, bool accumulate) {
  if (row >= pc.rows || c >= MATMUL_NCOLS) return;
  const uint at = pc.y_offset + MATMUL_Y_COLUMN(c) * pc.y_stride + MATMUL_ROW_BASE + row;
  y[at] = accumulate ? y[at] + value : value;
}

#endif
