#include "cuzk/daemon/config.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#define TOML_EXCEPTIONS 1
#include <toml++/toml.h>

#include "cuzk/filecoin/params.hpp"
#include "cuzk/util/input_file.hpp"

namespace cuzk::daemon {

namespace {

[[noreturn]] void bad(const std::string& key, const std::string& why) {
    throw std::invalid_argument("config: " + key + ": " + why);
}

// Every key of every table must be known: a typo must not silently leave a default in place.
void check_keys(const toml::table& root) {
    static const std::map<std::string, std::set<std::string>> known = {
        {"server", {"socket", "tcp", "allow_remote", "metrics", "max_request_bytes", "log"}},
        {"paths", {"params", "circuits", "state"}},
        {"engine", {"backend", "synthesis_workers", "lookahead", "total_budget", "check_params", "verify_proofs",
                    "cpu_fallback", "pce", "pin_params", "stream_large_keys", "overlap_msms", "share_slot", "defer_ones",
                    "upload_from_split", "gpus"}},
        {"jobs", {"max_partitions", "max_queued", "result_ttl_seconds", "shutdown"}},
    };
    for (const auto& [k, v] : root) {
        const std::string table(k.str());
        auto it = known.find(table);
        if (it == known.end()) bad(table, "unknown table (server, paths, engine, jobs)");
        if (!v.is_table()) bad(table, "must be a table");
        for (const auto& [kk, vv] : *v.as_table()) {
            (void)vv;
            if (!it->second.count(std::string(kk.str()))) bad(table + "." + std::string(kk.str()), "unknown key");
        }
    }
}

std::string get_string(const toml::table& root, const char* table, const char* key, const std::string& def) {
    const auto node = root[table][key];
    if (!node) return def;
    if (!node.is_string()) bad(std::string(table) + "." + key, "must be a string");
    return std::string(*node.value<std::string>());
}

bool get_bool(const toml::table& root, const char* table, const char* key, bool def) {
    const auto node = root[table][key];
    if (!node) return def;
    if (!node.is_boolean()) bad(std::string(table) + "." + key, "must be true or false");
    return *node.value<bool>();
}

size_t get_count(const toml::table& root, const char* table, const char* key, size_t def, size_t lo, size_t hi) {
    const auto node = root[table][key];
    if (!node) return def;
    if (!node.is_integer()) bad(std::string(table) + "." + key, "must be an integer");
    const int64_t v = *node.value<int64_t>();
    if (v < (int64_t)lo || (uint64_t)v > hi)
        bad(std::string(table) + "." + key, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return (size_t)v;
}

// An array of distinct device ordinals in [0, 255].
std::vector<size_t> get_ordinals(const toml::table& root, const char* table, const char* key) {
    const auto node = root[table][key];
    if (!node) return {};
    const std::string name = std::string(table) + "." + key;
    if (!node.is_array()) bad(name, "must be an array of device ordinals, e.g. [0, 1]");
    std::vector<size_t> out;
    for (const auto& e : *node.as_array()) {
        if (!e.is_integer()) bad(name, "must be an array of device ordinals, e.g. [0, 1]");
        const int64_t v = *e.value<int64_t>();
        if (v < 0 || v > 255) bad(name, "a device ordinal must be in [0, 255]");
        if (std::find(out.begin(), out.end(), (size_t)v) != out.end())
            bad(name, "device " + std::to_string(v) + " is named twice");
        out.push_back((size_t)v);
    }
    if (out.empty()) bad(name, "names no device (leave it out for every visible one)");
    return out;
}

double get_seconds(const toml::table& root, const char* table, const char* key, double def) {
    const auto node = root[table][key];
    if (!node) return def;
    double v;
    if (node.is_integer()) v = (double)*node.value<int64_t>();
    else if (node.is_floating_point()) v = *node.value<double>();
    else bad(std::string(table) + "." + key, "must be a number of seconds");
    if (!(v > 0)) bad(std::string(table) + "." + key, "must be positive");
    return v;
}

// [engine] total_budget: "auto" (0), a size such as "64GiB", or bytes.
size_t get_budget(const toml::table& root, size_t def) {
    const auto node = root["engine"]["total_budget"];
    if (!node) return def;
    try {
        if (node.is_integer()) return (size_t)std::max<int64_t>(0, *node.value<int64_t>());
        if (node.is_string()) return parse_bytes(*node.value<std::string>());
    } catch (const std::invalid_argument& e) {
        bad("engine.total_budget", e.what());
    }
    bad("engine.total_budget", "\"auto\", a size such as \"64GiB\", or bytes");
}

std::filesystem::path resolve(const std::filesystem::path& base, const std::string& p) {
    std::filesystem::path path(p);
    return path.is_absolute() ? path : base / path;
}

void check_address(const std::string& key, const std::string& hp, bool allow_remote) {
    if (hp.empty()) return;
    const auto colon = hp.rfind(':');
    if (colon == std::string::npos || colon + 1 == hp.size()) bad(key, "must be host:port, got '" + hp + "'");
    for (size_t i = colon + 1; i < hp.size(); i++)
        if (!std::isdigit((unsigned char)hp[i])) bad(key, "the port must be a number, got '" + hp + "'");
    // Compared as text first: a port of many digits is out of range, not an exception from stoul.
    const std::string port = hp.substr(colon + 1);
    if (port.size() > 5 || std::stoul(port) > std::numeric_limits<uint16_t>::max())
        bad(key, "port out of range (0..65535) in '" + hp + "'");
    if (!allow_remote && !is_loopback_address(hp))
        bad(key, "'" + hp + "' is not a loopback address; set server.allow_remote = true to listen on it");
}

}  // namespace

size_t parse_bytes(const std::string& text) {
    if (text == "auto") return 0;
    size_t i = 0;
    while (i < text.size() && std::isdigit((unsigned char)text[i])) i++;
    if (i == 0) throw std::invalid_argument("'" + text + "' is not a size (bytes, or with KiB, MiB, GiB, TiB, or auto)");
    if (i > 19) throw std::invalid_argument("'" + text + "' is too large");
    const unsigned long long n = std::stoull(text.substr(0, i));
    std::string unit = text.substr(i);
    while (!unit.empty() && unit.front() == ' ') unit.erase(unit.begin());
    static const std::map<std::string, int> shifts = {{"", 0}, {"B", 0}, {"KiB", 10}, {"MiB", 20}, {"GiB", 30}, {"TiB", 40}};
    auto it = shifts.find(unit);
    if (it == shifts.end()) throw std::invalid_argument("'" + text + "': unknown unit '" + unit + "' (KiB, MiB, GiB, TiB)");
    if (it->second && n > (~0ull >> it->second)) throw std::invalid_argument("'" + text + "' is too large");
    return (size_t)(n << it->second);
}

bool is_loopback_address(const std::string& hp) {
    std::string host = hp.substr(0, hp.rfind(':'));
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    if (host == "localhost") return true;
    in_addr a4{};
    constexpr uint32_t kLoopbackNet = 127;  // 127.0.0.0/8: the address's top 8 of 32 bits
    if (inet_pton(AF_INET, host.c_str(), &a4) == 1) return (ntohl(a4.s_addr) >> (32 - 8)) == kLoopbackNet;
    in6_addr a6{};
    if (inet_pton(AF_INET6, host.c_str(), &a6) == 1) return IN6_IS_ADDR_LOOPBACK(&a6);
    return false;
}

std::filesystem::path default_params_dir() { return filecoin::parameter_cache_dir(); }

DaemonConfig parse_config(const std::string& toml_text, const std::filesystem::path& base_dir) {
    toml::table root;
    try {
        root = toml::parse(toml_text);
    } catch (const toml::parse_error& e) {
        std::ostringstream os;
        os << "config: line " << e.source().begin.line << ": " << e.description();
        throw std::invalid_argument(os.str());
    }
    check_keys(root);
    DaemonConfig c;
    c.state_dir = resolve(base_dir, get_string(root, "paths", "state", c.state_dir.string()));
    c.params_dir = resolve(base_dir, get_string(root, "paths", "params", c.params_dir.string()));
    c.circuits_dir = resolve(base_dir, get_string(root, "paths", "circuits", c.circuits_dir.string()));
    {
        const std::string s = get_string(root, "server", "socket", "");
        if (!s.empty()) c.socket = resolve(base_dir, s);  // the default stays relative to the state directory
    }
    c.allow_remote = get_bool(root, "server", "allow_remote", c.allow_remote);
    c.tcp = get_string(root, "server", "tcp", c.tcp);
    check_address("server.tcp", c.tcp, c.allow_remote);
    c.metrics = get_string(root, "server", "metrics", c.metrics);
    check_address("server.metrics", c.metrics, c.allow_remote);
    c.max_request_bytes = get_count(root, "server", "max_request_bytes", c.max_request_bytes, 1024, size_t{1} << 30);
    c.log = get_bool(root, "server", "log", c.log);
    c.backend = get_string(root, "engine", "backend", c.backend);
    if (c.backend != "auto" && c.backend != "cpu" && c.backend != "gpu") bad("engine.backend", "auto, cpu or gpu");
    c.gpus = get_ordinals(root, "engine", "gpus");
    if (!c.gpus.empty() && c.backend == "cpu") bad("engine.gpus", "names GPUs while engine.backend is cpu");
    if (root["engine"]["synthesis_workers"].is_string()) {
        if (*root["engine"]["synthesis_workers"].value<std::string>() != "auto")
            bad("engine.synthesis_workers", "\"auto\" or an integer in [1, 256]");
        c.synthesis_workers = 0;
    } else {
        c.synthesis_workers = get_count(root, "engine", "synthesis_workers", c.synthesis_workers, 1, 256);
    }
    c.lookahead = get_count(root, "engine", "lookahead", c.lookahead, 1, 64);
    c.total_budget = get_budget(root, c.total_budget);
    c.check_params = get_bool(root, "engine", "check_params", c.check_params);
    c.verify_proofs = get_bool(root, "engine", "verify_proofs", c.verify_proofs);
    c.cpu_fallback = get_bool(root, "engine", "cpu_fallback", c.cpu_fallback);
    c.pce = get_string(root, "engine", "pce", c.pce);
    c.pin_params = get_bool(root, "engine", "pin_params", c.pin_params);
    c.stream_large_keys = get_bool(root, "engine", "stream_large_keys", c.stream_large_keys);
    c.overlap_msms = get_bool(root, "engine", "overlap_msms", c.overlap_msms);
    c.share_slot = get_bool(root, "engine", "share_slot", c.share_slot);
    c.defer_ones = get_bool(root, "engine", "defer_ones", c.defer_ones);
    c.upload_from_split = get_bool(root, "engine", "upload_from_split", c.upload_from_split);
    if (c.pce != "auto" && c.pce != "off") bad("engine.pce", "auto or off");
    c.max_partitions = get_count(root, "jobs", "max_partitions", c.max_partitions, 1, 100000);
    c.max_queued = get_count(root, "jobs", "max_queued", c.max_queued, 1, 1000000);
    c.result_ttl_seconds = get_seconds(root, "jobs", "result_ttl_seconds", c.result_ttl_seconds);
    c.shutdown = get_string(root, "jobs", "shutdown", c.shutdown);
    if (c.shutdown != "drain" && c.shutdown != "interrupt") bad("jobs.shutdown", "drain or interrupt");
    return c;
}

DaemonConfig load_config(const std::filesystem::path& path) {
    return parse_config(read_input_file(path, kMaxConfigBytes, "config"), std::filesystem::absolute(path).parent_path());
}

}  // namespace cuzk::daemon
