// Poseidon over BLS12-381's Fr: the parameter derivation (Grain LFSR, Cauchy MDS, round numbers), the native
// permutation against the reference implementation's published vectors, and the gadget against the native hash.
#include <gtest/gtest.h>

#include <cmath>
#include <deque>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "cuzk/circuits/standin/poseidon.hpp"
#include "cuzk/r1cs/keygen_assembly.hpp"
#include "cuzk/r1cs/proving_assignment.hpp"
#include "cuzk/r1cs/test_cs.hpp"

using namespace cuzk;
using namespace cuzk::standin;
using namespace cuzk::r1cs;

namespace {
std::mt19937_64 fresh_rng() { return std::mt19937_64(((uint64_t)std::random_device{}() << 32) | std::random_device{}()); }

// (r - 1) mod m from the canonical limbs, by Horner over 2^64 (independent of the field code).
uint64_t r_minus_1_mod(uint64_t m) {
    limbs_t<4> p = Fr::P;
    p[0] -= 1;  // r is odd, so no borrow
    unsigned __int128 acc = 0;
    for (size_t i = 4; i-- > 0;) acc = ((acc << 64) + p[i]) % m;
    return (uint64_t)acc;
}

// A second Grain LFSR, written as the paper's pseudo-code reads: a list of 80 bits, pop the front, push the new
// bit at the back; the seed built as a string of '0'/'1'.
class BitListGrain {
public:
    BitListGrain(unsigned t, unsigned rf, unsigned rp) {
        auto bin = [](unsigned v, unsigned width) {
            std::string s;
            for (unsigned i = 0; i < width; i++) s.insert(s.begin(), char('0' + ((v >> i) & 1)));
            return s;
        };
        std::string seed = bin(1, 2) + bin(0, 4) + bin(255, 12) + bin(t, 12) + bin(rf, 10) + bin(rp, 10) +
                           std::string(30, '1');
        EXPECT_EQ(seed.size(), 80u);
        for (char c : seed) bits_.push_back(c - '0');
        for (int i = 0; i < 160; i++) step();
    }
    int step() {
        int nb = bits_[62] ^ bits_[51] ^ bits_[38] ^ bits_[23] ^ bits_[13] ^ bits_[0];
        bits_.pop_front();
        bits_.push_back(nb);
        return nb;
    }
    int filtered() {
        int b = step();
        while (b == 0) {
            step();      // discarded partner of a 0
            b = step();  // next selector bit
        }
        return step();
    }
    // n bits MSB-first as little-endian limbs.
    limbs_t<4> draw() {
        std::vector<int> v;
        for (int i = 0; i < 255; i++) v.push_back(filtered());
        limbs_t<4> out{};
        for (int i = 0; i < 255; i++) {
            int weight = 254 - i;
            if (v[i]) out[weight / 64] |= uint64_t{1} << (weight % 64);
        }
        return out;
    }

private:
    std::deque<int> bits_;
};

bool limbs_less(const limbs_t<4>& a, const limbs_t<4>& b) {
    for (size_t i = 4; i-- > 0;)
        if (a[i] != b[i]) return a[i] < b[i];
    return false;
}

// Rank of a square matrix over Fr by Gaussian elimination.
size_t rank(std::vector<std::vector<Fr>> m) {
    size_t n = m.size(), rk = 0;
    for (size_t col = 0; col < n && rk < n; col++) {
        size_t piv = rk;
        while (piv < n && m[piv][col].is_zero()) piv++;
        if (piv == n) continue;
        std::swap(m[piv], m[rk]);
        Fr inv = *m[rk][col].inverse();
        for (size_t r = 0; r < n; r++) {
            if (r == rk || m[r][col].is_zero()) continue;
            Fr f = m[r][col] * inv;
            for (size_t c = col; c < n; c++) m[r][c] -= f * m[rk][c];
        }
        rk++;
    }
    return rk;
}

// The security inequalities of the Poseidon reference's calc_round_numbers.py for x^alpha over a prime field
// (statistical, interpolation, Groebner 1-3, and the bound added after eprint 2023/537), M = 128.
bool poseidon_secure(double log2p, int t, int rf, int rp, int alpha = 5, double M = 128) {
    const double n = std::ceil(log2p);
    const double la2 = std::log(2.0) / std::log((double)alpha);  // log_alpha(2)
    double r1 = M <= std::floor(log2p - (alpha - 1) / 2.0) * (t + 1) ? 6 : 10;
    double r2 = 1 + std::ceil(la2 * std::min(M, n)) + std::ceil(std::log((double)t) / std::log((double)alpha)) - rp;
    double r3 = la2 * std::min(M, log2p) - rp;
    double r4 = t - 1 + la2 * std::min(M / (t + 1), log2p / 2) - rp;
    double r5 = (t - 2 + M / (2 * std::log2((double)alpha)) - rp) / (t - 1);
    double need = std::max({std::ceil(r1), std::ceil(r2), std::ceil(r3), std::ceil(r4), std::ceil(r5)});
    if (rf < need) return false;
    double rt = std::floor(t / 3.0);
    double over = (rf - 1) * t + rp + rt + rt * (rf / 2.0) + rp + alpha;
    double under = rt * (rf / 2.0) + rp + alpha;
    double log2binom = (std::lgamma(over + 1) - std::lgamma(under + 1) - std::lgamma(over - under + 1)) / std::log(2.0);
    return std::ceil(2 * log2binom) >= M;
}

// The script's choice: the (R_F, R_P) minimising t * R_F + R_P after its margin (R_F + 2, ceil(1.075 * R_P)).
std::pair<int, int> script_round_numbers(double log2p, int t) {
    int best_cost = 1 << 30, best_rf = 0, best_rp = 0;
    for (int rp = 1; rp < 500; rp++)
        for (int rf = 4; rf < 100; rf += 2)
            if (poseidon_secure(log2p, t, rf, rp)) {
                int mrf = rf + 2, mrp = (int)std::ceil(rp * 1.075);
                int cost = t * mrf + mrp;
                if (cost < best_cost || (cost == best_cost && mrf < best_rf)) best_cost = cost, best_rf = mrf, best_rp = mrp;
            }
    return {best_rf, best_rp};
}

double log2_r() { return std::log2((double)Fr::P[3]) + 192.0 + std::log2(1.0 + (double)Fr::P[2] / 18446744073709551616.0 / (double)Fr::P[3]); }

Fr hex(const char* s) { return Fr::from_hex(s); }
}  // namespace

