#include "cuzk/r1cs/pce.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <type_traits>

#include "cuzk/formats/bellman_params.hpp"
#include "cuzk/util/output_file.hpp"

namespace cuzk::r1cs {

// The on-disk term is the in-memory CompactTerm on a little-endian host (u32 raw variable, u32 coefficient index),
// so term arrays are written and read as one block; so are the coefficients (four u64 limbs each).
static_assert(std::endian::native == std::endian::little, "the PCE format is little-endian");
static_assert(std::is_trivially_copyable_v<CompactTerm> && std::is_trivially_copyable_v<Fr>);
static_assert(sizeof(Variable) == 4 && sizeof(Fr) == 32);
static_assert(sizeof(CompactTerm) == 8 && offsetof(CompactTerm, var) == 0 && offsetof(CompactTerm, coeff) == 4);

namespace {

DensityTracker empty_tracker(size_t n) {
    DensityTracker d;
    for (size_t i = 0; i < n; i++) d.add_element();
    return d;
}

void check_terms(const CompactMatrix& m, char name, size_t num_inputs, size_t num_aux, size_t num_coeffs) {
    for (const CompactTerm& t : m.terms) {
        bool ok = t.var.is_input() ? t.var.index() < num_inputs : t.var.index() < num_aux;
        if (!ok)
            throw SynthesisError(SynthesisErrorKind::Other, std::string("constraint matrix ") + name +
                                                                " uses unallocated " +
                                                                (t.var.is_input() ? "input " : "aux ") +
                                                                std::to_string(t.var.index()));
        if (t.coeff >= num_coeffs)
            throw SynthesisError(SynthesisErrorKind::Other,
                                 std::string("constraint matrix ") + name + ": coefficient index out of range");
    }
}

// One row: sum coeff * z[var]. The multiplication is skipped for coefficient one (index 0), and for a witness
// value of 0 or 1 (most of a SHA-256-heavy witness: bits, with packing coefficients 2^i): 0 adds nothing, 1 adds
// the coefficient. Fr arithmetic is canonical (coeff * 1 == coeff, x + 0 == x limb for limb), so the sum is
// bit-identical to full synthesis. Zero-coefficient terms need no special case either: they add zero.
inline Fr dot_row(const CompactTerm* t, const CompactTerm* end, const Fr* coeffs, const Fr* inputs, const Fr* aux) {
    Fr acc = Fr::zero();
    for (; t != end; ++t) {
        const Fr& v = t->var.is_input() ? inputs[t->var.index()] : aux[t->var.index()];
        if (t->coeff == 0) acc += v;
        else if (v.is_zero()) continue;
        else if (v.is_one()) acc += coeffs[t->coeff];
        else acc += coeffs[t->coeff] * v;
    }
    return acc;
}

}  // namespace

void check_matrix_shapes(const PrecompiledR1cs& pce, std::string_view who) {
    for (const CompactMatrix* m : {&pce.a, &pce.b, &pce.c})
        if (m->rows() != pce.num_constraints || m->row_start.back() != m->terms.size())
            throw std::invalid_argument(std::string(who) + ": matrix shape does not match num_constraints");
    if (pce.coeffs.empty() || !pce.coeffs[0].is_one())
        throw std::invalid_argument(std::string(who) + ": the coefficient table must start with one");
}

void derive_densities(PrecompiledR1cs& pce) {
    // A nonzero coefficient is what marks density in ProvingAssignment::eval_tracking.
    auto marks = [&](const CompactTerm& t) { return !pce.coeffs[t.coeff].is_zero(); };
    pce.a_aux_density = empty_tracker(pce.num_aux);
    pce.b_input_density = empty_tracker(pce.num_inputs);
    pce.b_aux_density = empty_tracker(pce.num_aux);
    for (const CompactTerm& t : pce.a.terms)
        if (t.var.is_aux() && marks(t)) pce.a_aux_density.mark(t.var.index());
    for (const CompactTerm& t : pce.b.terms) {
        if (!marks(t)) continue;
        if (t.var.is_input()) pce.b_input_density.mark(t.var.index());
        else pce.b_aux_density.mark(t.var.index());
    }
}

PrecompiledR1cs compile_r1cs(const Circuit& circuit) {
    KeygenAssembly ka(true);  // compact recording
    synthesize_groth16(ka, circuit);
    return compile_recorded(ka);
}

PrecompiledR1cs compile_recorded(KeygenAssembly& ka) {
    PrecompiledR1cs pce;
    pce.num_inputs = ka.num_inputs();
    pce.num_aux = ka.num_aux();
    pce.num_constraints = ka.num_constraints();
    pce.a = ka.take_compact(0);
    pce.b = ka.take_compact(1);
    pce.c = ka.take_compact(2);
    pce.coeffs = ka.take_coefficients();
    check_terms(pce.a, 'A', pce.num_inputs, pce.num_aux, pce.coeffs.size());
    check_terms(pce.b, 'B', pce.num_inputs, pce.num_aux, pce.coeffs.size());
    check_terms(pce.c, 'C', pce.num_inputs, pce.num_aux, pce.coeffs.size());
    derive_densities(pce);
    return pce;
}

void evaluate(const PrecompiledR1cs& pce, std::span<const Fr> inputs, std::span<const Fr> aux, std::vector<Fr>& a,
              std::vector<Fr>& b, std::vector<Fr>& c, ThreadPool& pool, bool check_rows) {
    if (inputs.size() != pce.num_inputs)
        throw std::invalid_argument("pce evaluate: " + std::to_string(inputs.size()) + " inputs given, circuit has " +
                                    std::to_string(pce.num_inputs));
    if (aux.size() != pce.num_aux)
        throw std::invalid_argument("pce evaluate: " + std::to_string(aux.size()) +
                                    " aux values given, circuit has " + std::to_string(pce.num_aux));
    // The matrices are checked against the counts when compiled or read; a hand-built one is checked here so that
    // the unchecked indexing below cannot read out of bounds.
    check_matrix_shapes(pce, "pce evaluate");
    const size_t n = pce.num_constraints;
    for (std::vector<Fr>* out : {&a, &b, &c}) {
        reserve_huge(*out, n, &pool);
        out->resize(n);
    }
    const Fr* in = inputs.data();
    const Fr* ax = aux.data();
    const Fr* co = pce.coeffs.data();
    // Rows vary in length (bit packings vs. single products), so a few chunks per thread even out the load.
    size_t chunks = pool.size() == 1 ? 1 : pool.size() * 4;
    // The lowest row whose a * b != c. Checked while the block's values are still in cache (one product per row,
    // a small share of the sparse products): a PCE that does not match the circuit (stale, edited with its
    // checksum recomputed) or a witness that does not satisfy it is refused here, before any proving work.
    std::atomic<size_t> first_unsatisfied{n};
    pool.parallel_for(
        n,
        [&](size_t lo, size_t hi) {
            auto spmv = [&](const CompactMatrix& m, Fr* out, size_t from, size_t to) {
                const CompactTerm* terms = m.terms.data();
                const uint64_t* rs = m.row_start.data();
                for (size_t j = from; j < to; j++) out[j] = dot_row(terms + rs[j], terms + rs[j + 1], co, in, ax);
            };
            // A, B and C row j use the same few variables: blocks of rows through all three matrices keep those
            // values in cache for B and C.
            constexpr size_t kBlock = 2048;
            for (size_t from = lo; from < hi; from += kBlock) {
                const size_t to = std::min(hi, from + kBlock);
                spmv(pce.a, a.data(), from, to);
                spmv(pce.b, b.data(), from, to);
                spmv(pce.c, c.data(), from, to);
                for (size_t j = from; check_rows && j < to; j++)
                    if (a[j] * b[j] != c[j]) {
                        size_t seen = first_unsatisfied.load(std::memory_order_relaxed);
                        while (j < seen && !first_unsatisfied.compare_exchange_weak(seen, j)) {
                        }
                        break;
                    }
            }
        },
        chunks);
    if (size_t j = first_unsatisfied.load(); j < n)
        throw SynthesisError(SynthesisErrorKind::Unsatisfiable,
                             "constraint " + std::to_string(j) + " of " + std::to_string(n) +
                                 " is not satisfied by the witness (a * b != c): the precompiled constraints do not "
                                 "match this circuit (a stale or edited PCE file) or the witness is not a solution");
}

void evaluate(const PrecompiledR1cs& pce, std::span<const Fr> inputs, std::span<const Fr> aux, std::vector<Fr>& a,
              std::vector<Fr>& b, std::vector<Fr>& c) {
    evaluate(pce, inputs, aux, a, b, c, ThreadPool::global());
}

// ---- on-disk format ------------------------------------------------------------------------------------------------

namespace {

constexpr size_t kHeaderBytes = 8 + 4 + 4 + 7 * 8;
constexpr size_t kDigestBytes = 32;

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what) {
    throw std::runtime_error("pce file " + path.string() + ": " + what);
}

size_t words_for(size_t bits) { return (bits + 63) / 64; }

// DensityTracker keeps its words private; they are rebuilt bit by bit (get/mark), which is O(variables).
void put_density(std::vector<uint64_t>& out, const DensityTracker& d) {
    for (size_t w = 0; w < words_for(d.size()); w++) {
        uint64_t word = 0;
        for (size_t i = w * 64; i < std::min(d.size(), w * 64 + 64); i++) word |= uint64_t{d.get(i)} << (i % 64);
        out.push_back(word);
    }
}

class Sha256 {
public:
    Sha256() : ctx_(EVP_MD_CTX_new()) {
        if (!ctx_ || EVP_DigestInit_ex(ctx_, EVP_sha256(), nullptr) != 1) throw std::runtime_error("pce: SHA-256 init");
    }
    ~Sha256() { EVP_MD_CTX_free(ctx_); }
    Sha256(const Sha256&) = delete;
    Sha256& operator=(const Sha256&) = delete;
    void update(const void* p, size_t n) {
        if (n && EVP_DigestUpdate(ctx_, p, n) != 1) throw std::runtime_error("pce: SHA-256 update");
    }
    std::array<uint8_t, kDigestBytes> finish() {
        std::array<uint8_t, kDigestBytes> d{};
        unsigned len = 0;
        if (EVP_DigestFinal_ex(ctx_, d.data(), &len) != 1 || len != kDigestBytes)
            throw std::runtime_error("pce: SHA-256 final");
        return d;
    }

private:
    EVP_MD_CTX* ctx_;
};

// Writes and hashes in one pass, into a file that appears whole or not at all (util/output_file.hpp).
class HashingWriter {
public:
    explicit HashingWriter(const std::filesystem::path& path) : out_(path) {}
    void put(const void* p, size_t n) {
        hash_.update(p, n);
        out_.write(p, n);
    }
    template <class T>
    void put_value(const T& v) {
        put(&v, sizeof v);
    }
    void finish() {
        auto d = hash_.finish();
        out_.write(d.data(), d.size());
        out_.commit();
    }

private:
    OutputFile out_;
    Sha256 hash_;
};

// a * b + c with overflow detection (the counts come from an untrusted header).
bool mul_add(uint64_t a, uint64_t b, uint64_t& acc) {
    uint64_t prod;
    if (__builtin_mul_overflow(a, b, &prod)) return false;
    return !__builtin_add_overflow(acc, prod, &acc);
}

}  // namespace

