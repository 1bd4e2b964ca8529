// SHA-256's compression for witness-only systems (WitnessAssignment, WitnessFragment): the aux values the gadget in
// sha256.hpp allocates, the same ones in the same order, computed 32 bits at a time.
//
// Such a system records no constraint, so inside a compression a bit is only its kind (constant, Is or Not: what
// bellperson's folding decides on), its value and, for Is / Not, the value of the allocated bit under it. A word
// keeps those as three masks; xor folds constants with masks, and ch / maj (which fold constants case by case) go bit
// by bit only when an operand has a constant bit (the first rounds after a constant IV, padding blocks). Every
// output word is an addmany result (fresh bits, or a constant), so only those bits' variables are kept. The gadget
// path stays the definition: tests/test_gadgets_sha256.cpp compares the two on random mixes of constant, allocated
// and negated bits, and every PoRep witness test runs through this path.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <stdexcept>

#include "cuzk/gadgets/sha256_constants.hpp"
#include "cuzk/gadgets/uint32.hpp"
#include "cuzk/r1cs/witness_assignment.hpp"

namespace cuzk::gadgets::detail {

// Systems that only record values and allocate bits in runs (alloc_bits): the word-level compression gives them
// the same aux values as the gadget.
template <class CS>
constexpr bool witness_only() {
    return CS::kNeedsValues && !records_constraints<CS>() &&
           requires(CS& cs, uint64_t bits, int count) { cs.alloc_bits(bits, count); };
}

// A word as a witness-only system sees it, bit i of each mask for bit i of the word (least significant first).
struct WitnessWord {
    uint32_t v = 0;     // the Booleans' values
    uint32_t c = ~0u;   // constant bits
    uint32_t n = 0;     // Not bits (never where c is set); the allocated bit under bit i is v ^ n there

    static WitnessWord constant(uint32_t x) { return {x, ~0u, 0}; }
    WitnessWord rotr(int k) const { return {std::rotr(v, k), std::rotr(c, k), std::rotr(n, k)}; }
    // 0 < k < 32: the shifted-in bits are constant false (UInt32::shr).
    WitnessWord shr(int k) const { return {v >> k, (c >> k) | ~(~0u >> k), n >> k}; }
    bool all_constant() const { return c == ~0u; }
};

// One bit of a WitnessWord, for the cases the masks do not cover.
struct WitnessBit {
    bool c, v, n;
    WitnessBit negated() const { return {c, !v, c ? false : !n}; }
    bool is_false() const { return c && !v; }
    bool is_true() const { return c && v; }
};

template <class CS>
class WitnessSha256 {
public:
    explicit WitnessSha256(CS& cs) : cs_(cs) {}

    // nullopt when the block is not 512 bits or a bit of it or of the state has no value: the gadget path then
    // reports it.
    std::optional<std::array<UInt32, 8>> compress(std::span<const Boolean> input,
                                                  const std::array<UInt32, 8>& current) {
        if (input.size() != 512) return std::nullopt;
        std::array<WitnessWord, 64> w;
        std::array<WitnessWord, 8> state;
        for (int i = 0; i < 16; i++) {
            std::array<Boolean, 32> le;
            for (int j = 0; j < 32; j++) le[j] = input[32 * i + 31 - j];  // UInt32::from_bits_be
            if (!word_of(le, w[i])) return std::nullopt;
        }
        for (int j = 0; j < 8; j++)
            if (!word_of(current[j].bits_le(), state[j])) return std::nullopt;

        for (int i = 16; i < 64; i++) {
            const WitnessWord s0 = xor_(xor_(w[i - 15].rotr(7), w[i - 15].rotr(18)), w[i - 15].shr(3));
            const WitnessWord s1 = xor_(xor_(w[i - 2].rotr(17), w[i - 2].rotr(19)), w[i - 2].shr(10));
            const std::array<WitnessWord, 4> ops = {w[i - 16], s0, w[i - 7], s1};
            w[i] = addmany(ops);
        }

        Maybe a = Maybe::of(state[0]), e = Maybe::of(state[4]);
        WitnessWord b = state[1], c = state[2], d = state[3], f = state[5], g = state[6], h = state[7];
        for (int i = 0; i < 64; i++) {
            const WitnessWord new_e = e.compute(*this);
            const WitnessWord s1 = xor_(xor_(new_e.rotr(6), new_e.rotr(11)), new_e.rotr(25));
            const WitnessWord ch = sha256_ch(new_e, f, g);
            const WitnessWord k = WitnessWord::constant(kSha256RoundConstants[i]);
            const WitnessWord new_a = a.compute(*this);
            const WitnessWord s0 = xor_(xor_(new_a.rotr(2), new_a.rotr(13)), new_a.rotr(22));
            const WitnessWord maj = sha256_maj(new_a, b, c);
            e.defer({h, s1, ch, k, w[i], d});
            a.defer({h, s1, ch, k, w[i], s0, maj});
            h = g;
            g = f;
            f = new_e;
            d = c;
            c = b;
            b = new_a;
        }

        // The gadget's order: h0 (deferred a + h0), h1..h3, h4 (deferred e + h4), h5..h7.
        std::array<UInt32, 8> out;
        out[0] = a.output(*this, state[0]);
        const WitnessWord last[8] = {{}, b, c, d, {}, f, g, h};
        for (int j = 1; j < 8; j++) {
            if (j == 4) {
                out[4] = e.output(*this, state[4]);
                continue;
            }
            std::array<Variable, 32> vars;
            const std::array<WitnessWord, 2> ops = {state[j], last[j]};
            out[j] = as_uint32(addmany(ops, &vars), vars);
        }
        r1cs::detail::stores_done();
        return out;
    }

private:
    // bellperson's Maybe (sha256.hpp's MaybeWord) over WitnessWords.
    struct Maybe {
        bool concrete = true;
        WitnessWord word;
        std::array<WitnessWord, 8> ops;  // at most 8 operands occur (h0 = 7 deferred + 1)
        size_t n = 0;

