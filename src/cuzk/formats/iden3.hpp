// iden3 binary containers written by circom and snarkjs: `.r1cs` (v1), `.wtns` (v2) and Groth16 `.zkey` (v1).
//
// Container (all integers little-endian):
//   magic (4 bytes: "r1cs" | "wtns" | "zkey") | u32 version | u32 n_sections | n_sections x (u32 type | u64 size | body)
// Sections may come in any order; the ones a reader needs must occur exactly once; others are skipped.
//
// .r1cs v1:   1 header: u32 n8 | prime (n8 bytes) | u32 n_wires | u32 n_pub_out | u32 n_pub_in | u32 n_prv_in |
//                       u64 n_labels | u32 n_constraints
//             2 constraints: per constraint, for A, B, C: u32 n_terms | n_terms x (u32 wire | coefficient, n8 bytes)
//             3 wire -> label map (u64 per wire; not read)
//   Coefficients are canonical (standard form). Wire 0 is the constant one, then the public outputs, the public
//   inputs, the private inputs, then internal wires.
// .wtns v2:   1 header: u32 n8 | prime | u32 n_witness       2 values: n_witness x n8 bytes, canonical.
// .zkey:      1 u32 protocol (1 = Groth16)
//             2 u32 n8q | q | u32 n8r | r | u32 n_vars | u32 n_public | u32 domain_size |
//               alpha_1 | beta_1 | beta_2 | gamma_2 | delta_1 | delta_2
//             3 IC: (n_public + 1) x G1                 4 coefficients: u32 count | count x (u32 matrix (0 = A,
//             5 A: n_vars x G1                            1 = B) | u32 constraint | u32 signal | value, n8r bytes)
//             6 B1: n_vars x G1                         7 B2: n_vars x G2
//             8 C: (n_vars - n_public - 1) x G1         9 H: domain_size x G1        10 the MPC transcript (not read)
//   Fq coordinates are n8q-byte little-endian Montgomery form (R = 2^(8 n8q), 2^384 for BLS12-381, the same R as
//   cuzk's Fq, so the bytes are cuzk's Montgomery limbs); a G1 point is x | y, a G2 point x.c0 | x.c1 | y.c0 | y.c1,
//   and the point at infinity is all zeros. Coefficients are stored as value * R^2 mod r (R = 2^256), i.e. in
//   Montgomery form once more than cuzk's Fr. Setup appends n_public + 1 constraints (constraint n_constraints + s
//   has coefficient 1 for wire s in A) and does not store C: the prover uses c = a * b pointwise.
//
// Curves are identified by their primes (the table in iden3.cpp). Only BLS12-381 is supported; BN254 (circom's
// default) and any other prime are refused with a message that names the curve and how to recompile. Readers are
// written over `CurveId` so another curve needs a field type and a table entry, not a new parser.
//
// Every count is checked against the bytes its section holds before anything is allocated; every problem is an
// Iden3Error naming the file, the section and, where there is one, the index of the record.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cuzk/ec/g1.hpp"
#include "cuzk/ec/g2.hpp"
#include "cuzk/ff/fr.hpp"

namespace cuzk::formats::iden3 {

enum class Iden3ErrorKind : uint8_t {
    Io = 1,            // missing or unreadable file
    Truncated,         // the data ends inside a header, a section header or a fixed-size field
    BadMagic,          // not the expected container ("r1cs", "wtns", "zkey")
    BadVersion,        // a container version this reader does not know
    MissingSection,    // a needed section is absent
    DuplicateSection,  // a needed section occurs more than once
    BadSectionSize,    // a section's size disagrees with what its header says it holds
    CountTooLarge,     // a count needs more bytes than the section (or file) holds
    UnsupportedCurve,  // BN254 or an unknown prime
    BadHeader,         // inconsistent header values (n8, wire counts, domain size, protocol)
    BadValue,          // a field element >= its modulus, a wire or signal index out of range
    BadPoint,          // a coordinate >= q, a point not on the curve or not in the prime-order subgroup
};

std::string_view iden3_error_kind_name(Iden3ErrorKind kind);

class Iden3Error : public std::runtime_error {
  public:
    Iden3Error(Iden3ErrorKind kind, const std::string& message, std::string section = {},
               std::optional<size_t> index = std::nullopt);
    Iden3ErrorKind kind() const { return kind_; }
    const std::string& section() const { return section_; }
    std::optional<size_t> index() const { return index_; }

