// The output of PoRep commit phase 1 (C1, filecoin-proofs-api seal.rs SealCommitPhase1Output) as filecoin-proofs
// writes it with serde_json, and its conversion into the StackedDrg circuit's partition witnesses.
//
// JSON layout (serde's derive: fields in declaration order, newtype structs transparent, unit-like PhantomData as
// null, enums externally tagged, byte arrays and Domains as arrays of 32 numbers):
//   {"registered_proof": "StackedDrg2KiBV1_1",
//    "vanilla_proofs": {"StackedDrg2KiBV1": [[Proof x challenges] x partitions]},   (variant by sector size only)
//    "comm_r": [32], "comm_d": [32], "replica_id": [32], "seed": [32], "ticket": [32]}
//   Proof = {"comm_d_proofs": MerkleProof, "comm_r_last_proof": MerkleProof,
//            "replica_column_proofs": {"c_x": ColumnProof, "drg_parents": [6], "exp_parents": [8]},
//            "labeling_proofs": [L x {"parents": [37 Domains], "layer_index": u32, "node": u64}],
//            "encoding_proof": {"parents": [37], "layer_index": L, "node": u64}}
//   ColumnProof = {"column": {"index": u32, "rows": [L Domains], "_h": null}, "inclusion_proof": MerkleProof}
//   MerkleProof = {"data": {"Single": {"root", "leaf", "path": InclusionPath}}}
//               | {"data": {"Sub": {"base_proof", "sub_proof", "root", "leaf"}}}
//               | {"data": {"Top": {"base_proof", "sub_proof", "top_proof", "root", "leaf"}}}
//   InclusionPath = {"path": [{"hashes": [arity - 1 Domains], "index": position among the siblings}]}
// (storage-proofs-core merkle/proof.rs; storage-proofs-porep stacked/vanilla/{params,column,column_proof,
// labeling_proof,encoding_proof}.rs; filecoin-proofs types/mod.rs.) Unknown fields are skipped, as serde does. The
// parser and the MerkleProof form are shared with the PoSt and SnapDeals vanilla proofs (vanilla_json.hpp).
//
// Curio hands C1 over wrapped: {"SectorNum": n, "Phase1Out": "<base64 of the C1 JSON>", "SectorSize": bytes}.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cuzk/filecoin/hashers.hpp"
#include "cuzk/filecoin/porep.hpp"
#include "cuzk/filecoin/porep_circuit.hpp"
#include "cuzk/filecoin/proof_types.hpp"

namespace cuzk::filecoin {

// ---- errors -----------------------------------------------------------------------------------------------------

enum class C1ErrorKind : uint8_t {
    Syntax = 1,    // not JSON (truncated, bad token, bad UTF-8), or bad base64 in Curio's envelope
    Schema,        // JSON of the wrong shape: a missing field, a wrong type, a number out of its type's range
    ProofType,     // an unknown registered proof, or vanilla proofs of another sector size
    Shape,         // partitions, challenges, path levels, arities, column heights or layers that do not fit the proof
    Challenge,     // an index that is not the challenge or parent the sector's graph and seed say
    Commitment,    // roots that disagree with each other or with comm_d / comm_r
    NonCanonical,  // 32 bytes that are not a canonical field element where one is required
};
std::string_view c1_error_kind_name(C1ErrorKind kind);  // "syntax", "schema", ...

// A FilecoinError (so that command-line handlers map it to exit 2) with its own kind and the field it names
// (a JSON path such as "vanilla_proofs.StackedDrg2KiBV1[0][1].comm_d_proofs.data.Single.leaf", or for checks
// on the parsed value the C1 field "vanilla_proofs[0][1].replica_column_proofs.drg_parents[2].inclusion_proof").
// what() = field + ": " + message.
class C1Error : public FilecoinError {
  public:
    C1Error(C1ErrorKind kind, std::string field, const std::string& message);
    C1ErrorKind c1_kind() const { return c1_kind_; }
    const std::string& field() const { return field_; }
    const std::string& message() const { return message_; }  // what() without the field

