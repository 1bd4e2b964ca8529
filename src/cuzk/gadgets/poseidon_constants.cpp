#include "cuzk/gadgets/poseidon_constants.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

namespace cuzk::gadgets {

namespace {

// round_numbers.rs: n = 256 ("256 bits for simplicity" although r has 255) and M = 128.
constexpr float kPrimeBits = 256.0f;
constexpr float kSecurityBits = 128.0f;

// Rust's `f32 as usize` saturates: negative values (and NaN) become 0. A bare C++ cast would be undefined there,
// and rf_grob_2 below is negative for most (t, R_P).
size_t ceil_as_usize(float x) {
    const float c = std::ceil(x);
    return c > 0.0f ? (size_t)c : 0;
}

// round_numbers.rs `round_numbers_are_secure`: R_F must reach the statistical bound and the interpolation and two
// Groebner-basis bounds. Every product below has a power of two as a factor (m = 2^7, n = 2^8) or small integer
// operands, so it is exact in single precision and a fused multiply-add cannot round differently from neptune.
bool round_numbers_are_secure(size_t t, size_t rf, size_t rp) {
    const float rpf = (float)rp, tf = (float)t, n = kPrimeBits, m = kSecurityBits;
    const float rf_stat = m <= (n - 3.0f) * (tf + 1.0f) ? 6.0f : 10.0f;
    const float rf_interp = 0.43f * m + std::log2(tf) - rpf;
    const float rf_grob_1 = 0.21f * n - rpf;
    const float rf_grob_2 = (0.14f * n - 1.0f - rpf) / (tf - 1.0f);
    size_t rf_max = 0;
    for (float bound : {rf_stat, rf_interp, rf_grob_1, rf_grob_2}) rf_max = std::max(rf_max, ceil_as_usize(bound));
    return rf >= rf_max;
}

}  // namespace

PoseidonRounds poseidon_calc_round_numbers(size_t t, bool security_margin) {
    if (t < 2) throw std::invalid_argument("poseidon: width t must be at least 2");
    PoseidonRounds best;
    size_t min_sboxes = SIZE_MAX;
    for (size_t rf_start = 2; rf_start <= 1000; rf_start += 2) {
        // As in neptune's loop (`for mut rf_test in ...`), the margin's +2 on R_F is applied to the outer loop
        // variable itself, so it accumulates over the inner loop: once some R_P is secure, the later R_P of the
        // same pass are tested (and costed) with the raised R_F. Reproduced because it is what fixes the table.
        size_t rf_test = rf_start;
        for (size_t rp_start = 4; rp_start < 200; rp_start++) {
            size_t rp_test = rp_start;
            if (!round_numbers_are_secure(t, rf_test, rp_test)) continue;
            if (security_margin) {
                rf_test += 2;
                rp_test = ceil_as_usize(1.075f * (float)rp_test);
            }
            const size_t sboxes = t * rf_test + rp_test;  // the paper's cost, equation (14)
            if (sboxes < min_sboxes || (sboxes == min_sboxes && rf_test < best.full)) {
                best = {rf_test, rp_test};
                min_sboxes = sboxes;
            }
        }
    }
    return best;
}

PoseidonRounds poseidon_round_numbers(size_t arity, PoseidonStrength strength) {
    PoseidonRounds r = poseidon_calc_round_numbers(arity + 1, true);
    // round_numbers.rs `round_numbers_strengthened`: 25 % more partial rounds, rounded up (in double precision).
    if (strength == PoseidonStrength::Strengthened) r.partial = (size_t)std::ceil((double)r.partial * 1.25);
    return r;
}

// ---- Grain LFSR (round_constants.rs) ------------------------------------------------------------------------

PoseidonGrain::PoseidonGrain(unsigned field, unsigned sbox, unsigned field_size, unsigned t, unsigned full_rounds,
                             unsigned partial_rounds) {
    unsigned pos = 0;
    // round_constants.rs `append_bits`: `width` bits of v, most significant first, from b_pos on.
    auto append = [&](uint64_t v, unsigned width) {
        if (width < 64 && (v >> width) != 0)
            throw std::invalid_argument("poseidon grain: a parameter does not fit its " + std::to_string(width) +
                                        "-bit field");
        for (unsigned i = width; i-- > 0; pos++)
            if ((v >> i) & 1) state_ |= (unsigned __int128)1 << pos;
    };
    append(field, 2);            // b_0..b_1
    append(sbox, 4);             // b_2..b_5
    append(field_size, 12);      // b_6..b_17
    append(t, 12);               // b_18..b_29
    append(full_rounds, 10);     // b_30..b_39
    append(partial_rounds, 10);  // b_40..b_49
    append((uint64_t{1} << 30) - 1, 30);  // b_50..b_79
    for (int i = 0; i < 160; i++) clock();
}

bool PoseidonGrain::clock() {
    auto b = [&](unsigned i) { return (unsigned)(state_ >> i) & 1u; };
    const unsigned bit = b(62) ^ b(51) ^ b(38) ^ b(23) ^ b(13) ^ b(0);
    // Drop b_0, shift the window down, the new bit becomes b_79 (neptune: state.remove(0); state.push(bit)).
    state_ = (state_ >> 1) | ((unsigned __int128)bit << 79);
    return bit;
}

bool PoseidonGrain::next_bit() {
    for (;;) {
        const bool select = clock();
        const bool out = clock();
        if (select) return out;
    }
}

limbs_t<4> PoseidonGrain::next_bits(unsigned bits) {
    if (bits > 256) throw std::invalid_argument("poseidon grain: at most 256 bits per draw");
    limbs_t<4> v{};
    for (unsigned i = bits; i-- > 0;)
        if (next_bit()) v[i / 64] |= uint64_t{1} << (i % 64);
    return v;
}

std::vector<Fr> poseidon_grain_constants(unsigned field, unsigned sbox, unsigned field_size, unsigned t,
                                         unsigned full_rounds, unsigned partial_rounds) {
    // neptune supports 32-byte prime fields only (field = 1, ceil(field_size / 8) = 32).
    if (field != 1) throw std::invalid_argument("poseidon grain: only prime fields (field = 1) are supported");
    if ((field_size + 7) / 8 != 32) throw std::invalid_argument("poseidon grain: field_size must need 32 bytes");
    PoseidonGrain grain(field, sbox, field_size, t, full_rounds, partial_rounds);
    const size_t count = (size_t)(full_rounds + partial_rounds) * t;
    std::vector<Fr> out;
    out.reserve(count);
    while (out.size() < count)
        if (auto f = Fr::from_canonical(grain.next_bits(field_size))) out.push_back(*f);  // reject >= r, redraw
    return out;
}

// ---- matrices (matrix.rs, mds.rs) ---------------------------------------------------------------------------

PoseidonMatrix PoseidonMatrix::identity(size_t size) {
    PoseidonMatrix m(size);
    for (size_t i = 0; i < size; i++) m.at(i, i) = Fr::one();
    return m;
}

PoseidonMatrix poseidon_mat_mul(const PoseidonMatrix& a, const PoseidonMatrix& b) {
    if (a.n != b.n) throw std::invalid_argument("poseidon_mat_mul: sizes differ");
    const size_t n = a.n;
    PoseidonMatrix out(n);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            Fr acc = Fr::zero();
            for (size_t k = 0; k < n; k++) acc += a.at(i, k) * b.at(k, j);
            out.at(i, j) = acc;
        }
    return out;
}