TEST(StandinPoseidonParams, AlphaFiveIsAPermutationOfFr) {
    // x -> x^alpha is a bijection of Fr iff gcd(alpha, r - 1) = 1; 5 is prime, so iff 5 does not divide r - 1.
    EXPECT_NE(r_minus_1_mod(5), 0u);
    // ... and 3 divides r - 1, which is why x^3 is not an option here and 5 is the smallest alpha.
    EXPECT_EQ(r_minus_1_mod(3), 0u);
    EXPECT_EQ(kPoseidonAlpha, 5u);
    // A bijection has no nontrivial collisions: x^5 = 1 only for x = 1 (a 5th root of unity would need 5 | r - 1).
    auto rng = fresh_rng();
    for (int i = 0; i < 20; i++) {
        Fr x = Fr::random(rng);
        if (x == Fr::one()) continue;
        EXPECT_NE(poseidon_sbox(x), Fr::one());
    }
}

TEST(StandinPoseidonParams, RoundNumbersMeetThePaperBounds) {
    double l2 = log2_r();
    EXPECT_NEAR(l2, 254.857, 0.001);
    // The script's outputs for 255-bit p, x^5, M = 128 (margin included): what poseidon_params.hpp documents.
    EXPECT_EQ(script_round_numbers(l2, 3), std::make_pair(8, 56));
    EXPECT_EQ(script_round_numbers(l2, 9), std::make_pair(8, 57));
    EXPECT_EQ(script_round_numbers(l2, 12), std::make_pair(8, 57));
    for (size_t arity : kPoseidonArities) {
        const auto& p = poseidon_params(arity);
        EXPECT_EQ(p.t, arity + 1);
        EXPECT_EQ(p.full_rounds, 8u);
        auto [rf, rp] = script_round_numbers(l2, (int)p.t);
        EXPECT_GE((int)p.full_rounds, rf) << "arity " << arity;
        EXPECT_GE((int)p.partial_rounds, rp) << "arity " << arity;
        // Secure even without the margin taken off: R_F - 2 full and R_P / 1.075 partial rounds pass every bound.
        EXPECT_TRUE(poseidon_secure(l2, (int)p.t, (int)p.full_rounds - 2, (int)std::floor(p.partial_rounds / 1.075)));
    }
    // The check can fail: too few partial rounds are insecure.
    EXPECT_FALSE(poseidon_secure(l2, 3, 6, 40));
    EXPECT_EQ(poseidon_partial_rounds(2), 57u);
    EXPECT_EQ(poseidon_partial_rounds(8), 57u);
    EXPECT_EQ(poseidon_partial_rounds(11), 57u);
    EXPECT_THROW(poseidon_partial_rounds(4), std::invalid_argument);
    EXPECT_THROW(poseidon_params(3), std::invalid_argument);
}

