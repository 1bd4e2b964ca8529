// The constants of Poseidon exactly as neptune v11 (argumentcomputer/neptune@ef8a821f, the version Filecoin uses)
// derives them over BLS12-381's Fr: round numbers, Grain LFSR round constants, the Cauchy MDS matrix, the domain tags,
// and neptune's preprocessing for its optimised hash and R1CS gadget (compressed round constants, the pre-sparse
// matrix and the sparse matrices). Nothing here is a pasted table: each value comes from the few parameters below by
// the procedure named next to it, and tests/test_gadgets_poseidon.cpp checks the results against neptune's published
// digests and constants.
//
// Why the preprocessing matters beyond speed: neptune's Poseidon circuit (circuit.rs, which Filecoin's circuits use)
// is built from the compressed constants and the sparse factorisation, so the coefficients of its constraints are
// these derived values. Reproducing Filecoin's R1CS (and so using its parameter files) needs them bit for bit.
//
// Conventions (neptune's): a state is [domain tag, x_1, ..., x_arity], width t = arity + 1; a matrix M is applied to
// the state as a row vector, state'[j] = sum_i state[i] * M[i][j] (neptune's `apply_matrix`); the S-box is x^5.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "cuzk/ff/fr.hpp"

namespace cuzk::gadgets {

// neptune implements `Arity` for U1..U36 (poseidon.rs `impl_arity!`); Filecoin uses 2, 4, 8, 11, 16, 24 and 36.
inline constexpr size_t kPoseidonMaxArity = 36;
inline constexpr std::array<size_t, 7> kPoseidonFilecoinArities{2, 4, 8, 11, 16, 24, 36};

// lib.rs `Strength`: Standard is what Filecoin uses; Strengthened adds 25 % partial rounds.
enum class PoseidonStrength { Standard, Strengthened };

struct PoseidonRounds {
    size_t full = 0;     // R_F (even: half before, half after the partial rounds)
    size_t partial = 0;  // R_P
};

// round_numbers.rs `calc_round_numbers`: a port of the Poseidon authors' calc_round_numbers.py for a 256-bit prime and
// 128-bit security, evaluated in single precision as neptune does. With `security_margin`, every secure (R_F, R_P)
// found becomes (R_F + 2, ceil(1.075 * R_P)) before the cost t * R_F + R_P is compared.
PoseidonRounds poseidon_calc_round_numbers(size_t t, bool security_margin);

// lib.rs `round_numbers`: Standard = calc_round_numbers(arity + 1, true) (R_F = 8; R_P = 55 for arity 2, 56 for 4,
// 57 for 8 and 11, 59 for 16 and 24, 60 for 36); Strengthened = the same R_F and ceil(1.25 * R_P).
PoseidonRounds poseidon_round_numbers(size_t arity, PoseidonStrength strength = PoseidonStrength::Standard);

// round_constants.rs `Grain`: the Poseidon paper's Grain LFSR in self-shrinking mode. State b_0..b_79 seeded, most
// significant bit first, with field (2 bits), S-box (4), field size in bits (12), t (12), R_F (10), R_P (10) and
// thirty 1 bits; update b_{i+80} = b_{i+62} ^ b_{i+51} ^ b_{i+38} ^ b_{i+23} ^ b_{i+13} ^ b_i; the first 160 bits
// are discarded; then bits are taken in pairs and the second one is output when the first is 1.
class PoseidonGrain {
public:
    PoseidonGrain(unsigned field, unsigned sbox, unsigned field_size, unsigned t, unsigned full_rounds,
                  unsigned partial_rounds);
    // One filtered (self-shrunk) output bit.
    bool next_bit();
    // round_constants.rs `get_next_bytes` + `reverse` + `from_repr`: `bits` output bits as an integer, the first bit
    // the most significant (neptune packs field_size % 8 bits into the first big-endian byte, then whole bytes).
    limbs_t<4> next_bits(unsigned bits);

private:
    bool clock();                  // one raw LFSR step; returns the new bit
    unsigned __int128 state_ = 0;  // bit i holds b_i of the current 80-bit window
};

// round_constants.rs `generate_constants(field, sbox, field_size, t, R_F, R_P)`: (R_F + R_P) * t constants, round by
// round, element by element; each is the next `field_size` Grain bits as a big-endian integer, drawn again while it
// is >= r. neptune calls it (lib.rs `round_constants`) with field = 1 (prime field), sbox = 1 (neptune's comment says
// "x^5"; in the paper's script 1 would denote the inverse S-box, but these are the bits Filecoin's constants come
// from) and field_size = Fr::NUM_BITS = 255.
std::vector<Fr> poseidon_grain_constants(unsigned field, unsigned sbox, unsigned field_size, unsigned t,
                                         unsigned full_rounds, unsigned partial_rounds);

// A square matrix over Fr; at(i, j) is row i, column j (neptune's Matrix<F> = Vec<Vec<F>>, m[i][j]).
struct PoseidonMatrix {
    size_t n = 0;
    std::vector<Fr> e;  // n * n, row-major