  private:
    C1ErrorKind c1_kind_;
    std::string field_;
    std::string message_;
};

// ---- the vanilla proof types --------------------------------------------------------------------------------------
// (Shared with the PoSt vanilla proofs, post_vanilla.hpp.)

// merkle/proof.rs PathElement: the arity - 1 sibling hashes in position order and the node's position.
struct MerklePathElement {
    std::vector<Domain> hashes;
    uint64_t index = 0;
    friend bool operator==(const MerklePathElement&, const MerklePathElement&) = default;
};

enum class MerkleProofKind : uint8_t { Single, Sub, Top };

// merkle/proof.rs MerkleProof: Single (base path only), Sub (base + one sub level path) or Top (base + sub + top).
struct MerkleProof {
    MerkleProofKind kind = MerkleProofKind::Single;
    std::vector<MerklePathElement> base;  // Single's "path"; Sub/Top's "base_proof"
    std::vector<MerklePathElement> sub;   // Sub/Top only
    std::vector<MerklePathElement> top;   // Top only
    Domain root{};
    Domain leaf{};

    size_t levels() const { return base.size() + sub.size() + top.size(); }
    // Σ index_l · Π arity_{<l} over the levels leaf first (arity = hashes + 1): the leaf the path proves.
    uint64_t leaf_index() const;
    friend bool operator==(const MerkleProof&, const MerkleProof&) = default;
};

// The proof kind of a tree of this shape: Single, Sub or Top (merkle/proof.rs try_from_proof).
MerkleProofKind merkle_proof_kind(TreeShape shape);
// A path of a tree of this shape (its levels leaf first) in that kind's layout: the base levels, then the one sub
// level and the one top level where the shape has them.
MerkleProof merkle_proof_of_levels(TreeShape shape, std::vector<MerklePathElement> levels, const Domain& root,
                                   const Domain& leaf);

// A Merkle proof's path as the PoR gadget takes it (levels with arity, siblings as field elements, index): base
// levels, then the sub and top level when present. Siblings must be canonical Fr (FilecoinError NonCanonical).
std::vector<PorLevel> por_levels(const std::vector<MerklePathElement>& elements);
PorPath por_path_of(const MerkleProof& p);

// column.rs Column (`_h` is always null) and column_proof.rs ColumnProof.
struct ColumnProof {
    uint32_t index = 0;
    std::vector<Domain> rows;  // layers 1..L
    MerkleProof inclusion_proof;
    friend bool operator==(const ColumnProof&, const ColumnProof&) = default;
};

struct ReplicaColumnProof {
    ColumnProof c_x;
    std::vector<ColumnProof> drg_parents;  // 6
    std::vector<ColumnProof> exp_parents;  // 8
    friend bool operator==(const ReplicaColumnProof&, const ReplicaColumnProof&) = default;
};

// labeling_proof.rs LabelingProof and encoding_proof.rs EncodingProof (same fields, same order in JSON).
struct LabelingProof {
    std::vector<Domain> parents;  // the 37 parent labels hashed into the node's label
    uint32_t layer_index = 0;
    uint64_t node = 0;
    friend bool operator==(const LabelingProof&, const LabelingProof&) = default;
};

// stacked/vanilla/params.rs Proof: one challenge.
struct VanillaSealProof {
    MerkleProof comm_d_proofs;  // tree D (binary SHA-256), Single
    MerkleProof comm_r_last_proof;
    ReplicaColumnProof replica_column_proofs;
    std::vector<LabelingProof> labeling_proofs;  // layers 1..L
    LabelingProof encoding_proof;                // layer L
    friend bool operator==(const VanillaSealProof&, const VanillaSealProof&) = default;
};

// filecoin-proofs-api SealCommitPhase1Output.
struct C1Output {
    RegisteredSealProof registered_proof = RegisteredSealProof::StackedDrg2KiBV1_1;
    std::vector<std::vector<VanillaSealProof>> vanilla_proofs;  // [partition][challenge]
    Bytes32 comm_r{};
    Bytes32 comm_d{};
    Bytes32 replica_id{};
    Bytes32 seed{};
    Bytes32 ticket{};
    friend bool operator==(const C1Output&, const C1Output&) = default;
};

// ---- JSON ---------------------------------------------------------------------------------------------------------

// The C1 JSON as serde_json reads it (any whitespace, any field order, unknown fields skipped, `_h` optional).
// Structure only: shapes and values are checked by c1_to_partitions. C1Error (Syntax, Schema, ProofType) naming
// the JSON path and the byte offset.
C1Output parse_c1_json(std::string_view text);
// serde_json::to_string's bytes (compact, declaration order): what filecoin-proofs writes and reads.
std::string write_c1_json(const C1Output& c1);

// Curio's envelope.
struct CurioC1 {
    uint64_t sector_num = 0;
    uint64_t sector_size = 0;
    C1Output c1;
};
// C1Error: Syntax (JSON or base64), Schema (missing or mistyped field), ProofType (SectorSize differs from the
// registered proof's), and whatever parse_c1_json raises for the decoded Phase1Out.
CurioC1 parse_curio_c1(std::string_view text);
// Either form, told apart by their fields (an envelope has "Phase1Out" and no "vanilla_proofs" at its top);
// *curio, when given, says which it was.
C1Output parse_c1_or_envelope(std::string_view text, bool* curio = nullptr);
std::string write_curio_c1(const CurioC1& envelope);  // Go encoding/json's layout

// Base64 (RFC 4648 standard alphabet with padding, as Go's encoding/json writes []byte).
std::string base64_encode(std::string_view bytes);
// C1Error(Syntax) naming `field` on a bad character, bad padding or a bad length.
std::string base64_decode(std::string_view text, std::string_view field = "base64");

// ---- C1 -> circuit witnesses ----------------------------------------------------------------------------------------

// Every partition's witness, as rust-fil-proofs' circuit takes it from the vanilla proofs (circuit/params.rs
// `From<VanillaProof>`, compound.rs: comm_r_last from the tree-R roots, comm_c from the column roots), after
// validating everything synthesis depends on:
//   - registered proof: its size and the vanilla_proofs variant, partitions and challenges per partition;
//   - replica_id = the tau of the C1 (canonical), comm_d / comm_r canonical and non-zero;
//   - every Merkle proof's kind, level count and arities against the tree's shape (tree D: binary, log2(nodes)
//     levels; trees R and C: the proof type's base-sub-top shape), every index < its arity, every hash canonical;
//   - indices: each challenge equal to the one the seed (interactive, synthetic) or comm_r (NI) derives for its
//     partition and slot, the paths proving it, the 6 DRG and 8 expander columns at the graph's parents of it;
//   - columns of L rows (L = the proof's layers), L labeling proofs of 37 parents for layers 1..L at the challenge,
//     the encoding proof at layer L;
//   - commitments: tree-D roots = comm_d, the tree-R roots equal, the tree-C roots equal,
//     comm_r = Poseidon-2(comm_c, comm_r_last).
// Merkle hashes themselves are not recomputed here (the circuit checks them; verify_c1_paths does natively).
// C1Error naming the field, e.g. "vanilla_proofs[0][1].replica_column_proofs.drg_parents[2].inclusion_proof: 9
// levels, expected 10".
std::vector<StackedPorepPartition> c1_to_partitions(const C1Output& c1);

// What a PoRep C2 proves: every partition's witness (c1_to_partitions) and the public inputs Filecoin's verifier
// derives for it from replica_id, seed, comm_d and comm_r alone (porep_public_inputs: never taken from the witness).
struct PorepC2Job {
    PorepConfig config;
    ReplicaInputs replica;
    std::vector<StackedPorepPartition> partitions;
    std::vector<std::vector<Fr>> public_inputs;  // per partition
};
// C1Error naming the field for a C1 that does not fit its registered proof (c1_to_partitions' checks).
PorepC2Job porep_c2_job(const C1Output& c1);

// The checks of c1_to_partitions alone.
void validate_c1(const C1Output& c1);

// Every Merkle path of the C1 recomputed natively from its leaf to its root (SHA-256 for tree D, Poseidon for
// trees R and C), and each column's Poseidon hash equal to its leaf: C1Error(Commitment) naming the first path
// that does not reach its root. Costs about 16 x levels hashes per challenge.
void verify_c1_paths(const C1Output& c1);

}  // namespace cuzk::filecoin
