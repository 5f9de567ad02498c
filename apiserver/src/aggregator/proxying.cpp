// Aggregator::proxy: a request for an extension API server's group, sent to it (a watch is
// streamed back) with the caller's identity in the front-proxy headers.
#include <charconv>

#include "aggregator/aggregator.h"
#include "aggregator/proxy_request.h"
#include "apiserver/log.h"
#include "trace/request_trace.h"

namespace apiserver::aggregator {
namespace {

// kube-apiserver's longest watch (--min-request-timeout, 1800 s).
constexpr std::chrono::minutes kWatchBound{30};

// The error a failed send() gives, without Go's `<Method> "<url>": ` (the reverse proxy's
// transport errors carry none).
std::string transport_error(const std::string& error, const std::string& url) {
  const auto at = error.find("\"" + url + "\": ");
  return at == std::string::npos ? error : error.substr(at + url.size() + 4);
}

}  // namespace

http::Response Aggregator::proxy(http::Request& request, const ApiService& s) {
  const std::string where = "service " + s.service->namespace_ + "/" + s.service->name;
  if (!s.available || s.available->status != "True") {
    trace::note("aggregator", "kube-aggregator: APIService " + s.name + " is not available");
    return proxy_error(503, "service unavailable");
  }
  auto target = target_for(s, request.target);
  if (!target) {
    log::error("aggregator: error resolving " + s.service->namespace_ + "/" + s.service->name +
               ": " + target.error());
    trace::note("aggregator", "kube-aggregator could not resolve " + where + ": " + target.error());
    return proxy_error(503, "service unavailable");
  }
  Identity identity{request.user, request.groups, request.extra};
  webhook::Request out = proxied_request(request, identity);
  std::erase_if(out.headers, [](const auto& h) {
    return !http::CaseInsensitiveLess{}(h.first, "Accept-Encoding") &&
           !http::CaseInsensitiveLess{}("Accept-Encoding", h.first);
  });
  auto timeout = options_.proxy_timeout;
  if (auto given = request.query.find("timeout");
      given != request.query.end() && !given->second.empty()) {
    if (auto parsed = http::parse_duration(given->second.front());
        parsed && *parsed > std::chrono::nanoseconds(0)) {
      timeout = std::min(timeout, std::chrono::duration_cast<std::chrono::milliseconds>(*parsed));
    }
  }
  const std::string address = target->connect_host + ":" + target->connect_port;
  if (is_watch(request)) {
    return proxy_watch(request, s, *target, out);
  }
  auto answer = webhook::send(*target, out, timeout, options_.max_proxied_bytes);
  if (!answer) {
    const std::string why = transport_error(answer.error(), target->url);
    log::error("aggregator: Error while proxying request: " + why);
    trace::note("aggregator",
                "kube-aggregator proxied to " + where + " at " + address + ": failed: " + why);
    queue_.add(s.name);  // check it again now
    return proxy_error(503, why);
  }
  trace::note("aggregator", "kube-aggregator proxied to " + where + " at " + address + " (" +
                                std::to_string(answer->status) + ")");
  http::Response r;
  r.status = answer->status;
  for (auto& [name, value] : answer->headers) {
    r.headers.emplace_back(std::move(name), std::move(value));
  }
  r.body = std::move(answer->body);
  return r;
}

http::Response Aggregator::proxy_watch(const http::Request& request, const ApiService& s,
                                       const webhook::Target& target, const webhook::Request& out) {
  const std::string where = "service " + s.service->namespace_ + "/" + s.service->name + " at " +
                            target.connect_host + ":" + target.connect_port;
  // As long as the watch asks for (timeoutSeconds), else kube-apiserver's 30-minute bound.
  std::chrono::milliseconds total = kWatchBound;
  if (auto given = request.query.find("timeoutSeconds");
      given != request.query.end() && !given->second.empty()) {
    long seconds = 0;
    const std::string& text = given->second.front();
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds);
    if (ec == std::errc() && ptr == text.data() + text.size() && seconds > 0) {
      total = std::min(total, std::chrono::milliseconds(std::chrono::seconds(seconds)) +
                                  std::chrono::seconds(5));
    }
  }
  auto opened = webhook::open_stream(target, out, options_.proxy_timeout, total,
                                     options_.max_buffered_watch_bytes);
  if (!opened) {
    const std::string why = transport_error(opened.error(), target.url);
    log::error("aggregator: Error while proxying request: " + why);
    trace::note("aggregator", "kube-aggregator proxied a watch to " + where + ": failed: " + why);
    queue_.add(s.name);
    return proxy_error(503, why);
  }
  trace::note("aggregator", "kube-aggregator streams a watch from " + where + " (" +
                                std::to_string(opened->status) + ")");
  http::Response r;
  r.status = opened->status;
  r.headers = std::move(opened->headers);
  r.stream = std::move(opened->body);
  return r;
}

}  // namespace apiserver::aggregator
