// The pod subresources that reach into containers on a real node: log (answered from the
// simulated containers' recorded state, endpoints/pod_log.h) and exec, attach and portforward
// (refused: no process runs to attach to).
#include <chrono>

#include "endpoints/object_answers.h"
#include "endpoints/pod_log.h"
#include "endpoints/resources.h"
#include "endpoints/watch_stream.h"
#include "registry/json_access.h"

namespace apiserver::endpoints {

using registry::Resource;

http::Response ResourceHandler::pod_log(const Resource& r, const RequestInfo& info,
                                        const http::Request& request) {
  const std::string key = r.storage_key(info.namespace_, info.name);
  storage::Object stored;
  if (auto error = storage_.get(key, stored)) {
    return storage_failure(r, info.name, error);
  }
  auto options = parse_log_options(request, info.name);
  if (!options) {
    return options.error().response();
  }
  const nlohmann::json pod = nlohmann::json::parse(stored.value, nullptr, false);
  auto found = log_run(pod, *options);
  if (!found) {
    return found.error().response();
  }
  http::Response response;
  if (!*found) {
    response.status = 204;  // not on a node yet: nothing to read
    return response;
  }
  const ContainerRun* run = &**found;
  response.set_header("Content-Type", "text/plain");
  const auto now = [this] { return clock_.system_now(); };
  if (options->follow && !run->finished) {
    const std::string uid = registry::string_at(pod, {"metadata", "uid"});
    auto read_pod = [this, key, uid]() -> std::optional<nlohmann::json> {
      storage::Object current;
      if (storage_.get(key, current))
        return std::nullopt;
      nlohmann::json doc = nlohmann::json::parse(current.value, nullptr, false);
      if (registry::string_at(doc, {"metadata", "uid"}) != uid)
        return std::nullopt;
      return doc;
    };
    auto stream = follow_log(*run, *options, request.user, read_pod, now);
    ticker_->add(stream);
    response.stream = stream;
    return response;
  }
  response.body = render_log(log_lines(*run, now()), *options, now());
  return response;
}

http::Response ResourceHandler::pod_stream_refusal(const Resource& r, const RequestInfo& info) {
  storage::Object stored;
  if (auto error = storage_.get(r.storage_key(info.namespace_, info.name), stored)) {
    return storage_failure(r, info.name, error);
  }
  const char* what = info.subresource == "exec"     ? "exec"
                     : info.subresource == "attach" ? "attach"
                                                    : "port-forward";
  return errors::bad_request(std::string(what) +
                             " is not available in kube-sandbox: the containers of pod " +
                             info.name + " are simulated, no process runs in them")
      .response();
}

}  // namespace apiserver::endpoints
