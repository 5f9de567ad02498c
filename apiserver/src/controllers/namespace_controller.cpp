#include "controllers/namespace_controller.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "controllers/controller_queue.h"
#include "registry/objects.h"

namespace apiserver::controllers {
namespace {

using nlohmann::json;

constexpr auto kRetryInterval = std::chrono::milliseconds(500);

bool has_finalizers(const json& object) {
  const json& meta = object.value("metadata", json::object());
  return meta.contains("finalizers") && meta["finalizers"].is_array() &&
         !meta["finalizers"].empty();
}

}  // namespace

NamespaceController::NamespaceController(std::shared_ptr<registry::Registry> registry,
                                         storage::Storage& storage, const common::Clock& clock)
    : registry_(std::move(registry)),
      storage_(storage),
      queue_(queue_options(), clock),
      thread_([this] { run(); }) {}

NamespaceController::~NamespaceController() {
  queue_.shutdown();
  thread_.join();
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
    if (ns.is_object() && ns.value("/status/phase"_json_pointer, "") == "Terminating") {
      enqueue(name_of(item.key));
    }
  }
}

void NamespaceController::run() {
  while (auto name = queue_.get()) {
    bool done = false;
    if (work_guarded(queue_, *name,
                     {"namespace controller", "finalize", "namespace", "the next resync"},
                     [&] { done = finalize(*name); }) &&
        !done) {
      queue_.add_after(*name, kRetryInterval);  // objects with finalizers still hold it
    }
    queue_.done(*name);
  }
}

bool NamespaceController::finalize(const std::string& name) {
  std::string ns_key = "/registry/namespaces/" + name;
  storage::Object ns_object;
  if (storage_.get(ns_key, ns_object)) {
    return true;  // gone already
  }
  json ns = json::parse(ns_object.value, nullptr, false);
  if (!ns.is_object() || ns.value("/status/phase"_json_pointer, "") != "Terminating") {
    return true;
  }
  size_t waiting = 0;
  std::set<std::string> prefixes;
  for (const auto& r : registry_->snapshot()->resources()) {
    if (r.namespaced && !r.etcd_prefix.empty()) {
      prefixes.insert(r.etcd_prefix + "/" + name + "/");
    }
  }
  for (const auto& prefix : prefixes) {
    storage::ListResult objects;
    if (storage_.list(prefix, "", 0, 0, objects)) {
      return false;
    }
    for (const auto& item : objects.items) {
      json object = json::parse(item.value, nullptr, false);
      int64_t revision = 0;
      if (object.is_object() && has_finalizers(object)) {
        ++waiting;
        if (!object["metadata"].contains("deletionTimestamp")) {
          object["metadata"]["deletionTimestamp"] =
              registry::rfc3339(std::chrono::system_clock::now());
          object["metadata"]["deletionGracePeriodSeconds"] = 0;
          storage_.update(item.key, object.dump(), item.mod_revision, revision);
        }
        continue;
      }
      storage_.remove(item.key, item.mod_revision, revision);
    }
  }
  if (waiting > 0) {
    return false;
  }
  // Everything is gone: drop the "kubernetes" finalizer, and the namespace with it.
  bool spec_clear = true;
  auto spec = ns.find("spec");
  if (spec != ns.end() && spec->is_object() && spec->contains("finalizers") &&
      (*spec)["finalizers"].is_array()) {
    json& spec_finalizers = (*spec)["finalizers"];
    spec_finalizers.erase(
        std::remove(spec_finalizers.begin(), spec_finalizers.end(), json("kubernetes")),
        spec_finalizers.end());
    spec_clear = spec_finalizers.empty();
  }
  int64_t revision = 0;
  if (spec_clear && !has_finalizers(ns)) {
    return !storage_.remove(ns_key, ns_object.mod_revision, revision) ||
           storage_.get(ns_key, ns_object).kind == storage::ErrorKind::NotFound;
  }
  storage_.update(ns_key, ns.dump(), ns_object.mod_revision, revision);
  return spec_clear;  // metadata finalizers belong to someone else; they finish it
}

}  // namespace apiserver::controllers
