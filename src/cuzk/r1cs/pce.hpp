// The pre-compiled constraint evaluator (PCE).
//
// Full synthesis through ProvingAssignment rebuilds every linear combination for every proof, although the
// circuit's shape never changes between proofs: only the assignment does. The PCE splits proving-time synthesis in
// two separable halves:
//   1. compile_r1cs (once per circuit shape): the constraints as three CSR matrices A, B, C, recorded by
//      KeygenAssembly, plus the three density trackers derived from the matrices; storable with write_pce/read_pce.
//   2. per proof: witness_groth16 runs the circuit through WitnessAssignment, which records only the assignment
//      (enforce is a no-op, so no linear combination is evaluated), then evaluate() computes a = A·z, b = B·z,
//      c = C·z with z = (inputs, aux) as a parallel sparse matrix-vector product. The SpMV takes only spans and the
//      matrices, so it can move to the GPU without touching the witness path.
// The outputs (a, b, c, inputs, aux, densities) are bit-identical to ProvingAssignment's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cuzk/r1cs/circuit.hpp"
#include "cuzk/r1cs/keygen_assembly.hpp"
#include "cuzk/r1cs/proving_assignment.hpp"
#include "cuzk/r1cs/witness_assignment.hpp"
#include "cuzk/util/thread_pool.hpp"