TEST(StandinPoseidonParams, GrainMatchesABitListReimplementation) {
    for (size_t arity : kPoseidonArities) {
        const auto& p = poseidon_params(arity);
        ASSERT_EQ(p.round_constants.size(), p.rounds() * p.t);
        ASSERT_EQ(p.mds.size(), p.t * p.t);
        BitListGrain g((unsigned)p.t, (unsigned)p.full_rounds, (unsigned)p.partial_rounds);
        size_t rejected = 0;
        for (size_t i = 0; i < p.round_constants.size(); i++) {
            limbs_t<4> v = g.draw();
            while (!limbs_less(v, Fr::P)) v = g.draw(), rejected++;
            ASSERT_EQ(p.round_constants[i].to_canonical(), v) << "arity " << arity << " constant " << i;
        }
        // 2^255 / r ~ 1.75, so about 43 % of draws are rejected: the rejection path is exercised.
        EXPECT_GT(rejected, 0u);
        // The MDS points continue the same stream, reduced (not rejected) mod r; here the first 2t are usable.
        std::vector<Fr> pts;
        for (size_t i = 0; i < 2 * p.t; i++) {
            limbs_t<4> v = g.draw();
            if (!limbs_less(v, Fr::P)) bigint::sub(v, v, Fr::P);
            pts.push_back(*Fr::from_canonical(v));
        }
        for (size_t i = 0; i < p.t; i++)
            for (size_t j = 0; j < p.t; j++)
                ASSERT_EQ(p.m(i, j) * (pts[i] + pts[p.t + j]), Fr::one()) << "arity " << arity << " M" << i << j;
    }
    // The stream itself: the same seed gives the same bits.
    GrainLfsr a(1, 0, 255, 3, 8, 57), b(1, 0, 255, 3, 8, 57), c(1, 0, 255, 3, 8, 56);
    EXPECT_EQ(a.next_bits(255), b.next_bits(255));
    GrainLfsr d(1, 0, 255, 3, 8, 57);
    EXPECT_NE(d.next_bits(255), c.next_bits(255));  // R_P is part of the seed
    EXPECT_THROW(GrainLfsr(1, 0, 255, 4096, 8, 57), std::invalid_argument);  // t does not fit 12 bits
}

TEST(StandinPoseidonParams, GenerationIsDeterministic) {
    PoseidonParams a = generate_poseidon_params(3, 8, 57), b = generate_poseidon_params(3, 8, 57);
    EXPECT_EQ(a.round_constants, b.round_constants);
    EXPECT_EQ(a.mds, b.mds);
    EXPECT_EQ(a.round_constants, poseidon_params(2).round_constants);
    EXPECT_EQ(a.mds, poseidon_params(2).mds);
    // Same static object on every call.
    EXPECT_EQ(&poseidon_params(8), &poseidon_params(8));
    // A different R_P seeds the LFSR differently: no constant is shared with the 56-round variant.
    PoseidonParams c = generate_poseidon_params(3, 8, 56);
    EXPECT_NE(a.round_constants[0], c.round_constants[0]);
    EXPECT_THROW(generate_poseidon_params(3, 7, 57), std::invalid_argument);
}

