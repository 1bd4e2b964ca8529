// GPU NTT over Fr: natural order in and out, a few passes over device memory.
//
// Scheme (four-step / Bailey, applied recursively). n = 2^k is split into P radices N_0 .. N_{P-1} (P = 1 for
// k <= 11, else ceil(k / 9), radices as even as possible, each <= 2^11). Pass p sees the array as
// [B_p][N_p][S_p] (B_p = N_0..N_{p-1} independent rows already split off, S_p = N_{p+1}..N_{P-1}) and, for each
// row b and column s < S_p, does the N_p-point DFT of x[b][.][s], then multiplies output k by w_M^(s*k), where
// M = N_p * S_p is the row's length and w_M = omega_n^(n/M) (the four-step twiddle), and stores it back at
// x[b][k][s]. After the last pass the result sits in mixed-radix digit-reversed order; the last pass writes each
// element straight to its natural position, so no separate permutation pass exists. Memory traffic: P reads and
// P writes of the array (3 + 3 for 2^19..2^27), and the last pass runs out of place into the caller's buffer
// (pass 0 reads the caller's buffer and writes the scratch buffer, middle passes are in place in the scratch).
//
// In-place schedule (NttConfig::in_place, for a device without room for the scratch): the radices are chosen
// symmetric (N_0 = N_{P-1}; P = 2 or 3), every pass runs in the caller's buffer, and the last one ("flat") writes
// each line's outputs back over the line in order. The array is then X[d_0][d_1][k] holding the value of natural
// index (k, d_1, d_0) (most significant digit first), so swapping the outer digits puts it in natural order: a
// transpose of square 2^a x 2^a blocks for each middle digit, tile pairs swapped through shared memory by one block
// (ntt_transpose_kernel), which also applies coset_inverse's g^-a. One more read and write of the array.
//
// Inside a pass, a thread block owns a tile of 2^11 elements = C lines of N_p elements (C = 2^11 / N_p), loads
// it into shared memory (64 KiB, one limb array per 64-bit word: "structure of arrays", plus an XOR swizzle,
// so that a warp's 8-byte accesses hit distinct banks for every access pattern below; a Python check of all
// patterns gave 2.4 wavefronts per half-warp on average against 2 ideal, 15.4 without the swizzle), and runs
// the N_p-point DFT as decimation in frequency: natural input, bit-reversed positions, read back through the
// bit reversal when the tile is stored. Each thread keeps 8 elements in registers and does up to 3 butterfly
// levels on them between two barriers (radix 8), so a 2^9-point line costs 3 barriers instead of 9.
//
// Coalescing: in a strided pass (S_p > 1) consecutive threads take consecutive columns s (C of them, 128..256
// contiguous bytes per row of the tile); in the last pass the tile's C lines are chosen so that their
// destinations are consecutive (a tile's lines are the preimages of C consecutive digit-reversed indices), and
// the loads are whole contiguous lines. Global accesses are two 16-byte loads/stores per element.
//
// Fused scalings: the coset shift g^a (coset_forward) and 1/n (both inverses) multiply the input of pass 0; the
// coset unshift g^-a (coset_inverse) multiplies the output of the last pass. The inverse transform is the same
// schedule with every root replaced by its inverse (separate tables), so its cost equals the forward one's. The
// caller's pointwise steps (NttConfig::pre_mul, post_sub) ride on the same loads and stores: one more array read
// in pass 0 and in the last pass instead of a kernel that reads two arrays and writes one before and after.
//
// Tables (size-independent, built on the CPU from Fr::root_of_unity(), 54 MiB per device, owned by NttTables):
// omega_{2^28}^e = LO[e mod 2^14] * HI[e >> 14] (forward and inverse), the line roots omega_{2^10}^j (forward and
// inverse), g^a, g^-a in the same two-half form for a < 2^28, omega_{2^18}^j for j < 2^18 (forward and inverse),
// and HI / 2^k for k = 19 .. 28 (inverse). The line roots, LO, HI, the scaled HI, the 2^18 roots and the coset
// powers are also held as Shoup pairs (w canonical, floor(w 2^256 / p); shoup.cuh), and so are 1/n and 1/Z: every
// product by a table entry or a constant in the pass kernel is Shoup's, ~1.3x the rate of a Montgomery product. A
// four-step twiddle of a row of at most 2^18 points is one such product (the middle pass of 2^19 .. 2^27), of a
// longer one two (by LO's entry, then HI's); an inverse transform of more than 2^18 points folds 1/n into pass 0's
// twiddles through the scaled HI, so it costs no product of its own. (H100, 2^27 forward: 43.9 ms with Montgomery
// products, 40.5 with the butterflies' by Shoup's.)
#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuzk/gpu/cuda_check.cuh"
#include "cuzk/gpu/field.cuh"
#include "cuzk/gpu/dev_field.cuh"
#include "cuzk/gpu/mont32.cuh"
#include "cuzk/gpu/ntt.hpp"
#include "cuzk/gpu/shoup.cuh"