namespace cuzk::r1cs {

struct PrecompiledR1cs {
    size_t num_inputs = 0;  // the constant one included
    size_t num_aux = 0;
    size_t num_constraints = 0;  // the input constraints included
    // The matrices share one coefficient table (coeffs[0] is one); a term is 8 bytes (keygen_assembly.hpp).
    std::vector<Fr> coeffs;
    CompactMatrix a, b, c;
    // As ProvingAssignment marks them: aux variables with a nonzero coefficient in some A row; input / aux
    // variables with a nonzero coefficient in some B row.
    DensityTracker a_aux_density, b_input_density, b_aux_density;
    // Which circuit shape the matrices were recorded from, as the caller names it (e.g. the CLI's "StackedDrg2KiBV1_1 partition" or
    // "mulchain log_size=16 publics=4"); empty when unnamed. Stored in the file, so a reader can refuse a file made
    // for another circuit even when the sizes happen to agree (read_pce's expected_circuit).
    std::string circuit;
};

// Records `circuit` as Groth16 synthesizes it (synthesize_groth16 over KeygenAssembly) and derives the densities.
// Throws SynthesisError if a constraint uses a variable that was never allocated (ProvingAssignment would throw on
// that too; checking here lets evaluate() index without bounds checks).
PrecompiledR1cs compile_r1cs(const Circuit& circuit);
// The matrices a compact KeygenAssembly (KeygenAssembly(true)) recorded, checked as compile_r1cs checks them, with
// their densities; for systems recorded without a Circuit (a zkey's rows). Takes the recording out of `ka`.
PrecompiledR1cs compile_recorded(KeygenAssembly& ka);

// std::invalid_argument, prefixed by `who`, unless every matrix has num_constraints rows whose starts end at its
// term count and the coefficient table starts with one: what every reader of the rows indexes by (evaluate, the
// GPU's copy, write_pce; files and compile_r1cs are checked further when made).
void check_matrix_shapes(const PrecompiledR1cs& pce, std::string_view who);

// Derives the three density trackers of `pce` from its matrices (used by compile_r1cs and to check read_pce).
void derive_densities(PrecompiledR1cs& pce);

// The witness half of synthesize_groth16: the constant one as input 0, then the circuit. (The input constraints
// input_i * 0 = 0 that synthesize_groth16 appends are constraints only, already in the PrecompiledR1cs.)
inline void witness_groth16(WitnessAssignment& cs, const Circuit& circuit) {
    cs.alloc_input("one", [] { return Fr::one(); });
    circuit.synthesize_into(cs);
}

// a[j] = A_j·z, b[j] = B_j·z, c[j] = C_j·z for every constraint j, z = (inputs, aux). Rows are split across
// `pool`. Throws std::invalid_argument if inputs / aux do not have the compiled sizes. The output vectors are
// resized to num_constraints. check_rows: also require a[j] * b[j] == c[j] on every row (one product per row, while
// the row's values are in cache), else SynthesisError (Unsatisfiable) naming the first row that fails: a PCE that
// does not match the circuit (stale, or edited with its checksum recomputed) or a witness that is not a solution.
// Off for a zkey's rows, whose C is implicit (c = a * b, snarkjs).
void evaluate(const PrecompiledR1cs& pce, std::span<const Fr> inputs, std::span<const Fr> aux, std::vector<Fr>& a,
              std::vector<Fr>& b, std::vector<Fr>& c, ThreadPool& pool, bool check_rows = false);
void evaluate(const PrecompiledR1cs& pce, std::span<const Fr> inputs, std::span<const Fr> aux, std::vector<Fr>& a,
              std::vector<Fr>& b, std::vector<Fr>& c);

// Witness generation and the sparse product for one circuit, packaged as the ProvingAssignment full synthesis
// would have produced (bit-identical): the input to groth16::prove_from_assignments. Throws std::invalid_argument
// when the circuit's witness does not have the compiled sizes (another circuit), SynthesisError from the circuit
// or when a row is not satisfied (evaluate's check_rows).
ProvingAssignment assignment_from_pce(const PrecompiledR1cs& pce, const Circuit& circuit, ThreadPool& pool);
// Its two halves. witness_assignment: the witness and the densities, with a, b, c deferred to `pce`
// (ProvingAssignment::deferred; `pce` must outlive the result); std::invalid_argument when the witness does not have
// the compiled sizes. complete_products: evaluate() with check_rows into asg's a, b, c when they are deferred
// (nothing otherwise); SynthesisError for a row the witness does not satisfy.
ProvingAssignment witness_assignment(const PrecompiledR1cs& pce, const Circuit& circuit, ThreadPool& pool);
void complete_products(ProvingAssignment& asg, ThreadPool& pool);
void complete_products(ProvingAssignment& asg);

// ---- on-disk format ------------------------------------------------------------------------------------------------
//
// Little-endian throughout:
//   magic "CUZKPCE\0" (8 bytes), version u32, circuit name length u32 (<= 4096),
//   num_inputs u64, num_aux u64, num_constraints u64, terms in A u64, terms in B u64, terms in C u64,
//   coefficients u64 (version 3),
//   the circuit name (that many bytes, no terminator),
//   the coefficients (32-byte Fr in Montgomery form as 4 little-endian u64 limbs each; the first is one),
//   A, B, C: each row_start ((num_constraints + 1) x u64), then its terms (u32 variable raw, u32 coefficient index),
//   a_aux density (ceil(num_aux / 64) u64 words), b_input density (ceil(num_inputs / 64)), b_aux density
//   (ceil(num_aux / 64)),
//   SHA-256 of every byte before it (32 bytes).
// The header's counts fix the file size exactly, so a truncated file is told apart from a corrupted one.
inline constexpr uint32_t kPceVersion = 3;  // 3: interned coefficients, 8-byte terms (older files: rebuild them)
inline constexpr size_t kPceMaxCircuitName = 4096;
inline constexpr char kPceMagic[8] = {'C', 'U', 'Z', 'K', 'P', 'C', 'E', '\0'};

void write_pce(const std::filesystem::path& path, const PrecompiledR1cs& pce);
// Throws std::runtime_error saying what is wrong: not a PCE file (magic), another version, truncated, trailing
// bytes, checksum mismatch (corrupted), a structurally invalid matrix / density, or — when expected_circuit is not
// empty — a file recorded for another circuit (its stored name differs).
PrecompiledR1cs read_pce(const std::filesystem::path& path, std::string_view expected_circuit = {});
// The same from bytes already in memory (`source` names them in errors; the fuzz harness).
PrecompiledR1cs read_pce(std::span<const uint8_t> bytes, const std::filesystem::path& source,
                         std::string_view expected_circuit = {});

bool operator==(const CompactMatrix& x, const CompactMatrix& y);
bool operator==(const PrecompiledR1cs& x, const PrecompiledR1cs& y);

}  // namespace cuzk::r1cs
