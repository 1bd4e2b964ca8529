#include "cuzk/daemon/client.hpp"

#include <grpcpp/grpcpp.h>

#include <chrono>

#include "cuzk.grpc.pb.h"
#include "cuzk/daemon/daemon.hpp"

namespace cuzk::daemon {

namespace {

// The deadline of a call the daemon answers at once (submit, cancel, status, metrics, evict).
constexpr double kCallDeadlineSeconds = 60;
// With a progress callback, await() asks for the job's status this often.
constexpr double kProgressPeriodSeconds = 1;
// An AwaitProof's own deadline is its timeout plus this: the daemon's TIMEOUT answer (the job has not ended) arrives
// first, not the channel's DEADLINE_EXCEEDED.
constexpr double kAwaitDeadlineMarginSeconds = 30;

}  // namespace

struct Client::Impl {
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<v1::ProvingEngine::Stub> stub;

    // A context whose deadline is `seconds` from now (0: none).
    static std::unique_ptr<grpc::ClientContext> context(double seconds) {
        auto ctx = std::make_unique<grpc::ClientContext>();
        if (seconds > 0)
            ctx->set_deadline(std::chrono::system_clock::now() +
                              std::chrono::duration_cast<std::chrono::microseconds>(
                                  std::chrono::duration<double>(seconds)));
        return ctx;
    }
    static void check(const grpc::Status& st) {
        if (!st.ok()) throw ClientError((int)st.error_code(), st.error_message());
    }
};

Client::Client(const std::string& target) : impl_(std::make_unique<Impl>()) {
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(-1);
    impl_->channel = grpc::CreateCustomChannel(grpc_target(target), grpc::InsecureChannelCredentials(), args);
    impl_->stub = v1::ProvingEngine::NewStub(impl_->channel);
}
Client::~Client() = default;

std::string Client::submit(const v1::SubmitProofRequest& request) {
    v1::SubmitProofResponse r;
    auto ctx = Impl::context(kCallDeadlineSeconds);
    Impl::check(impl_->stub->SubmitProof(ctx.get(), request, &r));
    return r.job_id();
}

v1::AwaitProofResponse Client::await(const std::string& job_id, double timeout_s,
                                     const std::function<void(const v1::JobStatus&)>& progress) {
    const auto t0 = std::chrono::steady_clock::now();
    for (;;) {
        double slice = 0;  // one call until the end, unless progress is shown or a timeout is given
        const double left =
            timeout_s > 0 ? timeout_s - std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() : 0;
        if (timeout_s > 0 && left <= 0)
            throw ClientError((int)grpc::StatusCode::DEADLINE_EXCEEDED, "job " + job_id + " has not ended in time");
        if (progress) slice = kProgressPeriodSeconds;
        if (timeout_s > 0) slice = slice > 0 ? std::min(slice, left) : left;
        v1::AwaitProofRequest q;
        q.set_job_id(job_id);
        q.set_timeout_ms(slice > 0 ? std::max<uint64_t>(1, (uint64_t)(slice * 1000)) : 0);
        v1::AwaitProofResponse r;
        auto ctx = Impl::context(slice > 0 ? slice + kAwaitDeadlineMarginSeconds : 0);
        Impl::check(impl_->stub->AwaitProof(ctx.get(), q, &r));
        if (r.status() != v1::AwaitProofResponse::TIMEOUT) return r;
        if (progress) {
            const auto s = status(job_id);
            if (s.has_job()) progress(s.job());
        }
    }
}

bool Client::cancel(const std::string& job_id) {
    v1::CancelProofRequest q;
    q.set_job_id(job_id);
    v1::CancelProofResponse r;
    auto ctx = Impl::context(kCallDeadlineSeconds);
    Impl::check(impl_->stub->CancelProof(ctx.get(), q, &r));
    return r.cancelled();
}

v1::GetStatusResponse Client::status(const std::string& job_id) {
    v1::GetStatusRequest q;
    q.set_job_id(job_id);
    v1::GetStatusResponse r;
    auto ctx = Impl::context(kCallDeadlineSeconds);
    Impl::check(impl_->stub->GetStatus(ctx.get(), q, &r));
    return r;
}

std::string Client::metrics() {
    v1::GetMetricsResponse r;
    auto ctx = Impl::context(kCallDeadlineSeconds);
    Impl::check(impl_->stub->GetMetrics(ctx.get(), v1::GetMetricsRequest(), &r));
    return r.prometheus_text();
}

namespace {

// A circuit id ("porep-32g") names no file: no dot in it.
bool is_circuit_id(const std::string& name) { return name.find('.') == std::string::npos && name.find('/') == std::string::npos; }

}  // namespace

uint64_t Client::preload(const std::string& name) {
    v1::PreloadSrsRequest q;
    if (is_circuit_id(name)) q.set_circuit_id(name);
    else q.set_params(name);
    v1::PreloadSrsResponse r;
    auto ctx = Impl::context(0);  // loading a large set takes minutes
    Impl::check(impl_->stub->PreloadSRS(ctx.get(), q, &r));
    return r.size_bytes();
}

bool Client::evict(const std::string& name) {
    v1::EvictSrsRequest q;
    if (is_circuit_id(name)) q.set_circuit_id(name);
    else q.set_params(name);
    v1::EvictSrsResponse r;
    auto ctx = Impl::context(kCallDeadlineSeconds);
    Impl::check(impl_->stub->EvictSRS(ctx.get(), q, &r));
    return r.was_loaded();
}

}  // namespace cuzk::daemon
