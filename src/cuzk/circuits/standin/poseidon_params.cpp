#include "cuzk/circuits/standin/poseidon_params.hpp"

#include <mutex>
#include <stdexcept>
#include <string>

namespace cuzk::standin {

namespace {
constexpr unsigned kFieldBits = 255;  // n = ceil(log2 r)
static_assert(Fr::BITS == kFieldBits);
}  // namespace

size_t poseidon_partial_rounds(size_t arity) {
    switch (arity) {
        case 2: return 57;
        case 8: return 57;
        case 11: return 57;
        default: throw std::invalid_argument("poseidon: no instance for arity " + std::to_string(arity));
    }
}

GrainLfsr::GrainLfsr(unsigned field, unsigned sbox, unsigned field_bits, unsigned t, unsigned full_rounds,
                     unsigned partial_rounds) {
    unsigned pos = 0;
    // Appends `width` bits of v, most significant first, at b_pos onwards.
    auto put = [&](uint64_t v, unsigned width) {
        if (width < 64 && (v >> width) != 0)
            throw std::invalid_argument("grain: parameter does not fit its " + std::to_string(width) + "-bit field");
        for (unsigned i = width; i-- > 0; pos++)
            if ((v >> i) & 1) state_ |= (unsigned __int128)1 << pos;
    };
    put(field, 2);
    put(sbox, 4);
    put(field_bits, 12);
    put(t, 12);
    put(full_rounds, 10);
    put(partial_rounds, 10);
    put((uint64_t{1} << 30) - 1, 30);
    for (int i = 0; i < 160; i++) clock();
}

bool GrainLfsr::clock() {
    auto b = [&](unsigned i) { return (unsigned)(state_ >> i) & 1u; };
    unsigned bit = b(62) ^ b(51) ^ b(38) ^ b(23) ^ b(13) ^ b(0);
    // Shift the window: b_1 becomes b_0, the new bit becomes b_79.
    state_ = (state_ >> 1) | ((unsigned __int128)bit << 79);
    return bit;
}

bool GrainLfsr::next_bit() {
    for (;;) {
        bool keep = clock();
        bool out = clock();
        if (keep) return out;
    }
}

limbs_t<4> GrainLfsr::next_bits(unsigned bits) {
    if (bits > 256) throw std::invalid_argument("grain: at most 256 bits per draw");
    limbs_t<4> v{};
    for (unsigned i = bits; i-- > 0;)
        if (next_bit()) v[i / 64] |= uint64_t{1} << (i % 64);
    return v;
}

Fr GrainLfsr::next_fr_rejection() {
    for (;;)
        if (auto f = Fr::from_canonical(next_bits(kFieldBits))) return *f;
}

// A 255-bit value is below 2^255 < 2r, so one conditional subtraction (from_limbs_reduce) reduces it.
Fr GrainLfsr::next_fr_reduced() { return Fr::from_limbs_reduce(next_bits(kFieldBits)); }

PoseidonParams generate_poseidon_params(size_t t, size_t full_rounds, size_t partial_rounds) {
    if (t < 2 || full_rounds % 2 != 0)
        throw std::invalid_argument("poseidon: need t >= 2 and an even number of full rounds");
    PoseidonParams p;
    p.t = t;
    p.full_rounds = full_rounds;
    p.partial_rounds = partial_rounds;
    // field = 1: GF(p); sbox = 0: x^alpha (1 would be x^-1).
    GrainLfsr lfsr(1, 0, kFieldBits, (unsigned)t, (unsigned)full_rounds, (unsigned)partial_rounds);
    p.round_constants.reserve(p.rounds() * t);
    for (size_t i = 0; i < p.rounds() * t; i++) p.round_constants.push_back(lfsr.next_fr_rejection());

    for (;;) {
        std::vector<Fr> pts(2 * t);
        bool distinct;
        do {
            for (auto& x : pts) x = lfsr.next_fr_reduced();
            distinct = true;
            for (size_t i = 0; i < pts.size() && distinct; i++)
                for (size_t j = i + 1; j < pts.size() && distinct; j++) distinct = !(pts[i] == pts[j]);
        } while (!distinct);
        p.mds.assign(t * t, Fr::zero());
        bool ok = true;
        for (size_t i = 0; i < t && ok; i++)
            for (size_t j = 0; j < t && ok; j++) {
                auto inv = (pts[i] + pts[t + j]).inverse();
                if (!inv) ok = false;
                else p.mds[i * t + j] = *inv;
            }
        if (ok) return p;
    }
}

const PoseidonParams& poseidon_params(size_t arity) {
    // One function-local static per arity: initialised once, thread-safe by the language rules (C++11 magic
    // statics), and only the arities actually used pay for generation.
    switch (arity) {
        case 2: {
            static const PoseidonParams p = generate_poseidon_params(3, kPoseidonFullRounds, poseidon_partial_rounds(2));
            return p;
        }
        case 8: {
            static const PoseidonParams p = generate_poseidon_params(9, kPoseidonFullRounds, poseidon_partial_rounds(8));
            return p;
        }
        case 11: {
            static const PoseidonParams p =
                generate_poseidon_params(12, kPoseidonFullRounds, poseidon_partial_rounds(11));
            return p;
        }
        default: throw std::invalid_argument("poseidon: no instance for arity " + std::to_string(arity));
    }
}

}  // namespace cuzk::standin
