// One TLS connection to a cluster, shared by RestClient (whole responses) and WatchStream
// (a response body read as it arrives). Internal to console/client.
//
// Every operation runs on the connection's private io_context until it completes, its deadline
// passes or the cancel flag (when given) turns true; the flag is polled every kPollInterval, so a
// blocked read gives up within that long of a stop. A timed-out or cancelled connection is closed
// and must not be used again. Not thread-safe: one thread uses a connection.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "console/client/rest_client.h"

namespace console::client::detail {

struct Endpoint {
  std::string host;  // without brackets
  std::string port;
};

// The host and port of an "https://host[:port][/...]" server URL; nullopt for anything else.
std::optional<Endpoint> parse_server(const std::string& server);

class HttpsConnection {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::milliseconds kPollInterval{100};

  // `access` and `cancel` must outlive the connection; `cancel` may be null.
  HttpsConnection(const ClusterAccess& access, std::string user_agent,
                  const std::atomic<bool>* cancel);
  ~HttpsConnection();
  HttpsConnection(const HttpsConnection&) = delete;
  HttpsConnection& operator=(const HttpsConnection&) = delete;

  // Resolves, connects and completes the TLS handshake before `deadline`.
  bool open(Clock::time_point deadline, std::string& error);

  // Sends `request` and reads the whole response (at most `max_body_bytes` of body).
  // `reusable` is false when the connection must not be used again.
  bool exchange(const Request& request, Clock::time_point deadline, size_t max_body_bytes,
                Response& out, bool& reusable, std::string& error);

  // Sends `request` and reads the response header: the body then comes by read_body().
  bool start_stream(const Request& request, Clock::time_point deadline, int& status,
                    std::string& error);

  enum class Read { Data, End, Failed };
  // Appends the next bytes of the streamed body to `out`: Data when some came, End when the body
  // is complete, Failed (with `error`) on a transport failure, the deadline or a cancel.
  Read read_body(std::string& out, Clock::time_point deadline, std::string& error);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace console::client::detail
