// A client of the daemon's gRPC API, cuzk.v1.ProvingEngine (what `cuzk client` and the tests use). Every call has a deadline; a failed
// call throws ClientError with the gRPC status code and the daemon's message.
#pragma once

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "cuzk.pb.h"

namespace cuzk::daemon {

class ClientError : public std::runtime_error {
public:
    ClientError(int code, const std::string& what) : std::runtime_error(what), code_(code) {}
    int code() const { return code_; }  // grpc::StatusCode

private:
    int code_;
};

class Client {
public:
    // target: a unix socket path ("unix:" prefix optional) or host:port. Nothing connects until the first call.
    explicit Client(const std::string& target);
    ~Client();

    // The job's id (a request_id seen before: that job's).
    std::string submit(const v1::SubmitProofRequest& request);
    // Waits for the job's end. timeout_s 0: no limit (else ClientError DEADLINE_EXCEEDED when it has not ended).
    // With `progress`, the job's status is reported about once a second while it runs.
    v1::AwaitProofResponse await(const std::string& job_id, double timeout_s = 0,
                                 const std::function<void(const v1::JobStatus&)>& progress = {});
    bool cancel(const std::string& job_id);
    v1::GetStatusResponse status(const std::string& job_id = "");
    std::string metrics();
    // PreloadSRS / EvictSRS of `name`: a circuit id ("porep-32g") or a parameter file in the daemon's directory.
    // preload: the set's bytes; evict: whether it was loaded.
    uint64_t preload(const std::string& name);
    bool evict(const std::string& name);

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace cuzk::daemon