namespace cuzk::gpu {

namespace {

// Device elements: fr_dev, the PTX field (H200, 2026-11-29, forward 2^24 / 2^26 / 2^27: 6.3 / 25.4 / 51.9 ms with
// its current multiplication; its previous schedule gave 11.2 / 42.6 / 79.8 ms and the CPU's MontField compiled
// for the device 11.8 / 40.3 / 79.1 ms).

constexpr unsigned TILE_LOG = 11;                  // elements per thread block tile: 2^11 * 32 B = 64 KiB of shared
constexpr unsigned ELEMS_PER_THREAD_LOG = 3;       // 8 elements in registers, up to 3 DIF levels between barriers
constexpr unsigned MAX_THREADS = 1u << (TILE_LOG - ELEMS_PER_THREAD_LOG);
constexpr unsigned HALF_LOG = 14;                  // exponent tables: e = lo (14 bits) + hi (14 bits)
constexpr unsigned EXP_LOG = 2 * HALF_LOG;         // == NTT_MAX_LOG_SIZE: exponents of omega_{2^28}
constexpr unsigned LINE_ROOT_LOG = TILE_LOG - 1;   // a line of <= 2^11 points needs roots of order <= 2^11, index < 2^10
constexpr unsigned MID_LOG = 18;                   // four-step twiddles of rows up to 2^18 long: one table load each
constexpr unsigned MAX_PASSES = 4;
constexpr size_t SMEM_BYTES = (size_t{1} << TILE_LOG) * sizeof(fr_dev);
static_assert(EXP_LOG == NTT_MAX_LOG_SIZE, "the exponent tables bound the supported size");
static_assert(sizeof(fr_dev) == 4 * sizeof(uint64_t), "shared memory holds an element as four 64-bit words");

// ---- table layout (one allocation, offsets in elements) -------------------------------------------------------
constexpr size_t HALF = size_t{1} << HALF_LOG;
constexpr size_t LINE = size_t{1} << LINE_ROOT_LOG;
constexpr size_t MID = size_t{1} << MID_LOG;
// Inverse transforms of 2^19 .. 2^28 fold 1/n into pass 0's four-step twiddles: omega28^-(i * 2^14) / 2^k for each k.
constexpr unsigned SCALED_FIRST_LOG = MID_LOG + 1;
constexpr unsigned SCALED_COUNT = EXP_LOG - MID_LOG;
enum : size_t {
    // What the kernels read (uploaded):
    OFF_W_LO = 0,                 // omega28^i,              i < 2^14 (Montgomery form: the one-block transform's)
    OFF_W_HI = OFF_W_LO + HALF,   // omega28^(i * 2^14)
    OFF_WI_LO = OFF_W_HI + HALF,  // omega28^-i
    OFF_WI_HI = OFF_WI_LO + HALF, // omega28^-(i * 2^14)
    OFF_G_LO = OFF_WI_HI + HALF,  // g^i
    OFF_G_HI = OFF_G_LO + HALF,   // g^(i * 2^14)
    OFF_GI_LO = OFF_G_HI + HALF,  // g^-i
    OFF_GI_HI = OFF_GI_LO + HALF, // g^-(i * 2^14)
    // The line roots for Shoup's product (shoup.cuh): entry 2j is omega_{2^11}^j canonical (not in Montgomery
    // form), 2j + 1 is floor(omega_{2^11}^j 2^256 / p); the same for omega_{2^11}^-j.
    OFF_LS = OFF_GI_HI + HALF,
    OFF_LSI = OFF_LS + 2 * LINE,
    // The four-step twiddles' tables as such pairs too: LO, HI (forward, inverse), the 2^18 roots, the scaled HI.
    OFF_WS_LO = OFF_LSI + 2 * LINE,
    OFF_WS_HI = OFF_WS_LO + 2 * HALF,
    OFF_WIS_LO = OFF_WS_HI + 2 * HALF,
    OFF_WIS_HI = OFF_WIS_LO + 2 * HALF,
    OFF_MS = OFF_WIS_HI + 2 * HALF,
    OFF_MIS = OFF_MS + 2 * MID,
    OFF_WIS_HI_SCALED = OFF_MIS + 2 * MID,
    OFF_GS_LO = OFF_WIS_HI_SCALED + 2 * SCALED_COUNT * HALF,  // the coset powers' tables as pairs
    OFF_GS_HI = OFF_GS_LO + 2 * HALF,
    OFF_GIS_LO = OFF_GS_HI + 2 * HALF,
    OFF_GIS_HI = OFF_GIS_LO + 2 * HALF,
    DEVICE_ELEMS = OFF_GIS_HI + 2 * HALF,
    // Only the host's, in Montgomery form: the sources of the pairs above that no kernel reads as such.
    OFF_L = DEVICE_ELEMS,         // omega_{2^11}^j, j < 2^10
    OFF_LI = OFF_L + LINE,        // omega_{2^11}^-j
    OFF_M = OFF_LI + LINE,        // omega_{2^18}^j,         j < 2^18
    OFF_MI = OFF_M + MID,         // omega_{2^18}^-j
    OFF_WI_HI_SCALED = OFF_MI + MID,  // SCALED_COUNT tables of HALF: omega28^-(i * 2^14) / 2^k, k = 19 .. 28
    TABLE_ELEMS = OFF_WI_HI_SCALED + SCALED_COUNT * HALF,
};

struct TableView {
    const fr_dev* w_lo;  // LO, HI in Montgomery form: the single-block transform's twiddles
    const fr_dev* w_hi;
    const fr_dev* line_shoup;  // the line roots and their quotients (OFF_LS): the butterflies' products
    const fr_dev* w_lo_s;      // LO, HI and the 2^18 roots as Shoup pairs: the four-step twiddles' products
    const fr_dev* w_hi_s;
    const fr_dev* w_mid_s;
    const fr_dev* s_lo;  // coset powers (g or 1/g), only read when pre == PRE_POWERS or post != 0
    const fr_dev* s_hi;
    const fr_dev* s_lo_s;  // the same as Shoup pairs
    const fr_dev* s_hi_s;
};

enum : uint32_t { PRE_NONE = 0, PRE_POWERS = 1, PRE_CONST = 2 };

struct PassParams {
    uint32_t log_n;
    uint32_t r;       // log2 of this pass's radix N_p (line length)
    uint32_t log_s;   // log2 of the column stride S_p (0 in the last pass)
    uint32_t log_c;   // log2 of the lines per tile
    uint32_t last;    // 1: write to the natural (digit-reversed-back) position, no four-step twiddle
    uint32_t mid;     // 1: the row (2^(r + log_s)) is at most 2^18 long: its twiddles are w_mid loads, no product
    uint32_t ndig;    // last pass: number of earlier passes, whose radices are dig[]
    uint32_t dig[MAX_PASSES - 1];
    uint32_t pre;     // pass 0: PRE_POWERS multiplies x[a] by s^a, PRE_CONST by pre_c
    uint32_t post;    // last pass: 1 multiplies out[a] by s^a
    uint32_t flat;    // in-place schedule's last pass (last == 0): contiguous lines back where they were, no twiddle
    fr_dev pre_c;
    fr_dev pre_c_s[2];  // pre_c as a Shoup pair
    const fr_dev* pre_mul;   // pass 0: x[a] *= pre_mul[a] (NttConfig::pre_mul), null: none
    const fr_dev* post_sub;  // last pass (not flat): out[a] = (out[a] - post_sub[a]) * post_scale, null: none
    fr_dev post_scale_s[2];  // NttConfig::post_scale as a Shoup pair
};

// ---- device helpers ---------------------------------------------------------------------------------------
// Element accesses go through raw 32-byte copies so that they compile to two 16-byte accesses whatever the
// field type's own alignment (8 for the 64-bit-limb MontField); device buffers are 256-byte aligned and
// elements are 32 bytes, so every element is 16-byte aligned.
struct alignas(16) Raw32 {
    ulonglong2 a, b;
};

__device__ __forceinline__ fr_dev load_global(const fr_dev* p) {
    Raw32 raw;
    const ulonglong2* q = reinterpret_cast<const ulonglong2*>(p);
    raw.a = q[0];
    raw.b = q[1];
    fr_dev v;
    memcpy(&v, &raw, sizeof(v));
    return v;
}
// Tables are never written by a kernel: the read-only (non-coherent) cache path is safe for them.
__device__ __forceinline__ fr_dev load_table(const fr_dev* p) {
    Raw32 raw;
    const ulonglong2* q = reinterpret_cast<const ulonglong2*>(p);
    raw.a = __ldg(q);
    raw.b = __ldg(q + 1);
    fr_dev v;
    memcpy(&v, &raw, sizeof(v));
    return v;
}
__device__ __forceinline__ void store_global(fr_dev* p, const fr_dev& v) {
    Raw32 raw;
    memcpy(&raw, &v, sizeof(v));
    ulonglong2* q = reinterpret_cast<ulonglong2*>(p);
    q[0] = raw.a;
    q[1] = raw.b;
}

// Bank swizzle of a tile position e < 2^11: permutes e within its aligned group of 16 (so it is a bijection on
// every tile size), mixing in bits 4..7 and 8..11 so that power-of-two strides spread over all banks.
__device__ __forceinline__ uint32_t swz(uint32_t e) { return e ^ (((e >> 4) ^ (e >> 8)) & 15u); }

// Shared memory: word w of the element at (swizzled) position e lives at smem[w * tile + e].
__device__ __forceinline__ fr_dev load_smem(const uint64_t* smem, uint32_t tile, uint32_t e) {
    uint64_t w[4];
#pragma unroll
    for (int i = 0; i < 4; i++) w[i] = smem[i * tile + e];
    fr_dev v;
    memcpy(&v, w, sizeof(v));
    return v;
}
__device__ __forceinline__ void store_smem(uint64_t* smem, uint32_t tile, uint32_t e, const fr_dev& v) {
    uint64_t w[4];
    memcpy(w, &v, sizeof(v));
#pragma unroll
    for (int i = 0; i < 4; i++) smem[i * tile + e] = w[i];
}

// base^e for e < 2^28 from the two half tables (lo[0] = hi[0] = 1).
__device__ __forceinline__ fr_dev power_at(const fr_dev* lo, const fr_dev* hi, uint32_t e) {
    return load_table(lo + (e & ((1u << HALF_LOG) - 1))) * load_table(hi + (e >> HALF_LOG));
}

__device__ __forceinline__ uint32_t bitrev(uint32_t v, uint32_t bits) { return __brev(v) >> (32 - bits); }

// Last pass: the line whose output belongs at digit-reversed index q. q = d_0 + N_0 d_1 + ... (d_0 the output
// digit of pass 0), the line index is L = d_0 * (N_1..N_{P-2}) + d_1 * (N_2..N_{P-2}) + ... + d_{P-2}.
__device__ __forceinline__ uint32_t line_of_output(uint32_t q, const PassParams& p) {
    // Unrolled with constant indices so that p.dig stays in registers (a run-time index sends it to the stack).
    uint32_t total = 0;
#pragma unroll
    for (uint32_t i = 0; i < MAX_PASSES - 1; i++)
        if (i < p.ndig) total += p.dig[i];
    uint32_t line = 0, qs = 0;
#pragma unroll
    for (uint32_t i = 0; i < MAX_PASSES - 1; i++) {
        if (i >= p.ndig) break;
        const uint32_t d = (q >> qs) & ((1u << p.dig[i]) - 1);
        qs += p.dig[i];
        total -= p.dig[i];
        line |= d << total;
    }
    return line;
}

// a * w by Shoup's product from w's pair (w canonical, w' = floor(w 2^256 / p)): a w mod p, fully reduced, the same
// as a * (w in Montgomery form) (shoup.cuh; ~1.3x the product's rate in butterflies on an H100). The pair comes by
// value: a kernel parameter's address would copy the parameters to the stack.
__device__ __forceinline__ fr_dev times_shoup(const fr_dev& a, const fr_dev w, const fr_dev wp) {
    constexpr fr_dev::Consts c = fr_dev::consts();
    uint32_t p[fr_dev::N];
#pragma unroll
    for (size_t k = 0; k < fr_dev::N; k++) p[k] = c.p[k];
    fr_dev r;
    shoup::mul_shoup<fr_dev::N>(a.l, w.l, wp.l, p, r.l);
    return r;
}
// The same for the table pair at e.
__device__ __forceinline__ fr_dev times_pair(const fr_dev& a, const fr_dev* e) {
    return times_shoup(a, load_table(e), load_table(e + 1));
}

// a * s^e for the coset powers' pairs (s^e = LO[e mod 2^14] HI[e >> 14]), two Shoup products.
__device__ __forceinline__ fr_dev times_power(const fr_dev& a, const TableView& tb, uint32_t e) {
    return times_pair(times_pair(a, tb.s_lo_s + 2 * (e & ((1u << HALF_LOG) - 1))), tb.s_hi_s + 2 * (e >> HALF_LOG));
}

// G consecutive DIF levels (starting at level t0 of an r-level line) on sets of 2^G elements held in registers.
// Level with half-distance h = 2^hl: (x[j], x[j+h]) -> (x[j] + x[j+h], (x[j] - x[j+h]) * w_{2h}^(j mod h)),
// w_{2h} = w_{2^11}^(2^(10-hl)). A set is the 2^G elements base + m * 2^a (a = log2 of the last level's h).
// In a line's last G levels (a = 0) every set starts at a multiple of 2^G, so j mod h depends on m alone, the same
// for every thread: the butterflies with twiddle 1 (j mod h = 0: 7 of the 12 products of a radix-8 group) skip
// their product without diverging.
template <int G>
__device__ __forceinline__ void dif_levels(uint64_t* smem, uint32_t tile, uint32_t r, uint32_t t0, uint32_t nthr,
                                           const fr_dev* line_shoup) {
    const uint32_t a = r - t0 - G;
    const uint32_t sets_log = r - G;  // sets per line
    // The sets of one call are not unrolled (G < 3 has several): one copy of the group's products in the code.
#pragma unroll 1
    for (int i = 0; i < (8 >> G); i++) {
        const uint32_t q = threadIdx.x + i * nthr;
        const uint32_t line = q >> sets_log;
        const uint32_t qq = q & ((1u << sets_log) - 1);
        const uint32_t in_line = (qq & ((1u << a) - 1)) | ((qq >> a) << (a + G));
        const uint32_t base = (line << r) | in_line;
        fr_dev x[1 << G];
#pragma unroll
        for (int m = 0; m < (1 << G); m++) x[m] = load_smem(smem, tile, swz(base + ((uint32_t)m << a)));
#pragma unroll
        for (int u = 0; u < G; u++) {
            const uint32_t hl = a + G - 1 - u;
            const int dm = 1 << (G - 1 - u);
#pragma unroll
            for (int m = 0; m < (1 << G); m++) {
                if (m & dm) continue;
                const uint32_t j = (in_line + ((uint32_t)m << a)) & ((1u << hl) - 1);
                const fr_dev s = x[m] + x[m + dm];
                const fr_dev d = x[m] - x[m + dm];
                x[m] = s;
                if (a == 0 && j == 0) x[m + dm] = d;  // uniform across the warp (above)
                else x[m + dm] = times_pair(d, line_shoup + 2 * (j << (LINE_ROOT_LOG - hl)));
            }
        }
#pragma unroll
        for (int m = 0; m < (1 << G); m++) store_smem(smem, tile, swz(base + ((uint32_t)m << a)), x[m]);
    }
}

// Element idx of a pass's tile (idx < tile; the block's first line line0): its index in the pass's input ...
__device__ __forceinline__ uint32_t global_index(uint32_t idx, uint32_t line0, const PassParams& p) {
    const uint32_t r = p.r, log_c = p.log_c;
    if (p.flat) return (line0 << r) + idx;
    if (!p.last) {
        const uint32_t L = line0 + (idx & ((1u << log_c) - 1)), j = idx >> log_c;
        return ((L >> p.log_s) << (r + p.log_s)) + (j << p.log_s) + (L & ((1u << p.log_s) - 1));
    }
    const uint32_t line = idx >> r, j = idx & ((1u << r) - 1);
    return (line_of_output(line0 + line, p) << r) + j;
}
// ... and its (unswizzled) position in shared memory: line-major, a line's 2^r elements in order.
__device__ __forceinline__ uint32_t tile_position(uint32_t idx, const PassParams& p) {
    if (p.last || p.flat) return idx;
    return ((idx & ((1u << p.log_c) - 1)) << p.r) + (idx >> p.log_c);
}

// One pass over a tile of C lines of N = 2^r elements. blockDim.x == tile / 8. `in` and `out` may be the same
// buffer (middle passes, and every pass of the in-place schedule): every element of a tile is read before the
// barrier and written after it, by the block that owns the tile, and tiles are disjoint. A flat pass (the
// in-place schedule's last) takes C contiguous lines and writes each line's outputs back over it, in order.
__global__ void __launch_bounds__(MAX_THREADS, 2)
    ntt_pass_kernel(const fr_dev* in, fr_dev* out, PassParams p, TableView tb) {
    extern __shared__ uint64_t smem[];
    const uint32_t r = p.r;
    const uint32_t log_c = p.log_c;
    const uint32_t tile = 1u << (r + log_c);
    const uint32_t nthr = tile >> ELEMS_PER_THREAD_LOG;
    const uint32_t tid = threadIdx.x;
    const uint32_t line0 = blockIdx.x << log_c;  // first line (strided pass) or first output index (last pass)
    const uint32_t s_mask = (1u << p.log_s) - 1;

    // 1) Load: all 8 loads of a thread are issued before any use.
    fr_dev v[8];
#pragma unroll
    for (int i = 0; i < 8; i++) {
        const uint32_t idx = tid + i * nthr;
        v[i] = load_global(in + global_index(idx, line0, p));
    }
#pragma unroll
    for (int i = 0; i < 8; i++) store_smem(smem, tile, swz(tile_position(tid + i * nthr, p)), v[i]);
    // Pass 0's factors (coset powers, 1/n) on the thread's own elements in shared memory, in a loop that is not
    // unrolled: one copy of the product's code instead of eight (see the store below).
    if (p.pre != PRE_NONE || p.pre_mul) {
#pragma unroll 1
        for (int i = 0; i < 8; i++) {
            const uint32_t e = swz(tile_position(tid + i * nthr, p));
            const uint32_t g = global_index(tid + i * nthr, line0, p);
            fr_dev y = load_smem(smem, tile, e);
            if (p.pre_mul) y = y * load_global(p.pre_mul + g);
            if (p.pre == PRE_POWERS) y = times_power(y, tb, g);
            else if (p.pre == PRE_CONST) y = times_shoup(y, p.pre_c_s[0], p.pre_c_s[1]);
            store_smem(smem, tile, e, y);
        }
    }
    __syncthreads();

    // 2) The r DIF levels, up to 3 per barrier.
    for (uint32_t t0 = 0; t0 < r;) {
        const uint32_t g = r - t0 >= 3 ? 3 : r - t0;
        if (g == 3) dif_levels<3>(smem, tile, r, t0, nthr, tb.line_shoup);
        else if (g == 2) dif_levels<2>(smem, tile, r, t0, nthr, tb.line_shoup);
        else dif_levels<1>(smem, tile, r, t0, nthr, tb.line_shoup);
        __syncthreads();
        t0 += g;
    }

    // 3) Store output k of each line (at bit-reversed position k in shared memory); consecutive threads take
    // consecutive lines, whose destinations are consecutive. Not unrolled: each element reads shared memory, so
    // nothing is lost, and the kernel's hot code keeps one copy of the twiddle's products instead of eight (ncu,
    // H100, 2^27: passes with twiddles stalled on instruction fetch 9 % of their warp cycles, the last pass 1 %;
    // with these loops rolled the kernel is 126 KB of code instead of 370 and every pass is below 1 %).
#pragma unroll 1
    for (int i = 0; i < 8; i++) {
        const uint32_t idx = tid + i * nthr;
        if (p.flat) {  // consecutive threads: consecutive outputs of a line
            const uint32_t line = idx >> r, k = idx & ((1u << r) - 1);
            store_global(out + global_index(idx, line0, p), load_smem(smem, tile, swz((line << r) + bitrev(k, r))));
            continue;
        }
        const uint32_t line = idx & ((1u << log_c) - 1), k = idx >> log_c;
        fr_dev x = load_smem(smem, tile, swz((line << r) + bitrev(k, r)));
        uint32_t dst;
        if (!p.last) {
            // A strided pass writes its outputs where it read its inputs (output k of line L at input j = k).
            const uint32_t s = (line0 + line) & s_mask;
            dst = global_index(idx, line0, p);
            // s * k < M = 2^(r + log_s) <= 2^28, scaled to an exponent of omega_{2^18} (short rows: one product by
            // a table pair) or of omega_{2^28} = LO[e mod 2^14] HI[e >> 14] (two products, by LO's pair then HI's)
            if (p.mid) {
                x = times_pair(x, tb.w_mid_s + 2 * ((s * k) << (MID_LOG - r - p.log_s)));
            } else {
                const uint32_t e = (s * k) << (EXP_LOG - r - p.log_s);
                x = times_pair(x, tb.w_lo_s + 2 * (e & ((1u << HALF_LOG) - 1)));
                x = times_pair(x, tb.w_hi_s + 2 * (e >> HALF_LOG));
            }
        } else {
            dst = line0 + line + (k << (p.log_n - r));
            if (p.post) x = times_power(x, tb, dst);
            if (p.post_sub) x = times_shoup(x - load_global(p.post_sub + dst), p.post_scale_s[0], p.post_scale_s[1]);
        }
        store_global(out + dst, x);
    }
}

// The in-place schedule's last step. Its passes leave the array as X[i][j][l] (i, l < 2^a, j < 2^m; position
// (i 2^m + j) 2^a + l) with the value of natural index (l 2^m + j) 2^a + i there: i and l swap. A block takes a
// pair of TR x TR tiles of one j, (ti, tl) and its mirror (tl, ti) with ti <= tl (blocks with ti > tl return), reads
// both into shared memory and writes each transposed over the other, multiplied by s^position when post is set
// (coset_inverse). blockDim = (TR, TR); grid = ((2^a / TR)^2, 2^m).
constexpr unsigned TR = 16;
__global__ void __launch_bounds__(TR * TR) ntt_transpose_kernel(fr_dev* x, uint32_t a, uint32_t m, uint32_t post,
                                                                 TableView tb) {
    const uint32_t tiles = (1u << a) / TR;
    const uint32_t ti = blockIdx.x / tiles, tl = blockIdx.x % tiles;
    if (ti > tl) return;
    __shared__ uint64_t sa[4][TR][TR + 1], sb[4][TR][TR + 1];
    const uint32_t tx = threadIdx.x, ty = threadIdx.y, j = blockIdx.y;
    auto at = [&](uint32_t i, uint32_t l) { return (((i << m) + j) << a) + l; };
    auto put = [](uint64_t (*s)[TR][TR + 1], uint32_t y, uint32_t x_, const fr_dev& v) {
        uint64_t w[4];
        memcpy(w, &v, sizeof(v));
#pragma unroll
        for (int q = 0; q < 4; q++) s[q][y][x_] = w[q];
    };
    auto get = [](uint64_t (*s)[TR][TR + 1], uint32_t y, uint32_t x_) {
        uint64_t w[4];
#pragma unroll
        for (int q = 0; q < 4; q++) w[q] = s[q][y][x_];
        fr_dev v;
        memcpy(&v, w, sizeof(v));
        return v;
    };
    const uint32_t pa = at(ti * TR + ty, tl * TR + tx), pb = at(tl * TR + ty, ti * TR + tx);
    put(sa, ty, tx, load_global(x + pa));
    if (ti != tl) put(sb, ty, tx, load_global(x + pb));
    __syncthreads();
    // Tile (ti, tl) goes to (tl, ti): its element (row tx, column ty) lands at row ty, column tx there.
    fr_dev v = get(sa, tx, ty);
    if (post) v = times_power(v, tb, pb);
    store_global(x + pb, v);
    if (ti != tl) {
        fr_dev u = get(sb, tx, ty);
        if (post) u = times_power(u, tb, pa);
        store_global(x + pa, u);
    }
}

// NttConfig's pointwise steps where no pass takes them: x[i] *= m[i], or x[i] = (x[i] - c[i]) * s.
__global__ void ntt_pre_mul_kernel(fr_dev* __restrict__ x, const fr_dev* __restrict__ m, size_t n) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * m[i];
}
__global__ void ntt_post_sub_kernel(fr_dev* __restrict__ x, const fr_dev* __restrict__ c, fr_dev s, size_t n) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = (x[i] - c[i]) * s;
}