std::optional<PoseidonMatrix> poseidon_mat_invert(const PoseidonMatrix& m) {
    // Gauss-Jordan on [m | I]. neptune eliminates differently (matrix.rs `invert`), but an inverse is unique.
    const size_t n = m.n;
    PoseidonMatrix a = m, inv = PoseidonMatrix::identity(n);
    for (size_t col = 0; col < n; col++) {
        size_t pivot = col;
        while (pivot < n && a.at(pivot, col).is_zero()) pivot++;
        if (pivot == n) return std::nullopt;
        if (pivot != col)
            for (size_t j = 0; j < n; j++) {
                std::swap(a.at(pivot, j), a.at(col, j));
                std::swap(inv.at(pivot, j), inv.at(col, j));
            }
        const Fr scale = *a.at(col, col).inverse();
        for (size_t j = 0; j < n; j++) {
            a.at(col, j) *= scale;
            inv.at(col, j) *= scale;
        }
        for (size_t i = 0; i < n; i++) {
            if (i == col || a.at(i, col).is_zero()) continue;
            const Fr f = a.at(i, col);
            for (size_t j = 0; j < n; j++) {
                a.at(i, j) -= f * a.at(col, j);
                inv.at(i, j) -= f * inv.at(col, j);
            }
        }
    }
    return inv;
}

