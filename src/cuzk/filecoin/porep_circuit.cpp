#include "cuzk/filecoin/porep_circuit.hpp"

#include <stdexcept>
#include <string>

#include "cuzk/filecoin/porep_synthesis.hpp"
#include "cuzk/r1cs/canonical.hpp"
#include "cuzk/r1cs/counting_cs.hpp"

namespace cuzk::filecoin {

// ---- shape ------------------------------------------------------------------------------------------------------

StackedPorepShape StackedPorepShape::of(const PorepConfig& config) {
    const SectorShape& s = config.shape();
    return StackedPorepShape{s.nodes, s.layers, config.challenges_per_partition(), s.tree};
}

void StackedPorepShape::validate() const {
    auto bad = [](const std::string& what) { throw std::invalid_argument("stacked PoRep shape: " + what); };
    if (nodes < 2 || (nodes & (nodes - 1))) bad(std::to_string(nodes) + " nodes is not a power of two >= 2");
    if (layers != 2 && layers != 11) bad(std::to_string(layers) + " layers (the column hash takes 2 or 11)");
    try {
        poseidon_tree_arities(tree, nodes);
    } catch (const std::invalid_argument& e) {
        bad(std::string("tree ") + tree_shape_name(tree) + ": " + e.what());
    }
}

// ---- witness ----------------------------------------------------------------------------------------------------

void StackedPorepPartition::validate() const {
    for (size_t i = 0; i < challenges.size(); i++) {
        const PorepChallengeProof& p = challenges[i];
        auto bad = [i](const std::string& what) {
            throw std::invalid_argument("stacked PoRep challenge " + std::to_string(i) + ": " + what);
        };
        if (p.drg_parents.size() != kPorepDrgParents)
            bad(std::to_string(p.drg_parents.size()) + " DRG parent columns, need 6");
        if (p.exp_parents.size() != kPorepExpParents)
            bad(std::to_string(p.exp_parents.size()) + " expander parent columns, need 8");
        const size_t layers = p.drg_parents[0].rows.size();
        if (layers != 2 && layers != 11) bad("columns of " + std::to_string(layers) + " rows (2 or 11)");
        for (const auto* set : {&p.drg_parents, &p.exp_parents})
            for (const PorepColumnProof& c : *set)
                if (c.rows.size() != layers) bad("parent columns of different lengths");
        if (p.comm_d_path.sub || p.comm_d_path.top) bad("the tree-D path has a sub or top level");
        for (const PorLevel& l : p.comm_d_path.base)
            if (l.arity != 2) bad("a tree-D path level of arity " + std::to_string(l.arity));
    }
}

StackedPorepPartition blank_stacked_porep_partition(const StackedPorepShape& shape) {
    shape.validate();
    StackedPorepPartition w;
    PorepChallengeProof c;
    c.comm_d_path = blank_por_path(shape.nodes, 2, 0, 0);
    const PorPath tree_path = blank_por_path(shape.nodes, shape.tree.base, shape.tree.sub, shape.tree.top);
    c.comm_r_last_path = tree_path;
    c.comm_c_path = tree_path;
    const PorepColumnProof column{std::vector<std::optional<Fr>>(shape.layers), tree_path};
    c.drg_parents.assign(kPorepDrgParents, column);
    c.exp_parents.assign(kPorepExpParents, column);
    w.challenges.assign(shape.challenges, c);
    return w;
}

// ---- counts -----------------------------------------------------------------------------------------------------

PorepCircuitInfo porep_circuit_info(const StackedPorepShape& shape, bool count_nonzeros) {
    const StackedPorepPartition blank = blank_stacked_porep_partition(shape);
    r1cs::CountingSystem top_cs(count_nonzeros);
    const StackedPorepTop top = synthesize_stacked_porep_top(top_cs, blank);
    return r1cs::count_parts(top_cs, blank.challenges.size(), [&](r1cs::CountingSystem& cs, size_t i) {
        synthesize_stacked_porep_challenge(cs, blank.challenges[i], top);
    });
}

PorepCircuitInfo porep_circuit_info(const PorepConfig& config, bool count_nonzeros) {
    return porep_circuit_info(StackedPorepShape::of(config), count_nonzeros);
}

// ---- synthesis ----------------------------------------------------------------------------------------------------

// The systems porep_circuit.hpp names (porep_synthesis.hpp declares the same list extern).
CUZK_STACKED_POREP_SYNTHESIS(, r1cs::KeygenAssembly)
CUZK_STACKED_POREP_SYNTHESIS(, r1cs::ProvingAssignment)
CUZK_STACKED_POREP_SYNTHESIS(, r1cs::TestConstraintSystem)
CUZK_STACKED_POREP_SYNTHESIS(, r1cs::WitnessAssignment)
CUZK_STACKED_POREP_SYNTHESIS(, r1cs::CountingSystem)
CUZK_STACKED_POREP_SYNTHESIS(, r1cs::CanonicalStream)

}  // namespace cuzk::filecoin