// Queues x *= pre_mul, then x = (x - post_sub) * s, each where its array is given.
void pointwise_steps(fr_dev* x, size_t n, const fr_dev* pre_mul, const fr_dev* post_sub, const fr_dev& s,
                     cudaStream_t stream) {
    const unsigned blocks = (unsigned)((n + 255) / 256);
    if (pre_mul) ntt_pre_mul_kernel<<<blocks, 256, 0, stream>>>(x, pre_mul, n);
    if (post_sub) ntt_post_sub_kernel<<<blocks, 256, 0, stream>>>(x, post_sub, s, n);
    CUZK_CUDA_CHECK(cudaGetLastError());
}

// n = 2 or 4: one thread, the DFT by definition (pass kernels need at least 8 elements).
__global__ void ntt_tiny_kernel(fr_dev* x, uint32_t log_n, PassParams p, TableView tb) {
    const uint32_t n = 1u << log_n;
    fr_dev in[4], out[4], w[4];
    // omega_n^i = omega28^(i * 2^(28 - log_n))
    for (uint32_t i = 0; i < n; i++) w[i] = power_at(tb.w_lo, tb.w_hi, i << (EXP_LOG - log_n));
    for (uint32_t i = 0; i < n; i++) {
        in[i] = x[i];
        if (p.pre == PRE_POWERS) in[i] = in[i] * power_at(tb.s_lo, tb.s_hi, i);
        else if (p.pre == PRE_CONST) in[i] = in[i] * p.pre_c;
    }
    for (uint32_t i = 0; i < n; i++) {
        fr_dev acc = fr_dev::zero();
        for (uint32_t j = 0; j < n; j++) acc = acc + in[j] * w[(i * j) & (n - 1)];
        out[i] = p.post ? acc * power_at(tb.s_lo, tb.s_hi, i) : acc;
    }
    for (uint32_t i = 0; i < n; i++) x[i] = out[i];
}

