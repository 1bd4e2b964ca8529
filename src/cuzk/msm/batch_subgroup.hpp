// Batched prime-order subgroup membership for G1 and G2 of BLS12-381: "are all of these n curve points in the
// order-r subgroup?" for about three to four batched affine additions per point, instead of the ~130 doublings of
// the per-point endomorphism test (subgroup.hpp). A "no" is always right; a "yes" is wrong with probability at most
// 2^-64 (security_bits) over randomness the caller cannot see, drawn from the OS CSPRNG for every call.
//
// ---- The problem ----------------------------------------------------------------------------------------------
// E(Fq) = G1 (+) T1 with #T1 = h1 = 3 * 11^2 * 10177^2 * 859267^2 * 52437899^2, and E'(Fq2) = G2 (+) T2 with
// h2 = 13^2 * 23^2 * 2713 * 11953 * 262069 * (a 446-bit prime); gcd(h, r) = 1, so every curve point is P = G + T
// with G in the subgroup and T in the cofactor part, and P is in the subgroup iff T = O. Both h1 and h2 are odd.
//
// A single random linear combination Q = sum c_i P_i tested once is NOT enough: its cofactor part sum c_i T_i
// vanishes with probability up to 1/3 (T1 has points of order 3; a lone bad point of order 3 escapes whenever
// 3 | c_j), and no distribution of independent, identically distributed c_i does better than 1/3 per tested point
// (against the pair T, -T of order 3 the test fails iff c_1 = c_2 mod 3, of probability sum_k Pr[c = k mod 3]^2
// >= 1/3). Re-randomising several partial sums into one tested point is no better. What is needed is many tested
// points whose coefficients tell points apart mod 3; the design below gets 64 bits from 41 tested points
// (3^-41 < 2^-64.9) and costs about three to four batched additions per point.
//
// ---- The design: random trit vectors, one bucketed pass per round -----------------------------------------------
// A round with m "trits" (1..14; 8 to 14 for large n) draws for every point i an independent uniform vector
// u_i in {-1, 0, 1}^m and defines m combinations Q_j = sum_i u_ij P_i (j = 0..m-1); every Q_j is tested with the
// exact per-point test (g1_in_subgroup / g2_in_subgroup, Scott 2021/1130). The rounds are independent and their
// trits add up to t = ceil(security_bits / log2 3) (41 for 64 bits).
//
// Soundness. Fix the points (the file is fixed before the randomness is drawn) and suppose T_a != O for some a.
// A round accepts only if sum_i u_ij T_i = O for every j, i.e. u_a (.) T_a = -sum_{i != a} u_i (.) T_i (coordinate
// by coordinate). Condition on every u_i, i != a: the right side is a fixed vector V in T^m. Two different trit
// vectors u != u' with u (.) T_a = u' (.) T_a would give d T_a = O for some coordinate d = u_j - u'_j in
// {+-1, +-2}; but the order of T_a divides the odd h and is > 1, hence >= 3 > |d|. So at most one of the 3^m
// equally likely values of u_a satisfies the equation: a round accepts with probability <= 3^-m, and all rounds
// with probability <= 3^-t <= 2^-security_bits. This is tight (two bad points T, -T of order 3 escape a round
// exactly when u_1 = u_2). Only the uniformity and independence of the u_i are used: nothing about the
// points, their number, or how the Q_j are computed.
//
// Randomness. The u_i come from ChaCha20 (RFC 8439) keyed with 256 bits from getrandom(2) per call; a label is a
// uniform integer in [0, 3^m) drawn exactly (Lemire's multiply-and-reject, rejected words replaced by words of
// another ChaCha stream), whose base-3 digits minus one are the trits. ChaCha20 is what Linux's getrandom itself
// runs, so the bound above holds unless ChaCha20 is distinguishable from random (a computational assumption, as
// for any CSPRNG); the key never leaves the call, so an adversary who writes the file cannot aim at it.
//
// Cost. Q_j is not computed as m separate sums. A point with trit vector u goes to ONE bucket: the canonical one of
// {u, -u} (its highest nonzero trit is -1), negated if needed; u = 0 (probability 3^-m) skips the point. The
// K = (3^m - 1) / 2 bucket sums S_b are formed with batched affine additions (points sorted by bucket, pairwise
// trees, Montgomery's trick: ~6 multiplications per addition, eight at a time on AVX-512 IFMA) — one addition per
// point per round — and then Q_j = sum_b trit_j(b) S_b for all j is a linear "fold" over the 3^m index cube costing
// ~1.17 * 3^m additions (batch_subgroup.cpp). So a round costs n + 1.17 * 3^m additions plus m tests, and the
// planner picks the rounds: 5 rounds of 8-9 trits at n = 2^16, 4 rounds of 10-11 trits at 2^20, 3 rounds of 13-14
// trits from about 2^24 on, more rounds of fewer trits for small n, and the per-point test below a few dozen points.
// Three rounds (three additions per point) is the floor for 64 bits at any practical n: two would need 21 trits
// per round, 5 * 10^9 buckets. Measured (bench/bench_subgroup.cpp) on a 16-vCPU Xeon with AVX-512 IFMA:
// G1 0.96 M points/s on one thread at 2^20 (the per-point test: 13.0 k/s), 9.2 M/s on 16 threads at 2^20 and
// 14.8 M/s at 2^25; G2 0.40 M/s on one thread and 3.9 M/s on 16 at 2^20, 4.9 M/s at 2^23 (per-point: 11.5 k/s).
//
// References: Koshelev, El Housni, Fotiadis, "Batch subgroup membership testing on pairing-friendly curves"
// (ePrint 2025/1311: per-point Tate-pairing tests for the factors 3 and 11, then random combinations for the
// larger ones, reported slower than per-point tests on BLS12-381 because of the per-point part);
// random buckets each tested on its own (batch_verify_in_subgroup of zexe/celo's algebra-core, used by the
// snark-setup ceremonies: per round one test per bucket, here one test per trit); the small exponents test of
// Bellare, Garay, Rabin (EUROCRYPT '98); Scott, ePrint 2021/1130 (the per-point tests). What makes 10-14 trits
// per round pay here: signed buckets (one for {u, -u}, the zero vector skipped) and the linear-time fold.
//
// Preconditions: every point is on its curve (as every cuzk decoder guarantees, checked or unchecked); the point at
// infinity is allowed (it is in the subgroup). Off-curve points void the bound.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "cuzk/ec/g1.hpp"
#include "cuzk/ec/g2.hpp"

