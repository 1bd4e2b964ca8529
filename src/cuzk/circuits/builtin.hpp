// Built-in example circuits for tests, the CLI and benchmarks.
//   CubicCircuit      x^3 + x + 5 = y with x private and y public (3 constraints + 2 input constraints).
//   MulChainCircuit   a chain of multiplications v_{i+1} = v_i * v_{i-1} from two private seeds, sized so that
//                     its constraints (input constraints included) fill a power-of-two domain exactly; the last
//                     value and the first `public_count - 1` intermediate values are public. Its witness is
//                     dense and random-looking (the worst case for the prover's MSMs).
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuzk/r1cs/circuit.hpp"

namespace cuzk::circuits {

class CubicCircuit : public r1cs::CircuitImpl<CubicCircuit> {
public:
    // Without x the circuit can still be synthesized for setup (the value functions are not called then).
    explicit CubicCircuit(std::optional<Fr> x = std::nullopt) : x_(x) {}

    static Fr output_for(const Fr& x) { return x * x * x + x + Fr::from_u64(5); }

    template <class CS>
    void synthesize(CS& cs) const {
        using r1cs::LC;
        using r1cs::Variable;
        auto x = cs.alloc("x", [&] { return value(); });
        auto x2 = cs.alloc("x^2", [&] { return value().square(); });
        cs.enforce("x * x = x^2", LC(x), LC(x), LC(x2));
        auto x3 = cs.alloc("x^3", [&] { return value().square() * value(); });
        cs.enforce("x^2 * x = x^3", LC(x2), LC(x), LC(x3));
        auto y = cs.alloc_input("y", [&] { return output_for(value()); });
        cs.enforce("(x^3 + x + 5) * 1 = y", LC(x3) + x + LC().add(Fr::from_u64(5), Variable::one()),
                   LC(Variable::one()), LC(y));
    }

private:
    Fr value() const {
        if (!x_) throw r1cs::SynthesisError(r1cs::SynthesisErrorKind::AssignmentMissing, "cubic circuit: x");
        return *x_;
    }
    std::optional<Fr> x_;
};

class MulChainCircuit : public r1cs::CircuitImpl<MulChainCircuit> {
public:
    // log_size: the domain is 2^log_size constraints (>= 2^2). public_count >= 1 public outputs.
    // seed: the two private starting values; nullopt gives a witness-less circuit (setup only).
    MulChainCircuit(unsigned log_size, size_t public_count, std::optional<uint64_t> seed)
        : public_count_(public_count), seed_(seed) {
        if (log_size < 2 || log_size > 30) throw std::invalid_argument("mul chain: log_size must be in [2, 30]");
        if (public_count < 1) throw std::invalid_argument("mul chain: at least one public value");
        size_t domain = size_t{1} << log_size;
        // constraints = multiplications + one input constraint per input (the constant one and the publics)
        if (domain <= public_count + 1 + public_count)
            throw std::invalid_argument("mul chain: too many public values for the size");
        muls_ = domain - (public_count + 1);
    }

    size_t multiplications() const { return muls_; }

    // The public values (in input order) the witness for `seed` produces, computed natively.
    std::vector<Fr> public_values() const {
        std::vector<Fr> out;
        walk([&](size_t i, const Fr& v) {
            if (is_public(i)) out.push_back(v);
        });
        return out;
    }

    template <class CS>
    void synthesize(CS& cs) const {
        using r1cs::LC;
        // The values are computed only when the system asks for them (not for setup).
        Fr prev_v, cur_v;
        if constexpr (CS::kNeedsValues) std::tie(prev_v, cur_v) = seeds();
        auto prev = cs.alloc("v0", [&] { return prev_v; });
        auto cur = cs.alloc("v1", [&] { return cur_v; });
        for (size_t i = 0; i < muls_; i++) {
            Fr next_v;
            if constexpr (CS::kNeedsValues) next_v = cur_v * prev_v;
            auto name = [i] { return "v" + std::to_string(i + 2); };
            auto next = is_public(i) ? cs.alloc_input(name, [&] { return next_v; })
                                     : cs.alloc(name, [&] { return next_v; });
            cs.enforce([i] { return "mul " + std::to_string(i); }, LC(cur), LC(prev), LC(next));
            prev = cur, cur = next;
            prev_v = cur_v, cur_v = next_v;
        }
    }

private:
    // The last multiplication and the first public_count - 1 are public.
    bool is_public(size_t i) const { return i + 1 == muls_ || i + 1 < public_count_; }
    std::pair<Fr, Fr> seeds() const {
        if (!seed_) throw r1cs::SynthesisError(r1cs::SynthesisErrorKind::AssignmentMissing, "mul chain: no seed");
        std::mt19937_64 rng(*seed_);
        Fr a = Fr::random(rng);
        return {a, Fr::random(rng)};
    }
    template <class F>
    void walk(F&& fn) const {
        auto [prev, cur] = seeds();
        for (size_t i = 0; i < muls_; i++) {
            Fr next = cur * prev;
            fn(i, next);
            prev = cur, cur = next;
        }
    }

    size_t muls_ = 0;
    size_t public_count_;
    std::optional<uint64_t> seed_;
};

}  // namespace cuzk::circuits
