#include "cuzk/filecoin/snap_vanilla.hpp"

#include "cuzk/filecoin/bincode.hpp"

namespace cuzk::filecoin {

SnapPartitionProof read_snap_vanilla_proof(std::span<const uint8_t> bytes, std::string_view label) {
    using bincode::idx;
    using bincode::Reader;
    Reader r(bytes, label);
    SnapPartitionProof p;
    {
        Reader::Field f(r, "comm_c");
        p.comm_c = r.domain();
    }
    {
        Reader::Field f(r, "apex_leafs");
        p.apex_leafs.resize(r.length(32));
        for (size_t i = 0; i < p.apex_leafs.size(); i++) {
            Reader::Field g(r, idx(i));
            p.apex_leafs[i] = r.domain();
        }
    }
    {
        Reader::Field f(r, "challenge_proofs");
        p.challenge_proofs.resize(r.length(3 * bincode::kMinMerkleProofBytes));
        for (size_t i = 0; i < p.challenge_proofs.size(); i++) {
            Reader::Field g(r, idx(i));
            SnapChallengeProof& c = p.challenge_proofs[i];
            for (auto [name, proof] : {std::pair{"proof_r_old", &c.proof_r_old}, std::pair{"proof_d_new", &c.proof_d_new},
                                       std::pair{"proof_r_new", &c.proof_r_new}}) {
                Reader::Field h(r, name);
                *proof = bincode::read_merkle_proof(r);
            }
        }
    }
    r.finish();
    return p;
}

std::vector<uint8_t> write_snap_vanilla_proof(const SnapPartitionProof& proof) {
    bincode::Writer w;
    w.domain(proof.comm_c);
    w.u64(proof.apex_leafs.size());
    for (const Domain& d : proof.apex_leafs) w.domain(d);
    w.u64(proof.challenge_proofs.size());
    for (const SnapChallengeProof& c : proof.challenge_proofs) {
        bincode::write_merkle_proof(w, c.proof_r_old);
        bincode::write_merkle_proof(w, c.proof_d_new);
        bincode::write_merkle_proof(w, c.proof_r_new);
    }
    return w.take();
}

}  // namespace cuzk::filecoin
