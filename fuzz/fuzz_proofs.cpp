// Proof files and public inputs, raw and JSON (formats/proof_io.hpp).
#include "cuzk/formats/proof_io.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace cuzk;
    const auto b = fuzz::bytes(data, size);
    fuzz::refusal_is_fine([&] { formats::decode_proofs(b, "fuzz.proof"); });
    fuzz::refusal_is_fine([&] { formats::decode_public_inputs_raw(b, "fuzz.bin"); });
    fuzz::refusal_is_fine([&] { formats::parse_public_inputs_json(fuzz::text(data, size), "fuzz.json"); });
    return 0;
}
