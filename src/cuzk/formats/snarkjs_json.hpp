// snarkjs's JSON files for Groth16 on curve bls12381, written byte for byte as snarkjs 0.7 writes them
// (JSON.stringify(value, null, 1): one-space indentation, keys in snarkjs's order, no final newline):
//   proof.json               {"pi_a": [x, y, "1"], "pi_b": [[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]],
//                             "pi_c": [x, y, "1"], "protocol": "groth16", "curve": "bls12381"}
//   public.json              ["v1", "v2", ...] (the public signals: outputs, then public inputs)
//   verification_key.json    {"protocol", "curve", "nPublic", "vk_alpha_1", "vk_beta_2", "vk_gamma_2", "vk_delta_2",
//                             "vk_alphabeta_12" (e(alpha, beta) in Fq12 as [[[c0.c0.c0, c0.c0.c1], ...]]), "IC"}
// Numbers are canonical decimal strings; points are affine with a third coordinate "1" (the point at infinity is
// ["0", "1", "0"] in G1 and [["0","0"],["1","0"],["0","0"]] in G2, as snarkjs writes it).
//
// Readers accept any whitespace, require the fields above (extra fields are ignored; vk_alphabeta_12 is not read),
// require curve "bls12381" and protocol "groth16", and check every point: coordinates < q, on the curve, in the
// prime-order subgroup. Errors are formats::FormatError (BadJson, BadValue, BadPoint) naming the file and field.
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cuzk/ff/fr.hpp"
#include "cuzk/formats/bellman_params.hpp"
#include "cuzk/groth16/types.hpp"

namespace cuzk::formats::snarkjs {

std::string proof_to_json(const groth16::Proof& proof);
groth16::Proof parse_proof_json(std::string_view text, std::string_view source = "proof.json");

std::string public_signals_to_json(std::span<const Fr> signals);
std::vector<Fr> parse_public_signals_json(std::string_view text, std::string_view source = "public.json");

std::string verification_key_to_json(const groth16::VerifyingKey& vk);
groth16::VerifyingKey parse_verification_key_json(std::string_view text,
                                                  std::string_view source = "verification_key.json");

// Whole files (FormatError(Io) when unreadable); writes go through a temporary file renamed into place.
std::string read_text_file(const std::filesystem::path& path);
void write_text_file(const std::filesystem::path& path, std::string_view text);

}  // namespace cuzk::formats::snarkjs
