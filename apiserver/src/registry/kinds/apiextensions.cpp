// apiextensions.k8s.io: the CustomResourceDefinition kind's own rules. What a CRD means for the
// objects it serves is in custom_resources.h; here are its defaults, its validation and what
// deleting one does.
#include "registry/kinds/kinds.h"

#include <algorithm>
#include <string>

#include "registry/custom_resources.h"
#include "registry/json_access.h"

namespace apiserver::registry::kinds {
namespace {

// As upstream's CRD storage: the first delete hands the CRD to the cleanup finalizer, which
// deletes its custom resources before the CRD goes, and says so in a Terminating condition.
void begin_crd_delete(json& crd, const std::string& now) {
  json& meta = crd["metadata"];
  if (!meta.contains("deletionTimestamp")) {
    meta["deletionTimestamp"] = now;
  }
  json& list = meta["finalizers"];
  if (!list.is_array()) {
    list = json::array();
  }
  if (std::find(list.begin(), list.end(), json(kCrdCleanupFinalizer)) == list.end()) {
    list.push_back(kCrdCleanupFinalizer);
  }
  json& status = crd["status"];
  if (!status.is_object()) {
    status = json::object();
  }
  json& conditions = status["conditions"];
  if (!conditions.is_array()) {
    conditions = json::array();
  }
  json terminating = {{"type", "Terminating"},
                      {"status", "True"},
                      {"lastTransitionTime", now},
                      {"reason", "InstanceDeletionPending"},
                      {"message",
                       "CustomResourceDefinition marked for deletion; CustomResource deletion "
                       "will begin soon"}};
  auto same = std::find_if(conditions.begin(), conditions.end(),
                           [](const json& c) { return string_at(c, {"type"}) == "Terminating"; });
  if (same == conditions.end()) {
    conditions.push_back(std::move(terminating));
  } else {
    *same = std::move(terminating);
  }
}

}  // namespace

void add_apiextensions(Strategies& s) {
  s.push_back({.group = kCrdGroup,
               .kind = "CustomResourceDefinition",
               .defaults = [](json& crd, const DefaultingContext&) { default_crd(crd); },
               .validate =
                   [](const json& crd, Errors& out) {
                     auto more = validate_crd(crd);
                     out.insert(out.end(), more.begin(), more.end());
                   },
               .begin_delete = begin_crd_delete});
}

}  // namespace apiserver::registry::kinds
