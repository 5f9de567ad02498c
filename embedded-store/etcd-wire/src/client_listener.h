// The plain-HTTP client port: like etcd's, one port speaks two protocols. Each accepted
// connection is told apart by its first bytes: gRPC (the HTTP/2 preface) is handed to the gRPC
// server, an HTTP/1.1 request (GET /health, GET /version, as health checkers and envtest send)
// is answered here. One thread does it all with poll; connections that say nothing in time, or
// too much, are closed, and at most kMaxPending wait to be told apart.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

namespace grpc {
class Server;
}

namespace etcdwire {

struct HttpAnswer {
  int status = 200;
  std::string body;  // JSON
};

class ClientListener {
 public:
  // Binds and listens (host a name or an address; port 0 picks one). Null with `error` set.
  static std::unique_ptr<ClientListener> open(const std::string& host, uint16_t port,
                                              std::string& error);
  ~ClientListener();

  uint16_t port() const { return port_; }

  // Starts the accepting thread. `answer` serves HTTP/1.1 GETs by path; it runs on that thread.
  void start(grpc::Server* server, std::function<HttpAnswer(const std::string& path)> answer);
  // Stops accepting and closes the connections not yet handed over.
  void stop();

 private:
  ClientListener(int fd, uint16_t port) : listen_fd_(fd), port_(port) {}
  void run();

  int listen_fd_ = -1;
  int wake_fds_[2] = {-1, -1};
  uint16_t port_ = 0;
  grpc::Server* server_ = nullptr;
  std::function<HttpAnswer(const std::string&)> answer_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
};

}  // namespace etcdwire