// ---- host side ---------------------------------------------------------------------------------------------
Fr root_of_order_pow2(unsigned j) {
    Fr w = Fr::root_of_unity();  // order 2^32
    for (unsigned i = j; i < (unsigned)Fr::S; i++) w = w.square();
    return w;
}

void fill_powers(Fr* dst, const Fr& base, size_t count) {
    Fr cur = Fr::one();
    for (size_t i = 0; i < count; i++) {
        dst[i] = cur;
        cur *= base;
    }
}

// dst[2j] = w_j canonical, dst[2j + 1] = floor(w_j 2^256 / p), as raw words (not field elements).
void fill_shoup_pairs(Fr* dst, const Fr* w, size_t count) {
    constexpr size_t N = 8;
    uint32_t p[N], neg_pinv[N];
    std::memcpy(p, Fr::P.data(), sizeof p);
    shoup::neg_inverse<N>(p, neg_pinv);
    for (size_t j = 0; j < count; j++) {
        const auto c = w[j].to_canonical();
        uint32_t wc[N], m[N], q[N];
        std::memcpy(wc, c.data(), sizeof wc);
        std::memcpy(m, w[j].l.data(), sizeof m);
        shoup::quotient_from_montgomery<N>(m, neg_pinv, q);
        std::memcpy(dst[2 * j].l.data(), wc, sizeof wc);
        std::memcpy(dst[2 * j + 1].l.data(), q, sizeof q);
    }
}

