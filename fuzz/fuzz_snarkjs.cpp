// snarkjs's proof.json, public.json and verification_key.json (formats/snarkjs_json.hpp).
#include "cuzk/formats/snarkjs_json.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace cuzk::formats::snarkjs;
    const auto t = cuzk::fuzz::text(data, size);
    cuzk::fuzz::refusal_is_fine([&] { parse_proof_json(t); });
    cuzk::fuzz::refusal_is_fine([&] { parse_public_signals_json(t); });
    cuzk::fuzz::refusal_is_fine([&] { parse_verification_key_json(t); });
    return 0;
}
