// Pairing costs on one core: the whole pairing (G2 preparation + Miller loop + final exponentiation), each part
// alone, a 3-pair product check (the Groth16 verifier's shape), and the Fq12 operations they are built from.
// Reference point: blst takes about 0.60 ms per pairing on the development machine.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "cuzk/pairing/pairing.hpp"

using namespace cuzk;

namespace {

std::mt19937_64& rng() {
    static std::mt19937_64 g(42);
    return g;
}

G1Affine random_g1() { return G1Jacobian::generator().mul(Fr::random(rng()).to_canonical()).to_affine(); }
G2Affine random_g2() { return G2Jacobian::generator().mul(Fr::random(rng()).to_canonical()).to_affine(); }

void BM_Pairing(benchmark::State& state) {
    G1Affine p = random_g1();
    G2Affine q = random_g2();
    for (auto _ : state) benchmark::DoNotOptimize(pairing(p, q));
}
BENCHMARK(BM_Pairing)->Unit(benchmark::kMicrosecond);

void BM_G2Prepare(benchmark::State& state) {
    G2Affine q = random_g2();
    for (auto _ : state) benchmark::DoNotOptimize(G2Prepared(q));
}
BENCHMARK(BM_G2Prepare)->Unit(benchmark::kMicrosecond);

void BM_MillerLoop(benchmark::State& state) {
    G1Affine p = random_g1();
    G2Prepared q(random_g2());
    for (auto _ : state) benchmark::DoNotOptimize(miller_loop(p, q));
}
BENCHMARK(BM_MillerLoop)->Unit(benchmark::kMicrosecond);

void BM_FinalExponentiation(benchmark::State& state) {
    Fq12 f = miller_loop(random_g1(), G2Prepared(random_g2()));
    for (auto _ : state) benchmark::DoNotOptimize(final_exponentiation(f));
}
BENCHMARK(BM_FinalExponentiation)->Unit(benchmark::kMicrosecond);

// prod_{i<3} e(P_i, Q_i) == 1 with one shared Miller loop, as a Groth16 verification does.
void BM_PairingProductIsOne3(benchmark::State& state) {
    std::vector<G1Affine> p{random_g1(), random_g1(), random_g1()};
    std::vector<G2Affine> q{random_g2(), random_g2(), random_g2()};
    for (auto _ : state) benchmark::DoNotOptimize(pairing_product_is_one(p, q));
}
BENCHMARK(BM_PairingProductIsOne3)->Unit(benchmark::kMicrosecond);

void BM_Fq12Mul(benchmark::State& state) {
    Fq12 a = Fq12::random(rng()), b = Fq12::random(rng());
    for (auto _ : state) {
        a = a * b;
        benchmark::DoNotOptimize(a);
    }
}
BENCHMARK(BM_Fq12Mul);

void BM_Fq12Square(benchmark::State& state) {
    Fq12 a = Fq12::random(rng());
    for (auto _ : state) {
        a = a.square();
        benchmark::DoNotOptimize(a);
    }
}
BENCHMARK(BM_Fq12Square);

void BM_Fq12CyclotomicSquare(benchmark::State& state) {
    Fq12 a = final_exponentiation(Fq12::random(rng()));
    for (auto _ : state) {
        a = a.cyclotomic_square();
        benchmark::DoNotOptimize(a);
    }
}
BENCHMARK(BM_Fq12CyclotomicSquare);

void BM_Fq12MulBy014(benchmark::State& state) {
    Fq12 a = Fq12::random(rng());
    Fq2 b0 = Fq2::random(rng()), b1 = Fq2::random(rng()), b4 = Fq2::random(rng());
    for (auto _ : state) {
        a = a.mul_by_014(b0, b1, b4);
        benchmark::DoNotOptimize(a);
    }
}
BENCHMARK(BM_Fq12MulBy014);

void BM_Fq2Mul(benchmark::State& state) {
    Fq2 a = Fq2::random(rng()), b = Fq2::random(rng());
    for (auto _ : state) {
        a = a * b;
        benchmark::DoNotOptimize(a);
    }
}
BENCHMARK(BM_Fq2Mul);

}  // namespace