// lo[i] = b^i, hi[i] = b^(i * 2^14), i < 2^14.
void fill_halves(Fr* lo, Fr* hi, const Fr& b) {
    fill_powers(lo, b, HALF);
    Fr step = b;
    for (unsigned i = 0; i < HALF_LOG; i++) step = step.square();
    fill_powers(hi, step, HALF);
}

// One NttTables per device, built on first use: the one ntt_tables() hands out and calls without
// NttConfig::tables use, held here until release_ntt_tables() (holders elsewhere keep theirs alive). The registry
// itself is never destroyed: freeing device memory from a static destructor races the CUDA runtime's own
// teardown, so tables still registered at exit go with the process.
struct TableRegistry {
    std::mutex mu;
    std::map<int, std::shared_ptr<const NttTables>> per_device;
};

TableRegistry& registry() {
    static TableRegistry* r = new TableRegistry;  // leaked on purpose, see above
    return *r;
}

bool tables_resident(int dev) {
    TableRegistry& reg = registry();
    std::lock_guard<std::mutex> lk(reg.mu);
    return reg.per_device.count(dev) != 0;
}

}  // namespace

// The tables of one device: DEVICE_ELEMS elements (54 MiB: 4 of powers in Montgomery form, 50 of Shoup pairs),
// size-independent, built on the CPU (with 21 MiB more of the pairs' sources, freed once uploaded).
class NttTables {
public:
    // Builds the tables on the current device, `dev`.
    explicit NttTables(int dev) : device_(dev), d_(DEVICE_ELEMS) {
        std::vector<Fr> h(TABLE_ELEMS);
        const Fr w28 = root_of_order_pow2(EXP_LOG);
        const Fr w28_inv = *w28.inverse();
        const Fr g = Fr::generator();
        const Fr g_inv = *g.inverse();
        fill_halves(&h[OFF_W_LO], &h[OFF_W_HI], w28);
        fill_halves(&h[OFF_WI_LO], &h[OFF_WI_HI], w28_inv);
        fill_halves(&h[OFF_G_LO], &h[OFF_G_HI], g);
        fill_halves(&h[OFF_GI_LO], &h[OFF_GI_HI], g_inv);
        const Fr w11 = root_of_order_pow2(TILE_LOG);
        fill_powers(&h[OFF_L], w11, LINE);
        fill_powers(&h[OFF_LI], *w11.inverse(), LINE);
        fill_shoup_pairs(&h[OFF_LS], &h[OFF_L], LINE);
        fill_shoup_pairs(&h[OFF_LSI], &h[OFF_LI], LINE);
        fill_shoup_pairs(&h[OFF_WS_LO], &h[OFF_W_LO], HALF);
        fill_shoup_pairs(&h[OFF_WS_HI], &h[OFF_W_HI], HALF);
        fill_shoup_pairs(&h[OFF_WIS_LO], &h[OFF_WI_LO], HALF);
        fill_shoup_pairs(&h[OFF_WIS_HI], &h[OFF_WI_HI], HALF);
        const Fr w18 = root_of_order_pow2(MID_LOG);
        fill_powers(&h[OFF_M], w18, MID);
        fill_powers(&h[OFF_MI], *w18.inverse(), MID);
        for (unsigned k = SCALED_FIRST_LOG; k <= EXP_LOG; k++) {
            const Fr n_inv = *Fr::from_u64(uint64_t{1} << k).inverse();
            Fr* dst = &h[OFF_WI_HI_SCALED + (k - SCALED_FIRST_LOG) * HALF];
            for (size_t i = 0; i < HALF; i++) dst[i] = h[OFF_WI_HI + i] * n_inv;
        }
        fill_shoup_pairs(&h[OFF_MS], &h[OFF_M], MID);
        fill_shoup_pairs(&h[OFF_MIS], &h[OFF_MI], MID);
        fill_shoup_pairs(&h[OFF_WIS_HI_SCALED], &h[OFF_WI_HI_SCALED], SCALED_COUNT * HALF);
        fill_shoup_pairs(&h[OFF_GS_LO], &h[OFF_G_LO], HALF);
        fill_shoup_pairs(&h[OFF_GS_HI], &h[OFF_G_HI], HALF);
        fill_shoup_pairs(&h[OFF_GIS_LO], &h[OFF_GI_LO], HALF);
        fill_shoup_pairs(&h[OFF_GIS_HI], &h[OFF_GI_HI], HALF);
        CUZK_CUDA_CHECK(cudaMemcpy(d_.get(), h.data(), DEVICE_ELEMS * sizeof(fr_dev), cudaMemcpyHostToDevice));
        // 64 KiB of dynamic shared memory needs the opt-in (the default limit is 48 KiB).
        CUZK_CUDA_CHECK(
            cudaFuncSetAttribute(ntt_pass_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SMEM_BYTES));
    }
    int device() const { return device_; }
    const fr_dev* data() const { return reinterpret_cast<const fr_dev*>(d_.get()); }

private:
    int device_;
    DeviceBuffer<Fr> d_;  // Fr: the same bytes as fr_dev, a type with linkage for this class's member
};