ProvingAssignment witness_assignment(const PrecompiledR1cs& pce, const Circuit& circuit, ThreadPool& pool) {
    WitnessAssignment w;
    w.reserve(pce.num_inputs, pce.num_aux, &pool);
    witness_groth16(w, circuit);
    if (w.inputs().size() != pce.num_inputs || w.aux().size() != pce.num_aux)
        throw std::invalid_argument("pce: the circuit's witness has " + std::to_string(w.inputs().size()) +
                                    " inputs and " + std::to_string(w.aux().size()) +
                                    " aux values, the compiled matrices " + std::to_string(pce.num_inputs) + " and " +
                                    std::to_string(pce.num_aux));
    return ProvingAssignment::deferred(std::move(w.inputs()), std::move(w.aux()), pce, pce.a_aux_density,
                                       pce.b_input_density, pce.b_aux_density);
}

void complete_products(ProvingAssignment& asg, ThreadPool& pool) {
    const PrecompiledR1cs* pce = asg.deferred_products();
    if (!pce) return;
    evaluate(*pce, asg.inputs(), asg.aux(), asg.a(), asg.b(), asg.c(), pool, true);  // checks every row
    asg.products_done();
}

void complete_products(ProvingAssignment& asg) { complete_products(asg, ThreadPool::global()); }

