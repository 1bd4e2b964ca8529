#include "cuzk/daemon/metrics_http.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace cuzk::daemon {

namespace {

// Connections the kernel queues while one is served (a Prometheus server scrapes one at a time; a few spare).
constexpr int kListenBacklog = 16;
// How soon the serving thread sees a stop between connections.
constexpr int kStopPollMs = 100;
// A client gets this long for each read of its request: a stuck one cannot hold the endpoint.
constexpr time_t kReadTimeoutSeconds = 2;
// A scrape's request line and headers fit in this; the rest of a larger request is not read.
constexpr size_t kMaxRequestHeadBytes = 8192;

void send_all(int fd, const std::string& s) {
    size_t off = 0;
    while (off < s.size()) {
        const ssize_t n = ::send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
        if (n <= 0) return;
        off += (size_t)n;
    }
}

std::string response(int code, const char* reason, const std::string& type, const std::string& body) {
    return "HTTP/1.0 " + std::to_string(code) + " " + reason + "\r\nContent-Type: " + type +
           "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
}

}  // namespace

MetricsHttpServer::MetricsHttpServer(const std::string& host_port, std::function<std::string()> render)
    : render_(std::move(render)) {
    const auto colon = host_port.rfind(':');
    if (colon == std::string::npos) throw std::runtime_error("metrics: '" + host_port + "' is not host:port");
    std::string host = host_port.substr(0, colon);
    const std::string port = host_port.substr(colon + 1);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    addrinfo* res = nullptr;
    if (const int rc = getaddrinfo(host.empty() ? nullptr : host.c_str(), port.c_str(), &hints, &res); rc != 0)
        throw std::runtime_error("metrics: cannot resolve '" + host_port + "': " + gai_strerror(rc));
    std::string err = "no address";
    for (addrinfo* a = res; a; a = a->ai_next) {
        const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) continue;
        const int one = 1;
        ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, kListenBacklog) == 0) {
            listen_fd_ = fd;
            sockaddr_storage ss{};
            socklen_t len = sizeof(ss);
            ::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len);
            port_ = ss.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port)
                                             : ntohs(reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
            break;
        }
        err = std::strerror(errno);
        ::close(fd);
    }
    freeaddrinfo(res);
    if (listen_fd_ < 0) throw std::runtime_error("metrics: cannot listen on " + host_port + ": " + err);
    thread_ = std::thread([this] { loop(); });
}

MetricsHttpServer::~MetricsHttpServer() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    if (listen_fd_ >= 0) ::close(listen_fd_);
}

void MetricsHttpServer::loop() {
    while (!stop_) {
        pollfd p{listen_fd_, POLLIN, 0};
        if (::poll(&p, 1, kStopPollMs) <= 0) continue;  // wakes up to see stop_
        const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) continue;
        serve(fd);
        ::close(fd);
    }
}

void MetricsHttpServer::serve(int fd) {
    timeval tv{kReadTimeoutSeconds, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    std::string req;
    char buf[1024];  // one read's worth; the loop gathers up to kMaxRequestHeadBytes
    while (req.find("\r\n\r\n") == std::string::npos && req.find("\n\n") == std::string::npos &&
           req.size() < kMaxRequestHeadBytes) {
        const ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
        if (n <= 0) break;
        req.append(buf, (size_t)n);
    }
    const auto eol = req.find_first_of("\r\n");
    const std::string line = req.substr(0, eol);
    const auto sp1 = line.find(' ');
    const auto sp2 = line.find(' ', sp1 == std::string::npos ? 0 : sp1 + 1);
    if (sp1 == std::string::npos) {
        send_all(fd, response(400, "Bad Request", "text/plain", "bad request\n"));
        return;
    }
    const std::string method = line.substr(0, sp1);
    std::string path = line.substr(sp1 + 1, sp2 == std::string::npos ? std::string::npos : sp2 - sp1 - 1);
    if (const auto q = path.find('?'); q != std::string::npos) path.resize(q);
    if (method != "GET" && method != "HEAD") {
        send_all(fd, response(405, "Method Not Allowed", "text/plain", "GET /metrics\n"));
        return;
    }
    if (path != "/metrics") {
        send_all(fd, response(404, "Not Found", "text/plain", "GET /metrics\n"));
        return;
    }
    std::string body;
    try {
        body = render_();
    } catch (const std::exception& e) {
        send_all(fd, response(500, "Internal Server Error", "text/plain", std::string(e.what()) + "\n"));
        return;
    }
    std::string r = response(200, "OK", "text/plain; version=0.0.4", body);
    if (method == "HEAD") r.resize(r.find("\r\n\r\n") + 4);
    send_all(fd, r);
}

}  // namespace cuzk::daemon
