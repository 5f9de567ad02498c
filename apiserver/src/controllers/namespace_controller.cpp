#include "controllers/namespace_controller.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <vector>

#include "common/rfc3339.h"
#include "controllers/controller_queue.h"
#include "controllers/controller_request.h"
#include "controllers/namespace_conditions.h"
#include "registry/json_access.h"

namespace apiserver::controllers {
namespace {

using nlohmann::json;
using registry::find_path;
using registry::integer_at;
using registry::string_at;

constexpr const char* kUser = "namespace-controller";
constexpr const char* kFinalizer = "kubernetes";
// Upstream's estimate for content that finalizers hold: the garbage collector's time to finish.
constexpr int64_t kFinalizerEstimateSeconds = 15;
// The default terminationGracePeriodSeconds of a pod.
constexpr int64_t kDefaultGraceSeconds = 30;

// A namespaced resource the controller empties: its preferred version's row, and how the
// conditions name it ("pods.", "deployments.apps").
struct Target {
  const registry::Resource* row;
  std::string label;
};

// Every namespaced resource that supports delete, once per group and resource, at the most
// preferred version serving it (discovery's preferred resources).
std::vector<Target> deletable(const registry::Snapshot& snapshot) {
  std::vector<Target> out;
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& group : snapshot.groups()) {
    for (const auto& version : group.versions) {
      for (const registry::Resource* r : snapshot.in_group_version(group.name, version)) {
        if (!r->namespaced || r->etcd_prefix.empty() || !r->has_verb("delete") ||
            !seen.insert({r->group, r->resource}).second) {
          continue;
        }
        out.push_back({r, r->resource + "." + r->group});
      }
    }
  }
  return out;
}

std::string collection_path(const registry::Resource& r, const std::string& ns) {
  std::string root = r.group.empty() ? "/api/" + r.version : "/apis/" + r.group + "/" + r.version;
  return root + "/namespaces/" + ns + "/" + r.resource;
}

std::vector<json> objects_in(storage::Storage& storage, const registry::Resource& r,
                             const std::string& ns) {
  storage::ListResult listed;
  if (storage.list(r.etcd_prefix + "/" + ns + "/", "", 0, 0, listed)) {
    throw std::runtime_error("listing " + r.resource + " in " + ns + " failed");
  }
  std::vector<json> out;
  for (const auto& item : listed.items) {
    json object = json::parse(item.value, nullptr, false);
    if (object.is_object()) {
      out.push_back(std::move(object));
    }
  }
  return out;
}

// Upstream's estimate for pods: the longest grace period of those not yet finished, or none
// once that long has passed since the namespace was deleted.
int64_t pods_estimate(const std::vector<json>& pods, int64_t seconds_since_deletion) {
  int64_t estimate = 0;
  for (const auto& pod : pods) {
    const std::string phase = string_at(pod, {"status", "phase"});
    if (phase == "Succeeded" || phase == "Failed") {
      continue;
    }
    estimate = std::max(
        estimate,
        integer_at(pod, {"spec", "terminationGracePeriodSeconds"}).value_or(kDefaultGraceSeconds));
  }
  return seconds_since_deletion >= estimate ? 0 : estimate;
}

// The message of a failed answer: its Status message, else the code.
std::string failure_text(const http::Response& response) {
  json status = json::parse(response.body, nullptr, false);
  const std::string message = status.is_object() ? string_at(status, {"message"}) : "";
  return message.empty() ? "the server answered " + std::to_string(response.status) : message;
}

bool failed(const http::Response& response) {
  return response.status >= 400 && response.status != 404;
}

bool has_finalizers(const json& object) {
  const json* list = find_path(object, {"metadata", "finalizers"});
  return list != nullptr && list->is_array() && !list->empty();
}

}  // namespace

NamespaceController::NamespaceController(std::shared_ptr<registry::Registry> registry,
                                         storage::Storage& storage, Client client,
                                         const common::Clock& clock)
    : registry_(std::move(registry)),
      storage_(storage),
      client_(std::move(client)),
      clock_(clock),
      queue_(queue_options(), clock),
      thread_([this] { run(); }) {}

NamespaceController::~NamespaceController() {
  stop();
}

void NamespaceController::stop() {
  queue_.shutdown();
  if (thread_.joinable()) {
    thread_.join();
  }
}

void NamespaceController::marked_for_deletion(const registry::Resource& r,
                                              const std::string& name) {
  if (r.group.empty() && r.resource == "namespaces") {
    enqueue(name);
  }
}

void NamespaceController::enqueue(const std::string& name) {
  queue_.add(name);  // refused when full: resync() finds it again later
}

void NamespaceController::resync() {
  storage::ListResult namespaces;
  if (storage_.list("/registry/namespaces/", "", 0, 0, namespaces)) {
    return;
  }
  for (const auto& item : namespaces.items) {
    json ns = json::parse(item.value, nullptr, false);
    if (ns.is_object() && string_at(ns, {"status", "phase"}) == "Terminating") {
      enqueue(name_of(item.key));
    }
  }
}

void NamespaceController::run() {
  while (auto name = queue_.get()) {
    std::optional<common::Clock::duration> again;
    if (work_guarded(queue_, *name,
                     {"namespace controller", "finalize", "namespace", "the next resync"},
                     [&] { again = sync(*name); }) &&
        again) {
      queue_.add_after(*name, *again);
    }
    queue_.done(*name);
  }
}