TEST(StandinPoseidonParams, MdsIsInvertibleWithNonzeroEntriesAndNonsingularMinors) {
    for (size_t arity : kPoseidonArities) {
        const auto& p = poseidon_params(arity);
        const size_t t = p.t;
        std::vector<std::vector<Fr>> m(t, std::vector<Fr>(t));
        for (size_t i = 0; i < t; i++)
            for (size_t j = 0; j < t; j++) {
                m[i][j] = p.m(i, j);
                EXPECT_FALSE(m[i][j].is_zero()) << "arity " << arity;
            }
        EXPECT_EQ(rank(m), t) << "arity " << arity;
        // Every 2x2 minor is nonzero (part of the MDS property; a Cauchy matrix has them all).
        size_t zero_minors = 0;
        for (size_t i0 = 0; i0 < t; i0++)
            for (size_t i1 = i0 + 1; i1 < t; i1++)
                for (size_t j0 = 0; j0 < t; j0++)
                    for (size_t j1 = j0 + 1; j1 < t; j1++)
                        zero_minors += (m[i0][j0] * m[i1][j1] - m[i0][j1] * m[i1][j0]).is_zero();
        EXPECT_EQ(zero_minors, 0u) << "arity " << arity;
    }
    // The check can fail: a rank-deficient matrix is seen.
    std::vector<std::vector<Fr>> bad{{Fr::one(), Fr::from_u64(2)}, {Fr::from_u64(2), Fr::from_u64(4)}};
    EXPECT_EQ(rank(bad), 1u);
}

// Published vectors of the Poseidon reference implementation (hadeshash, code/test_vectors.txt:
// poseidonperm_x5_255_3 and poseidonperm_x5_255_5, BLS12-381 Fr, x^5, R_F = 8, R_P = 57 resp. 60): the permutation
// of (0, 1, 2) and of (0, 1, 2, 3, 4). The t = 3 one is our arity-2 instance exactly; the t = 5 one checks the same
// generator and round structure at another width.
TEST(StandinPoseidonNative, MatchesReferenceTestVectors) {
    std::vector<Fr> s3{Fr::from_u64(0), Fr::from_u64(1), Fr::from_u64(2)};
    poseidon_permute(poseidon_params(2), s3);
    EXPECT_EQ(s3[0], hex("0x28ce19420fc246a05553ad1e8c98f5c9d67166be2c18e9e4cb4b4e317dd2a78a"));
    EXPECT_EQ(s3[1], hex("0x51f3e312c95343a896cfd8945ea82ba956c1118ce9b9859b6ea56637b4b1ddc4"));
    EXPECT_EQ(s3[2], hex("0x3b2b69139b235626a0bfb56c9527ae66a7bf486ad8c11c14d1da0c69bbe0f79a"));

    PoseidonParams p5 = generate_poseidon_params(5, 8, 60);
    std::vector<Fr> s5;
    for (uint64_t i = 0; i < 5; i++) s5.push_back(Fr::from_u64(i));
    poseidon_permute(p5, s5);
    EXPECT_EQ(s5[0], hex("0x2a918b9c9f9bd7bb509331c81e297b5707f6fc7393dcee1b13901a0b22202e18"));
    EXPECT_EQ(s5[1], hex("0x65ebf8671739eeb11fb217f2d5c5bf4a0c3f210e3f3cd3b08b5db75675d797f7"));
    EXPECT_EQ(s5[2], hex("0x2cc176fc26bc70737a696a9dfd1b636ce360ee76926d182390cdb7459cf585ce"));
    EXPECT_EQ(s5[3], hex("0x4dc4e29d283afd2a491fe6aef122b9a968e74eff05341f3cc23fda1781dcb566"));
    EXPECT_EQ(s5[4], hex("0x03ff622da276830b9451b88b85e6184fd6ae15c8ab3ee25a5667be8592cce3b1"));
}

