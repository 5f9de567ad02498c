// ApiServer's componentstatuses: the scheduler and the controller manager probed at their
// healthz ports as kube-apiserver probes them (or reported by this process when it runs them),
// and the store as etcd-0.
#include <chrono>

#include "apiserver/apiserver.h"
#include "webhook/client.h"

namespace apiserver {
namespace {

// kube-apiserver's probe timeout for componentstatuses.
constexpr std::chrono::seconds kProbeTimeout{20};
// A healthz answer is a word or two.
constexpr size_t kMaxProbeBytes = 64 * 1024;

// An HTTP probe as kube-apiserver's prober makes it: a 2xx or 3xx answer is a success whose body
// is the message; another status a failure with the body; a request that fails (refused, timed
// out) a failure whose message is the client's error.
ComponentHealth probe_healthz(const std::string& name, const std::string& port) {
  webhook::Target target;
  target.connect_host = "127.0.0.1";
  target.connect_port = port;
  target.server_name = "127.0.0.1";
  target.host_header = "127.0.0.1:" + port;
  target.path_and_query = "/healthz";
  target.url = "https://127.0.0.1:" + port + "/healthz";
  target.insecure_skip_verify = true;  // as kube-apiserver: the component's own serving cert
  webhook::Request request;
  request.headers.emplace_back("Accept", "*/*");
  auto answer = webhook::send(target, request, kProbeTimeout, kMaxProbeBytes);
  if (!answer) {
    return {name, "False", answer.error(), ""};
  }
  const bool healthy = answer->status >= 200 && answer->status < 400;
  return {name, healthy ? "True" : "False", answer->body, ""};
}

}  // namespace

void ApiServer::set_in_process_component(const std::string& name, std::function<bool()> running) {
  in_process_components_[name] = std::move(running);
}

std::vector<ComponentHealth> ApiServer::component_health() const {
  std::vector<ComponentHealth> components;
  for (const auto& [name, port] : {std::pair<const char*, const char*>{"scheduler", "10259"},
                                   {"controller-manager", "10257"}}) {
    // Run here: healthy while running. Otherwise it may run elsewhere (a kube-scheduler pointed
    // at this server): probed where kube-apiserver would probe it.
    auto in_process = in_process_components_.find(name);
    if (in_process != in_process_components_.end() && in_process->second()) {
      components.push_back({name, "True", "ok", ""});
    } else {
      components.push_back(probe_healthz(name, port));
    }
  }
  const std::string store_error = store_health();
  components.push_back(store_error.empty() ? ComponentHealth{"etcd-0", "True", "ok", ""}
                                           : ComponentHealth{"etcd-0", "False", "", store_error});
  return components;
}

std::string ApiServer::store_health() const {
  store::RangeRequest probe;
  probe.key = "/registry/health";
  probe.count_only = true;
  auto read = store_.range(probe);
  return read.is_ok() ? std::string() : read.status().message();
}

}  // namespace apiserver
