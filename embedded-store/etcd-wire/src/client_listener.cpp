#include "client_listener.h"

#include <fcntl.h>
#include <grpcpp/server.h>
#include <grpcpp/server_posix.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <vector>

#include "common/guard.h"

namespace etcdwire {

namespace {

constexpr size_t kMaxPending = 256;       // connections waiting to be told apart
constexpr size_t kMaxHttpRequest = 8192;  // an HTTP/1.1 request head, at most
constexpr auto kSniffTimeout = std::chrono::seconds(10);
constexpr const char kHttp2Preface[] = "PRI * HTTP/2.0";

using Clock = std::chrono::steady_clock;

struct Pending {
  int fd = -1;
  Clock::time_point deadline;
  std::string head;  // what an HTTP/1.1 client sent so far
};

const char* reason_phrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 503:
      return "Service Unavailable";
    default:
      return "Error";
  }
}

void send_all(int fd, const std::string& bytes) {
  size_t sent = 0;
  while (sent < bytes.size()) {
    ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) {
      return;  // the socket's send timeout, or the client left: it gets what it got
    }
    sent += static_cast<size_t>(n);
  }
}

}  // namespace

std::unique_ptr<ClientListener> ClientListener::open(const std::string& host, uint16_t port,
                                                     std::string& error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  std::string service = std::to_string(port);
  if (int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found); rc != 0) {
    error = "cannot resolve " + host + ": " + ::gai_strerror(rc);
    return nullptr;
  }
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> addresses(found, &::freeaddrinfo);
  std::string last_error = "no address";
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      last_error = std::strerror(errno);
      continue;
    }
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, 1024) != 0) {
      last_error = std::strerror(errno);
      ::close(fd);
      continue;
    }
    sockaddr_storage bound{};
    socklen_t length = sizeof bound;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length);
    uint16_t actual = bound.ss_family == AF_INET6
                          ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                          : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
    std::unique_ptr<ClientListener> listener(new ClientListener(fd, actual));
    if (::pipe2(listener->wake_fds_, O_CLOEXEC | O_NONBLOCK) != 0) {
      error = std::string("pipe: ") + std::strerror(errno);
      return nullptr;
    }
    return listener;
  }
  error = "cannot listen on " + host + ":" + service + ": " + last_error;
  return nullptr;
}

ClientListener::~ClientListener() {
  stop();
  for (int fd : {listen_fd_, wake_fds_[0], wake_fds_[1]}) {
    if (fd >= 0) {
      ::close(fd);
    }
  }
}

void ClientListener::start(grpc::Server* server,
                           std::function<HttpAnswer(const std::string& path)> answer) {
  server_ = server;
  answer_ = std::move(answer);
  thread_ = std::thread([this] {
    common::run_guarded([this] { run(); },
                        [](std::string&& text) {
                          // Nothing to answer: the port stops accepting, the process goes on.
                          (void)text;
                        });
  });
}

void ClientListener::stop() {
  if (!thread_.joinable()) {
    return;
  }
  stopping_ = true;
  char byte = 1;
  (void)!::write(wake_fds_[1], &byte, 1);
  thread_.join();
}

void ClientListener::run() {
  std::vector<Pending> pending;
  auto drop = [&](size_t i) {
    ::close(pending[i].fd);
    pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
  };
  while (!stopping_) {
    std::vector<pollfd> fds;
    fds.push_back({listen_fd_, POLLIN, 0});
    fds.push_back({wake_fds_[0], POLLIN, 0});
    for (const auto& p : pending) {
      fds.push_back({p.fd, POLLIN, 0});
    }
    int ready = ::poll(fds.data(), fds.size(), 1000);
    if (ready < 0 && errno != EINTR) {
      break;
    }
    auto now = Clock::now();
    // Connections first (indexes shift as they go), newest last.
    for (size_t i = pending.size(); i-- > 0;) {
      short events = fds[i + 2].revents;
      if (events == 0) {
        if (now > pending[i].deadline) {
          drop(i);
        }
        continue;
      }
      char buffer[1024];
      if (pending[i].head.empty()) {
        ssize_t n = ::recv(pending[i].fd, buffer, sizeof kHttp2Preface - 1, MSG_PEEK);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
          continue;
        }
        if (n <= 0) {
          drop(i);
          continue;
        }
        std::string start(buffer, static_cast<size_t>(n));
        if (std::string(kHttp2Preface).rfind(start, 0) == 0) {
          if (static_cast<size_t>(n) < sizeof kHttp2Preface - 1) {
            continue;  // a prefix of the preface so far: wait for the rest
          }
          int fd = pending[i].fd;
          pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
          grpc::AddInsecureChannelFromFd(server_, fd);  // gRPC owns it from here
          continue;
        }
      }
      ssize_t n = ::recv(pending[i].fd, buffer, sizeof buffer, 0);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
        continue;
      }
      if (n <= 0) {
        drop(i);
        continue;
      }
      pending[i].head.append(buffer, static_cast<size_t>(n));
      if (pending[i].head.size() > kMaxHttpRequest) {
        drop(i);
        continue;
      }
      if (pending[i].head.find("\r\n\r\n") == std::string::npos) {
        continue;
      }
      // "METHOD PATH HTTP/1.x": only GET (and HEAD) are served, as etcd's handlers do.
      const std::string& head = pending[i].head;
      auto first_space = head.find(' ');
      auto second_space = head.find(' ', first_space + 1);
      std::string method = head.substr(0, first_space);
      std::string path = first_space == std::string::npos || second_space == std::string::npos
                             ? ""
                             : head.substr(first_space + 1, second_space - first_space - 1);
      if (auto query = path.find('?'); query != std::string::npos) {
        path.resize(query);
      }
      HttpAnswer answer;
      if (method != "GET" && method != "HEAD") {
        answer = {405, "Method Not Allowed\n"};
      } else {
        answer = answer_(path);
      }
      std::string response =
          "HTTP/1.1 " + std::to_string(answer.status) + " " + reason_phrase(answer.status) +
          "\r\nContent-Type: " +
          (answer.status == 200 || answer.status == 503 ? "application/json"
                                                        : "text/plain; charset=utf-8") +
          "\r\nContent-Length: " + std::to_string(answer.body.size()) +
          "\r\nConnection: close\r\n\r\n" + (method == "HEAD" ? "" : answer.body);
      // Blocking again for the answer, so that the send timeout bounds it.
      ::fcntl(pending[i].fd, F_SETFL, ::fcntl(pending[i].fd, F_GETFL) & ~O_NONBLOCK);
      send_all(pending[i].fd, response);
      drop(i);
    }
    if ((fds[0].revents & POLLIN) != 0) {
      // Non-blocking, as gRPC's transport requires of the sockets it is handed (a blocking one
      // would stall whichever thread polls it), and without Nagle's delay, as gRPC sets its own.
      int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (fd >= 0) {
        int one = 1;
        ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (pending.size() >= kMaxPending) {
          drop(0);  // the oldest waiter makes room
        }
        timeval timeout{2, 0};
        ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
        pending.push_back({fd, Clock::now() + kSniffTimeout, {}});
      }
    }
  }
  for (const auto& p : pending) {
    ::close(p.fd);
  }
}

}  // namespace etcdwire
