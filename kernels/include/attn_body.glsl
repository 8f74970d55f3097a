// Flash-attention core shared by attn_decode and attn_prefill: ROWS = HEADS * BQ query rows of
// one GQA group (HEADS q heads that read the same kv head, BQ query tokens) walk a key range in
// tiles of BC positions. Each K/V tile is read from the f16 cache once, staged in shared memory
// and reused by every row; the softmax is online (running max and sum per row), so the key
// range can be any length with a fixed shared-memory footprint.
//
// No subgroup operations: every cross-thread step goes through shared memory, so the kernel is
// correct for any subgroup size (lavapipe 8, NVIDIA 32, RDNA 32 or 64). Invocations are numbered
// by ATTN_THREAD (attn_thread.glsl). Scores live in the
// log2 domain (q is prescaled by scale * log2(e)) so the softmax uses exp2; split partials
// (attn_decode) carry their running max in that domain and attn_merge expects it.
//
// Shared memory, in bytes (the op builder's attention_shared_bytes must agree):
//   q_s    ROWS * HEAD_DIM * 4
//   k_s    BC * (HEAD_DIM / 2 + 1) * 4     (one padding word per row: rows are read by
//                                           different threads at the same column)
//   v_s    BC * HEAD_DIM * 2
//   s_s    ROWS * BC * PARTS * 4
//   row_max_s, row_sum_s   2 * THREADS * 4
//   m_s    2 * ROWS * 4
//
// The including file declares k_cache[] and v_cache[] (uvec4: 8 halves, a cache row of kv head
// g at position p starts at ((g * max_ctx) + p) * HEAD_DIM / 8) and defines
//   uint row_pos(uint r)    position of row r's query token
//   bool row_live(uint r)   false for padding rows (tokens past the chunk)
// then calls attend() after filling q_s. An includer that computes one key's K/V row itself
// (attn_decode_rope: the query token's own key, not yet in the cache) defines ATTN_OWN_KEY to
// that position before including and fills own_k_s / own_v_s before the first tile takes them
// (own_key_into_tile, called by fetch_tile); tiles then take that row from them instead of the
// cache.

#include "attn_thread.glsl"

layout(constant_id = 0) const uint HEAD_DIM = 128;  // 64, 128, 256 or 512
layout(constant_id = 1) const uint HEADS = 1;       // q heads per workgroup, all of one kv head
layout(constant_id = 2) const uint BQ = 1;          // query tokens per workgroup (1 in decode)
layout(constant_id = 3) const uint BC = 32;         // key positions per tile
layout(local_size_x_id = 4) in;                     // threads per workgroup (spec id 4)
layout(constant_id = 5) const uint PARTS = 1;       // threads splitting one score's dot product

const uint ROWS = HEADS * BQ;
const uint D2 = HEAD_DIM / 2;  // f16 pairs per row
const uint D4 = HEAD_DIM / 4;
const uint D8 = HEAD_DIM / 8;  // uvec4 words per cache row
const uint KS_STRIDE = D2 + 1;
const uint THREADS = gl_WorkGroupSize.x;
// Score step: BC divides THREADS; the THREADS / BC threads of a key split into PARTS dims
// parts times ROW_GROUPS row groups of SROWS rows each.
const uint ROW_GROUPS = THREADS / (BC * PARTS);
const uint SROWS = (ROWS + ROW_GROUPS - 1) / ROW_GROUPS;
// Softmax steps: threads per row (ROWS <= THREADS), at most 8: each reads the others' partials.
const uint ROW_THREADS = THREADS / ROWS < 8 ? THREADS / ROWS : 8;
const uint ROW_KEYS = (BC + ROW_THREADS - 1) / ROW_THREADS;  // keys per softmax thread
const uint STAGE_ITEMS = (BC * D8 + THREADS - 1) / THREADS;  // uvec4 of K (and V) per thread
// P V step: each output item (row r, dims 4c..4c+3) is KEY_GROUPS items of as many threads,
// where the workgroup has threads to spare (decode's one head: 32 items for 128 threads), each
// adding every KEY_GROUPS-th key of a tile; their sums meet once, at the end of attend. With one
// thread per item, a tile of 64 keys was 64 steps in a row on the attention's critical path.
// The partial sums meet in v_s, which holds 2 * ROWS * (KEY_GROUPS - 1) * D4 uvec2 only when
// that is at most BC * D4.
const uint KG_SPARE = THREADS / (ROWS * D4);
const uint KG_WANTED = KG_SPARE >= 8 ? 8 : KG_SPARE >= 4 ? 4 : KG_SPARE >= 2 ? 2 : 1;
const uint KEY_GROUPS = 2 * ROWS * (KG_WANTED - 1) <= BC ? KG_WANTED : 1;
const uint PV_ITEMS = (ROWS * D4 * KEY_GROUPS + THREADS - 1) / THREADS;  // vec4 accumulators per thread

