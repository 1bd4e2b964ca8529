#include "cuzk/daemon/service.hpp"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>

#include "cuzk.grpc.pb.h"

namespace cuzk::daemon {

namespace fs = std::filesystem;

namespace {

// The socket's mode: its owner (the daemon's user) only.
constexpr mode_t kSocketMode = S_IRUSR | S_IWUSR;  // 0600
// Job ids as the protocol writes them: decimal, at most as many digits as any uint64_t can hold (19; a 20-digit
// number may not fit).
constexpr size_t kMaxIdDigits = std::numeric_limits<uint64_t>::digits10;

// Whether something accepts connections on the unix socket `path` (a running daemon).
bool socket_in_use(const fs::path& path) {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    const std::string s = path.string();
    if (s.size() >= sizeof(a.sun_path)) {
        ::close(fd);
        return false;
    }
    std::copy(s.begin(), s.end(), a.sun_path);
    const bool up = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
    ::close(fd);
    return up;
}

grpc::Status to_status(const DaemonError& e) {
    grpc::StatusCode c = grpc::StatusCode::INTERNAL;
    switch (e.code()) {
        case ErrorCode::InvalidArgument: c = grpc::StatusCode::INVALID_ARGUMENT; break;
        case ErrorCode::NotFound: c = grpc::StatusCode::NOT_FOUND; break;
        case ErrorCode::PermissionDenied: c = grpc::StatusCode::PERMISSION_DENIED; break;
        case ErrorCode::ResourceExhausted: c = grpc::StatusCode::RESOURCE_EXHAUSTED; break;
        case ErrorCode::FailedPrecondition: c = grpc::StatusCode::FAILED_PRECONDITION; break;
        case ErrorCode::DeadlineExceeded: c = grpc::StatusCode::DEADLINE_EXCEEDED; break;
        case ErrorCode::Unavailable: c = grpc::StatusCode::UNAVAILABLE; break;
        case ErrorCode::Cancelled: c = grpc::StatusCode::CANCELLED; break;
        case ErrorCode::DataLoss: c = grpc::StatusCode::DATA_LOSS; break;
    }
    return grpc::Status(c, e.what());
}

// Runs fn, mapping errors to statuses: a request never takes the daemon down.
template <class F>
grpc::Status guarded(F&& fn) {
    try {
        fn();
        return grpc::Status::OK;
    } catch (const DaemonError& e) {
        return to_status(e);
    } catch (const std::invalid_argument& e) {
        return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, e.what());
    } catch (const std::exception& e) {
        return grpc::Status(grpc::StatusCode::INTERNAL, e.what());
    }
}

uint64_t parse_id(const std::string& s) {
    if (s.empty() || s.size() > kMaxIdDigits || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
        throw DaemonError(ErrorCode::InvalidArgument, "job id '" + s + "' is not a job id (a decimal number)");
    return std::stoull(s);
}

// AwaitProof's answer when the job has not ended in time: status TIMEOUT (Curio's), the job goes on.
v1::AwaitProofResponse await_or_timeout(Daemon& d, uint64_t id, double timeout_s, grpc::ServerContext* ctx) {
    try {
        return d.await(id, timeout_s, [ctx] { return ctx->IsCancelled(); });
    } catch (const DaemonError& e) {
        if (e.code() != ErrorCode::DeadlineExceeded) throw;
        v1::AwaitProofResponse r;
        r.set_job_id(std::to_string(id));
        r.set_status(v1::AwaitProofResponse::TIMEOUT);
        r.set_error_message(e.what());
        return r;
    }
}

class Service final : public v1::ProvingEngine::Service {
public:
    explicit Service(Daemon& d) : d_(d) {}
    grpc::Status SubmitProof(grpc::ServerContext*, const v1::SubmitProofRequest* q, v1::SubmitProofResponse* r) override {
        return guarded([&] {
            const Submitted s = d_.submit(*q);
            r->set_job_id(std::to_string(s.id));
            r->set_queue_position(s.queue_position);
        });
    }
    grpc::Status AwaitProof(grpc::ServerContext* ctx, const v1::AwaitProofRequest* q, v1::AwaitProofResponse* r) override {
        return guarded([&] { *r = await_or_timeout(d_, parse_id(q->job_id()), q->timeout_ms() / 1000.0, ctx); });
    }
    grpc::Status Prove(grpc::ServerContext* ctx, const v1::ProveRequest* q, v1::ProveResponse* r) override {
        return guarded([&] {
            if (!q->has_submit()) throw DaemonError(ErrorCode::InvalidArgument, "Prove: missing submit");
            *r->mutable_result() = d_.await(d_.submit(q->submit()).id, 0, [ctx] { return ctx->IsCancelled(); });
        });
    }
    grpc::Status CancelProof(grpc::ServerContext*, const v1::CancelProofRequest* q, v1::CancelProofResponse* r) override {
        return guarded([&] {
            bool was_running = false;
            r->set_cancelled(d_.cancel(parse_id(q->job_id()), &was_running));
            r->set_was_running(was_running);
        });
    }
    grpc::Status GetStatus(grpc::ServerContext*, const v1::GetStatusRequest* q, v1::GetStatusResponse* r) override {
        return guarded([&] { *r = d_.status(q->job_id().empty() ? 0 : parse_id(q->job_id())); });
    }
    grpc::Status GetMetrics(grpc::ServerContext*, const v1::GetMetricsRequest*, v1::GetMetricsResponse* r) override {
        return guarded([&] { r->set_prometheus_text(d_.metrics_text()); });
    }
    grpc::Status PreloadSRS(grpc::ServerContext*, const v1::PreloadSrsRequest* q, v1::PreloadSrsResponse* r) override {
        return guarded([&] { *r = d_.preload(*q); });
    }
    grpc::Status EvictSRS(grpc::ServerContext*, const v1::EvictSrsRequest* q, v1::EvictSrsResponse* r) override {
        return guarded([&] { *r = d_.evict(*q); });
    }

private:
    Daemon& d_;
};

}  // namespace

std::unique_ptr<grpc::Service> make_prover_service(Daemon& daemon) { return std::make_unique<Service>(daemon); }

const DaemonConfig& claim_socket(const DaemonConfig& cfg) {
    const fs::path sock = cfg.socket_path();
    if (fs::absolute(sock).string().size() >= sizeof(sockaddr_un::sun_path))
        throw std::runtime_error("daemon: the socket path " + sock.string() + " is too long for a unix socket");
    std::error_code ec;
    fs::create_directories(sock.parent_path(), ec);
    struct stat st{};
    if (::lstat(sock.c_str(), &st) != 0) return cfg;  // nothing there
    // Never remove what is not a socket: a config that names the job database (or any file) as the socket must
    // not cost it.
    if (!S_ISSOCK(st.st_mode))
        throw std::runtime_error("daemon: " + sock.string() +
                                 " exists and is not a socket; refusing to replace it (is server.socket right?)");
    if (socket_in_use(sock)) throw std::runtime_error("daemon: another daemon is listening on " + sock.string());
    fs::remove(sock, ec);  // a stale socket of a daemon that did not shut down
    return cfg;
}

std::optional<SocketId> socket_id(const fs::path& path) {
    struct stat st{};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode)) return std::nullopt;
    return SocketId{st.st_dev, st.st_ino};
}

