// Filecoin's inputs: the C1 output (serde JSON) and Curio's envelope, and the vanilla proofs of PoSt and SnapDeals
// (bincode or JSON) (filecoin/c1.hpp, post_vanilla.hpp, snap_vanilla.hpp).
#include "cuzk/filecoin/c1.hpp"
#include "cuzk/filecoin/post_vanilla.hpp"
#include "cuzk/filecoin/snap_vanilla.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace cuzk::filecoin;
    const auto b = cuzk::fuzz::bytes(data, size);
    cuzk::fuzz::refusal_is_fine([&] { parse_c1_or_envelope(cuzk::fuzz::text(data, size)); });
    cuzk::fuzz::refusal_is_fine([&] { read_post_vanilla_proof(b, "fuzz"); });
    cuzk::fuzz::refusal_is_fine([&] { read_snap_vanilla_proof(b, "fuzz", UpdateCircuit::Sha256); });
    cuzk::fuzz::refusal_is_fine([&] { read_snap_vanilla_proof(b, "fuzz", UpdateCircuit::Poseidon); });
    return 0;
}
