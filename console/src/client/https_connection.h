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

#include "common/result.h"
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

  // Resolves, connects and completes the TLS handshake before `deadline`. The error, or nullopt
  // once the connection is open.
  [[nodiscard]] std::optional<std::string> open(Clock::time_point deadline);

  struct Exchanged {
    Response response;
    bool reusable = false;  // the server keeps the connection alive
  };
  // Sends `request` and reads the whole response (at most `max_body_bytes` of body). On an error
  // the connection must not be used again.
  common::Result<Exchanged> exchange(const Request& request, Clock::time_point deadline,
                                     size_t max_body_bytes);

  // Sends `request` and reads the response header: its HTTP status, the body then coming by
  // read_body().
  common::Result<int> start_stream(const Request& request, Clock::time_point deadline);

  enum class Read { Data, End };
  // Appends the next bytes of the streamed body to `out`: Data when some came, End when the body
  // is complete; the error on a transport failure, the deadline or a cancel (`out` may still have
  // grown).
  common::Result<Read> read_body(std::string& out, Clock::time_point deadline);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace console::client::detail
