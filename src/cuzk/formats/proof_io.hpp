// Groth16 proofs and public inputs on disk and on the wire.
//
// PROOF (bellman `Proof::write`, bellperson likewise): 192 bytes,
//     A: G1 compressed (48 B) || B: G2 compressed (96 B) || C: G1 compressed (48 B)
//   in the zcash encoding (cuzk/ec/encoding.hpp). Decoding is fully checked (flags, coordinates < p, on the curve,
//   in the prime-order subgroup) and, as in bellman's reader, rejects the point at infinity for A, B and C.
// PROOF BATCH: proofs concatenated with nothing between or around them (10 proofs = 1920 bytes); the length must be
//   a multiple of 192. An empty batch is valid (zero proofs).
//
// PUBLIC INPUTS (the circuit's inputs without the constant one, in allocation order), two formats:
//   Json   a JSON array of decimal strings (snarkjs' public.json), e.g. with the values 1 and r - 1:
//            ["1", "52435875175126190479447740508185965837690552500527637822603658699938581184512"]
//          Every element must be a string of decimal digits with no sign, no leading zero
//          (except "0" itself), no spaces, and a value < r; numbers, negatives, nulls, nested arrays and objects are
//          rejected with the element's index. Whitespace between tokens is free; an empty array is valid.
//          Written as one element per line, with a final newline.
//   RawLe  the values concatenated, 32 bytes each, little-endian, canonical (< r); the length must be a multiple of
//          32. An empty file is valid.
// Errors are formats::FormatError (see bellman_params.hpp) naming the source, the proof or value index and the point.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cuzk/ff/fr.hpp"
#include "cuzk/formats/bellman_params.hpp"
#include "cuzk/groth16/types.hpp"

namespace cuzk::formats {

inline constexpr size_t PROOF_BYTES = G1_COMPRESSED_BYTES + G2_COMPRESSED_BYTES + G1_COMPRESSED_BYTES;  // 192
inline constexpr size_t FR_RAW_BYTES = 32;
static_assert(PROOF_BYTES == 192);

// ---- proofs -----------------------------------------------------------------------------------------------------

std::array<uint8_t, PROOF_BYTES> encode_proof(const groth16::Proof& proof);
std::vector<uint8_t> encode_proofs(std::span<const groth16::Proof> proofs);

// Exactly PROOF_BYTES bytes, else FormatError(BadLength). A bad point: FormatError(BadPoint or PointAtInfinity) with
// section() "a", "b" or "c".
groth16::Proof decode_proof(std::span<const uint8_t> bytes, std::string_view source = "proof");
// A batch; the proofs are decoded in parallel and the first bad one (lowest index) is reported with its index and
// point, e.g. "proofs.bin: proof 3, point b: point is not in the prime-order subgroup".
std::vector<groth16::Proof> decode_proofs(std::span<const uint8_t> bytes, std::string_view source = "proofs");

std::vector<groth16::Proof> read_proofs(const std::filesystem::path& path);
// Writes through a temporary file renamed into place.
void write_proofs(const std::filesystem::path& path, std::span<const groth16::Proof> proofs);

// ---- public inputs ------------------------------------------------------------------------------------------------

enum class PublicInputsFormat : uint8_t { Json, RawLe };

// Json for a ".json" extension (any case), RawLe for anything else.
PublicInputsFormat public_inputs_format_for(const std::filesystem::path& path);

std::vector<Fr> parse_public_inputs_json(std::string_view text, std::string_view source = "public inputs");
std::string public_inputs_to_json(std::span<const Fr> inputs);

std::vector<Fr> decode_public_inputs_raw(std::span<const uint8_t> bytes, std::string_view source = "public inputs");
std::vector<uint8_t> encode_public_inputs_raw(std::span<const Fr> inputs);

std::vector<Fr> read_public_inputs(const std::filesystem::path& path, PublicInputsFormat format);
void write_public_inputs(const std::filesystem::path& path, std::span<const Fr> inputs, PublicInputsFormat format);

}  // namespace cuzk::formats