// Below any real score; a finite sentinel, so no infinity ever reaches exp2 or a subtraction.
const float NO_SCORE = -1.0e30;
const float LOG2E = 1.4426950408889634;

shared vec2 q_s[ROWS * D2];            // prescaled queries, row r at r * D2
shared uint k_s[BC * KS_STRIDE];       // K tile, f16 pairs
shared uvec2 v_s[BC * D4];             // V tile, 4 halves per entry
shared float s_s[ROWS * BC * PARTS];   // partial scores, then scores, then probabilities
shared float row_max_s[THREADS];       // per-thread partial row max
shared float row_sum_s[THREADS];       // per-thread partial row sum of probabilities
shared float m_s[2 * ROWS];            // running row max, double-buffered by tile parity

#ifdef ATTN_OWN_KEY
shared uvec4 own_k_s[D8];  // K row of position ATTN_OWN_KEY, 8 halves per word as in the cache
shared uvec4 own_v_s[D8];  // its V row
#endif

vec4 acc[PV_ITEMS];     // unnormalized output: item n is row r, dims 4c..4c+3
float l_acc[PV_ITEMS];  // running softmax denominator of the item's row

uint row_pos(uint r);
bool row_live(uint r);

// The next tile's K/V words, loaded into registers while the current tile is computed so the
// global-memory latency hides behind the math (STAGE_ITEMS uvec4 of each per thread).
uvec4 next_k[STAGE_ITEMS];
uvec4 next_v[STAGE_ITEMS];

// Loads positions [tile, tile + BC) of one kv head from the cache; positions at or past k_end
// are zero (the cache there may hold anything, even NaN, and p = 0 must stay 0), and so is
// ATTN_OWN_KEY's row, which own_key_into_tile fills.
void load_tile(uint kv_base, uint tile, uint k_end) {
#ifdef ATTN_OWN_KEY
  const uint cache_end = min(k_end, ATTN_OWN_KEY);  // the own key's row is not read from the cache
#else
  const uint cache_end = k_end;
#endif
  for (uint n = 0; n < STAGE_ITEMS; ++n) {
    const uint i = ATTN_THREAD + n * THREADS;
    next_k[n] = uvec4(0);
    next_v[n] = uvec4(0);
    if (i < BC * D8 && tile + i / D8 < cache_end) {
      const uint at = kv_base + tile * D8 + i;  // the tile's rows are contiguous
      next_k[n] = k_cache[at];
      next_v[n] = v_cache[at];
    }
  }
}

// Puts own_k_s / own_v_s into the loaded tile where it holds ATTN_OWN_KEY (nothing without it).
void own_key_into_tile(uint tile, uint k_end) {
#ifdef ATTN_OWN_KEY
  // Only the tile that holds it (a workgroup-uniform test): a per-word test inside
  // load_tile's loop made lavapipe's whole attention 2.5x slower.
  if (ATTN_OWN_KEY >= tile && ATTN_OWN_KEY < min(tile + BC, k_end)) {
    for (uint n = 0; n < STAGE_ITEMS; ++n) {
      const uint i = ATTN_THREAD + n * THREADS;
      if (i < BC * D8 && tile + i / D8 == ATTN_OWN_KEY) {
        next_k[n] = own_k_s[i % D8];
        next_v[n] = own_v_s[i % D8];
      }
    }
  }
#endif
}

void fetch_tile(uint kv_base, uint tile, uint k_end) {
  load_tile(kv_base, tile, k_end);
  own_key_into_tile(tile, k_end);
}