PoseidonMatrix poseidon_mat_minor(const PoseidonMatrix& m, size_t i, size_t j) {
    if (m.n == 0 || i >= m.n || j >= m.n) throw std::invalid_argument("poseidon_mat_minor: index out of range");
    PoseidonMatrix out(m.n - 1);
    for (size_t r = 0, ro = 0; r < m.n; r++) {
        if (r == i) continue;
        for (size_t c = 0, co = 0; c < m.n; c++) {
            if (c == j) continue;
            out.at(ro, co++) = m.at(r, c);
        }
        ro++;
    }
    return out;
}

std::vector<Fr> poseidon_apply_matrix(const PoseidonMatrix& m, const std::vector<Fr>& v) {
    if (v.size() != m.n) throw std::invalid_argument("poseidon_apply_matrix: sizes differ");
    std::vector<Fr> out(m.n, Fr::zero());
    for (size_t j = 0; j < m.n; j++)
        for (size_t i = 0; i < m.n; i++) out[j] += m.at(i, j) * v[i];
    return out;
}

PoseidonMatrix poseidon_cauchy_mds(size_t t) {
    PoseidonMatrix m(t);
    for (size_t i = 0; i < t; i++)
        for (size_t j = 0; j < t; j++) m.at(i, j) = Fr::from_u64(i + (t + j));  // x_i + y_j = i + t + j, never 0
    Fr::batch_inverse(m.e);
    return m;
}

// ---- domain tags (hash_type.rs) -------------------------------------------------------------------------------

namespace poseidon_tag {

Fr merkle_tree(size_t arity) {
    if (arity == 0 || arity > 63) throw std::invalid_argument("poseidon_tag::merkle_tree: arity out of range");
    return Fr::from_u64((uint64_t{1} << arity) - 1);
}
Fr merkle_tree_sparse(uint64_t bitmask) { return Fr::from_u64(bitmask); }
Fr constant_length(uint64_t length) { return Fr::from_u64(length) * Fr::from_u64(2).pow(64); }
Fr variable_length() { return Fr::from_u64(2).pow(64); }
Fr encryption() { return Fr::from_u64(uint64_t{1} << 32); }
Fr custom(uint64_t id) {
    if (id == 0 || id > 256) throw std::invalid_argument("poseidon_tag::custom: id must be in 1..=256");
    return Fr::from_u64(id << 40);
}
Fr sponge() { return Fr::zero(); }

}  // namespace poseidon_tag

// ---- preprocessing (preprocessing.rs, mds.rs) ------------------------------------------------------------------