namespace {

// The registry's tables of device dev (the current one), built on first use.
std::shared_ptr<const NttTables> registry_tables(int dev) {
    TableRegistry& reg = registry();
    std::lock_guard<std::mutex> lk(reg.mu);
    auto it = reg.per_device.find(dev);
    if (it != reg.per_device.end()) return it->second;
    auto t = std::make_shared<const NttTables>(dev);  // nothing is registered when this throws
    reg.per_device.emplace(dev, t);
    return t;
}

unsigned num_passes(unsigned k) { return k <= TILE_LOG ? 1 : (k + 8) / 9; }

// The passes' radices (log2): as even as possible, the larger ones first; for the in-place schedule the outer two
// equal (ntt_in_place_exists).
void choose_radices(unsigned log_n, unsigned P, bool in_place, unsigned* radix) {
    for (unsigned i = 0; i < P; i++) radix[i] = log_n / P + (i < log_n % P ? 1 : 0);
    if (in_place && P == 3) {
        radix[0] = radix[2] = (log_n + 2) / 3;
        radix[1] = log_n - 2 * radix[0];
    }
}

}  // namespace

bool ntt_in_place_exists(unsigned log_n) {
    return log_n <= TILE_LOG || (log_n <= 18 && log_n % 2 == 0) || (log_n >= 19 && log_n <= 27);
}

size_t ntt_scratch_elements(unsigned log_n, bool in_place) {
    if (log_n > NTT_MAX_LOG_SIZE) throw std::invalid_argument("gpu ntt: log size " + std::to_string(log_n) + " > 28");
    if (num_passes(log_n) == 1 || (in_place && ntt_in_place_exists(log_n))) return 0;
    return size_t{1} << log_n;
}

size_t ntt_twiddle_bytes() { return DEVICE_ELEMS * sizeof(fr_dev); }

size_t ntt_device_bytes_needed(unsigned log_n, bool in_place) {
    size_t bytes = ntt_scratch_elements(log_n, in_place) * sizeof(fr_dev);
    int dev = 0;
    CUZK_CUDA_CHECK(cudaGetDevice(&dev));
    if (!tables_resident(dev)) bytes += ntt_twiddle_bytes();
    return bytes;
}

namespace {
// std::invalid_argument for sizes beyond 2^NTT_MAX_LOG_SIZE (ntt_device, ntt_pointwise).
void require_log_size(unsigned log_n) {
    if (log_n > NTT_MAX_LOG_SIZE)
        throw std::invalid_argument("gpu ntt: log size " + std::to_string(log_n) + " exceeds " +
                                    std::to_string(NTT_MAX_LOG_SIZE));
}
}  // namespace