    PoseidonMatrix() = default;
    explicit PoseidonMatrix(size_t size) : n(size), e(size * size, Fr::zero()) {}
    static PoseidonMatrix identity(size_t size);
    Fr& at(size_t i, size_t j) { return e[i * n + j]; }
    const Fr& at(size_t i, size_t j) const { return e[i * n + j]; }
    friend bool operator==(const PoseidonMatrix& a, const PoseidonMatrix& b) { return a.n == b.n && a.e == b.e; }
};

// matrix.rs: the product a * b; the inverse (nullopt when singular; the inverse is unique, so any elimination
// order gives neptune's values); the minor without row i and column j.
PoseidonMatrix poseidon_mat_mul(const PoseidonMatrix& a, const PoseidonMatrix& b);
std::optional<PoseidonMatrix> poseidon_mat_invert(const PoseidonMatrix& m);
PoseidonMatrix poseidon_mat_minor(const PoseidonMatrix& m, size_t i, size_t j);
// matrix.rs `apply_matrix(m, v)`: the row vector v times m, out[j] = sum_i m[i][j] * v[i].
std::vector<Fr> poseidon_apply_matrix(const PoseidonMatrix& m, const std::vector<Fr>& v);

// mds.rs `generate_mds`: the Cauchy matrix with x_i = i, y_j = t + j, M[i][j] = 1 / (x_i + y_j) = 1 / (i + j + t)
// (symmetric, invertible, MDS).
PoseidonMatrix poseidon_cauchy_mds(size_t t);

// mds.rs `SparseMatrix`: a matrix M'' that is the identity except for its first row and first column, kept as
// w_hat = its first column (t entries, M''[i][0]) and v_rest = its first row after the corner (t - 1 entries,
// M''[0][1..]). Applied to a row vector s: out[0] = sum_i w_hat[i] * s[i], out[j] = s[j] + v_rest[j - 1] * s[0].
struct PoseidonSparseMatrix {
    std::vector<Fr> w_hat;
    std::vector<Fr> v_rest;
};

// Domain tags (hash_type.rs `HashType::domain_tag`, poseidon.rs `Arity::tag`): the first element of the state.
namespace poseidon_tag {
// MerkleTree: 2^arity - 1 (3, 15, 255, 2047 for arities 2, 4, 8, 11); what Filecoin's trees and columns use.
Fr merkle_tree(size_t arity);
// MerkleTreeSparse(bitmask): the bitmask itself (neptune declares it but does not support hashing with it).
Fr merkle_tree_sparse(uint64_t bitmask);
// ConstantLength(n): n * 2^64.
Fr constant_length(uint64_t length);
// VariableLength: 2^64 (declared, not supported by neptune's hash).
Fr variable_length();
// Encryption: 2^32.
Fr encryption();
// Custom(Arbitrary(id)): id * 2^40 for 1 <= id <= 256 (throws std::invalid_argument otherwise); SnapDeals uses id 1.
Fr custom(uint64_t id);
// Sponge: 0.
Fr sponge();
}  // namespace poseidon_tag

// poseidon.rs `PoseidonConstants` for one arity and strength (HashType::MerkleTree, the domain tag is separate).
struct PoseidonConstants {
    size_t arity = 0;
    size_t width = 0;  // t = arity + 1
    PoseidonStrength strength = PoseidonStrength::Standard;
    size_t full_rounds = 0;       // R_F
    size_t half_full_rounds = 0;  // R_F / 2
    size_t partial_rounds = 0;    // R_P
    Fr merkle_tree_tag;           // poseidon_tag::merkle_tree(arity)

    // The plain instance ("Correct" mode, poseidon_alt.rs): (R_F + R_P) * t round constants, round-major, and M.
    std::vector<Fr> round_constants;
    PoseidonMatrix mds;
    PoseidonMatrix mds_inv;

    // preprocessing.rs `compress_round_constants` (fully preprocessed, as neptune calls it): R_F * t + R_P values,
    //   [t pre-keys of round 0]
    //   [for each of the first R_F/2 full rounds, t post-S-box keys: M^-1 applied to the next round's keys, the
    //    last of them carrying the partial rounds' keys pushed back through the linear layers]
    //   [R_P single post-S-box keys, one per partial round]
    //   [for the last R_F/2 - 1 full rounds with a successor, t post-keys each]
    // the last full round has none.
    std::vector<Fr> compressed_round_constants;
    // mds.rs `factor_to_sparse_matrixes(M, R_P)`: M is split R_P times as M = M' * M'' (M' identity in its first
    // row and column, M'' sparse); pre_sparse_matrix is the dense matrix applied after the last first-half full
    // round, sparse_matrices[k] the M'' applied after partial round k.
    PoseidonMatrix pre_sparse_matrix;
    std::vector<PoseidonSparseMatrix> sparse_matrices;
};

// poseidon.rs `PoseidonConstants::new_with_strength`; throws std::invalid_argument for arity 0 or > 36.
PoseidonConstants make_poseidon_constants(size_t arity, PoseidonStrength strength = PoseidonStrength::Standard);

// The constants for `arity`, derived once per process on first use (thread-safe) and kept for its lifetime.
const PoseidonConstants& poseidon_constants(size_t arity, PoseidonStrength strength);
// The Standard constants (Filecoin's POSEIDON_CONSTANTS_<arity>).
inline const PoseidonConstants& poseidon_constants(size_t arity) {
    return poseidon_constants(arity, PoseidonStrength::Standard);
}

}  // namespace cuzk::gadgets
