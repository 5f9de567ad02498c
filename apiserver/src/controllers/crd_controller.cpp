#include "controllers/crd_controller.h"

#include "conversion/stored_lookups.h"
#include "conversion/webhook_converter.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "apiserver/log.h"
#include "apiserver/version.h"
#include "controllers/controller_queue.h"
#include "controllers/controller_request.h"
#include "guard.h"
#include "registry/custom_resources.h"
#include "registry/objects.h"

namespace apiserver::controllers {
namespace {

using nlohmann::json;

// How soon a CRD whose custom resources are held by finalizers is looked at again, and the
// watch followed again after following it failed.
constexpr auto kRecheckDelay = std::chrono::seconds(1);
const std::string kCrdRoot = registry::kCrdPrefix;
const std::string kCrdPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/";

json find_condition(const json& crd, const std::string& type) {
  for (const auto& c : crd.value("/status/conditions"_json_pointer, json::array())) {
    if (c.is_object() && c.value("type", "") == type) {
      return c;
    }
  }
  return nullptr;
}

bool condition_true(const json& crd, const std::string& type) {
  json c = find_condition(crd, type);
  return c.is_object() && c.value("status", "") == "True";
}

// Sets a condition in `status`, keeping its lastTransitionTime unless its status changes (as
// upstream's SetCRDCondition does).
void set_condition(json& status, const std::string& type, const std::string& value,
                   const std::string& reason, const std::string& message) {
  if (!status.contains("conditions") || !status["conditions"].is_array()) {
    status["conditions"] = json::array();
  }
  json& conditions = status["conditions"];
  json wanted = {{"type", type},
                 {"status", value},
                 {"lastTransitionTime", registry::rfc3339(std::chrono::system_clock::now())},
                 {"reason", reason},
                 {"message", message}};
  for (auto& c : conditions) {
    if (c.is_object() && c.value("type", "") == type) {
      if (c.value("status", "") == value && c.contains("lastTransitionTime")) {
        wanted["lastTransitionTime"] = c["lastTransitionTime"];
      }
      c = std::move(wanted);
      return;
    }
  }
  conditions.push_back(std::move(wanted));
}

std::string storage_version(const json& crd) {
  for (const auto& v : crd.value("/spec/versions"_json_pointer, json::array())) {
    if (v.is_object() && v.value("storage", false)) {
      return v.value("name", std::string());
    }
  }
  return "";
}

bool has_finalizer(const json& crd) {
  for (const auto& f : crd.value("/metadata/finalizers"_json_pointer, json::array())) {
    if (f == registry::kCrdCleanupFinalizer) {
      return true;
    }
  }
  return false;
}

}  // namespace

CrdController::CrdController(std::shared_ptr<registry::Registry> registry,
                             storage::Storage& storage, Client client, const common::Clock& clock)
    : registry_(std::move(registry)),
      storage_(storage),
      client_(std::move(client)),
      queue_(queue_options(), clock) {}

CrdController::~CrdController() {
  queue_.shutdown();
  if (thread_.joinable()) {
    thread_.join();
  }
  if (watcher_) {
    watcher_->set_notify(nullptr);
    watcher_->cancel();
  }
}

void CrdController::start() {
  watch_and_list(true);
  thread_ = std::thread([this] { run(); });
}

void CrdController::resync() {
  relist_ = true;
  queue_.add(kFollowKey);
}

void CrdController::request_progress() {
  queue_.add(kProgressKey);  // the watcher belongs to the controller thread
}

void CrdController::enqueue(const std::string& name) {
  queue_.add(name);  // refused when full: looked at on its next change
}

// Watch first, then list: nothing that happens in between is missed.
void CrdController::watch_and_list(bool now) {
  if (watcher_) {
    watcher_->set_notify(nullptr);
    watcher_->cancel();
  }
  const int64_t from = storage_.current_revision() + 1;
  watcher_ = storage_.watch(kCrdRoot, kCrdRoot, false, from);
  if (watcher_) {
    watcher_->set_notify([this] { queue_.add(kFollowKey); });
  }
  storage::ListResult crds;
  if (storage_.list(kCrdRoot, "", 0, 0, crds)) {
    return;
  }
  std::set<std::string> names;
  for (const auto& item : crds.items) {
    names.insert(name_of(item.key));
  }
  for (const auto& [name, rows] : published_) {
    names.insert(name);  // reconciling a CRD that is gone unpublishes its rows
  }
  for (const auto& name : names) {
    if (now) {
      work_on(name);
    } else {
      enqueue(name);
    }
  }
  followed_ = from - 1;  // the watch brings what comes after the list
}

void CrdController::drain_watch() {
  if (!watcher_) {
    return;
  }
  store::WatchResponse response;
  bool lost = false;
  bool deleted = false;
  int64_t followed = followed_;
  while (watcher_->try_next(response)) {
    lost = lost || response.canceled;
    if (!response.canceled) {
      followed = std::max(followed, response.header.revision);
    }
    for (const auto& e : response.events) {
      enqueue(name_of(e.kv.key));
      deleted = deleted || e.type == store::Event::Type::Delete;
    }
  }
  followed_ = followed;
  if (lost || deleted) {
    // A watch cut off (or a CRD gone, which may free names another CRD waits for): look at all.
    watch_and_list(false);
  }
}

void CrdController::run() {
  serve_keys(
      queue_, [this] { follow(); },
      [this] {
        if (watcher_) {
          watcher_->request_progress();  // its answer comes as a watch response: kFollowKey
        }
      },
      [this](const std::string& name) { work_on(name); });
}

void CrdController::follow() {
  const bool relist = relist_.exchange(false);
  const bool followed = run_guarded("crd controller: follow customresourcedefinitions", [&] {
    if (relist) {
      watch_and_list(false);
    }
    drain_watch();
  });
  if (!followed) {
    relist_ = true;
    queue_.add_after(kFollowKey, kRecheckDelay);
  }
}

void CrdController::work_on(const std::string& name) {
  work_guarded(queue_, name,
               {"crd controller", "reconcile", "customresourcedefinition", "its next change"},
               [&] { reconcile(name); });
}

http::Response CrdController::call(const std::string& method, const std::string& path,
                                   const json& body) {
  http::Request request = loopback_request(
      method, path, body, "kube-apiserver/" + version_info().git_version + " (sandbox)");
  request.user = "system:apiserver";
  request.groups = {"system:masters", "system:authenticated"};
  http::Response response = client_(request);
  if (response.status >= 400 && !(method == "DELETE" && response.status == 404)) {
    log::info(1, "crd controller: " + method + " " + path + ": " + std::to_string(response.status) +
                     " " + response.body.substr(0, 512));
  }
  return response;
}

void CrdController::publish(const std::string& name, std::vector<registry::Resource> rows) {
  std::set<Row> now;
  for (auto& r : rows) {
    now.insert({r.group, r.version, r.resource});
    registry_->upsert(std::move(r));
  }
  auto it = published_.find(name);
  if (it != published_.end()) {
    for (const auto& old : it->second) {
      if (now.count(old) == 0) {
        registry_->remove(old.group, old.version, old.resource);
      }
    }
  }
  if (now.empty()) {
    published_.erase(name);
  } else {
    published_[name] = std::move(now);
  }
}

void CrdController::reconcile(const std::string& name) {
  storage::Object stored;
  if (auto e = storage_.get(kCrdRoot + name, stored)) {
    if (e.kind == storage::ErrorKind::NotFound) {
      publish(name, {});
    }
    return;
  }
  json crd = json::parse(stored.value, nullptr, false);
  if (!crd.is_object()) {
    return;
  }
  crd["metadata"]["resourceVersion"] = std::to_string(stored.mod_revision);
  if (crd["metadata"].contains("deletionTimestamp")) {
    if (has_finalizer(crd) && !finalize(crd)) {
      queue_.add_after(name, kRecheckDelay);  // custom resources still going: look again
    }
    return;
  }

  // Naming: the names of the other CRDs of the group, as they were accepted.
  const registry::CrdNames wanted = registry::names_of(crd);
  const std::string group = crd.value("/spec/group"_json_pointer, std::string());
  std::vector<registry::CrdNames> others;
  storage::ListResult all;
  if (!storage_.list(kCrdRoot, "", 0, 0, all)) {
    for (const auto& item : all.items) {
      if (name_of(item.key) == name) {
        continue;
      }
      json other = json::parse(item.value, nullptr, false);
      if (!other.is_object() || other.value("/spec/group"_json_pointer, std::string()) != group) {
        continue;
      }
      json accepted = other.value("/status/acceptedNames"_json_pointer, json());
      if (accepted.is_object() && !accepted.value("plural", std::string()).empty()) {
        others.push_back(registry::names_of({{"spec", {{"names", accepted}}}}));
      }
    }
  }
  const std::string conflict = registry::names_conflict(wanted, others);
  json status = crd.value("status", json::object());
  if (!status.is_object()) {
    status = json::object();
  }
  bool accepted = conflict.empty();
  if (accepted) {
    status["acceptedNames"] = registry::names_json(wanted);
    // As upstream's naming and establishing controllers: the names are accepted with Established
    // False (Installing) first; once that status is stored, the next pass sets it True.
    const bool was_accepted = condition_true(crd, "NamesAccepted");
    set_condition(status, "NamesAccepted", "True", "NoConflicts", "no conflicts found");
    if (condition_true(crd, "Established") || was_accepted) {
      set_condition(status, "Established", "True", "InitialNamesAccepted",
                    "the initial names have been accepted");
    } else {
      set_condition(status, "Established", "False", "Installing",
                    "the initial names have been accepted");
    }
  } else {
    set_condition(status, "NamesAccepted", "False", "NameConflict", conflict);
    if (!condition_true(crd, "Established")) {
      set_condition(status, "Established", "False", "NotAccepted", "not all names are accepted");
    }
    if (!status.contains("acceptedNames")) {
      status["acceptedNames"] = {{"plural", ""}, {"kind", ""}};
    }
  }
  std::string stored_version = storage_version(crd);
  json versions = status.value("storedVersions", json::array());
  if (!stored_version.empty() &&
      std::find(versions.begin(), versions.end(), json(stored_version)) == versions.end()) {
    versions.push_back(stored_version);
  }
  status["storedVersions"] = versions;
  // Served with the names accepted (which stay as they were while a rename conflicts). The rows
  // go in before the status says Established, so a client that waited for it is served.
  if (accepted || condition_true(crd, "Established")) {
    registry::CrdNames served =
        registry::names_of({{"spec", {{"names", status.value("acceptedNames", json::object())}}}});
    auto rows = registry::rows_for_crd(crd, served, false, converter_of(crd));
    if (!rows) {
      log::info(0, "customresourcedefinition " + name + " not served: " + rows.error());
    }
    publish(name, rows ? std::move(*rows) : std::vector<registry::Resource>{});
  } else {
    publish(name, {});
  }
  if (status != crd.value("status", json())) {
    // A conflict means a newer version exists: its watch event brings the CRD back here.
    write_status(crd, status);
  }
}

std::optional<json> CrdController::write_status(const json& crd, const json& status) {
  json updated = crd;
  updated["status"] = status;
  const std::string name = crd["metadata"].value("name", std::string());
  auto response = call("PUT", kCrdPath + name + "/status", updated);
  if (response.status != 200) {
    return std::nullopt;
  }
  json stored = json::parse(response.body, nullptr, false);
  if (!stored.is_object()) {
    return std::nullopt;
  }
  return stored;
}

std::shared_ptr<const registry::CustomConverter> CrdController::converter_of(const json& crd) {
  return conversion::converter_for(crd, conversion::stored_lookups(registry_, storage_));
}

bool CrdController::finalize(const json& stored) {
  json crd = stored;
  const std::string name = crd["metadata"].value("name", std::string());
  json status = crd.value("status", json::object());
  const bool established = condition_true(crd, "Established");
  json terminating = find_condition(crd, "Terminating");
  if (!terminating.is_object() || terminating.value("reason", "") != "InstanceDeletionInProgress") {
    set_condition(status, "Terminating", "True", "InstanceDeletionInProgress",
                  "CustomResource deletion is in progress");
    auto written = write_status(crd, status);
    if (!written) {
      return false;
    }
    crd = std::move(*written);
    status = crd.value("status", json::object());
  }
  json names = crd.value("/status/acceptedNames"_json_pointer, json::object());
  registry::CrdNames served = registry::names_of({{"spec", {{"names", names}}}});
  if (established) {
    // Still served while its objects go, but nothing new may be created.
    auto rows = registry::rows_for_crd(crd, served, true, converter_of(crd));
    if (!rows || rows->empty()) {
      return false;
    }
    // Objects go through the storage version when it is served, as upstream's finalizer deletes
    // them: no conversion (and no conversion webhook) is needed there.
    auto stored = std::find_if(rows->begin(), rows->end(),
                               [](const registry::Resource& r) { return r.stored_as == nullptr; });
    const registry::Resource row = stored != rows->end() ? *stored : rows->front();
    publish(name, std::move(*rows));
    storage::ListResult items;
    if (auto e = storage_.list(row.etcd_prefix + "/", "", 0, 0, items)) {
      return false;
    }
    for (const auto& item : items.items) {
      std::string rest = item.key.substr(row.etcd_prefix.size() + 1);
      std::string path = "/apis/" + row.group + "/" + row.version + "/";
      if (row.namespaced) {
        size_t slash = rest.find('/');
        path += "namespaces/" + rest.substr(0, slash) + "/" + row.resource + "/" +
                rest.substr(slash + 1);
      } else {
        path += row.resource + "/" + rest;
      }
      json current = json::parse(item.value, nullptr, false);
      if (current.is_object() && current["metadata"].contains("deletionTimestamp")) {
        continue;  // already going; its finalizers hold it
      }
      call("DELETE", path, nullptr);
    }
    storage::ListResult left;
    if (storage_.list(row.etcd_prefix + "/", "", 1, 0, left) || !left.items.empty()) {
      return false;  // some are held by finalizers: looked at again after kRecheckDelay
    }
    set_condition(status, "Terminating", "False", "InstanceDeletionCompleted",
                  "removed all instances");
  } else {
    set_condition(status, "Terminating", "False", "NeverEstablished",
                  "resource was never established");
  }
  auto written = write_status(crd, status);
  if (!written) {
    return false;
  }
  crd = std::move(*written);
  json finalizers = json::array();
  for (const auto& f : crd.value("/metadata/finalizers"_json_pointer, json::array())) {
    if (f != registry::kCrdCleanupFinalizer) {
      finalizers.push_back(f);
    }
  }
  crd["metadata"]["finalizers"] = finalizers;
  return call("PUT", kCrdPath + name, crd).status == 200;
}

}  // namespace apiserver::controllers
