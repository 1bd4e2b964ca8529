#include "cuzk/daemon/engine_job.hpp"

#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuzk/circuits/catalog.hpp"
#include "cuzk/formats/iden3_circom.hpp"
#include "cuzk/formats/proof_io.hpp"
#include "cuzk/formats/snarkjs_json.hpp"
#include "cuzk/r1cs/circuit.hpp"
#include "cuzk/util/thread_pool.hpp"

namespace cuzk::daemon {

namespace {

engine::Priority to_engine(v1::Priority p) {
    switch (p) {
        case v1::LOW: return engine::Priority::Low;
        case v1::HIGH: return engine::Priority::High;
        case v1::CRITICAL: return engine::Priority::Critical;
        default: return engine::Priority::Normal;
    }
}

// Partition i of a circom job: its witness's assignment through the zkey's rows, and its public signals.
r1cs::ProvingAssignment circom_partition(Job& j, size_t i) {
    const auto& w = j.plan.witnesses[i];
    auto asg = formats::iden3::zkey_assignment(*j.pce, *j.key->zkey, w);
    std::lock_guard<std::mutex> lk(j.pub_mu);
    j.publics[i] = formats::iden3::public_signals(w, j.key->zkey->n_public);
    return asg;
}

// Partition i of a built-in circuit: its witness, through the PCE when the job has one, else full synthesis.
r1cs::ProvingAssignment builtin_partition(Job& j, size_t i) {
    std::vector<Fr> pub;
    auto circuit = circuits::make_circuit(j.plan.spec, true, i, &pub);
    r1cs::ProvingAssignment asg;
    if (j.pce) asg = r1cs::assignment_from_pce(*j.pce, *circuit, ThreadPool::global());
    else r1cs::synthesize_groth16(asg, *circuit);
    std::lock_guard<std::mutex> lk(j.pub_mu);
    j.publics[i] = std::move(pub);
    return asg;
}

// The spec's partitions: a Filecoin job's from its own spec (filecoin_jobs.hpp), else the built-in circuit's or the
// circom witnesses'. The job is held weakly: while a partition is made it is held, with its inputs.
void set_partitions(engine::JobSpec& spec, const std::shared_ptr<Job>& job,
                    const std::shared_ptr<const r1cs::PrecompiledR1cs>& pce) {
    std::weak_ptr<Job> weak = job;
    if (job->plan.filecoin) {
        engine::JobSpec own = job->plan.filecoin->spec(pce.get());
        spec.pce = own.pce;  // the synthesize function below holds it; the engine sizes the partitions from it
        spec.first_partition_alone = own.first_partition_alone;
        spec.first_upload_alone = own.first_upload_alone;
        spec.defer_ones = own.defer_ones;
        spec.synthesize = [weak, pce, inner = std::move(own.synthesize)](size_t i) {
            auto j = weak.lock();
            if (!j) throw std::runtime_error("job gone");
            return inner(i);
        };
        return;
    }
    const auto partition = job->plan.circom ? &circom_partition : &builtin_partition;
    spec.synthesize = [weak, partition](size_t i) {
        auto j = weak.lock();
        if (!j) throw std::runtime_error("job gone");
        return partition(*j, i);
    };
}

}  // namespace

engine::JobSpec engine_spec(const std::shared_ptr<Job>& job, std::shared_ptr<const engine::ProvingKey> key,
                            std::shared_ptr<const r1cs::PrecompiledR1cs> pce, bool verify_proofs, EventLog log,
                            std::function<void(Job&, const engine::JobResult&)> on_end) {
    job->publics.assign(job->plan.partitions, {});
    engine::JobSpec spec;
    spec.name = job->plan.spec.name;
    spec.priority = to_engine(job->req.priority());
    spec.partitions = job->plan.partitions;
    // A Filecoin job's proofs are checked against Filecoin's inputs at its end; the engine checks them as made too.
    spec.verify_key = verify_proofs || job->plan.filecoin ? &key->shape.vk : nullptr;
    spec.key = std::move(key);  // its backends (one lane per GPU copy), its CPU backend as the fallback
    // Log lines name the daemon's job id (spec.name is the circuit's).
    spec.on_fallback = [log, id = std::to_string(job->id)](const std::string& line) { log("job " + id + ": " + line); };
    spec.on_start = [log, id = std::to_string(job->id)] { log("job " + id + " started"); };
    if (job->req.deadline_seconds() > 0) spec.deadline_seconds = job->req.deadline_seconds();
    set_partitions(spec, job, pce);
    std::weak_ptr<Job> weak = job;
    spec.on_end = [weak, on_end = std::move(on_end)](uint64_t, const engine::JobResult& res) {
        if (auto j = weak.lock()) on_end(*j, res);
    };
    return spec;
}

v1::AwaitProofResponse proof_result(Job& job, const engine::JobResult& res, bool verified) {
    v1::AwaitProofResponse out;
    out.set_job_id(std::to_string(job.id));
    out.set_state(from_engine(res.state));
    out.set_error_message(res.error);
    out.set_wall_seconds(res.wall_seconds);
    out.set_peak_rss_bytes(res.peak_rss_bytes);
    for (const auto& f : res.fallbacks) out.add_fallbacks(f);
    if (res.timeline) out.set_timeline_json(res.timeline->to_json());
    if (res.state != engine::JobState::Done) return out;
    if (job.plan.filecoin) {
        std::vector<uint8_t> bytes;
        try {
            bytes = job.plan.filecoin->proof(res, job.key->shape.vk);
        } catch (const std::exception& e) {
            out.set_state(v1::FAILED);
            out.set_error_message(std::string("the proof was not returned: ") + e.what());
            return out;
        }
        const char* raw = reinterpret_cast<const char*>(bytes.data());
        out.set_proof(raw, bytes.size());
        for (size_t i = 0; i + formats::PROOF_BYTES <= bytes.size(); i += formats::PROOF_BYTES)
            out.add_proofs()->assign(raw + i, formats::PROOF_BYTES);
        out.set_verified(true);
        return out;
    }
    std::string all;
    for (const auto& p : res.proofs) {
        const auto bytes = formats::encode_proof(p);
        out.add_proofs(std::string(bytes.begin(), bytes.end()));
        all.append(bytes.begin(), bytes.end());
        if (job.plan.circom) out.add_proofs_json(formats::snarkjs::proof_to_json(p));
    }
    out.set_proof(all);
    std::string pubs = "[";
    {
        std::lock_guard<std::mutex> lk(job.pub_mu);
        for (size_t i = 0; i < job.publics.size(); i++) {
            if (i) pubs += ',';
            pubs += formats::public_inputs_to_json(job.publics[i]);
        }
    }
    out.set_public_inputs_json(pubs + "]");
    out.set_verified(verified);
    return out;
}

}  // namespace cuzk::daemon