        static Maybe of(const WitnessWord& w) {
            Maybe m;
            m.word = w;
            return m;
        }
        void defer(std::initializer_list<WitnessWord> parts) {
            concrete = false;
            n = 0;
            for (const WitnessWord& p : parts) ops[n++] = p;
        }
        WitnessWord compute(WitnessSha256& s) const {
            return concrete ? word : s.addmany(std::span<const WitnessWord>(ops.data(), n));
        }
        // The final state word: the deferred sum plus the incoming word (a concrete word ignores it, as the gadget's
        // does, and then is the incoming word itself, which is only possible for a compression of no rounds).
        UInt32 output(WitnessSha256& s, const WitnessWord& incoming) {
            if (concrete) throw std::logic_error("sha256 witness: a state word was never deferred");
            ops[n++] = incoming;
            std::array<Variable, 32> vars;
            const WitnessWord r = s.addmany(std::span<const WitnessWord>(ops.data(), n), &vars);
            return as_uint32(r, vars);
        }
    };

    static bool word_of(const std::array<Boolean, 32>& bits, WitnessWord& out) {
        WitnessWord r{0, 0, 0};
        for (int j = 0; j < 32; j++) {
            const Boolean& b = bits[j];
            const auto v = b.value();
            if (!v) return false;
            r.v |= uint32_t(*v) << j;
            if (b.is_constant()) r.c |= 1u << j;
            else if (b.kind() == Boolean::Kind::Not) r.n |= 1u << j;
        }
        out = r;
        return true;
    }
    static UInt32 as_uint32(const WitnessWord& r, const std::array<Variable, 32>& vars) {
        if (r.all_constant()) return UInt32::constant(r.v);
        std::array<Boolean, 32> bits;
        for (int j = 0; j < 32; j++) bits[j] = Boolean(AllocatedBit(vars[j], bool((r.v >> j) & 1)));
        return UInt32::from_bits(bits);
    }

    // count fresh bits, bit j of x the j-th (consecutive variables); the first one's variable.
    Variable fresh_bits(uint64_t x, int count) { return cs_.alloc_bits(x, count); }
    void bit(bool b) { fresh_bits(b, 1); }
    // The bits of x where mask is set, least significant first.
    void bits(uint32_t x, uint32_t mask) {
        if (mask == ~0u) {
            fresh_bits(x, 32);
            return;
        }
        uint32_t packed = 0;
        int k = 0;
        for (; mask; mask &= mask - 1) packed |= ((x >> std::countr_zero(mask)) & 1) << k++;
        if (k) fresh_bits(packed, k);
    }
    // Bit i of x at bit 2i.
    static uint64_t spread(uint32_t x) {
        uint64_t v = x;
        v = (v | v << 16) & 0x0000ffff0000ffffull;
        v = (v | v << 8) & 0x00ff00ff00ff00ffull;
        v = (v | v << 4) & 0x0f0f0f0f0f0f0f0full;
        v = (v | v << 2) & 0x3333333333333333ull;
        v = (v | v << 1) & 0x5555555555555555ull;
        return v;
    }

    // Boolean::xor_ on every bit: a constant folds into the other operand (negating it when true); two allocated
    // bits give a fresh bit (the xor of the bits under them), negated when exactly one operand was.
    WitnessWord xor_(const WitnessWord& a, const WitnessWord& b) {
        bits((a.v ^ a.n) ^ (b.v ^ b.n), ~a.c & ~b.c);
        WitnessWord r;
        r.c = a.c & b.c;
        r.v = a.v ^ b.v;
        r.n = (a.n ^ b.n ^ (a.c & a.v) ^ (b.c & b.v)) & ~r.c;
        return r;
    }

