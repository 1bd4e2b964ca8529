// Request validation for the daemon: a v1::SubmitProofRequest checked and completed into what its job needs and
// what it will hold in memory (for admission against the daemon's memory budget: check_memory_budget). A Filecoin
// kind (filecoin_jobs.hpp) is parsed into its engine job and finds its parameter file by Filecoin's name; a CUZK_JOB
// names a built-in circuit (partitions, files inside the configured directories) or a circom job (parsed
// witnesses). Throws DaemonError with the status to answer.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cuzk.pb.h"
#include "cuzk/circuits/catalog.hpp"
#include "cuzk/daemon/config.hpp"
#include "cuzk/daemon/daemon.hpp"
#include "cuzk/daemon/filecoin_jobs.hpp"
#include "cuzk/formats/iden3.hpp"

namespace cuzk::daemon {

struct JobPlan {
    std::shared_ptr<const FilecoinJob> filecoin;  // a Filecoin kind's job; null for cuzk's own
    circuits::CircuitSpec spec;  // built-in circuits; for circom jobs, name "circom" only; Filecoin: the proof's name
    size_t partitions = 1;
    std::filesystem::path params_path, pce_path;  // pce_path: empty unless the request names a .pce file
    bool circom = false;
    std::vector<formats::iden3::Witness> witnesses;  // circom jobs, one per partition
    size_t params_bytes = 0;     // the parameter file
    size_t least_bytes = 0;   // one partition's assignment plus compiled matrices (more start only with room)
};

// Checks `r` and fills in what it left to defaults (priority; for a CUZK_JOB partitions and witness seed, a job
// kind's preset becomes its circuit), so that a stored request proves the same thing after a restart.
JobPlan plan_request(v1::SubmitProofRequest& r, const DaemonConfig& cfg);

// Admission: the job's parameter file plus one partition and its matrices must fit `budget_bytes`
// (ResourceExhausted, saying how much it needs); the engine starts more partitions only while they fit.
void check_memory_budget(const JobPlan& plan, size_t budget_bytes);

// `name` (from a request) as a file inside `dir`: relative, no "..", and its real path (symlinks resolved) still
// inside the directory's real path; it must be a regular file.
std::filesystem::path inside(const std::filesystem::path& dir, const std::string& name, const char* what);

}  // namespace cuzk::daemon
