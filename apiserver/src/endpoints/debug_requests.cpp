#include "endpoints/debug_requests.h"

#include <charconv>
#include <nlohmann/json.hpp>

#include "endpoints/status.h"
#include "registry/objects.h"

namespace apiserver::endpoints {
namespace {

int64_t micros(std::chrono::nanoseconds d) {
  return std::chrono::duration_cast<std::chrono::microseconds>(d).count();
}

nlohmann::ordered_json trace_json(const trace::RequestTrace& t) {
  nlohmann::ordered_json stages = nlohmann::ordered_json::array();
  for (const auto& s : t.steps) {
    stages.push_back(
        {{"stage", std::string(s.stage)}, {"decision", s.decision}, {"micros", micros(s.took)}});
  }
  nlohmann::ordered_json notes = nlohmann::ordered_json::array();
  for (const auto& n : t.notes) {
    notes.push_back({{"layer", std::string(n.layer)}, {"text", n.text}});
  }
  return {{"id", t.id},
          {"received", registry::rfc3339(t.received)},
          {"user", t.user},
          {"groups", t.groups},
          {"method", t.method},
          {"target", t.target},
          {"verb", t.verb},
          {"group", t.group},
          {"version", t.version},
          {"resource", t.resource},
          {"subresource", t.subresource},
          {"namespace", t.namespace_},
          {"name", t.name},
          {"code", t.code},
          {"micros", micros(t.took)},
          {"stages", std::move(stages)},
          {"notes", std::move(notes)}};
}

}  // namespace

http::Response serve_debug_requests(const http::Request& request, const trace::TraceLog& log) {
  if (request.method != "GET") {
    return status_with_details(405, "MethodNotAllowed", "only GET is served at /debug/requests",
                               nlohmann::json());
  }
  trace::TraceLog::Filter filter;
  filter.user = request.query_value("user");
  filter.verb = request.query_value("verb");
  filter.resource = request.query_value("resource");
  filter.name = request.query_value("name");
  if (std::string limit = request.query_value("limit"); !limit.empty()) {
    size_t n = 0;
    auto [end, ec] = std::from_chars(limit.data(), limit.data() + limit.size(), n);
    if (ec != std::errc() || end != limit.data() + limit.size() || n == 0 || n > log.capacity()) {
      return bad_request("limit must be a whole number from 1 to " +
                         std::to_string(log.capacity()));
    }
    filter.limit = n;
  }
  nlohmann::ordered_json items = nlohmann::ordered_json::array();
  for (const auto& t : log.list(filter)) {
    items.push_back(trace_json(t));
  }
  nlohmann::ordered_json doc = {{"capacity", log.capacity()}, {"items", std::move(items)}};
  http::Response r;
  r.set_header("Content-Type", "application/json");
  r.body = doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return r;
}

}  // namespace apiserver::endpoints
