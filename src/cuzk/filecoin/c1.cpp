#include "cuzk/filecoin/c1.hpp"

#include <array>
#include <optional>

#include "cuzk/filecoin/graph.hpp"
#include "cuzk/filecoin/label.hpp"
#include "cuzk/filecoin/porep.hpp"
#include "cuzk/filecoin/tree.hpp"
#include "cuzk/filecoin/vanilla_json.hpp"
#include "cuzk/gadgets/poseidon.hpp"

namespace cuzk::filecoin {

// ---- errors -----------------------------------------------------------------------------------------------------

std::string_view c1_error_kind_name(C1ErrorKind kind) {
    switch (kind) {
        case C1ErrorKind::Syntax: return "syntax";
        case C1ErrorKind::Schema: return "schema";
        case C1ErrorKind::ProofType: return "proof-type";
        case C1ErrorKind::Shape: return "shape";
        case C1ErrorKind::Challenge: return "challenge";
        case C1ErrorKind::Commitment: return "commitment";
        case C1ErrorKind::NonCanonical: return "non-canonical";
    }
    return "unknown";
}

namespace {
FilecoinErrorKind filecoin_kind(C1ErrorKind k) {
    switch (k) {
        case C1ErrorKind::ProofType: return FilecoinErrorKind::UnknownProofType;
        case C1ErrorKind::Commitment: return FilecoinErrorKind::InvalidCommitment;
        case C1ErrorKind::NonCanonical: return FilecoinErrorKind::NonCanonical;
        default: return FilecoinErrorKind::OutOfRange;
    }
}
}  // namespace

C1Error::C1Error(C1ErrorKind kind, std::string field, const std::string& message)
    : FilecoinError(filecoin_kind(kind), (field.empty() ? std::string("C1") : field) + ": " + message),
      c1_kind_(kind), field_(std::move(field)), message_(message) {}

MerkleProofKind merkle_proof_kind(TreeShape shape) {
    return shape.top ? MerkleProofKind::Top : shape.sub ? MerkleProofKind::Sub : MerkleProofKind::Single;
}

MerkleProof merkle_proof_of_levels(TreeShape shape, std::vector<MerklePathElement> levels, const Domain& root,
                                   const Domain& leaf) {
    const size_t sub = shape.sub ? 1 : 0, top = shape.top ? 1 : 0;
    if (levels.size() < sub + top) throw std::invalid_argument("merkle proof: fewer levels than the shape's sub and top");
    const size_t base = levels.size() - sub - top;
    MerkleProof p;
    p.kind = merkle_proof_kind(shape);
    p.top.assign(levels.begin() + base + sub, levels.end());
    p.sub.assign(levels.begin() + base, levels.begin() + base + sub);
    levels.resize(base);
    p.base = std::move(levels);
    p.root = root;
    p.leaf = leaf;
    return p;
}

uint64_t MerkleProof::leaf_index() const {
    uint64_t index = 0, scale = 1;
    for (const auto* part : {&base, &sub, &top})
        for (const MerklePathElement& e : *part) {
            index += e.index * scale;
            scale *= e.hashes.size() + 1;
        }
    return index;
}

// ---- parsing ------------------------------------------------------------------------------------------------------

namespace {

// Which sector size a vanilla_proofs variant holds (the variant is named by size only).
struct SizeVariant {
    const char* name;
    uint64_t sector_size;
};
constexpr SizeVariant kVariants[] = {{"StackedDrg2KiBV1", 2048},
                                     {"StackedDrg8MiBV1", uint64_t(8) << 20},
                                     {"StackedDrg512MiBV1", uint64_t(512) << 20},
                                     {"StackedDrg32GiBV1", uint64_t(32) << 30},
                                     {"StackedDrg64GiBV1", uint64_t(64) << 30}};

const char* variant_of(uint64_t sector_size) {
    for (const SizeVariant& v : kVariants)
        if (v.sector_size == sector_size) return v.name;
    throw C1Error(C1ErrorKind::ProofType, "registered_proof", "no vanilla_proofs variant for sector size " +
                                                                  std::to_string(sector_size));
}

using json::Cursor;
using json::parse_domains;
using json::parse_merkle_proof;
using json::Required;

ColumnProof parse_column_proof(Cursor& c) {
    ColumnProof p;
    Required r(c, {"column", "inclusion_proof"});
    c.object([&](std::string_view key) {
        if (!r.take(key)) return false;
        if (key == "inclusion_proof") {
            p.inclusion_proof = parse_merkle_proof(c);
            return true;
        }
        Required rc(c, {"index", "rows", "_h"});
        c.object([&](std::string_view k) {
            if (!rc.take(k)) return false;
            if (k == "index") p.index = uint32_t(c.number(UINT32_MAX, "a u32"));
            else if (k == "rows") p.rows = parse_domains(c);
            else c.null();
            return true;
        });
        return true;
    });
    r.finish();
    return p;
}

LabelingProof parse_labeling_proof(Cursor& c) {
    LabelingProof p;
    Required r(c, {"parents", "layer_index", "node"});
    c.object([&](std::string_view k) {
        if (!r.take(k)) return false;
        if (k == "parents") p.parents = parse_domains(c);
        else if (k == "layer_index") p.layer_index = uint32_t(c.number(UINT32_MAX, "a u32"));
        else p.node = c.number(UINT64_MAX, "a u64");
        return true;
    });
    r.finish();
    return p;
}

VanillaSealProof parse_vanilla_proof(Cursor& c) {
    VanillaSealProof p;
    Required r(c, {"comm_d_proofs", "comm_r_last_proof", "replica_column_proofs", "labeling_proofs", "encoding_proof"});
    c.object([&](std::string_view k) {
        if (!r.take(k)) return false;
        if (k == "comm_d_proofs") p.comm_d_proofs = parse_merkle_proof(c);
        else if (k == "comm_r_last_proof") p.comm_r_last_proof = parse_merkle_proof(c);
        else if (k == "labeling_proofs") c.array([&](size_t) { p.labeling_proofs.push_back(parse_labeling_proof(c)); });
        else if (k == "encoding_proof") p.encoding_proof = parse_labeling_proof(c);
        else {
            ReplicaColumnProof& rcp = p.replica_column_proofs;
            Required rr(c, {"c_x", "drg_parents", "exp_parents"});
            c.object([&](std::string_view kk) {
                if (!rr.take(kk)) return false;
                if (kk == "c_x") rcp.c_x = parse_column_proof(c);
                else if (kk == "drg_parents") c.array([&](size_t) { rcp.drg_parents.push_back(parse_column_proof(c)); });
                else c.array([&](size_t) { rcp.exp_parents.push_back(parse_column_proof(c)); });
                return true;
            });
            rr.finish();
        }
        return true;
    });
    r.finish();
    return p;
}

}  // namespace

C1Output parse_c1_json(std::string_view text) {
    Cursor c(text);
    C1Output out;
    std::string variant;
    Required r(c, {"registered_proof", "vanilla_proofs", "comm_r", "comm_d", "replica_id", "seed", "ticket"});
    c.object([&](std::string_view k) {
        if (!r.take(k)) return false;
        if (k == "registered_proof") {
            std::string scratch;
            const std::string_view name = c.string(scratch);
            try {
                out.registered_proof = seal_proof_from_name(name);
            } catch (const FilecoinError&) {
                c.fail(C1ErrorKind::ProofType, "unknown registered seal proof \"" + std::string(name) + "\"");
            }
        } else if (k == "vanilla_proofs") {
            c.enum_value([&](std::string_view v) {
                bool known = false;
                for (const SizeVariant& s : kVariants) known |= v == s.name;
                if (!known) c.fail(C1ErrorKind::ProofType, "unknown variant \"" + std::string(v) + "\"");
                variant = v;
                c.array([&](size_t) {
                    std::vector<VanillaSealProof>& partition = out.vanilla_proofs.emplace_back();
                    c.array([&](size_t) { partition.push_back(parse_vanilla_proof(c)); });
                });
            });
        } else {
            Bytes32& b = k == "comm_r" ? out.comm_r : k == "comm_d" ? out.comm_d : k == "replica_id" ? out.replica_id
                                                    : k == "seed" ? out.seed : out.ticket;
            c.bytes32(b.data());
        }
        return true;
    });
    r.finish();
    c.expect_end();
    if (variant != variant_of(sector_size(out.registered_proof)))
        throw C1Error(C1ErrorKind::ProofType, "vanilla_proofs",
                      "variant " + variant + " holds another sector size than registered_proof " +
                          std::string(proof_name(out.registered_proof)) + " (" +
                          sector_size_name(sector_size(out.registered_proof)) + ")");
    return out;
}

// ---- writing ------------------------------------------------------------------------------------------------------

namespace {

// The C1 types over the shared JSON writer.
class C1Writer : public json::Writer {
  public:
    void column_proof(const ColumnProof& p) {
        raw("{\"column\":{\"index\":");
        number(p.index);
        raw(",\"rows\":");
        domains(p.rows);
        raw(",\"_h\":null},\"inclusion_proof\":");
        merkle_proof(p.inclusion_proof);
        out += '}';
    }
    void column_proofs(const std::vector<ColumnProof>& v) {
        array(v, [&](const ColumnProof& p) { column_proof(p); });
    }
    void labeling_proof(const LabelingProof& p) {
        raw("{\"parents\":");
        domains(p.parents);
        raw(",\"layer_index\":");
        number(p.layer_index);
        raw(",\"node\":");
        number(p.node);
        out += '}';
    }
    void vanilla_proof(const VanillaSealProof& p) {
        raw("{\"comm_d_proofs\":");
        merkle_proof(p.comm_d_proofs);
        raw(",\"comm_r_last_proof\":");
        merkle_proof(p.comm_r_last_proof);
        raw(",\"replica_column_proofs\":{\"c_x\":");
        column_proof(p.replica_column_proofs.c_x);
        raw(",\"drg_parents\":");
        column_proofs(p.replica_column_proofs.drg_parents);
        raw(",\"exp_parents\":");
        column_proofs(p.replica_column_proofs.exp_parents);
        raw("},\"labeling_proofs\":");
        array(p.labeling_proofs, [&](const LabelingProof& l) { labeling_proof(l); });
        raw(",\"encoding_proof\":");
        labeling_proof(p.encoding_proof);
        out += '}';
    }
};

// About 3.7 characters per byte of a Domain and 33 Domains per path level of arity 8: enough to reserve once.
size_t estimate_size(const C1Output& c1) {
    size_t domains = 0;
    auto merkle = [&](const MerkleProof& p) {
        for (const auto* part : {&p.base, &p.sub, &p.top})
            for (const MerklePathElement& e : *part) domains += e.hashes.size();
        domains += 2;
    };
    for (const auto& partition : c1.vanilla_proofs)
        for (const VanillaSealProof& p : partition) {
            merkle(p.comm_d_proofs);
            merkle(p.comm_r_last_proof);
            merkle(p.replica_column_proofs.c_x.inclusion_proof);
            domains += p.replica_column_proofs.c_x.rows.size();
            for (const auto* set : {&p.replica_column_proofs.drg_parents, &p.replica_column_proofs.exp_parents})
                for (const ColumnProof& cp : *set) merkle(cp.inclusion_proof), domains += cp.rows.size();
            for (const LabelingProof& l : p.labeling_proofs) domains += l.parents.size();
            domains += p.encoding_proof.parents.size();
        }
    return 1024 + domains * 32 * 4;
}

}  // namespace

std::string write_c1_json(const C1Output& c1) {
    C1Writer w;
    w.out.reserve(estimate_size(c1));
    w.raw("{\"registered_proof\":\"");
    w.raw(proof_name(c1.registered_proof));
    w.raw("\",\"vanilla_proofs\":{\"");
    w.raw(variant_of(sector_size(c1.registered_proof)));
    w.raw("\":[");
    for (size_t k = 0; k < c1.vanilla_proofs.size(); k++) {
        if (k) w.out += ',';
        w.out += '[';
        for (size_t i = 0; i < c1.vanilla_proofs[k].size(); i++) {
            if (i) w.out += ',';
            w.vanilla_proof(c1.vanilla_proofs[k][i]);
        }
        w.out += ']';
    }
    w.raw("]},");
    const std::pair<const char*, const Bytes32*> tail[] = {{"comm_r", &c1.comm_r},         {"comm_d", &c1.comm_d},
                                                           {"replica_id", &c1.replica_id}, {"seed", &c1.seed},
                                                           {"ticket", &c1.ticket}};
    for (size_t i = 0; i < std::size(tail); i++) {
        if (i) w.out += ',';
        w.key(tail[i].first);
        w.bytes32(tail[i].second->data());
    }
    w.out += '}';
    return std::move(w.out);
}

// ---- base64 and Curio's envelope ----------------------------------------------------------------------------------

namespace {
constexpr char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
}

std::string base64_encode(std::string_view bytes) {
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    const auto* b = reinterpret_cast<const uint8_t*>(bytes.data());
    size_t i = 0;
    for (; i + 3 <= bytes.size(); i += 3) {
        const uint32_t v = uint32_t(b[i]) << 16 | uint32_t(b[i + 1]) << 8 | b[i + 2];
        out += kB64[v >> 18], out += kB64[(v >> 12) & 63], out += kB64[(v >> 6) & 63], out += kB64[v & 63];
    }
    if (bytes.size() - i == 1) {
        const uint32_t v = uint32_t(b[i]) << 16;
        out += kB64[v >> 18], out += kB64[(v >> 12) & 63], out += "==";
    } else if (bytes.size() - i == 2) {
        const uint32_t v = uint32_t(b[i]) << 16 | uint32_t(b[i + 1]) << 8;
        out += kB64[v >> 18], out += kB64[(v >> 12) & 63], out += kB64[(v >> 6) & 63], out += '=';
    }
    return out;
}

std::string base64_decode(std::string_view text, std::string_view field) {
    static const auto table = [] {
        std::array<int8_t, 256> t;
        t.fill(-1);
        for (int i = 0; i < 64; i++) t[uint8_t(kB64[i])] = int8_t(i);
        return t;
    }();
    auto bad = [&](const std::string& why) { throw C1Error(C1ErrorKind::Syntax, std::string(field), "bad base64: " + why); };
    if (text.size() % 4) bad("length " + std::to_string(text.size()) + " is not a multiple of 4");
    std::string out;
    out.reserve(text.size() / 4 * 3);
    for (size_t i = 0; i < text.size(); i += 4) {
        const bool last = i + 4 == text.size();
        int pad = 0;
        uint32_t v = 0;
        for (size_t k = 0; k < 4; k++) {
            const char ch = text[i + k];
            if (ch == '=' && last && k >= 2) {
                pad++;
                v <<= 6;
                continue;
            }
            const int8_t d = table[uint8_t(ch)];
            if (d < 0 || pad) bad("character " + std::to_string(i + k));
            v = v << 6 | uint32_t(d);
        }
        out += char(v >> 16);
        if (pad < 2) out += char((v >> 8) & 255);
        if (pad < 1) out += char(v & 255);
        // Go's StdEncoding is strict about the unused bits of the last group.
        if ((pad == 1 && (v & 255)) || (pad == 2 && (v & 0xFFFF))) bad("non-zero padding bits");
    }
    return out;
}

CurioC1 parse_curio_c1(std::string_view text) {
    Cursor c(text);
    CurioC1 env;
    std::string phase1;
    Required r(c, {"SectorNum", "Phase1Out", "SectorSize"});
    c.object([&](std::string_view k) {
        if (!r.take(k)) return false;
        if (k == "SectorNum") env.sector_num = c.number(UINT64_MAX, "a sector number");
        else if (k == "SectorSize") env.sector_size = c.number(UINT64_MAX, "a sector size");
        else {
            std::string scratch;
            phase1 = base64_decode(c.string(scratch), "Phase1Out");
        }
        return true;
    });
    r.finish();
    c.expect_end();
    try {
        env.c1 = parse_c1_json(phase1);
    } catch (const C1Error& e) {
        throw C1Error(e.c1_kind(), e.field().empty() ? "Phase1Out" : "Phase1Out." + e.field(), e.message());
    }
    if (env.sector_size != sector_size(env.c1.registered_proof))
        throw C1Error(C1ErrorKind::ProofType, "SectorSize",
                      std::to_string(env.sector_size) + " bytes, but Phase1Out is a " +
                          std::string(proof_name(env.c1.registered_proof)) + " C1");
    return env;
}

C1Output parse_c1_or_envelope(std::string_view text, bool* curio) {
    const bool envelope = text.find("\"Phase1Out\"") != std::string_view::npos &&
                          text.find("\"vanilla_proofs\"") == std::string_view::npos;
    if (curio) *curio = envelope;
    return envelope ? parse_curio_c1(text).c1 : parse_c1_json(text);
}

std::string write_curio_c1(const CurioC1& env) {
    return "{\"SectorNum\":" + std::to_string(env.sector_num) + ",\"Phase1Out\":\"" +
           base64_encode(write_c1_json(env.c1)) + "\",\"SectorSize\":" + std::to_string(env.sector_size) + "}";
}

// ---- validation and conversion --------------------------------------------------------------------------------------

namespace {

struct Checker {
    const C1Output& c1;
    PorepConfig config;
    StackedGraph graph;
    std::vector<uint32_t> arities;  // tree R / C levels, leaf first
    unsigned d_levels = 0;
    uint32_t layers = 0;