namespace cuzk {

class ThreadPool;

struct BatchSubgroupOptions {
    // A span holding a point outside the subgroup is accepted with probability at most 2^-security_bits (1..256).
    unsigned security_bits = 64;
    // The pool that runs the check; nullptr: ThreadPool::global().
    ThreadPool* pool = nullptr;
    // Tests and benchmarks only: derive the randomness from this seed instead of the OS CSPRNG. Whoever knows the
    // seed can craft points that pass, so never set it for data from outside.
    std::optional<uint64_t> insecure_seed;
};

// True when every point is in G1 (G2). Points must be on the curve (see above).
bool g1_batch_in_subgroup(std::span<const G1Affine> points, const BatchSubgroupOptions& options = {});
bool g2_batch_in_subgroup(std::span<const G2Affine> points, const BatchSubgroupOptions& options = {});

// The index of the first point not in G1 (G2), or nullopt when all are (wrong with probability <= 2^-security_bits:
// a "nullopt" can miss bad points, and a reported index can be a later bad point than the first). When the batched
// check fails, halves are checked again (about twice the work of one check in all) down to a few thousand points,
// which get the exact per-point test, so the index is always that of a point really outside the subgroup.
std::optional<size_t> g1_batch_first_not_in_subgroup(std::span<const G1Affine> points,
                                                     const BatchSubgroupOptions& options = {});
std::optional<size_t> g2_batch_first_not_in_subgroup(std::span<const G2Affine> points,
                                                     const BatchSubgroupOptions& options = {});

// ---- the bucket sums formed elsewhere (gpu/subgroup.hpp) ---------------------------------------------------------
// A device that forms the bucket sums of rounds itself; the fold, the exact tests of the combinations and the search
// for the first bad point stay here, so the soundness argument above covers both.
template <class Cfg>
class BatchRoundSource {
public:
    virtual ~BatchRoundSource() = default;
    // Most points of one batch (larger spans are checked in independent batches, each with its own key).
    virtual size_t max_points() const = 0;
    // The trits of each round for n points and t trits in all (their sum must be at least t).
    virtual std::vector<unsigned> plan(size_t n, unsigned t) const = 0;
    // For round r = 0, 1, ... (trits[r] trits, labels batch_subgroup_label(key, r, trits[r], i)) the K_r =
    // (3^trits[r] - 1) / 2 bucket sums: sums[r][b] = sum of the points whose label's canonical trit vector is b (a
    // point whose label is >= K_r + 1 enters bucket 3^m - 1 - label negated; label K_r is skipped).
    virtual std::vector<std::vector<Affine<Cfg>>> sums(std::span<const Affine<Cfg>> points,
                                                       std::span<const unsigned> trits, const uint32_t key[8]) = 0;
};

// The checks above with the bucket sums from `source`.
bool g1_batch_in_subgroup(std::span<const G1Affine> points, const BatchSubgroupOptions& options,
                          BatchRoundSource<G1Config>& source);
bool g2_batch_in_subgroup(std::span<const G2Affine> points, const BatchSubgroupOptions& options,
                          BatchRoundSource<G2Config>& source);
std::optional<size_t> g1_batch_first_not_in_subgroup(std::span<const G1Affine> points,
                                                     const BatchSubgroupOptions& options,
                                                     BatchRoundSource<G1Config>& source);
std::optional<size_t> g2_batch_first_not_in_subgroup(std::span<const G2Affine> points,
                                                     const BatchSubgroupOptions& options,
                                                     BatchRoundSource<G2Config>& source);

// ---- points the caller cannot hand over as a span (resident on a device: gpu/subgroup.hpp) -----------------------
// A source that holds size() points itself and forms the bucket sums of any index range of them. Batches of at most
// max_points() points, each with its own key, are checked as by the span checks above; there is no per-point
// fallback (the points are not here), so plan must always give rounds, and no first-bad-point search (the caller
// names a bad point from its own copy, e.g. by reading the file again). The soundness argument above is unchanged:
// it needs only that the labels are the ones batch_subgroup_label gives for the key and the batch's local index.
template <class Cfg>
class ResidentRoundSource {
public:
    virtual ~ResidentRoundSource() = default;
    virtual size_t size() const = 0;
    virtual size_t max_points() const = 0;
    // The trits of each round for a batch of n points and t trits in all (never empty; their sum must be >= t).
    virtual std::vector<unsigned> plan(size_t n, unsigned t) const = 0;
    // BatchRoundSource::sums for the count points from index first (point first + i has local index i).
    virtual std::vector<std::vector<Affine<Cfg>>> sums(size_t first, size_t count, std::span<const unsigned> trits,
                                                       const uint32_t key[8]) = 0;
};

// True when every point of the source is in G1 (G2), wrong with probability at most 2^-security_bits.
bool g1_batch_in_subgroup(ResidentRoundSource<G1Config>& source, const BatchSubgroupOptions& options = {});
bool g2_batch_in_subgroup(ResidentRoundSource<G2Config>& source, const BatchSubgroupOptions& options = {});

// The m combinations Q_j of a round from its K = (3^m - 1) / 2 bucket sums (overwritten: the fold works in place).
std::vector<G1Jacobian> g1_batch_fold(std::span<G1Affine> sums, unsigned m, ThreadPool* pool = nullptr);
std::vector<G2Jacobian> g2_batch_fold(std::span<G2Affine> sums, unsigned m, ThreadPool* pool = nullptr);

// ---- details, for tests and benchmarks --------------------------------------------------------------------------

// The rounds chosen for n points: trits per round (their sum >= ceil(security_bits / log2 3)), or none when the
// per-point test is cheaper.
struct BatchSubgroupPlan {
    std::vector<unsigned> trits;
    bool per_point() const { return trits.empty(); }
};
BatchSubgroupPlan batch_subgroup_plan(size_t n, bool g2, unsigned security_bits = 64);

// The trits needed for security_bits: the least t with 3^-t <= 2^-security_bits.
unsigned batch_subgroup_trits(unsigned security_bits);

// One round with m trits and the given 256-bit key, round number and explicit plan, returning its m combinations
// Q_j = sum_i u_ij P_i (exposed so tests can compare them with a direct evaluation of the same trit vectors).
std::vector<G1Jacobian> g1_batch_round(std::span<const G1Affine> points, unsigned m, const uint32_t key[8],
                                       uint32_t round, ThreadPool* pool = nullptr);
std::vector<G2Jacobian> g2_batch_round(std::span<const G2Affine> points, unsigned m, const uint32_t key[8],
                                       uint32_t round, ThreadPool* pool = nullptr);
// The label of point i in a round (uniform in [0, 3^m); its base-3 digits minus one are the trits u_i0..u_i(m-1)).
uint32_t batch_subgroup_label(const uint32_t key[8], uint32_t round, unsigned m, size_t i);

// The ChaCha20 block function of RFC 8439 (tests compare it with the RFC's vector).
void chacha20_block(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3], uint32_t out[16]);

}  // namespace cuzk