    // UInt32::addmany: a constant when every operand bit is constant, else the bit_length(n (2^32 - 1)) bits of the
    // sum, fresh; vars (if given) receives the variables of the low 32.
    WitnessWord addmany(std::span<const WitnessWord> ops, std::array<Variable, 32>* vars = nullptr) {
        uint64_t sum = 0;
        bool all_constants = true;
        for (const WitnessWord& op : ops) {
            sum += op.v;
            all_constants &= op.all_constant();
        }
        if (all_constants) return WitnessWord::constant((uint32_t)sum);
        const int nbits = std::bit_width((uint64_t)ops.size() * 0xffffffffull);
        const Variable first = fresh_bits(sum, nbits);
        if (vars)
            for (int j = 0; j < 32; j++) (*vars)[j] = Variable::aux(first.index() + j);
        return {(uint32_t)sum, 0, 0};
    }

    static WitnessBit bit_of(const WitnessWord& w, int i) {
        return {bool((w.c >> i) & 1), bool((w.v >> i) & 1), bool((w.n >> i) & 1)};
    }
    static void set_bit(WitnessWord& w, int i, const WitnessBit& b) {
        const uint32_t m = 1u << i;
        w.v = (w.v & ~m) | (b.v ? m : 0);
        w.c = (w.c & ~m) | (b.c ? m : 0);
        w.n = (w.n & ~m) | (b.n ? m : 0);
    }
    WitnessBit fresh(bool v) {
        bit(v);
        return {false, v, false};
    }
    // Boolean::and_: the allocated bit is the AND of the two Booleans' values whichever of and / and_not / nor it is.
    WitnessBit and_(const WitnessBit& x, const WitnessBit& y) {
        if (x.is_false() || y.is_false()) return {true, false, false};
        if (x.is_true()) return y;
        if (y.is_true()) return x;
        return fresh(x.v && y.v);
    }
    // Boolean::sha256_ch's cases, in its order.
    WitnessBit ch_bit(const WitnessBit& a, const WitnessBit& b, const WitnessBit& c) {
        const bool v = (a.v && b.v) != (!a.v && c.v);
        if (a.c && b.c && c.c) return {true, v, false};
        if (a.is_false()) return c;
        if (b.is_false()) return and_(a.negated(), c);
        if (c.is_false()) return and_(a, b);
        if (c.is_true()) return and_(a, b.negated()).negated();
        if (b.is_true()) return and_(a.negated(), c.negated()).negated();
        return fresh(v);
    }
    // Boolean::sha256_maj's cases, in its order; the general case allocates maj, then b AND c.
    WitnessBit maj_bit(const WitnessBit& a, const WitnessBit& b, const WitnessBit& c) {
        const bool v = (int)a.v + (int)b.v + (int)c.v >= 2;
        if (a.c && b.c && c.c) return {true, v, false};
        if (a.is_false()) return and_(b, c);
        if (b.is_false()) return and_(a, c);
        if (c.is_false()) return and_(a, b);
        if (c.is_true()) return and_(a.negated(), b.negated()).negated();
        if (b.is_true()) return and_(a.negated(), c.negated()).negated();
        if (a.is_true()) return and_(b.negated(), c.negated()).negated();
        bit(v);
        and_(b, c);
        return {false, v, false};
    }
    WitnessWord sha256_ch(const WitnessWord& a, const WitnessWord& b, const WitnessWord& c) {
        const uint32_t v = (a.v & b.v) ^ (~a.v & c.v);
        if ((a.c | b.c | c.c) == 0) {
            bits(v, ~0u);
            return {v, 0, 0};
        }
        WitnessWord r;
        for (int i = 0; i < 32; i++) set_bit(r, i, ch_bit(bit_of(a, i), bit_of(b, i), bit_of(c, i)));
        return r;
    }
    WitnessWord sha256_maj(const WitnessWord& a, const WitnessWord& b, const WitnessWord& c) {
        const uint32_t v = (a.v & b.v) ^ (a.v & c.v) ^ (b.v & c.v);
        if ((a.c | b.c | c.c) == 0) {
            // Per bit: maj, then b AND c.
            fresh_bits(spread(v) | spread(b.v & c.v) << 1, 64);
            return {v, 0, 0};
        }
        WitnessWord r;
        for (int i = 0; i < 32; i++) set_bit(r, i, maj_bit(bit_of(a, i), bit_of(b, i), bit_of(c, i)));
        return r;
    }

    CS& cs_;
};

}  // namespace cuzk::gadgets::detail
