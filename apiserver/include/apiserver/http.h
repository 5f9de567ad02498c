// The HTTP request and response that cross from the server layer into the request pipeline.
// Nothing here depends on Beast: the pipeline below the server is plain C++ and unit-testable.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/go_numbers.h"
#include "common/result.h"

namespace apiserver::http {

// Header names compare case-insensitively, as HTTP requires.
struct CaseInsensitiveLess {
  bool operator()(const std::string& a, const std::string& b) const;
};
using Headers = std::map<std::string, std::string, CaseInsensitiveLess>;

// Who presented a verified TLS client certificate: its subject CN and O values.
struct ClientCertificate {
  std::string common_name;
  std::vector<std::string> organizations;
  // Which trusted CA issued it: the client CA (--client-ca-file; x509 authentication) and/or a
  // front proxy's (--requestheader-client-ca-file; the identity is then in request headers).
  bool from_client_ca = true;
  bool from_requestheader_ca = false;
};

struct Request {
  std::string method;                                     // "GET", "POST", ...
  std::string target;                                     // as sent: path and query
  std::string path;                                       // percent-decoded path
  std::map<std::string, std::vector<std::string>> query;  // decoded; repeated keys kept
  Headers headers;  // a repeated header's values joined with ", ", as HTTP allows
  // Each value of a header sent more than once (e.g. Impersonate-Group), in order; a header
  // sent once is only in `headers`.
  std::map<std::string, std::vector<std::string>, CaseInsensitiveLess> repeated_headers;
  std::string body;
  std::string remote_address;
  std::optional<ClientCertificate> client_certificate;
  // Set by the authentication filter: who is asking.
  std::string user;
  std::vector<std::string> groups;
  std::string uid;
  std::map<std::string, std::vector<std::string>> extra;

  // The first value of a query parameter, or `fallback`.
  std::string query_value(const std::string& name, const std::string& fallback = "") const;
  bool has_query(const std::string& name) const { return query.count(name) != 0; }
  std::string header(const std::string& name) const;
  // Every value of a header, one per time it was sent (Go's Header[name]); empty when absent.
  std::vector<std::string> header_values(const std::string& name) const;
};

// A response body produced over time (watch): the server writes each chunk as it comes, with
// HTTP chunked encoding, until the stream is finished or the client goes away.
// Thread-safe: the producer and the server's network thread both call it.
class ChunkStream {
 public:
  virtual ~ChunkStream() = default;
  // Takes the next chunk if one is ready; returns false if none is ready now.
  virtual bool next(std::string& chunk) = 0;
  // True once the last chunk was taken and no more will come.
  virtual bool finished() const = 0;
  // Called whenever a chunk becomes ready or the stream finishes (from any thread).
  virtual void set_wakeup(std::function<void()> wakeup) = 0;
  // The client went away or the server is stopping: release resources.
  virtual void close() = 0;
};

struct Response {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::shared_ptr<ChunkStream> stream;  // when set, the body is streamed and `body` ignored

  void set_header(const std::string& name, const std::string& value);
};

// The request pipeline: one call per request. It may block (store writes wait for a commit);
// the server runs it on a worker thread, never on a network thread.
using Handler = std::function<Response(Request& request)>;

// Splits "a=1&b=x%20y" into decoded pairs; '+' means space as in HTML forms. As Go's
// url.ParseQuery, a pair with a malformed escape or a ';' is dropped.
std::map<std::string, std::vector<std::string>> parse_query(const std::string& query);
// Decodes %XX escapes (and '+' as a space when `plus_is_space`); a malformed escape is kept as
// it is. For text the program made itself; client input goes through unescape().
std::string percent_decode(const std::string& s, bool plus_is_space);
// The same, but nullopt on a malformed escape ('%' not followed by two hex digits), which Go's
// url.PathUnescape and url.QueryUnescape refuse.
std::optional<std::string> unescape(std::string_view s, bool plus_is_space);
// Escapes a query parameter's name or value as Go's url.QueryEscape does: letters, digits and
// "-_.~" stay, a space becomes '+', every other byte %XX. parse_query() reads it back.
std::string query_escape(std::string_view s);

// Go's time.ParseDuration, as kube-apiserver's duration flags and the ?timeout= query parameter
// take it (common/go_numbers.h).
using common::parse_duration;

}  // namespace apiserver::http