void remove_own_socket(const fs::path& path, const std::optional<SocketId>& mine) {
    const auto now = socket_id(path);
    if (!mine || !now || now->dev != mine->dev || now->ino != mine->ino) return;
    std::error_code ec;
    fs::remove(path, ec);
}

std::unique_ptr<grpc::Server> listen(const DaemonConfig& cfg, grpc::Service& service, int* tcp_port) {
    const fs::path sock = cfg.socket_path();
    grpc::ServerBuilder b;
    b.SetMaxReceiveMessageSize((int)std::min<size_t>(cfg.max_request_bytes, INT32_MAX));
    b.AddListeningPort("unix:" + fs::absolute(sock).string(), grpc::InsecureServerCredentials());
    if (!cfg.tcp.empty()) b.AddListeningPort(cfg.tcp, grpc::InsecureServerCredentials(), tcp_port);
    b.RegisterService(&service);
    // The socket is created by BuildAndStart; a umask that clears every other bit keeps it private from its first
    // moment.
    const mode_t old = ::umask((S_IRWXU | S_IRWXG | S_IRWXO) & ~kSocketMode);
    auto server = b.BuildAndStart();
    ::umask(old);
    if (server) ::chmod(sock.c_str(), kSocketMode);
    return server;
}

}  // namespace cuzk::daemon
