#include "cuzk/groth16/setup.hpp"

#include <algorithm>
#include <mutex>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuzk/ec/g1.hpp"
#include "cuzk/ec/g2.hpp"
#include "cuzk/ec/random_points.hpp"
#include "cuzk/msm/batch_affine.hpp"
#include "cuzk/poly/domain.hpp"
#include "cuzk/poly/ntt.hpp"
#include "cuzk/r1cs/circuit.hpp"
#include "cuzk/util/huge_pages.hpp"
#include "cuzk/util/random.hpp"
#include "cuzk/util/thread_pool.hpp"

namespace cuzk::groth16 {

namespace {

template <class Rng>
ToxicWaste draw_toxic_waste(Rng& rng) {
    // Zero would make the parameters degenerate (generate_parameters rejects it); redraw, which for a uniform Fr
    // happens with probability ~2^-255 per value.
    auto nonzero = [&rng] {
        for (;;) {
            Fr x = Fr::random(rng);
            if (!x.is_zero()) return x;
        }
    };
    ToxicWaste tw;
    tw.tau = nonzero();
    tw.alpha = nonzero();
    tw.beta = nonzero();
    tw.gamma = nonzero();
    tw.delta = nonzero();
    return tw;
}

// A vector of values derived from the toxic waste (powers of tau, Lagrange coefficients, QAP evaluations): wiped
// before its memory is released, also when an exception unwinds. Never resized (a reallocation would leave the
// old block unwiped).
class SecretScalars {
public:
    explicit SecretScalars(size_t n) : v_(n) {}
    ~SecretScalars() { wipe(); }
    SecretScalars(const SecretScalars&) = delete;
    SecretScalars& operator=(const SecretScalars&) = delete;

    void wipe() {
        if (!v_.empty()) secure_wipe(v_.data(), v_.size() * sizeof(Fr));
    }
    void release() {
        wipe();
        std::vector<Fr>().swap(v_);
    }
    Fr& operator[](size_t i) { return v_[i]; }
    const Fr& operator[](size_t i) const { return v_[i]; }
    size_t size() const { return v_.size(); }
    std::span<Fr> span() { return v_; }
    std::span<const Fr> span() const { return v_; }

private:
    std::vector<Fr> v_;
};

// Serializes the caller's progress callback (see SetupProgress).
class ProgressReporter {
public:
    explicit ProgressReporter(const SetupProgress& cb) : cb_(cb) {}

    void start(const char* stage, size_t total) {
        std::lock_guard<std::mutex> lk(mu_);
        stage_ = stage;
        total_ = total;
        done_ = 0;
        last_ = 0;
        if (cb_) cb_(stage_, 0, total_);
        ended_ = total_ == 0;  // a stage of no work has started and ended with the same call
    }
    void advance(size_t k) {
        std::lock_guard<std::mutex> lk(mu_);
        done_ += k;
        if (cb_ && done_ != last_) cb_(stage_, done_, total_);
        last_ = done_;
        ended_ = done_ == total_;
    }
    void finish() {
        std::lock_guard<std::mutex> lk(mu_);
        if (!ended_ && cb_) cb_(stage_, total_, total_);
        ended_ = true;
    }

private:
    const SetupProgress& cb_;
    std::mutex mu_;
    const char* stage_ = "";
    size_t total_ = 0, done_ = 0, last_ = 0;
    bool ended_ = true;
};

// Fixed-base scalar multiplication by window tables: for window k of w bits and every digit d in [1, 2^w),
// table holds [d * 2^(w k)] P in affine form, so [s] P = sum_k table[k][digit_k(s)] costs ceil(255 / w) mixed
// additions and no doublings. Entries are never the point at infinity: d < 2^w and 2^(w k) are both prime to r.
template <class Cfg>
class FixedBaseTable {
public:
    static constexpr size_t kScalarBits = 255;  // canonical Fr values are < r < 2^255