void ntt_device(Fr* d_values, unsigned log_n, const NttConfig& cfg) {
    require_log_size(log_n);
    if (cfg.d_scratch && (cfg.pre_mul == cfg.d_scratch || cfg.post_sub == cfg.d_scratch))
        throw std::invalid_argument("gpu ntt: pre_mul or post_sub is the transform's scratch");
    if (log_n == 0 && !cfg.pre_mul && !cfg.post_sub) return;  // size 1: every kind is the identity (1/1 = 1, g^0 = 1)
    const size_t n = size_t{1} << log_n;
    cudaStream_t stream = static_cast<cudaStream_t>(cfg.stream);
    int dev = 0;
    CUZK_CUDA_CHECK(cudaGetDevice(&dev));

    if (cfg.tables && cfg.tables->device() != dev)
        throw std::invalid_argument("gpu ntt: the tables of device " + std::to_string(cfg.tables->device()) +
                                    " passed for a transform on device " + std::to_string(dev));

    // Memory first: refuse before touching anything rather than fail half-way.
    const bool own_scratch = ntt_scratch_elements(log_n, cfg.in_place) > 0 && cfg.d_scratch == nullptr;
    size_t need =
        (own_scratch ? n * sizeof(fr_dev) : 0) + (cfg.tables || tables_resident(dev) ? 0 : ntt_twiddle_bytes());
    if (need) {
        size_t free_b = 0, total_b = 0;
        CUZK_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
        if (need > free_b)
            throw CudaError("gpu ntt 2^" + std::to_string(log_n) + ": needs " + std::to_string(need) +
                            " bytes of device memory, " + std::to_string(free_b) + " free of " +
                            std::to_string(total_b));
    }
    // The caller's tables, or the registry's (held for this call).
    std::shared_ptr<const NttTables> held;
    const NttTables* t = cfg.tables;
    if (!t) {
        held = registry_tables(dev);
        t = held.get();
    }
    DeviceBuffer<fr_dev> scratch;
    if (own_scratch) scratch = DeviceBuffer<fr_dev>(n);  // throws CudaError on out-of-memory

    const bool inverse = cfg.kind == NttKind::inverse || cfg.kind == NttKind::coset_inverse;
    const fr_dev* td = t->data();
    TableView tb{};
    tb.w_lo = td + (inverse ? OFF_WI_LO : OFF_W_LO);
    tb.w_hi = td + (inverse ? OFF_WI_HI : OFF_W_HI);
    tb.line_shoup = td + (inverse ? OFF_LSI : OFF_LS);
    tb.w_lo_s = td + (inverse ? OFF_WIS_LO : OFF_WS_LO);
    tb.w_hi_s = td + (inverse ? OFF_WIS_HI : OFF_WS_HI);
    tb.w_mid_s = td + (inverse ? OFF_MIS : OFF_MS);
    tb.s_lo = td + (cfg.kind == NttKind::coset_forward ? OFF_G_LO : OFF_GI_LO);
    tb.s_hi = td + (cfg.kind == NttKind::coset_forward ? OFF_G_HI : OFF_GI_HI);
    tb.s_lo_s = td + (cfg.kind == NttKind::coset_forward ? OFF_GS_LO : OFF_GIS_LO);
    tb.s_hi_s = td + (cfg.kind == NttKind::coset_forward ? OFF_GS_HI : OFF_GIS_HI);

    PassParams base{};
    base.log_n = log_n;
    const uint32_t pre = cfg.kind == NttKind::coset_forward ? PRE_POWERS : inverse ? PRE_CONST : PRE_NONE;
    const uint32_t post = cfg.kind == NttKind::coset_inverse ? 1 : 0;
    if (inverse) {
        const Fr n_inv = *Fr::from_u64(n).inverse();  // n <= 2^28 < r: nonzero
        std::memcpy(&base.pre_c, &n_inv, sizeof(Fr));
        fill_shoup_pairs(reinterpret_cast<Fr*>(base.pre_c_s), &n_inv, 1);
    }
    fill_shoup_pairs(reinterpret_cast<Fr*>(base.post_scale_s), &cfg.post_scale, 1);

    fr_dev* values = reinterpret_cast<fr_dev*>(d_values);
    const auto* pre_mul = reinterpret_cast<const fr_dev*>(cfg.pre_mul);
    const auto* post_sub = reinterpret_cast<const fr_dev*>(cfg.post_sub);
    fr_dev post_scale;
    std::memcpy(&post_scale, &cfg.post_scale, sizeof(Fr));
    // The pointwise steps ride on pass 0 and the last pass where the schedule has both (two passes or more, the
    // last one out of place); otherwise they are kernels of their own.
    const unsigned passes = log_n < 3 ? 1 : num_passes(log_n);
    const bool fused = cfg.fuse_steps && passes > 1 && ntt_scratch_elements(log_n, cfg.in_place) > 0;
    if (!fused) pointwise_steps(values, n, pre_mul, nullptr, post_scale, stream);
    if (log_n == 0) {
        // size 1: every kind is the identity (1/1 = 1, g^0 = 1)
    } else if (log_n < 3) {
        PassParams p = base;
        p.pre = pre;
        p.post = post;
        ntt_tiny_kernel<<<1, 1, 0, stream>>>(values, log_n, p, tb);
        CUZK_CUDA_CHECK(cudaGetLastError());
    } else {
        const unsigned P = num_passes(log_n);
        const bool flat = P > 1 && ntt_scratch_elements(log_n, cfg.in_place) == 0;  // the in-place schedule
        unsigned radix[MAX_PASSES];
        choose_radices(log_n, P, flat, radix);
        fr_dev* tmp = flat ? values : own_scratch ? scratch.get() : reinterpret_cast<fr_dev*>(cfg.d_scratch);
        unsigned done = 0;  // log2 of B_p
        for (unsigned i = 0; i < P; i++) {
            PassParams p = base;
            p.r = radix[i];
            p.log_s = log_n - done - radix[i];
            const unsigned tile_log = std::min(TILE_LOG, log_n);
            p.log_c = tile_log - p.r;
            p.flat = flat && i + 1 == P;
            p.last = i + 1 == P && !flat;
            p.mid = !p.last && p.r + p.log_s <= MID_LOG;
            // An inverse whose pass 0 takes its twiddles as two halves (a row longer than 2^18: n > 2^18) multiplies
            // by 1/n through them, omega^-e / n from the scaled high half: one product per element less.
            const bool fold_inv_n = i == 0 && inverse && !p.last && !p.mid;
            p.pre = i == 0 && !fold_inv_n ? pre : PRE_NONE;
            p.pre_mul = i == 0 && fused ? pre_mul : nullptr;
            p.post_sub = p.last && fused ? post_sub : nullptr;
            TableView pt = tb;
            if (fold_inv_n) pt.w_hi_s = td + OFF_WIS_HI_SCALED + 2 * (log_n - SCALED_FIRST_LOG) * HALF;
            p.post = p.last ? post : 0;  // the in-place schedule's: in the transpose
            if (p.last) {
                p.ndig = i;
                for (unsigned j = 0; j < i; j++) p.dig[j] = radix[j];
            }
            // pass 0 reads the caller's array; the last writes it; everything between stays in the scratch.
            const fr_dev* src = i == 0 ? values : tmp;
            fr_dev* dst = p.last ? values : tmp;
            const unsigned blocks = (unsigned)(n >> tile_log);
            const unsigned threads = 1u << (tile_log - ELEMS_PER_THREAD_LOG);
            const size_t smem = (size_t{1} << tile_log) * sizeof(fr_dev);
            ntt_pass_kernel<<<blocks, threads, smem, stream>>>(src, dst, p, pt);
            CUZK_CUDA_CHECK(cudaGetLastError());
            done += radix[i];
        }
        if (flat) {
            const unsigned a = radix[0], m = P == 3 ? radix[1] : 0;
            const dim3 grid((1u << a) / TR * ((1u << a) / TR), 1u << m), block(TR, TR);
            ntt_transpose_kernel<<<grid, block, 0, stream>>>(values, a, m, post, tb);
            CUZK_CUDA_CHECK(cudaGetLastError());
        }
    }
    if (!fused) pointwise_steps(values, n, nullptr, post_sub, post_scale, stream);
    // An owned scratch buffer is freed on return: the work that uses it must be finished first.
    if (cfg.synchronize || own_scratch) CUZK_CUDA_CHECK(cudaStreamSynchronize(stream));
}