namespace {

// preprocessing.rs `compress_round_constants` with partial_preprocessed = R_P, as PoseidonConstants::new calls it.
// The plain schedule adds round key k before the S-boxes of round k. Since a key added after a linear layer L equals
// L^-1 of it added before L, each round's keys are moved before the previous mix, i.e. just after that round's
// S-boxes (M^-1 applied); in partial rounds only element 0 passes an S-box, so only its key stays there and the
// rest keep moving back, accumulating, to the last first-half full round.
std::vector<Fr> compress_round_constants(const PoseidonConstants& c) {
    const size_t t = c.width, half = c.half_full_rounds, rp = c.partial_rounds;
    auto keys = [&](size_t round) {
        return std::vector<Fr>(c.round_constants.begin() + (ptrdiff_t)(round * t),
                               c.round_constants.begin() + (ptrdiff_t)((round + 1) * t));
    };
    std::vector<Fr> out;
    out.reserve(c.full_rounds * t + rp);
    auto append = [&](const std::vector<Fr>& v) { out.insert(out.end(), v.begin(), v.end()); };

    append(keys(0));  // round 0's keys stay before its S-boxes
    // Post-S-box keys of first-half full rounds 0 .. half-2: the next round's keys pulled back through M.
    for (size_t i = 0; i + 1 < half; i++) append(poseidon_apply_matrix(c.mds_inv, keys(i + 1)));

    // Walk back from the first second-half full round's keys through every partial round: pull the accumulated
    // keys back through M; element 0 meets that round's S-box, so its share becomes the round's single post-key;
    // the others join the previous round's keys.
    const size_t final_round = half + rp;
    std::vector<Fr> acc = keys(final_round);
    std::vector<Fr> partial_keys;  // in reverse round order
    partial_keys.reserve(rp);
    for (size_t i = 0; i < rp; i++) {
        std::vector<Fr> inverted = poseidon_apply_matrix(c.mds_inv, acc);
        partial_keys.push_back(inverted[0]);
        inverted[0] = Fr::zero();
        const std::vector<Fr> previous = keys(final_round - i - 1);
        for (size_t j = 0; j < t; j++) inverted[j] += previous[j];
        acc = std::move(inverted);
    }
    append(poseidon_apply_matrix(c.mds_inv, acc));  // post-keys of the last first-half full round
    out.insert(out.end(), partial_keys.rbegin(), partial_keys.rend());
    // Second-half full rounds but the last: the next round's keys pulled back through M.
    for (size_t i = 1; i < half; i++) append(poseidon_apply_matrix(c.mds_inv, keys(final_round + i)));
    return out;
}

// x with a^T x = b (Gaussian elimination with partial pivoting on nonzero entries); nullopt when a is singular.
// This is apply_matrix(a^-1, b) (out[j] = sum_i a^-1[i][j] b[i]) without forming the inverse: a sixth of the work,
// which matters for arity 36 (R_P = 60 factorisations of a 36 x 36 block).
std::optional<std::vector<Fr>> solve_transposed(const PoseidonMatrix& a, std::vector<Fr> b) {
    const size_t n = a.n;
    PoseidonMatrix m(n);  // a^T
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) m.at(i, j) = a.at(j, i);
    std::vector<Fr> pivot_inv(n);
    for (size_t col = 0; col < n; col++) {
        size_t pivot = col;
        while (pivot < n && m.at(pivot, col).is_zero()) pivot++;
        if (pivot == n) return std::nullopt;
        if (pivot != col) {
            for (size_t j = col; j < n; j++) std::swap(m.at(pivot, j), m.at(col, j));
            std::swap(b[pivot], b[col]);
        }
        const Fr inv = pivot_inv[col] = *m.at(col, col).inverse();
        for (size_t i = col + 1; i < n; i++) {
            if (m.at(i, col).is_zero()) continue;
            const Fr f = m.at(i, col) * inv;
            for (size_t j = col + 1; j < n; j++) m.at(i, j) -= f * m.at(col, j);
            b[i] -= f * b[col];
        }
    }
    std::vector<Fr> x(n);
    for (size_t i = n; i-- > 0;) {
        Fr acc = b[i];
        for (size_t j = i + 1; j < n; j++) acc -= m.at(i, j) * x[j];
        x[i] = acc * pivot_inv[i];
    }
    return x;
}