    explicit Checker(const C1Output& c)
        : c1(c), config(PorepConfig::from_registered(c.registered_proof)), graph(config),
          arities(poseidon_tree_arities(config.shape().tree, config.nodes())), layers(config.layers()) {
        while ((uint64_t(1) << d_levels) < config.nodes()) d_levels++;
    }

    [[noreturn]] static void fail(C1ErrorKind kind, const std::string& field, const std::string& message) {
        throw C1Error(kind, field, message);
    }

    static Fr canonical(const Domain& d, const std::string& field) {
        const std::optional<Fr> x = try_fr_from_domain(d);
        if (!x) fail(C1ErrorKind::NonCanonical, field, "not a canonical field element (" + domain_to_hex(d) + ")");
        return *x;
    }

    // Kind, levels and arities of a tree R / C proof, and the leaf it proves.
    void poseidon_path(const MerkleProof& p, const std::string& field, uint64_t leaf) const {
        const TreeShape shape = config.shape().tree;
        const MerkleProofKind kind = merkle_proof_kind(shape);
        static const char* kNames[] = {"Single", "Sub", "Top"};
        if (p.kind != kind)
            fail(C1ErrorKind::Shape, field, std::string("a ") + kNames[int(p.kind)] + " proof, expected " +
                                                kNames[int(kind)] + " for tree shape " + tree_shape_name(shape));
        const size_t base_levels = arities.size() - (shape.sub ? 1 : 0) - (shape.top ? 1 : 0);
        if (p.base.size() != base_levels || p.sub.size() != (shape.sub ? 1u : 0u) ||
            p.top.size() != (shape.top ? 1u : 0u)) {
            if (p.levels() != arities.size())
                fail(C1ErrorKind::Shape, field, std::to_string(p.levels()) + " levels, expected " +
                                                    std::to_string(arities.size()));
            fail(C1ErrorKind::Shape, field, "base / sub / top paths of " + std::to_string(p.base.size()) + " / " +
                                                std::to_string(p.sub.size()) + " / " + std::to_string(p.top.size()) +
                                                " levels, expected " + std::to_string(base_levels) + " / " +
                                                std::to_string(shape.sub ? 1 : 0) + " / " +
                                                std::to_string(shape.top ? 1 : 0));
        }
        size_t l = 0;
        for (const auto* part : {&p.base, &p.sub, &p.top})
            for (size_t i = 0; i < part->size(); i++, l++) {
                const std::string name = (part == &p.base ? "base" : part == &p.sub ? "sub" : "top") +
                                         std::string(" level ") + std::to_string(i);
                element((*part)[i], arities[l], field, name);
            }
        canonical(p.root, field + ".root");
        canonical(p.leaf, field + ".leaf");
        if (p.leaf_index() != leaf)
            fail(C1ErrorKind::Challenge, field,
                 "proves leaf " + std::to_string(p.leaf_index()) + ", expected " + std::to_string(leaf));
    }