ProvingAssignment assignment_from_pce(const PrecompiledR1cs& pce, const Circuit& circuit, ThreadPool& pool) {
    ProvingAssignment asg = witness_assignment(pce, circuit, pool);
    complete_products(asg, pool);
    return asg;
}

void write_pce(const std::filesystem::path& path, const PrecompiledR1cs& pce) {
    check_matrix_shapes(pce, "write_pce");
    if (pce.a_aux_density.size() != pce.num_aux || pce.b_input_density.size() != pce.num_inputs ||
        pce.b_aux_density.size() != pce.num_aux)
        throw std::invalid_argument("write_pce: density sizes do not match the variable counts");
    if (pce.circuit.size() > kPceMaxCircuitName) throw std::invalid_argument("write_pce: circuit name too long");
    try {
        HashingWriter w(path);
        w.put(kPceMagic, sizeof kPceMagic);
        w.put_value(kPceVersion);
        w.put_value((uint32_t)pce.circuit.size());
        for (uint64_t v : {(uint64_t)pce.num_inputs, (uint64_t)pce.num_aux, (uint64_t)pce.num_constraints,
                           (uint64_t)pce.a.terms.size(), (uint64_t)pce.b.terms.size(), (uint64_t)pce.c.terms.size(),
                           (uint64_t)pce.coeffs.size()})
            w.put_value(v);
        w.put(pce.circuit.data(), pce.circuit.size());
        w.put(pce.coeffs.data(), pce.coeffs.size() * sizeof(Fr));
        for (const CompactMatrix* m : {&pce.a, &pce.b, &pce.c}) {
            w.put(m->row_start.data(), m->row_start.size() * sizeof(uint64_t));
            w.put(m->terms.data(), m->terms.size() * sizeof(CompactTerm));  // the on-disk layout (static_assert)
        }
        std::vector<uint64_t> words;
        put_density(words, pce.a_aux_density);
        put_density(words, pce.b_input_density);
        put_density(words, pce.b_aux_density);
        w.put(words.data(), words.size() * sizeof(uint64_t));
        w.finish();
    } catch (const OutputFileError& e) {
        fail(path, e.what());
    }
}

