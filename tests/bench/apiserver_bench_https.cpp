// The HTTPS client's free functions: the target, status checks and what a served object says.
#include "apiserver_bench_https.h"

#include <memory>
#include <string>

namespace apiserver_bench {

Target make_target(const Endpoint& e, bool with_token) {
  Target t;
  asio::io_context io;
  tcp::resolver resolver(io);
  auto results = resolver.resolve(e.host, e.port);
  if (results.empty() || !results.begin()->endpoint().address().is_loopback()) {
    throw BenchError("the server's url " + e.url + " is not a loopback address");
  }
  t.endpoint = results.begin()->endpoint();
  t.host = e.host;
  t.host_header = e.host + ":" + e.port;
  if (with_token) {
    t.authorization = "Bearer " + e.token;
  }
  t.tls = std::make_shared<ssl::context>(ssl::context::tls_client);
  boost::system::error_code ec;
  t.tls->load_verify_file(e.ca_file.string(), ec);
  if (ec) {
    throw BenchError("CA file " + e.ca_file.string() + ": " + ec.message());
  }
  t.tls->set_verify_mode(ssl::verify_peer);
  return t;
}

void expect(const Reply& reply, unsigned status, const std::string& what) {
  if (reply.status != status) {
    throw BenchError(what + ": HTTP " + std::to_string(reply.status) + " (wanted " +
                     std::to_string(status) + "): " + reply.body.substr(0, 400));
  }
}

std::optional<int64_t> find_resource_version(std::string_view text) {
  constexpr std::string_view kKey = "\"resourceVersion\":\"";
  auto at = text.find(kKey);
  if (at == std::string_view::npos) {
    return std::nullopt;
  }
  int64_t value = 0;
  size_t i = at + kKey.size();
  if (i >= text.size() || text[i] < '0' || text[i] > '9') {
    return std::nullopt;
  }
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

std::string_view find_name(std::string_view text) {
  constexpr std::string_view kMetadata = "\"metadata\":{";
  constexpr std::string_view kName = "\"name\":\"";
  auto meta = text.find(kMetadata);
  auto at = meta == std::string_view::npos ? meta : text.find(kName, meta);
  if (at == std::string_view::npos) {
    return {};
  }
  auto begin = at + kName.size();
  auto end = text.find('"', begin);
  return end == std::string_view::npos ? std::string_view() : text.substr(begin, end - begin);
}

}  // namespace apiserver_bench