    static void element(const MerklePathElement& e, uint32_t arity, const std::string& field, const std::string& name) {
        if (e.hashes.size() + 1 != arity)
            fail(C1ErrorKind::Shape, field, name + ": " + std::to_string(e.hashes.size()) + " hashes, expected " +
                                                std::to_string(arity - 1) + " (arity " + std::to_string(arity) + ")");
        if (e.index >= arity)
            fail(C1ErrorKind::Shape, field, name + ": index " + std::to_string(e.index) + " >= arity " +
                                                std::to_string(arity));
        for (size_t h = 0; h < e.hashes.size(); h++) canonical(e.hashes[h], field + " " + name + " hash " + std::to_string(h));
    }

    void column(const ColumnProof& c, const std::string& field, uint64_t node) const {
        if (c.index != node)
            fail(C1ErrorKind::Challenge, field + ".column.index",
                 std::to_string(c.index) + ", expected " + std::to_string(node));
        if (c.rows.size() != layers)
            fail(C1ErrorKind::Shape, field + ".column.rows",
                 std::to_string(c.rows.size()) + " rows, expected " + std::to_string(layers));
        for (size_t r = 0; r < c.rows.size(); r++) canonical(c.rows[r], field + ".column.rows[" + std::to_string(r) + "]");
        poseidon_path(c.inclusion_proof, field + ".inclusion_proof", node);
    }