namespace {

PrecompiledR1cs decode_pce(std::span<const uint8_t> bytes, const std::filesystem::path& path,
                           std::string_view expected_circuit) {
    if (bytes.size() < sizeof kPceMagic)
        fail(path, "truncated: " + std::to_string(bytes.size()) + " bytes is shorter than the magic");
    if (std::memcmp(bytes.data(), kPceMagic, sizeof kPceMagic) != 0) fail(path, "not a PCE file (wrong magic)");
    if (bytes.size() < kHeaderBytes + kDigestBytes)
        fail(path, "truncated: " + std::to_string(bytes.size()) + " bytes is shorter than the header");
    uint32_t version;
    std::memcpy(&version, bytes.data() + 8, 4);
    if (version != kPceVersion)
        fail(path, "unsupported version " + std::to_string(version) + " (this build reads version " +
                       std::to_string(kPceVersion) + ")");
    uint32_t name_len;
    std::memcpy(&name_len, bytes.data() + 12, 4);
    if (name_len > kPceMaxCircuitName) fail(path, "corrupted header: circuit name length " + std::to_string(name_len));
    uint64_t h[7];
    std::memcpy(h, bytes.data() + 16, sizeof h);
    const uint64_t num_inputs = h[0], num_aux = h[1], num_constraints = h[2];
    const uint64_t terms[3] = {h[3], h[4], h[5]};
    const uint64_t num_coeffs = h[6];
    if (num_coeffs == 0 || num_coeffs > uint64_t{UINT32_MAX} + 1)
        fail(path, "corrupted header: coefficient count out of range");
    // Variable indices are 31-bit; larger counts cannot come from a circuit. This also keeps the size arithmetic
    // below far from overflow for the variable counts.
    if (num_inputs == 0 || num_inputs > uint64_t{Variable::kMaxIndex} + 1 || num_aux > uint64_t{Variable::kMaxIndex} + 1)
        fail(path, "corrupted header: variable counts out of range");
    // The exact file size implied by the header, checked before anything is allocated.
    uint64_t expected = kHeaderBytes + name_len + kDigestBytes;
    bool ok = mul_add(num_coeffs, sizeof(Fr), expected);
    for (uint64_t t : terms) {
        ok = ok && num_constraints < UINT64_MAX && mul_add(num_constraints + 1, 8, expected);
        ok = ok && mul_add(t, sizeof(CompactTerm), expected);
    }
    ok = ok && mul_add(2 * words_for(num_aux) + words_for(num_inputs), 8, expected);
    if (!ok) fail(path, "corrupted header: counts overflow");
    if (bytes.size() < expected)
        fail(path, "truncated: " + std::to_string(bytes.size()) + " bytes, the header implies " +
                       std::to_string(expected));
    if (bytes.size() > expected)
        fail(path, "size mismatch: " + std::to_string(bytes.size()) + " bytes, the header implies " +
                       std::to_string(expected) + " (trailing data or corrupted header)");
    {
        Sha256 sha;
        sha.update(bytes.data(), bytes.size() - kDigestBytes);
        auto d = sha.finish();
        if (std::memcmp(d.data(), bytes.data() + bytes.size() - kDigestBytes, kDigestBytes) != 0)
            fail(path, "checksum mismatch (file corrupted)");
    }

    PrecompiledR1cs pce;
    pce.num_inputs = num_inputs;
    pce.num_aux = num_aux;
    pce.num_constraints = num_constraints;
    pce.circuit.assign(reinterpret_cast<const char*>(bytes.data() + kHeaderBytes), name_len);
    if (!expected_circuit.empty() && pce.circuit != expected_circuit)
        fail(path, "recorded for circuit '" + pce.circuit + "', not '" + std::string(expected_circuit) + "'");
    size_t off = kHeaderBytes + name_len;
    pce.coeffs.resize(num_coeffs);
    std::memcpy((void*)pce.coeffs.data(), bytes.data() + off, num_coeffs * sizeof(Fr));
    off += num_coeffs * sizeof(Fr);
    for (const Fr& c : pce.coeffs)
        if (bigint::cmp(c.mont_limbs(), Fr::P) >= 0) fail(path, "coefficient not reduced");
    if (!pce.coeffs[0].is_one()) fail(path, "the first coefficient is not one");
    CompactMatrix* mats[3] = {&pce.a, &pce.b, &pce.c};
    const char names[3] = {'A', 'B', 'C'};
    for (int k = 0; k < 3; k++) {
        CompactMatrix& m = *mats[k];
        std::string name = std::string("matrix ") + names[k];
        m.row_start.resize(num_constraints + 1);
        std::memcpy(m.row_start.data(), bytes.data() + off, m.row_start.size() * 8);
        off += m.row_start.size() * 8;
        m.terms.resize(terms[k]);
        std::memcpy((void*)m.terms.data(), bytes.data() + off, m.terms.size() * sizeof(CompactTerm));
        off += m.terms.size() * sizeof(CompactTerm);
        // A valid checksum only says the file is as written; the structure is still checked so that a file from a
        // faulty writer cannot make evaluate() read out of bounds.
        if (m.row_start[0] != 0 || m.row_start.back() != terms[k]) fail(path, name + ": row offsets do not span its terms");
        for (size_t i = 0; i < num_constraints; i++)
            if (m.row_start[i] > m.row_start[i + 1]) fail(path, name + ": row offsets decrease at row " + std::to_string(i));
        for (const CompactTerm& t : m.terms) {
            if (t.var.is_input() ? t.var.index() >= num_inputs : t.var.index() >= num_aux)
                fail(path, name + ": variable out of range");
            if (t.coeff >= num_coeffs) fail(path, name + ": coefficient index out of range");
        }
    }
    // The densities are stored for the reader's convenience but are a function of the matrices: rebuild them and
    // require the stored words to agree.
    derive_densities(pce);
    std::vector<uint64_t> derived;
    put_density(derived, pce.a_aux_density);
    put_density(derived, pce.b_input_density);
    put_density(derived, pce.b_aux_density);
    if (std::memcmp(derived.data(), bytes.data() + off, derived.size() * 8) != 0)
        fail(path, "stored densities disagree with the matrices");
    return pce;
}

}  // namespace

