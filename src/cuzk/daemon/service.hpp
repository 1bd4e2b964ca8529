// The daemon's gRPC glue: Daemon's API (daemon.hpp) as the v1::ProvingEngine service (Curio's), DaemonError mapped
// to the status of the same name (any other exception: INTERNAL; a request never takes the daemon down; an
// AwaitProof past its timeout answers status TIMEOUT), and the listening sockets.
#pragma once

#include <grpcpp/grpcpp.h>

#include <sys/types.h>

#include <filesystem>
#include <memory>
#include <optional>

#include "cuzk/daemon/config.hpp"
#include "cuzk/daemon/daemon.hpp"

namespace cuzk::daemon {

std::unique_ptr<grpc::Service> make_prover_service(Daemon& daemon);

// Before anything starts: the socket path fits a unix socket, no daemon answers there, a stale socket is removed;
// anything there that is not a socket is refused, never removed. Throws std::runtime_error; returns cfg.
const DaemonConfig& claim_socket(const DaemonConfig& cfg);

// Which socket a path holds (device and inode), so that a daemon at shutdown removes only the socket it created
// and not one another daemon made there since; nullopt when the path is not a socket.
struct SocketId {
    dev_t dev;
    ino_t ino;
};
std::optional<SocketId> socket_id(const std::filesystem::path& path);
// Removes `path` only when it is still the socket `mine` identified.
void remove_own_socket(const std::filesystem::path& path, const std::optional<SocketId>& mine);

// Serves `service` on cfg's unix socket (mode 0600 from its first moment) and TCP address (its port in *tcp_port);
// null when it cannot listen.
std::unique_ptr<grpc::Server> listen(const DaemonConfig& cfg, grpc::Service& service, int* tcp_port);

}  // namespace cuzk::daemon