TEST(StandinPoseidonNative, HashIsTheTaggedPermutation) {
    auto rng = fresh_rng();
    for (size_t arity : kPoseidonArities) {
        std::vector<Fr> in(arity);
        for (auto& x : in) x = Fr::random(rng);
        // The documented definition: [2^arity - 1, inputs...] permuted, element 1.
        std::vector<Fr> state{Fr::from_u64((1u << arity) - 1)};
        state.insert(state.end(), in.begin(), in.end());
        poseidon_permute(poseidon_params(arity), state);
        Fr h = poseidon_hash(in);
        EXPECT_EQ(h, state[1]);
        // Every input matters.
        for (size_t i = 0; i < arity; i++) {
            auto changed = in;
            changed[i] += Fr::one();
            EXPECT_NE(poseidon_hash(changed), h) << "arity " << arity << " input " << i;
        }
    }
    std::vector<Fr> three(3, Fr::one());
    EXPECT_THROW(poseidon_hash(three), std::invalid_argument);
    std::vector<Fr> wrong(4);
    EXPECT_THROW(poseidon_permute(poseidon_params(2), wrong), std::invalid_argument);
}

namespace {
// 3 constraints per S-box: t per full round, 1 per partial round; plus 1 binding the output to its variable.
size_t expected_constraints(size_t arity) {
    const auto& p = poseidon_params(arity);
    return 3 * (p.t * p.full_rounds + p.partial_rounds) + 1;
}
}  // namespace

TEST(StandinPoseidonGadget, MatchesNativeHashAndIsSatisfied) {
    auto rng = fresh_rng();
    // Pinned: 3 * (t * 8 + 57) + 1 for t = 3, 9, 12.
    const std::map<size_t, size_t> pinned{{2, 244}, {8, 388}, {11, 460}};
    for (size_t arity : kPoseidonArities) {
        EXPECT_EQ(expected_constraints(arity), pinned.at(arity));
        TestConstraintSystem cs;
        std::vector<Fr> vals(arity);
        std::vector<LC> in;
        for (size_t i = 0; i < arity; i++) {
            vals[i] = Fr::random(rng);
            in.emplace_back(cs.alloc([i] { return "in " + std::to_string(i); }, [&] { return vals[i]; }));
        }
        const size_t aux_before = cs.num_aux();
        Variable out = poseidon_hash_gadget(cs, std::span<const LC>(in));
        EXPECT_EQ(cs.aux().at(out.index()), poseidon_hash(vals)) << "arity " << arity;
        EXPECT_TRUE(cs.is_satisfied()) << *cs.which_is_unsatisfied();
        EXPECT_EQ(cs.num_constraints(), pinned.at(arity)) << "arity " << arity;
        // Three variables per S-box and the output: one aux variable per constraint.
        EXPECT_EQ(cs.num_aux() - aux_before, pinned.at(arity));
        EXPECT_EQ(cs.get("poseidon" + std::to_string(arity) + "/hash"), poseidon_hash(vals));

        // A changed witness is caught: an S-box intermediate deep in the partial rounds, and the output.
        const size_t mid = aux_before + 3 * poseidon_params(arity).t * 4 + 3 * 20 + 1;  // an x^4 of a partial round
        Fr saved = cs.aux()[mid];
        cs.set_aux(mid, saved + Fr::one());
        ASSERT_FALSE(cs.is_satisfied());
        EXPECT_NE(cs.which_is_unsatisfied()->find("round 24/elt 0/"), std::string::npos) << *cs.which_is_unsatisfied();
        cs.set_aux(mid, saved);
        EXPECT_TRUE(cs.is_satisfied());
        cs.set_aux(out.index(), cs.aux()[out.index()] + Fr::one());
        ASSERT_FALSE(cs.is_satisfied());
        EXPECT_EQ(*cs.which_is_unsatisfied(), "poseidon" + std::to_string(arity) + "/hash = state[1]");
        // Changing an input without recomputing the witness breaks the first round.
        cs.set_aux(out.index(), cs.aux()[out.index()] - Fr::one());
        cs.set_aux(in[0].terms()[0].var.index(), vals[0] + Fr::one());
        EXPECT_FALSE(cs.is_satisfied());
    }
}