PrecompiledR1cs read_pce(const std::filesystem::path& path, std::string_view expected_circuit) {
    formats::MappedFile file(path);
    return file.read([&](std::span<const uint8_t> bytes) { return decode_pce(bytes, path, expected_circuit); });
}

PrecompiledR1cs read_pce(std::span<const uint8_t> bytes, const std::filesystem::path& source,
                         std::string_view expected_circuit) {
    return decode_pce(bytes, source, expected_circuit);
}

bool operator==(const CompactMatrix& x, const CompactMatrix& y) {
    if (x.row_start != y.row_start || x.terms.size() != y.terms.size()) return false;
    for (size_t i = 0; i < x.terms.size(); i++)
        if (!(x.terms[i].var == y.terms[i].var) || x.terms[i].coeff != y.terms[i].coeff) return false;
    return true;
}

bool operator==(const PrecompiledR1cs& x, const PrecompiledR1cs& y) {
    return x.circuit == y.circuit && x.num_inputs == y.num_inputs && x.num_aux == y.num_aux &&
           x.num_constraints == y.num_constraints && x.coeffs == y.coeffs && x.a == y.a && x.b == y.b && x.c == y.c && x.a_aux_density == y.a_aux_density &&
           x.b_input_density == y.b_input_density && x.b_aux_density == y.b_aux_density;
}

}  // namespace cuzk::r1cs