    FixedBaseTable(const Jacobian<Cfg>& base, unsigned window_bits)
        : w_(window_bits), windows_((kScalarBits + window_bits - 1) / window_bits), per_window_((size_t{1} << w_) - 1) {
        // Transparent huge pages where the system offers them: the reads are random over ~100 MiB, and with 4 KiB
        // pages nearly each one also misses the TLB.
        table_.reserve(windows_ * per_window_);
        advise_huge_pages(table_.data(), table_.capacity() * sizeof(Affine<Cfg>));
        table_.resize(windows_ * per_window_);
        ThreadPool::global().run_tasks(windows_, [&](size_t k) {
            Jacobian<Cfg> p = base;
            for (size_t i = 0; i < w_ * k; i++) p = p.dbl();
            std::vector<Jacobian<Cfg>> run(per_window_);
            run[0] = p;
            for (size_t d = 1; d < per_window_; d++) run[d] = run[d - 1] + p;
            auto aff = Jacobian<Cfg>::batch_to_affine(run);
            std::copy(aff.begin(), aff.end(), table_.begin() + (ptrdiff_t)(k * per_window_));
        });
    }

    // The width that minimises the table build (about two additions per entry, counting the share of the batch
    // inversion) plus `count` multiplications of ceil(255 / w) additions each; capped so that the table stays near
    // 100 MiB: 16 bits in G1 (65535 * 16 affine points of 104 bytes), 14 in G2 (16383 * 19 of 200 bytes, ~60 MiB).
    // From 12 to these caps the 2 KiB PoRep setup (10.2 M G1 and 0.69 M G2 points) took 83 s instead of 102 s
    // on 2 threads.
    static unsigned window_for(size_t count) {
        constexpr unsigned kMaxBits = sizeof(Affine<Cfg>) > 128 ? 14 : 16;
        unsigned best = 2;
        double best_cost = -1;
        for (unsigned w = 2; w <= kMaxBits; w++) {
            double windows = (double)((kScalarBits + w - 1) / w);
            double cost = windows * (2.0 * (double)((size_t{1} << w) - 1) + (double)count);
            if (best_cost < 0 || cost < best_cost) {
                best = w;
                best_cost = cost;
            }
        }
        return best;
    }

    size_t windows() const { return windows_; }
    // The entry window `win` of canonical scalar k adds, nullptr for a zero digit.
    const Affine<Cfg>* entry(const limbs_t<4>& k, size_t win) const {
        const uint32_t d = digit(k, win * w_);
        return d ? &table_[win * per_window_ + d - 1] : nullptr;
    }
    // Asks for an entry that will be read soon: the table is ~100 MiB, so each read is a cache miss, and issued
    // ahead they overlap with the additions.
    static void prefetch(const Affine<Cfg>* e) {
        if (!e) return;
        const char* p = reinterpret_cast<const char*>(e);
        prefetch_line(p);
        prefetch_line(p + sizeof(Affine<Cfg>) - 1);
    }

private:
    // GCC's vectorizer drops __builtin_prefetch from the loops it vectorizes (this one, at -O3), an asm statement
    // it keeps.
    static void prefetch_line(const char* p) {
#if defined(__x86_64__) && defined(__GNUC__)
        asm volatile("prefetcht0 %0" : : "m"(*p));
#else
        __builtin_prefetch(p);
#endif
    }
    uint32_t digit(const limbs_t<4>& k, size_t bit) const {
        size_t limb = bit / 64, off = bit % 64;
        uint64_t v = k[limb] >> off;
        // off > 0 here since w_ <= 12 < 64, so the shift by 64 - off is defined.
        if (off + w_ > 64 && limb + 1 < 4) v |= k[limb + 1] << (64 - off);
        return (uint32_t)(v & ((uint64_t{1} << w_) - 1));
    }