void ntt_pointwise(Fr* d_values, unsigned log_n, const Fr* pre_mul, const Fr* post_sub, const Fr& post_scale,
                   void* stream) {
    require_log_size(log_n);
    fr_dev s;
    std::memcpy(&s, &post_scale, sizeof(Fr));
    pointwise_steps(reinterpret_cast<fr_dev*>(d_values), size_t{1} << log_n, reinterpret_cast<const fr_dev*>(pre_mul),
                    reinterpret_cast<const fr_dev*>(post_sub), s, static_cast<cudaStream_t>(stream));
}

void ntt_host(std::span<Fr> values, NttKind kind) {
    const size_t n = values.size();
    if (n == 0 || (n & (n - 1)) != 0)
        throw std::invalid_argument("gpu ntt_host: size " + std::to_string(n) + " is not a power of two");
    const unsigned log_n = (unsigned)__builtin_ctzll(n);
    if (log_n > NTT_MAX_LOG_SIZE)
        throw std::invalid_argument("gpu ntt_host: size 2^" + std::to_string(log_n) + " exceeds 2^28");
    // Device memory for the values on top of what the transform itself needs, checked before allocating.
    size_t free_b = 0, total_b = 0;
    CUZK_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    const size_t need = n * sizeof(Fr) + ntt_device_bytes_needed(log_n);
    if (need > free_b)
        throw CudaError("gpu ntt_host 2^" + std::to_string(log_n) + ": needs " + std::to_string(need) +
                        " bytes of device memory, " + std::to_string(free_b) + " free");
    DeviceBuffer<fr_dev> d(n);
    // Pageable copies: the driver stages them through its own pinned buffers; pinning the caller's pages
    // (cudaHostRegister) costs about as much as the copy it would speed up for a single transform.
    CUZK_CUDA_CHECK(cudaMemcpy(d.get(), values.data(), n * sizeof(Fr), cudaMemcpyHostToDevice));
    NttConfig cfg;
    cfg.kind = kind;
    ntt_device(reinterpret_cast<Fr*>(d.get()), log_n, cfg);
    CUZK_CUDA_CHECK(cudaMemcpy(values.data(), d.get(), n * sizeof(Fr), cudaMemcpyDeviceToHost));
}

void ntt_host_batch(std::span<const std::span<Fr>> arrays, NttKind kind, unsigned in_flight) {
    if (arrays.empty()) return;
    const size_t n = arrays[0].size();
    if (n == 0 || (n & (n - 1)) != 0)
        throw std::invalid_argument("gpu ntt_host_batch: size " + std::to_string(n) + " is not a power of two");
    for (const auto& a : arrays)
        if (a.size() != n) throw std::invalid_argument("gpu ntt_host_batch: arrays of different sizes");
    const unsigned log_n = (unsigned)__builtin_ctzll(n);
    if (log_n > NTT_MAX_LOG_SIZE)
        throw std::invalid_argument("gpu ntt_host_batch: size 2^" + std::to_string(log_n) + " exceeds 2^28");
    const size_t slots = std::max<size_t>(1, std::min<size_t>(in_flight, arrays.size()));
    const size_t bytes = n * sizeof(Fr);
    const size_t scratch_elems = ntt_scratch_elements(log_n);
    int dev = 0;
    CUZK_CUDA_CHECK(cudaGetDevice(&dev));
    size_t free_b = 0, total_b = 0;
    CUZK_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    const size_t need =
        slots * (bytes + scratch_elems * sizeof(Fr)) + (tables_resident(dev) ? 0 : ntt_twiddle_bytes());
    if (need > free_b)
        throw CudaError("gpu ntt_host_batch 2^" + std::to_string(log_n) + " x " + std::to_string(slots) +
                        " in flight: needs " + std::to_string(need) + " bytes of device memory, " +
                        std::to_string(free_b) + " free (lower in_flight)");

    // The tables, held for the whole batch.
    const std::shared_ptr<const NttTables> tables = registry_tables(dev);
    // Per slot: a stream and device buffers; the host arrays are copied from and to directly (cudaMemcpyAsync).
    // From pinned memory those copies are DMA transfers that overlap the other slots' kernels; from pageable
    // memory the driver stages them and the host waits for each, so the pipeline degrades to one array at a time.
    // The stream is declared last: on every exit (an exception included) it is drained and destroyed before the
    // slot's buffers are freed.
    struct Slot {
        DeviceBuffer<fr_dev> d_values;
        DeviceBuffer<fr_dev> d_scratch;
        Stream stream;
    };
    std::vector<Slot> slot(slots);
    for (auto& s : slot) {
        s.stream = Stream::create();
        s.d_values = DeviceBuffer<fr_dev>(n);
        if (scratch_elems) s.d_scratch = DeviceBuffer<fr_dev>(scratch_elems);
    }
    for (size_t i = 0; i < arrays.size(); i++) {
        Slot& s = slot[i % slots];
        const cudaStream_t st = s.stream.get();
        CUZK_CUDA_CHECK(cudaStreamSynchronize(st));  // the slot's previous array is back on the host
        CUZK_CUDA_CHECK(cudaMemcpyAsync(s.d_values.get(), arrays[i].data(), bytes, cudaMemcpyHostToDevice, st));
        NttConfig cfg;
        cfg.kind = kind;
        cfg.stream = st;
        cfg.d_scratch = reinterpret_cast<Fr*>(s.d_scratch.get());
        cfg.synchronize = false;
        cfg.tables = tables.get();
        ntt_device(reinterpret_cast<Fr*>(s.d_values.get()), log_n, cfg);
        CUZK_CUDA_CHECK(cudaMemcpyAsync(arrays[i].data(), s.d_values.get(), bytes, cudaMemcpyDeviceToHost, st));
    }
    for (auto& s : slot) CUZK_CUDA_CHECK(cudaStreamSynchronize(s.stream.get()));
}

std::shared_ptr<const NttTables> ntt_tables() {
    int dev = 0;
    CUZK_CUDA_CHECK(cudaGetDevice(&dev));
    return registry_tables(dev);
}

void release_ntt_tables() {
    TableRegistry& reg = registry();
    std::map<int, std::shared_ptr<const NttTables>> dropped;
    {
        std::lock_guard<std::mutex> lk(reg.mu);
        dropped.swap(reg.per_device);
    }
    // Freed here, outside the lock, unless a holder still has them.
}

}  // namespace cuzk::gpu