std::optional<common::Clock::duration> NamespaceController::sync(const std::string& name) {
  storage::Object stored;
  if (storage_.get("/registry/namespaces/" + name, stored)) {
    return std::nullopt;  // gone already
  }
  json ns = json::parse(stored.value, nullptr, false);
  const std::string deleted_at =
      ns.is_object() ? string_at(ns, {"metadata", "deletionTimestamp"}) : "";
  const json* spec_finalizers = ns.is_object() ? find_path(ns, {"spec", "finalizers"}) : nullptr;
  if (deleted_at.empty() || spec_finalizers == nullptr || !spec_finalizers->is_array() ||
      std::find(spec_finalizers->begin(), spec_finalizers->end(), json(kFinalizer)) ==
          spec_finalizers->end()) {
    return std::nullopt;  // not being deleted, or no longer waiting for this controller
  }
  const auto deleted = common::parse_rfc3339(deleted_at);
  const int64_t since_deletion =
      deleted
          ? std::chrono::duration_cast<std::chrono::seconds>(clock_.system_now().time_since_epoch())
                    .count() -
                deleted->seconds
          : 0;

  ContentLeft left;
  int64_t estimate = 0;
  for (const auto& target : deletable(*registry_->snapshot())) {
    const registry::Resource& r = *target.row;
    std::vector<json> objects = objects_in(storage_, r, name);
    if (objects.empty()) {
      continue;
    }
    int64_t resource_estimate =
        r.group.empty() && r.resource == "pods" ? pods_estimate(objects, since_deletion) : 0;
    const std::string path = collection_path(r, name);
    if (r.has_verb("deletecollection")) {
      http::Request request = controller_request(
          "DELETE", path,
          {{"kind", "DeleteOptions"}, {"apiVersion", "v1"}, {"propagationPolicy", "Background"}},
          kUser);
      http::Response response = client_(request);
      if (failed(response)) {
        left.delete_errors.push_back(failure_text(response));
      }
    } else {
      for (const auto& object : objects) {
        http::Request request = controller_request(
            "DELETE", path + "/" + string_at(object, {"metadata", "name"}), nullptr, kUser);
        http::Response response = client_(request);
        if (failed(response) && response.status != 405) {
          left.delete_errors.push_back(failure_text(response));
          break;
        }
      }
    }
    objects = objects_in(storage_, r, name);
    if (objects.empty()) {
      continue;
    }
    left.resources[target.label] += static_cast<int64_t>(objects.size());
    bool held = false;
    for (const auto& object : objects) {
      if (!has_finalizers(object)) {
        continue;
      }
      held = true;
      for (const auto& f : *find_path(object, {"metadata", "finalizers"})) {
        if (f.is_string()) {
          ++left.finalizers[f.get<std::string>()];
        }
      }
    }
    if (resource_estimate == 0) {
      if (held) {
        resource_estimate = kFinalizerEstimateSeconds;
      } else {
        const std::string gv = r.group.empty() ? "/" + r.version : r.group + "/" + r.version;
        left.delete_errors.push_back("unexpected items still remain in namespace: " + name +
                                     " for gvr: " + gv + ", Resource=" + r.resource);
      }
    }
    estimate = std::max(estimate, resource_estimate);
  }

  // The conditions, written through the status subresource when they changed.
  if (merge_namespace_conditions(
          ns, namespace_conditions(left, common::format_rfc3339(clock_.system_now())))) {
    ns["metadata"]["resourceVersion"] = std::to_string(stored.mod_revision);
    http::Request request =
        controller_request("PUT", "/api/v1/namespaces/" + name + "/status", ns, kUser);
    client_(request);  // a conflict: the next pass writes them again
  }
  if (!left.delete_errors.empty()) {
    throw std::runtime_error(left.delete_errors.front());  // retried with a backoff
  }
  if (estimate > 0) {
    return std::chrono::seconds(estimate / 2 + 1);
  }

  // Nothing is left: take "kubernetes" out of spec.finalizers through the finalize subresource.
  storage::Object latest;
  if (storage_.get("/registry/namespaces/" + name, latest)) {
    return std::nullopt;
  }
  json finalizing = json::parse(latest.value, nullptr, false);
  if (!finalizing.is_object()) {
    return std::nullopt;
  }
  std::set<std::string> rest;
  if (const json* list = find_path(finalizing, {"spec", "finalizers"});
      list != nullptr && list->is_array()) {
    for (const auto& f : *list) {
      if (f.is_string() && f != kFinalizer) {
        rest.insert(f.get<std::string>());
      }
    }
  }
  finalizing["spec"]["finalizers"] = rest;
  finalizing["metadata"]["resourceVersion"] = std::to_string(latest.mod_revision);
  http::Request request =
      controller_request("PUT", "/api/v1/namespaces/" + name + "/finalize", finalizing, kUser);
  http::Response response = client_(request);
  if (response.status == 409) {
    return std::chrono::milliseconds(0);  // changed meanwhile: read it again
  }
  if (failed(response)) {
    throw std::runtime_error("finalize: " + failure_text(response));
  }
  return std::nullopt;
}

}  // namespace apiserver::controllers