    void labeling(const LabelingProof& l, const std::string& field, uint32_t layer, uint64_t node) const {
        if (l.layer_index != layer)
            fail(C1ErrorKind::Shape, field + ".layer_index",
                 std::to_string(l.layer_index) + ", expected " + std::to_string(layer));
        if (l.node != node)
            fail(C1ErrorKind::Challenge, field + ".node", std::to_string(l.node) + ", expected " + std::to_string(node));
        if (l.parents.size() != kLabelTotalParents)
            fail(C1ErrorKind::Shape, field + ".parents",
                 std::to_string(l.parents.size()) + " parents, expected " + std::to_string(kLabelTotalParents));
    }

    void run() {
        const uint32_t partitions = config.partitions;
        const uint32_t per_partition = config.challenges_per_partition();
        if (c1.vanilla_proofs.size() != partitions)
            fail(C1ErrorKind::Shape, "vanilla_proofs", std::to_string(c1.vanilla_proofs.size()) +
                                                           " partitions, expected " + std::to_string(partitions) +
                                                           " for " + std::string(proof_name(c1.registered_proof)));
        for (const auto* b : {&c1.comm_d, &c1.comm_r})
            if (*b == Bytes32{})
                fail(C1ErrorKind::Commitment, b == &c1.comm_d ? "comm_d" : "comm_r", "all zero");
        const Fr comm_d = canonical(c1.comm_d, "comm_d");
        const Fr comm_r = canonical(c1.comm_r, "comm_r");
        canonical(c1.replica_id, "replica_id");
        std::optional<Fr> comm_c, comm_r_last;
        (void)comm_d;
        for (uint32_t k = 0; k < partitions; k++) {
            const auto& partition = c1.vanilla_proofs[k];
            const std::string pf = "vanilla_proofs[" + std::to_string(k) + "]";
            if (partition.size() != per_partition)
                fail(C1ErrorKind::Shape, pf, std::to_string(partition.size()) + " challenges, expected " +
                                                 std::to_string(per_partition));
            const std::vector<uint64_t> expected = porep_challenges(config, c1.replica_id, c1.seed, c1.comm_r, k);
            for (size_t i = 0; i < partition.size(); i++) {
                const VanillaSealProof& p = partition[i];
                const std::string f = pf + "[" + std::to_string(i) + "]";
                // The challenge the circuit takes (labeling_proofs[0].node) must be the one derived.
                if (p.labeling_proofs.size() != layers)
                    fail(C1ErrorKind::Shape, f + ".labeling_proofs",
                         std::to_string(p.labeling_proofs.size()) + " proofs, expected " + std::to_string(layers));
                // Tree D's shape first: a C1 of another sector size is named by its path lengths.
                const MerkleProof& d = p.comm_d_proofs;
                const std::string df = f + ".comm_d_proofs";
                if (d.kind != MerkleProofKind::Single)
                    fail(C1ErrorKind::Shape, df, "tree D proofs are Single (a binary tree)");
                if (d.base.size() != d_levels)
                    fail(C1ErrorKind::Shape, df, std::to_string(d.base.size()) + " levels, expected " +
                                                     std::to_string(d_levels));
                for (size_t l = 0; l < d.base.size(); l++) element(d.base[l], 2, df, "level " + std::to_string(l));

                const uint64_t challenge = p.labeling_proofs[0].node;
                if (challenge != expected[i])
                    fail(C1ErrorKind::Challenge, f + ".labeling_proofs[0].node",
                         "challenge " + std::to_string(challenge) + ", expected " + std::to_string(expected[i]) +
                             " (partition " + std::to_string(k) + ", slot " + std::to_string(i) + ")");
                for (uint32_t l = 1; l <= layers; l++)
                    labeling(p.labeling_proofs[l - 1], f + ".labeling_proofs[" + std::to_string(l - 1) + "]", l, challenge);
                labeling(p.encoding_proof, f + ".encoding_proof", layers, challenge);

                canonical(d.leaf, df + ".leaf");
                if (d.root != c1.comm_d)
                    fail(C1ErrorKind::Commitment, df + ".root", "differs from comm_d");
                if (d.leaf_index() != challenge)
                    fail(C1ErrorKind::Challenge, df, "proves leaf " + std::to_string(d.leaf_index()) + ", expected " +
                                                         std::to_string(challenge));

                // Tree R.
                poseidon_path(p.comm_r_last_proof, f + ".comm_r_last_proof", challenge);
                const Fr r_root = canonical(p.comm_r_last_proof.root, f + ".comm_r_last_proof.root");
                if (comm_r_last && *comm_r_last != r_root)
                    fail(C1ErrorKind::Commitment, f + ".comm_r_last_proof.root", "differs from the other tree-R roots");
                comm_r_last = r_root;

                // Tree C.
                const ReplicaColumnProof& rcp = p.replica_column_proofs;
                const std::string cf = f + ".replica_column_proofs";
                auto root_c = [&](const ColumnProof& cp, const std::string& field) {
                    const Fr root = canonical(cp.inclusion_proof.root, field + ".inclusion_proof.root");
                    if (comm_c && *comm_c != root)
                        fail(C1ErrorKind::Commitment, field + ".inclusion_proof.root",
                             "differs from the other tree-C roots");
                    comm_c = root;
                };
                column(rcp.c_x, cf + ".c_x", challenge);
                root_c(rcp.c_x, cf + ".c_x");
                const auto drg = graph.base_parents(challenge);
                const auto exp = graph.expander_parents(challenge);
                auto parents = [&](const std::vector<ColumnProof>& set, const char* name, std::span<const uint32_t> want) {
                    const std::string sf = cf + "." + name;
                    if (set.size() != want.size())
                        fail(C1ErrorKind::Shape, sf, std::to_string(set.size()) + " columns, expected " +
                                                         std::to_string(want.size()));
                    for (size_t j = 0; j < set.size(); j++) {
                        const std::string jf = sf + "[" + std::to_string(j) + "]";
                        column(set[j], jf, want[j]);
                        root_c(set[j], jf);
                    }
                };
                parents(rcp.drg_parents, "drg_parents", drg);
                parents(rcp.exp_parents, "exp_parents", exp);
            }
        }
        if (comm_c && comm_r_last && filecoin::comm_r(*comm_c, *comm_r_last) != comm_r)
            fail(C1ErrorKind::Commitment, "comm_r", "is not Poseidon-2(comm_c, comm_r_last) of the proofs' roots");
    }
};

}  // namespace

std::vector<PorLevel> por_levels(const std::vector<MerklePathElement>& elements) {
    std::vector<PorLevel> out;
    out.reserve(elements.size());
    for (const MerklePathElement& e : elements) {
        PorLevel l;
        l.arity = uint32_t(e.hashes.size() + 1);
        l.index = uint32_t(e.index);
        l.siblings.reserve(e.hashes.size());
        for (const Domain& h : e.hashes) l.siblings.push_back(fr_from_domain(h));
        out.push_back(std::move(l));
    }
    return out;
}

PorPath por_path_of(const MerkleProof& p) {
    PorPath path;
    path.base = por_levels(p.base);
    if (!p.sub.empty()) path.sub = std::move(por_levels(p.sub)[0]);
    if (!p.top.empty()) path.top = std::move(por_levels(p.top)[0]);
    return path;
}

namespace {

PorepColumnProof porep_column(const ColumnProof& c) {
    PorepColumnProof out;
    for (const Domain& d : c.rows) out.rows.push_back(fr_from_domain(d));
    out.path = por_path_of(c.inclusion_proof);
    return out;
}

}  // namespace

void validate_c1(const C1Output& c1) {
    Checker checker(c1);
    checker.run();
}

std::vector<StackedPorepPartition> c1_to_partitions(const C1Output& c1) {
    validate_c1(c1);
    std::vector<StackedPorepPartition> out;
    out.reserve(c1.vanilla_proofs.size());
    for (const auto& proofs : c1.vanilla_proofs) {
        StackedPorepPartition w;
        w.replica_id = fr_from_bytes32(c1.replica_id);
        w.comm_d = fr_from_bytes32(c1.comm_d);
        w.comm_r = fr_from_bytes32(c1.comm_r);
        // compound.rs: comm_r_last and comm_c from the first challenge's tree-R and tree-C roots.
        w.comm_r_last = fr_from_domain(proofs.at(0).comm_r_last_proof.root);
        w.comm_c = fr_from_domain(proofs.at(0).replica_column_proofs.c_x.inclusion_proof.root);
        for (const VanillaSealProof& p : proofs) {
            PorepChallengeProof c;
            c.challenge = p.labeling_proofs[0].node;
            c.data_leaf = fr_from_domain(p.comm_d_proofs.leaf);
            c.comm_d_path = por_path_of(p.comm_d_proofs);
            for (const ColumnProof& cp : p.replica_column_proofs.drg_parents) c.drg_parents.push_back(porep_column(cp));
            for (const ColumnProof& cp : p.replica_column_proofs.exp_parents) c.exp_parents.push_back(porep_column(cp));
            c.comm_r_last_path = por_path_of(p.comm_r_last_proof);
            c.comm_c_path = por_path_of(p.replica_column_proofs.c_x.inclusion_proof);
            w.challenges.push_back(std::move(c));
        }
        out.push_back(std::move(w));
    }
    return out;
}

// ---- native path check ------------------------------------------------------------------------------------------------

void verify_c1_paths(const C1Output& c1) {
    validate_c1(c1);
    auto poseidon = [&](const MerkleProof& p, const Fr& leaf, const std::string& field) {
        PoseidonPath path;
        for (const auto* part : {&p.base, &p.sub, &p.top})
            for (const MerklePathElement& e : *part) {
                PoseidonPathLevel l;
                l.arity = uint32_t(e.hashes.size() + 1);
                l.index = uint32_t(e.index);
                for (const Domain& h : e.hashes) l.siblings.push_back(fr_from_domain(h));
                path.levels.push_back(std::move(l));
            }
        if (leaf != fr_from_domain(p.leaf)) throw C1Error(C1ErrorKind::Commitment, field + ".leaf", "is not the proven value");
        if (!verify_poseidon_path(fr_from_domain(p.root), leaf, path))
            throw C1Error(C1ErrorKind::Commitment, field, "the path does not lead to its root");
    };
    for (size_t k = 0; k < c1.vanilla_proofs.size(); k++)
        for (size_t i = 0; i < c1.vanilla_proofs[k].size(); i++) {
            const VanillaSealProof& p = c1.vanilla_proofs[k][i];
            const std::string f = "vanilla_proofs[" + std::to_string(k) + "][" + std::to_string(i) + "]";
            BinaryPath d;
            for (const MerklePathElement& e : p.comm_d_proofs.base) d.siblings.push_back(e.hashes[0]);
            d.index = p.comm_d_proofs.leaf_index();
            if (!verify_binary_path(p.comm_d_proofs.root, p.comm_d_proofs.leaf, d))
                throw C1Error(C1ErrorKind::Commitment, f + ".comm_d_proofs", "the path does not lead to its root");
            const Fr label = fr_from_domain(p.replica_column_proofs.c_x.rows.back());
            poseidon(p.comm_r_last_proof, fr_from_domain(p.comm_d_proofs.leaf) + label, f + ".comm_r_last_proof");
            auto column = [&](const ColumnProof& cp, const std::string& field) {
                std::vector<Fr> rows;
                for (const Domain& r : cp.rows) rows.push_back(fr_from_domain(r));
                poseidon(cp.inclusion_proof, gadgets::poseidon_hash(rows), field + ".inclusion_proof");
            };
            const std::string cf = f + ".replica_column_proofs";
            column(p.replica_column_proofs.c_x, cf + ".c_x");
            for (size_t j = 0; j < p.replica_column_proofs.drg_parents.size(); j++)
                column(p.replica_column_proofs.drg_parents[j], cf + ".drg_parents[" + std::to_string(j) + "]");
            for (size_t j = 0; j < p.replica_column_proofs.exp_parents.size(); j++)
                column(p.replica_column_proofs.exp_parents[j], cf + ".exp_parents[" + std::to_string(j) + "]");
        }
}

PorepC2Job porep_c2_job(const C1Output& c1) {
    PorepC2Job job;
    job.partitions = c1_to_partitions(c1);
    job.config = PorepConfig::from_registered(c1.registered_proof);
    job.replica = {c1.replica_id, c1.seed, c1.comm_d, c1.comm_r};
    job.public_inputs.reserve(job.partitions.size());
    for (uint32_t k = 0; k < job.partitions.size(); k++)
        job.public_inputs.push_back(porep_public_inputs(job.config, job.replica, k));
    return job;
}

}  // namespace cuzk::filecoin
