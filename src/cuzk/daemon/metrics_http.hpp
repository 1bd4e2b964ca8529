// A minimal HTTP/1.0 endpoint for Prometheus scraping: GET /metrics answers the text `render()` returns
// (text/plain; version=0.0.4); any other path 404, any other method 405. Up to 32 connections at once on one
// thread (poll), each with 5 s in all to send its request: a slow or stuck client is closed unanswered and holds
// nobody else up. Listens on an IPv4 or IPv6 "host:port" (port 0: any free port, see port()).
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <thread>

namespace cuzk::daemon {

class MetricsHttpServer {
public:
    // std::runtime_error when the address cannot be bound.
    MetricsHttpServer(const std::string& host_port, std::function<std::string()> render);
    ~MetricsHttpServer();
    MetricsHttpServer(const MetricsHttpServer&) = delete;
    MetricsHttpServer& operator=(const MetricsHttpServer&) = delete;

    int port() const { return port_; }

private:
    void loop();
    void serve(int fd, const std::string& request);  // answers a complete request

    std::function<std::string()> render_;
    int listen_fd_ = -1;
    int port_ = 0;
    std::atomic<bool> stop_{false};
    std::thread thread_;
};

}  // namespace cuzk::daemon