    unsigned w_;
    size_t windows_, per_window_;
    std::vector<Affine<Cfg>> table_;
};

// [s_i] P for every scalar, on the thread pool, a block of scalars at a time: window by window, each scalar's
// running sum (affine) plus its window's entry, the block's additions sharing one inversion (msm_detail::BatchAdder:
// Montgomery's trick, 8 at a time on the AVX-512 IFMA kernel where the CPU has it).
template <class Cfg>
std::vector<Affine<Cfg>> fixed_base_mul(const FixedBaseTable<Cfg>& table, std::span<const Fr> scalars,
                                        ProgressReporter& progress, const char* stage) {
    constexpr size_t kBlock = 1024;
    constexpr size_t kAhead = 16;  // entries prefetched ahead of the one being added
    std::vector<Affine<Cfg>> out(scalars.size(), Affine<Cfg>::identity());
    progress.start(stage, scalars.size());
    size_t chunks = std::max<size_t>(1, (scalars.size() + kBlock - 1) / kBlock);
    parallel_for(
        scalars.size(),
        [&](size_t begin, size_t end) {
            std::vector<limbs_t<4>> k;
            msm_detail::BatchAdder<Cfg> adder(kBlock);
            for (size_t i = begin; i < end; i += kBlock) {
                const size_t m = std::min(kBlock, end - i);
                Affine<Cfg>* acc = out.data() + i;
                k.resize(m);
                for (size_t j = 0; j < m; j++) k[j] = scalars[i + j].to_canonical();
                for (size_t win = 0; win < table.windows(); win++) {
                    for (size_t j = 0; j < std::min(kAhead, m); j++) table.prefetch(table.entry(k[j], win));
                    for (size_t j = 0; j < m; j++) {
                        if (j + kAhead < m) table.prefetch(table.entry(k[j + kAhead], win));
                        if (const Affine<Cfg>* e = table.entry(k[j], win)) adder.push(acc[j], *e, &acc[j]);
                    }
                    adder.flush();  // the next window adds to these sums
                }
                secure_wipe(k.data(), k.size() * sizeof(limbs_t<4>));  // the scalars are secrets (of the toxic waste)
                progress.advance(m);
            }
        },
        chunks);
    progress.finish();
    return out;
}

// The column (variable) of a term: inputs first, then aux, as the A/B queries are laid out. Throws for a variable
// the circuit never allocated (KeygenAssembly records terms without checking them).
size_t column_of(const r1cs::Term& t, size_t num_inputs, size_t num_aux, size_t row) {
    size_t idx = t.var.index();
    if (t.var.is_input()) {
        if (idx >= num_inputs)
            throw r1cs::SynthesisError(r1cs::SynthesisErrorKind::Other, "constraint " + std::to_string(row) +
                                                                           " uses unallocated input " +
                                                                           std::to_string(idx));
        return idx;
    }
    if (idx >= num_aux)
        throw r1cs::SynthesisError(r1cs::SynthesisErrorKind::Other, "constraint " + std::to_string(row) +
                                                                       " uses unallocated aux " + std::to_string(idx));
    return num_inputs + idx;
}

// For every variable v (inputs, then aux): sum over the terms (row j, coeff, v) of the matrix of coeff * L_j(tau),
// i.e. the QAP polynomial of column v at tau (bellman's eval_at_tau; repeated terms simply add up, as in bellman).
// The matrix is stored by rows, so it is transposed first (a counting sort of 16-byte entries; serial, but a
// handful of integer operations per term) and then every column is summed on the thread pool.
void evaluate_columns(const r1cs::SparseMatrix& m, const SecretScalars& lagrange, size_t num_inputs, size_t num_aux,
                      SecretScalars& out) {
    const size_t vars = num_inputs + num_aux;
    std::vector<uint64_t> start(vars + 1, 0);
    for (size_t j = 0; j < m.rows(); j++)
        for (const r1cs::Term& t : m.row(j)) start[column_of(t, num_inputs, num_aux, j) + 1]++;
    for (size_t v = 0; v < vars; v++) start[v + 1] += start[v];

    struct Entry {
        uint32_t row;  // < 2^31: the domain is checked to be below 2^32 before this runs
        uint32_t coeff_is_one;
        const Fr* coeff;
    };
    std::vector<Entry> entries(start[vars]);
    {
        std::vector<uint64_t> fill(start.begin(), start.end() - 1);
        for (size_t j = 0; j < m.rows(); j++)
            for (const r1cs::Term& t : m.row(j))
                entries[fill[column_of(t, num_inputs, num_aux, j)]++] = {(uint32_t)j, t.coeff_is_one, &t.coeff};
    }
    parallel_for(vars, [&](size_t begin, size_t end) {
        for (size_t v = begin; v < end; v++) {
            Fr acc = Fr::zero();
            for (uint64_t k = start[v]; k < start[v + 1]; k++) {
                const Entry& e = entries[k];
                if (e.coeff_is_one) acc += lagrange[e.row];
                else acc += *e.coeff * lagrange[e.row];
            }
            out[v] = acc;
        }
    });
}

// The nonzero values of s, in order (the scalars of the points bellman keeps after dropping those at infinity:
// [x] P is the point at infinity exactly when x = 0, P having prime order r).
void gather_nonzero(const SecretScalars& s, SecretScalars& out, size_t& count) {
    count = 0;
    for (size_t i = 0; i < s.size(); i++)
        if (!s[i].is_zero()) out[count++] = s[i];
}

void check_nonzero(const Fr& x, const char* name) {
    if (x.is_zero()) throw std::invalid_argument(std::string("generate_parameters: toxic waste ") + name + " is zero");
}

}  // namespace

ToxicWaste ToxicWaste::random() {
    OsRng rng;
    return draw_toxic_waste(rng);
}

ToxicWaste ToxicWaste::from_seed(uint64_t seed) {
    std::mt19937_64 rng(seed);
    ToxicWaste tw = draw_toxic_waste(rng);
    secure_wipe_object(rng);
    return tw;
}

ToxicWaste::~ToxicWaste() {
    secure_wipe_object(tau);
    secure_wipe_object(alpha);
    secure_wipe_object(beta);
    secure_wipe_object(gamma);
    secure_wipe_object(delta);
}

Parameters generate_parameters(const r1cs::Circuit& circuit, const ToxicWaste& tw, TimingSink* timing,
                               const SetupProgress& progress_cb) {
    using r1cs::SynthesisError;
    using r1cs::SynthesisErrorKind;
    const auto L = TimingLayer::Prover;
    ProgressReporter progress(progress_cb);

    check_nonzero(tw.tau, "tau");
    check_nonzero(tw.alpha, "alpha");
    check_nonzero(tw.beta, "beta");
    check_nonzero(tw.gamma, "gamma");
    check_nonzero(tw.delta, "delta");

    r1cs::KeygenAssembly cs;
    {
        ScopedTiming t(timing, L, "setup.synthesis");
        r1cs::synthesize_groth16(cs, circuit);
    }
    const size_t num_inputs = cs.num_inputs(), num_aux = cs.num_aux(), vars = num_inputs + num_aux;
    const size_t m = cs.num_constraints();

    // bellman's EvaluationDomain::from_coeffs stops at exponent Fr::S = 32: the largest domain it builds is 2^31.
    if (m > (size_t{1} << (Fr::S - 1)))
        throw SynthesisError(SynthesisErrorKind::Polynomial,
                             std::to_string(m) + " constraints need an evaluation domain of 2^32 or more");
    const EvaluationDomain domain = EvaluationDomain::for_size(m);
    const size_t n = domain.size();

    // Z(tau) = tau^n - 1 = 0 means tau is a root of unity of the domain: every H point would be at infinity and
    // the Lagrange basis degenerates.
    Fr z_tau = domain.vanishing_at(tw.tau);
    if (z_tau.is_zero())
        throw std::invalid_argument("generate_parameters: toxic waste tau lies in the evaluation domain (Z(tau) = 0)");
    Fr gamma_inv = tw.gamma.inverse().value();
    Fr delta_inv = tw.delta.inverse().value();

    // Powers of tau, then H scalars tau^i Z(tau) / delta, then Lagrange coefficients L_j(tau) by one inverse NTT
    // (sum_i tau^i omega^(-ij) / n is L_j(tau)).
    SecretScalars lagrange(n);
    SecretScalars h_scalars(n - 1);
    {
        ScopedTiming t(timing, L, "setup.powers_of_tau");
        progress.start("powers_of_tau", n);
        parallel_for(n, [&](size_t begin, size_t end) {
            Fr p = tw.tau.pow(limbs_t<1>{(uint64_t)begin});
            for (size_t i = begin; i < end; i++) {
                lagrange[i] = p;
                p *= tw.tau;
            }
            secure_wipe_object(p);
        });
        Fr coeff = z_tau * delta_inv;
        parallel_for(n - 1, [&](size_t begin, size_t end) {
            for (size_t i = begin; i < end; i++) h_scalars[i] = lagrange[i] * coeff;
        });
        secure_wipe_object(coeff);
        intt(domain, lagrange.span());
        progress.finish();
    }

    // u, v, w of every variable at tau, then the IC / L exponents (beta u + alpha v + w) / gamma (inputs) or
    // / delta (aux).
    SecretScalars at(vars), bt(vars), ext(vars);
    {
        ScopedTiming t(timing, L, "setup.evaluate");
        progress.start("evaluate", 3 * vars);
        evaluate_columns(cs.a(), lagrange, num_inputs, num_aux, at);
        progress.advance(vars);
        evaluate_columns(cs.b(), lagrange, num_inputs, num_aux, bt);
        progress.advance(vars);
        evaluate_columns(cs.c(), lagrange, num_inputs, num_aux, ext);  // ext holds w(tau) until combined below
        lagrange.release();
        parallel_for(vars, [&](size_t begin, size_t end) {
            for (size_t v = begin; v < end; v++) {
                Fr e = tw.beta * at[v] + tw.alpha * bt[v] + ext[v];
                ext[v] = e * (v < num_inputs ? gamma_inv : delta_inv);
            }
        });
        progress.advance(vars);
        progress.finish();
    }
    secure_wipe_object(gamma_inv);
    secure_wipe_object(delta_inv);
    secure_wipe_object(z_tau);

    // bellman: "Don't allow any elements be unconstrained, so that the L query is always fully dense."
    for (size_t j = 0; j < num_aux; j++)
        if (ext[num_inputs + j].is_zero())
            throw SynthesisError(SynthesisErrorKind::Other,
                                 "unconstrained variable: aux " + std::to_string(j) +
                                     " has (beta*u + alpha*v + w)(tau) = 0 (it occurs in no constraint)");

    SecretScalars a_scalars(vars), b_scalars(vars);
    size_t a_count = 0, b_count = 0;
    gather_nonzero(at, a_scalars, a_count);
    gather_nonzero(bt, b_scalars, b_count);
    at.release();
    bt.release();

    const size_t g1_count = (n - 1) + vars + a_count + b_count;
    std::optional<FixedBaseTable<G1Config>> g1_table;
    std::optional<FixedBaseTable<G2Config>> g2_table;
    {
        ScopedTiming t(timing, L, "setup.tables");
        g1_table.emplace(G1Jacobian::generator(), FixedBaseTable<G1Config>::window_for(g1_count));
        g2_table.emplace(G2Jacobian::generator(), FixedBaseTable<G2Config>::window_for(b_count));
    }

    Parameters params;
    {
        ScopedTiming t(timing, L, "setup.h");
        params.h = fixed_base_mul(*g1_table, h_scalars.span(), progress, "h");
        h_scalars.release();
    }
    {
        ScopedTiming t(timing, L, "setup.a");
        params.a = fixed_base_mul(*g1_table, a_scalars.span().first(a_count), progress, "a");
        a_scalars.release();
    }
    {
        ScopedTiming t(timing, L, "setup.b_g1");
        params.b_g1 = fixed_base_mul(*g1_table, b_scalars.span().first(b_count), progress, "b_g1");
    }
    {
        ScopedTiming t(timing, L, "setup.b_g2");
        params.b_g2 = fixed_base_mul(*g2_table, b_scalars.span().first(b_count), progress, "b_g2");
        b_scalars.release();
    }
    {
        ScopedTiming t(timing, L, "setup.ic");
        params.vk.ic = fixed_base_mul(*g1_table, ext.span().first(num_inputs), progress, "ic");
    }
    {
        ScopedTiming t(timing, L, "setup.l");
        params.l = fixed_base_mul(*g1_table, ext.span().subspan(num_inputs), progress, "l");
        ext.release();
    }
    {
        ScopedTiming t(timing, L, "setup.vk");
        progress.start("vk", 6);
        auto g1 = [](const Fr& x) {
            limbs_t<4> k = x.to_canonical();
            G1Affine p = G1Jacobian::generator().mul(k).to_affine();
            secure_wipe_object(k);
            return p;
        };
        auto g2 = [](const Fr& x) {
            limbs_t<4> k = x.to_canonical();
            G2Affine p = G2Jacobian::generator().mul(k).to_affine();
            secure_wipe_object(k);
            return p;
        };
        params.vk.alpha_g1 = g1(tw.alpha);
        params.vk.beta_g1 = g1(tw.beta);
        params.vk.beta_g2 = g2(tw.beta);
        params.vk.gamma_g2 = g2(tw.gamma);
        params.vk.delta_g1 = g1(tw.delta);
        params.vk.delta_g2 = g2(tw.delta);
        progress.advance(6);
        progress.finish();
    }
    return params;
}

Parameters benchmark_parameters(const r1cs::ProvingAssignment& asg, uint64_t seed, HConvention convention) {
    QueryShape q;
    q.inputs = asg.inputs().size();
    q.aux = asg.aux().size();
    q.constraints = asg.a().size();
    q.a_aux = asg.a_aux_density().count();
    q.b = asg.b_input_density().count() + asg.b_aux_density().count();
    return benchmark_parameters(q, seed, convention);
}

Parameters benchmark_parameters(const QueryShape& q, uint64_t seed, HConvention convention) {
    const size_t ni = q.inputs, na = q.aux, m = q.constraints, nb = q.b;
    if (ni == 0) throw std::invalid_argument("benchmark_parameters: the assignment has no inputs");
    if (m > (size_t{1} << (Fr::S - 1)))
        throw std::invalid_argument("benchmark_parameters: " + std::to_string(m) + " constraints need a domain of 2^32");
    if (q.a_aux > na || nb > ni + na) throw std::invalid_argument("benchmark_parameters: densities exceed the counts");
    const size_t n = EvaluationDomain::for_size(m).size();
    Parameters p;
    p.h_convention = convention;
    p.a = random_points<G1Config>(ni + q.a_aux, seed * 8 + 1);
    p.b_g1 = random_points<G1Config>(nb, seed * 8 + 2);
    p.b_g2 = random_points<G2Config>(nb, seed * 8 + 3);
    p.l = random_points<G1Config>(na, seed * 8 + 4);
    p.h = random_points<G1Config>(convention == HConvention::Snarkjs ? n : n - 1, seed * 8 + 5);
    p.vk.ic = random_points<G1Config>(ni, seed * 8 + 6);
    auto g1 = random_points<G1Config>(3, seed * 8 + 7);
    auto g2 = random_points<G2Config>(3, seed * 8 + 7);
    p.vk.alpha_g1 = g1[0];
    p.vk.beta_g1 = g1[1];
    p.vk.delta_g1 = g1[2];
    p.vk.beta_g2 = g2[0];
    p.vk.gamma_g2 = g2[1];
    p.vk.delta_g2 = g2[2];
    return p;
}

}  // namespace cuzk::groth16
