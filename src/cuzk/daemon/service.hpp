// The daemon's gRPC glue: Daemon's API (daemon.hpp) as the v1::Prover service, DaemonError mapped to the status
// of the same name (any other exception: INTERNAL; a request never takes the daemon down), and the listening
// sockets.
#pragma once

#include <grpcpp/grpcpp.h>

#include <memory>

#include "cuzk/daemon/config.hpp"
#include "cuzk/daemon/daemon.hpp"

namespace cuzk::daemon {

std::unique_ptr<grpc::Service> make_prover_service(Daemon& daemon);

// Before anything starts (a second daemon on the same state must not resume its jobs too): the socket path fits a
// unix socket, no daemon answers there, a stale socket is removed. Throws std::runtime_error; returns cfg.
const DaemonConfig& claim_socket(const DaemonConfig& cfg);

// Serves `service` on cfg's unix socket (mode 0600 from its first moment) and TCP address (its port in *tcp_port);
// null when it cannot listen.
std::unique_ptr<grpc::Server> listen(const DaemonConfig& cfg, grpc::Service& service, int* tcp_port);

}  // namespace cuzk::daemon