// Copies the fetched tile into k_s / v_s.
void stage_tile() {
  for (uint n = 0; n < STAGE_ITEMS; ++n) {
    const uint i = ATTN_THREAD + n * THREADS;
    if (i < BC * D8) {
      const uint j = i / D8, c = i % D8;
      const uint ks = j * KS_STRIDE + c * 4;
      k_s[ks] = next_k[n].x;
      k_s[ks + 1] = next_k[n].y;
      k_s[ks + 2] = next_k[n].z;
      k_s[ks + 3] = next_k[n].w;
      v_s[j * D4 + c * 2] = next_v[n].xy;
      v_s[j * D4 + c * 2 + 1] = next_v[n].zw;
    }
  }
}

// s_s[(r * BC + j) * PARTS + p] = part p of q_r . k_j (f16 pairs p, p + PARTS, ...). Thread
// (j, p, row group) loads each K pair once and applies it to its SROWS rows: independent sums
// for instruction-level parallelism, q reads broadcast across the threads of one key.
void tile_scores() {
  const uint t = ATTN_THREAD;
  const uint j = t % BC;  // fastest: neighbouring threads read different k_s rows
  const uint p = (t / BC) % PARTS;
  const uint rg = t / (BC * PARTS);
  float s[SROWS];
  for (uint i = 0; i < SROWS; ++i) s[i] = 0.0;
  for (uint n = 0; n < D2 / PARTS; ++n) {
    const uint u = p + n * PARTS;
    const vec2 k2 = unpackHalf2x16(k_s[j * KS_STRIDE + u]);
    for (uint i = 0; i < SROWS; ++i) {
      const uint r = rg + i * ROW_GROUPS;
      if (r < ROWS) s[i] += dot(q_s[r * D2 + u], k2);
    }
  }
  for (uint i = 0; i < SROWS; ++i) {
    const uint r = rg + i * ROW_GROUPS;
    if (r < ROWS) s_s[(r * BC + j) * PARTS + p] = s[i];
  }
}

// Sums the parts, masks keys the row cannot see (causal, window, past k_end, padding rows)
// and leaves each thread's partial row max in row_max_s.
void tile_mask_and_max(uint tile, uint k_end, uint window) {
  const uint t = ATTN_THREAD;
  const uint r = t / ROW_THREADS, g = t % ROW_THREADS;
  if (r >= ROWS) return;
  const uint pos = row_pos(r);
  const bool live = row_live(r);
  const uint first = (window == 0 || pos + 1 <= window) ? 0 : pos + 1 - window;
  float mx = NO_SCORE;
  for (uint n = 0; n < ROW_KEYS; ++n) {
    const uint j = g + n * ROW_THREADS;
    if (j >= BC) break;
    const uint at = (r * BC + j) * PARTS;
    float s = 0.0;
    for (uint p = 0; p < PARTS; ++p) s += s_s[at + p];
    const uint key = tile + j;
    if (!live || key >= k_end || key > pos || key < first) s = NO_SCORE;
    s_s[at] = s;
    mx = max(mx, s);
  }
  row_max_s[t] = mx;
}

// Turns scores into probabilities against the new row max, which goes to m_s[next].
void tile_probabilities(uint cur) {
  const uint t = ATTN_THREAD;
  const uint r = t / ROW_THREADS, g = t % ROW_THREADS;
  if (r >= ROWS) return;
  float m_new = m_s[cur * ROWS + r];
  for (uint h = 0; h < ROW_THREADS; ++h) m_new = max(m_new, row_max_s[r * ROW_THREADS + h]);
  float sum = 0.0;
  for (uint n = 0; n < ROW_KEYS; ++n) {
    const uint j = g + n * ROW_THREADS;
    if (j >= BC) break;
    const uint at = (r * BC + j) * PARTS;
    const float s = s_s[at];
    const float prob = s == NO_SCORE ? 0.0 : exp2(s - m_new);
    s_s[at] = prob;
    sum += prob;
  }
  row_sum_s[t] = sum;
  if (g == 0) m_s[(1 - cur) * ROWS + r] = m_new;
}