// mds.rs `derive_mds_matrices` + `factor_to_sparse_matrices`: write the current matrix as M' * M'', where M' keeps
// its lower-right block (first row and column of the identity) and M'' = [[m00, v], [w_hat, I]] with v its first row
// after the corner, w its first column below the corner and w_hat = apply_matrix(minor(m, 0, 0)^-1, w). M' commutes
// with a partial round's S-box (which touches element 0 only), so it is merged into the previous round's matrix:
// the next matrix to split is M * M'. After R_P splits the remaining dense matrix is the pre-sparse matrix, and
// the M'' come out in reverse order of use.
void factor_to_sparse(PoseidonConstants& c) {
    const size_t t = c.width;
    const PoseidonMatrix& base = c.mds;
    PoseidonMatrix curr = base;
    std::vector<PoseidonSparseMatrix> sparse;
    sparse.reserve(c.partial_rounds);
    for (size_t k = 0; k < c.partial_rounds; k++) {
        std::vector<Fr> w(t - 1);
        for (size_t i = 1; i < t; i++) w[i - 1] = curr.at(i, 0);
        auto w_hat = solve_transposed(poseidon_mat_minor(curr, 0, 0), std::move(w));
        if (!w_hat) throw std::logic_error("poseidon: singular minor while factoring the MDS matrix");

        PoseidonSparseMatrix s;
        s.w_hat.reserve(t);
        s.w_hat.push_back(curr.at(0, 0));  // SparseMatrix::new takes M'' column 0, corner included
        s.w_hat.insert(s.w_hat.end(), w_hat->begin(), w_hat->end());
        s.v_rest.assign(curr.e.begin() + 1, curr.e.begin() + (ptrdiff_t)t);  // M'' row 0 after the corner = v
        sparse.push_back(std::move(s));

        // curr = M * M', M' = mds.rs `make_prime(curr)`: the identity's first row and column, curr's lower-right
        // block. Column 0 of the product is M's; the rest skips M''s zero first row.
        PoseidonMatrix next(t);
        for (size_t i = 0; i < t; i++) {
            next.at(i, 0) = base.at(i, 0);
            for (size_t j = 1; j < t; j++) {
                Fr acc = base.at(i, 1) * curr.at(1, j);
                for (size_t l = 2; l < t; l++) acc += base.at(i, l) * curr.at(l, j);
                next.at(i, j) = acc;
            }
        }
        curr = std::move(next);
    }
    c.pre_sparse_matrix = std::move(curr);
    c.sparse_matrices.assign(sparse.rbegin(), sparse.rend());
}

}  // namespace

PoseidonConstants make_poseidon_constants(size_t arity, PoseidonStrength strength) {
    if (arity == 0 || arity > kPoseidonMaxArity)
        throw std::invalid_argument("poseidon: arity must be in 1..=" + std::to_string(kPoseidonMaxArity) + ", got " +
                                    std::to_string(arity));
    PoseidonConstants c;
    c.arity = arity;
    c.width = arity + 1;
    c.strength = strength;
    const PoseidonRounds rounds = poseidon_round_numbers(arity, strength);
    c.full_rounds = rounds.full;
    c.half_full_rounds = rounds.full / 2;
    c.partial_rounds = rounds.partial;
    c.merkle_tree_tag = poseidon_tag::merkle_tree(arity);

    // lib.rs: FIELD = 1 (GF(p)), SBOX = 1, field_size = Fr::NUM_BITS.
    static_assert(Fr::BITS == 255, "neptune seeds Grain with Fr::NUM_BITS = 255");
    c.round_constants =
        poseidon_grain_constants(1, 1, (unsigned)Fr::BITS, (unsigned)c.width, (unsigned)c.full_rounds,
                                 (unsigned)c.partial_rounds);
    c.mds = poseidon_cauchy_mds(c.width);
    auto inv = poseidon_mat_invert(c.mds);
    if (!inv) throw std::logic_error("poseidon: the Cauchy matrix is singular");
    c.mds_inv = std::move(*inv);

    c.compressed_round_constants = compress_round_constants(c);
    factor_to_sparse(c);
    if (c.compressed_round_constants.size() != c.full_rounds * c.width + c.partial_rounds)
        throw std::logic_error("poseidon: wrong number of compressed round constants");
    return c;
}

const PoseidonConstants& poseidon_constants(size_t arity, PoseidonStrength strength) {
    if (arity == 0 || arity > kPoseidonMaxArity)
        throw std::invalid_argument("poseidon: arity must be in 1..=" + std::to_string(kPoseidonMaxArity) + ", got " +
                                    std::to_string(arity));
    constexpr size_t kSlots = kPoseidonMaxArity + 1;
    static std::array<std::once_flag, 2 * kSlots> once;
    static std::array<std::unique_ptr<const PoseidonConstants>, 2 * kSlots> table;
    const size_t slot = (strength == PoseidonStrength::Standard ? 0 : kSlots) + arity;
    std::call_once(once[slot], [&] {
        table[slot] = std::make_unique<const PoseidonConstants>(make_poseidon_constants(arity, strength));
    });
    return *table[slot];
}

}  // namespace cuzk::gadgets