TEST(StandinPoseidonGadget, GeneralLinearCombinationInputs) {
    // Inputs given as combinations with coefficients, constants and a variable shared between inputs: the gadget
    // must merge them exactly (input i = 3a + b + i, or a - 2b).
    auto rng = fresh_rng();
    for (size_t arity : kPoseidonArities) {
        TestConstraintSystem cs;
        Fr a = Fr::random(rng), b = Fr::random(rng);
        Variable va = cs.alloc("a", [&] { return a; }), vb = cs.alloc("b", [&] { return b; });
        std::vector<LC> in;
        std::vector<Fr> vals;
        for (size_t i = 0; i < arity; i++) {
            if (i % 2 == 0) {
                in.push_back(LC().add(Fr::from_u64(3), va).add(vb).add(Fr::from_u64(i), Variable::one()));
                vals.push_back(Fr::from_u64(3) * a + b + Fr::from_u64(i));
            } else {
                in.push_back(LC(va).add(-Fr::from_u64(2), vb));
                vals.push_back(a - Fr::from_u64(2) * b);
            }
        }
        Variable out = poseidon_hash_gadget(cs, std::span<const LC>(in));
        EXPECT_EQ(cs.aux().at(out.index()), poseidon_hash(vals)) << "arity " << arity;
        EXPECT_TRUE(cs.is_satisfied());
        EXPECT_EQ(cs.num_constraints(), expected_constraints(arity));
        cs.set_aux(vb.index(), b + Fr::one());
        EXPECT_FALSE(cs.is_satisfied());
    }
}

TEST(StandinPoseidonGadget, ThreeSystemsAgree) {
    auto rng = fresh_rng();
    for (size_t arity : kPoseidonArities) {
        std::vector<Fr> vals(arity);
        for (auto& v : vals) v = Fr::random(rng);

        KeygenAssembly kg;
        kg.alloc_input("one", [] { return Fr::one(); });
        std::vector<LC> kin;
        // The key generator never asks for values: a value function that throws proves it.
        for (size_t i = 0; i < arity; i++)
            kin.emplace_back(kg.alloc("in", []() -> Fr { throw std::logic_error("keygen asked for a value"); }));
        poseidon_hash_gadget(kg, std::span<const LC>(kin));
        EXPECT_EQ(kg.num_constraints(), expected_constraints(arity));

        ProvingAssignment pa;
        pa.alloc_input("one", [] { return Fr::one(); });
        std::vector<LC> pin;
        for (size_t i = 0; i < arity; i++) pin.emplace_back(pa.alloc("in", [&] { return vals[i]; }));
        Variable out = poseidon_hash_gadget(pa, std::span<const LC>(pin));
        EXPECT_EQ(pa.aux().at(out.index()), poseidon_hash(vals));
        ASSERT_EQ(pa.num_constraints(), expected_constraints(arity));
        EXPECT_EQ(pa.aux().size(), kg.num_aux());
        size_t bad = 0;
        for (size_t j = 0; j < pa.num_constraints(); j++) bad += !(pa.a()[j] * pa.b()[j] == pa.c()[j]);
        EXPECT_EQ(bad, 0u) << "arity " << arity;
    }
}

TEST(StandinPoseidonGadget, ShapeIsPinned) {
    // The structure (every term of every constraint) for fixed input variables, so a change to the gadget's
    // constraints shows up here even when the counts stay the same.
    const std::map<size_t, std::string> pinned{
        {2, "b78562370eb36ede0270fa23415060224b61546f2f7adb774f8688c842990ea3"},
        {8, "e9ee30ffeac3de16bf0e21dd9d7bc523f6c73381f020eede11c73adcc45d7cd1"},
        {11, "2e5cd634715c5fc605cc6126a2c6a3ecd4b47333ec97c7fe01b4fa816cc8595e"}};
    for (size_t arity : kPoseidonArities) {
        TestConstraintSystem cs;
        std::vector<LC> in;
        for (size_t i = 0; i < arity; i++)
            in.emplace_back(cs.alloc([i] { return "in " + std::to_string(i); }, [i] { return Fr::from_u64(i); }));
        poseidon_hash_gadget(cs, std::span<const LC>(in));
        EXPECT_EQ(cs.shape_hash_hex(), pinned.at(arity)) << "arity " << arity;
    }
}