// acc = acc * exp2(m_old - m_new) + P V over the tile (keys past the range have p = 0 and
// zero V, so the loop keeps its constant trip count); an item of key group g takes keys g,
// g + KEY_GROUPS, ... of the tile.
void tile_accumulate(uint cur) {
  for (uint n = 0; n < PV_ITEMS; ++n) {
    const uint i = ATTN_THREAD + n * THREADS;
    if (i < ROWS * D4 * KEY_GROUPS) {
      const uint item = KEY_GROUPS == 1 ? i : i % (ROWS * D4);
      const uint group = KEY_GROUPS == 1 ? 0u : i / (ROWS * D4);
      const uint r = item / D4, c = item % D4;
      const float m_old = m_s[cur * ROWS + r];
      const float m_new = m_s[(1 - cur) * ROWS + r];
      const float alpha = m_old == NO_SCORE ? 0.0 : exp2(m_old - m_new);
      float sum = 0.0;
      for (uint h = 0; h < ROW_THREADS; ++h) sum += row_sum_s[r * ROW_THREADS + h];
      l_acc[n] = l_acc[n] * alpha + sum;
      vec4 a = acc[n] * alpha;
      for (uint k = 0; k < BC / KEY_GROUPS; ++k) {  // a constant trip count, as with one group
        const uint j = k * KEY_GROUPS + group;
        const uvec2 w = v_s[j * D4 + c];
        a += s_s[(r * BC + j) * PARTS] * vec4(unpackHalf2x16(w.x), unpackHalf2x16(w.y));
      }
      acc[n] = a;
    }
  }
}

// Adds the key groups' partial sums into the items of group 0 (i < ROWS * D4), in group order,
// through v_s. Every invocation calls it (it has barriers).
void combine_key_groups() {
  if (KEY_GROUPS == 1) return;
  barrier();  // the last tile's P V is done with v_s
  for (uint n = 0; n < PV_ITEMS; ++n) {
    const uint i = ATTN_THREAD + n * THREADS;
    if (i >= ROWS * D4 && i < ROWS * D4 * KEY_GROUPS) {
      const uint slot = 2 * (i - ROWS * D4);
      v_s[slot] = floatBitsToUint(acc[n].xy);
      v_s[slot + 1] = floatBitsToUint(acc[n].zw);
    }
  }
  barrier();
  for (uint n = 0; n < PV_ITEMS; ++n) {
    const uint i = ATTN_THREAD + n * THREADS;
    if (i < ROWS * D4) {
      for (uint g = 1; g < KEY_GROUPS; ++g) {
        const uint slot = 2 * ((g - 1) * ROWS * D4 + i);
        acc[n] += vec4(uintBitsToFloat(v_s[slot]), uintBitsToFloat(v_s[slot + 1]));
      }
    }
  }
}

// Attends every row to keys [k_begin, k_end) of the kv head whose cache rows start at uvec4
// index kv_base, the first tile already fetched (fetch_tile(kv_base, k_begin, k_end)), so a
// caller can overlap its load with work of its own. q_s must be filled (the first barrier
// below publishes it). Returns the m_s half holding the final row max; acc / l_acc of the items
// i < ROWS * D4 hold the unnormalized output and sum.
uint attend_fetched(uint kv_base, uint k_begin, uint k_end, uint window) {
  for (uint n = 0; n < PV_ITEMS; ++n) {
    acc[n] = vec4(0.0);
    l_acc[n] = 0.0;
  }
  if (ATTN_THREAD < ROWS) m_s[ATTN_THREAD] = NO_SCORE;
  uint cur = 0;
  for (uint tile = k_begin; tile < k_end; tile += BC) {
    barrier();  // the previous tile's readers are done with k_s, v_s, s_s
    stage_tile();
    barrier();
    if (tile + BC < k_end) fetch_tile(kv_base, tile + BC, k_end);
    tile_scores();
    barrier();
    tile_mask_and_max(tile, k_end, window);
    barrier();
    tile_probabilities(cur);
    barrier();
    tile_accumulate(cur);
    cur = 1 - cur;
  }
  combine_key_groups();
  return cur;
}

uint attend(uint kv_base, uint k_begin, uint k_end, uint window) {
  fetch_tile(kv_base, k_begin, k_end);
  return attend_fetched(kv_base, k_begin, k_end, window);
}
