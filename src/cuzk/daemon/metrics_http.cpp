#include "cuzk/daemon/metrics_http.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace cuzk::daemon {

namespace {

// Connections the kernel queues before they are accepted.
constexpr int kListenBacklog = 16;
// Connections served at once; more wait in the backlog until one ends.
constexpr size_t kMaxConnections = 32;
// How soon the serving thread sees a stop.
constexpr int kStopPollMs = 100;
// A client has this long in all, from its connection, to send its request: one that sends a byte now and then
// cannot hold a connection for longer (issue 20 item 13), and the others are served meanwhile.
constexpr auto kRequestDeadline = std::chrono::seconds(5);
// A scrape's request line and headers fit in this; the rest of a larger request is not read.
constexpr size_t kMaxRequestHeadBytes = 8192;

bool head_complete(const std::string& req) {
    return req.find("\r\n\r\n") != std::string::npos || req.find("\n\n") != std::string::npos ||
           req.size() >= kMaxRequestHeadBytes;
}

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
    struct Conn {
        int fd;
        std::chrono::steady_clock::time_point deadline;
        std::string req;
    };
    std::vector<Conn> conns;
    auto finish = [&](size_t i, bool answer) {
        if (answer) serve(conns[i].fd, conns[i].req);
        ::close(conns[i].fd);
        conns.erase(conns.begin() + (ptrdiff_t)i);
    };
    while (!stop_) {
        std::vector<pollfd> fds;
        for (const Conn& c : conns) fds.push_back({c.fd, POLLIN, 0});
        if (conns.size() < kMaxConnections) fds.push_back({listen_fd_, POLLIN, 0});
        const auto now = std::chrono::steady_clock::now();
        int timeout = kStopPollMs;
        for (const Conn& c : conns)
            timeout = std::min<int>(timeout, (int)std::max<int64_t>(0, std::chrono::duration_cast<std::chrono::milliseconds>(
                                                                          c.deadline - now).count()));
        if (::poll(fds.data(), fds.size(), timeout) < 0) continue;
        if (conns.size() < kMaxConnections && (fds.back().revents & POLLIN)) {
            const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
            if (fd >= 0) conns.push_back({fd, std::chrono::steady_clock::now() + kRequestDeadline, {}});
        }
        // Read what arrived (from the back, so erasing keeps the indices of the rest and of fds).
        for (size_t i = std::min(conns.size(), fds.size()); i-- > 0;) {
            if (i >= fds.size() || fds[i].fd != conns[i].fd || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            char buf[1024];
            const ssize_t n = ::recv(conns[i].fd, buf, sizeof(buf), 0);
            if (n > 0) {
                conns[i].req.append(buf, (size_t)n);
                if (head_complete(conns[i].req)) finish(i, true);
            } else if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
                finish(i, n == 0 && !conns[i].req.empty());  // the client closed its side: answer what it sent
            }
        }
        const auto later = std::chrono::steady_clock::now();
        for (size_t i = conns.size(); i-- > 0;)
            if (later >= conns[i].deadline) finish(i, false);  // too slow: closed unanswered
    }
    for (const Conn& c : conns) ::close(c.fd);
}

void MetricsHttpServer::serve(int fd, const std::string& req) {
    // The answer is sent blocking, with a timeout: a client that does not read cannot hold the loop for long.
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    timeval tv{2, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
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