  private:
    Iden3ErrorKind kind_;
    std::string section_;
    std::optional<size_t> index_;
};

// ---- curves --------------------------------------------------------------------------------------------------------

enum class CurveId : uint8_t { Bls12_381, Bn254 };

// "bls12381" / "bn128": the names snarkjs writes in proof.json and verification_key.json.
std::string_view snarkjs_curve_name(CurveId curve);

// ---- containers ----------------------------------------------------------------------------------------------------

struct Section {
    uint32_t type = 0;
    size_t offset = 0;  // of the body in the file
    std::span<const uint8_t> body;
};

struct Container {
    uint32_t version = 0;
    std::vector<Section> sections;  // in file order
    // The one section of that type; Iden3Error(MissingSection / DuplicateSection) naming `name`.
    const Section& unique(uint32_t type, std::string_view name, std::string_view source) const;
    bool has(uint32_t type) const;
};

// Checks the magic, that the version is in [1, max_version], and that every section lies inside the data.
Container parse_container(std::span<const uint8_t> data, std::string_view magic, uint32_t max_version,
                          std::string_view source);

// ---- .r1cs ---------------------------------------------------------------------------------------------------------

// Compressed sparse rows: row i's terms are [row_start[i], row_start[i + 1]).
struct SparseRows {
    std::vector<size_t> row_start;  // rows + 1 entries
    std::vector<uint32_t> wire;
    std::vector<Fr> coeff;
    size_t rows() const { return row_start.empty() ? 0 : row_start.size() - 1; }
};

struct R1cs {
    CurveId curve = CurveId::Bls12_381;
    uint32_t n_wires = 0, n_pub_out = 0, n_pub_in = 0, n_prv_in = 0;
    uint64_t n_labels = 0;
    uint32_t n_constraints = 0;
    SparseRows a, b, c;
    uint32_t n_public() const { return n_pub_out + n_pub_in; }  // not counting the constant one
};

R1cs read_r1cs(const std::filesystem::path& path);
R1cs read_r1cs(std::span<const uint8_t> data, std::string_view source);

// ---- .wtns ---------------------------------------------------------------------------------------------------------

struct Witness {
    CurveId curve = CurveId::Bls12_381;
    std::vector<Fr> values;  // values[0] is the constant one
};

Witness read_wtns(const std::filesystem::path& path);
Witness read_wtns(std::span<const uint8_t> data, std::string_view source);

// ---- .zkey (Groth16) -----------------------------------------------------------------------------------------------

struct ZkeyCoefficient {
    uint32_t matrix = 0;  // 0 = A, 1 = B
    uint32_t constraint = 0;
    uint32_t signal = 0;
    Fr value;  // the coefficient itself (the file's value * R^2 already undone)
};

struct Zkey {
    CurveId curve = CurveId::Bls12_381;
    uint32_t n_vars = 0, n_public = 0, domain_size = 0;
    G1Affine alpha_1, beta_1, delta_1;
    G2Affine beta_2, gamma_2, delta_2;
    std::vector<G1Affine> ic;                 // n_public + 1
    std::vector<ZkeyCoefficient> coefficients;  // A and B, in file order
    std::vector<G1Affine> a, b1;              // n_vars each
    std::vector<G2Affine> b2;                 // n_vars
    std::vector<G1Affine> c;                  // n_vars - n_public - 1 (the private signals)
    std::vector<G1Affine> h;                  // domain_size
};

struct ZkeyReadOptions {
    // Check that the points of A, B1, B2, C and H are in their prime-order subgroups. Off, they are still checked to
    // be on the curve with coordinates < q (use it only for files whose hash you pin). The verifying-key points and
    // IC are always fully checked.
    bool check_subgroup = true;
    // Read only the header and IC (what a verifying key needs); the proving-key sections are still size-checked.
    bool verifying_key_only = false;
};

Zkey read_zkey(const std::filesystem::path& path, const ZkeyReadOptions& options = {});
Zkey read_zkey(std::span<const uint8_t> data, std::string_view source, const ZkeyReadOptions& options = {});

}  // namespace cuzk::formats::iden3
