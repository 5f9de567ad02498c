#include "controllers/namespace_conditions.h"

#include <algorithm>

#include "common/go_errors.h"

namespace apiserver::controllers {
namespace {

using nlohmann::json;

json condition(const std::string& type, bool status, const std::string& reason,
               const std::string& message, const std::string& now) {
  return {{"type", type},
          {"status", status ? "True" : "False"},
          {"lastTransitionTime", now},
          {"reason", reason},
          {"message", message}};
}

// "a, b, c": the entries sorted, as upstream sorts them before joining.
std::string joined(std::vector<std::string> parts) {
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (const auto& part : parts) {
    out += (out.empty() ? "" : ", ") + part;
  }
  return out;
}

}  // namespace

std::vector<json> namespace_conditions(const ContentLeft& left, const std::string& now) {
  std::vector<json> out;
  // The sandbox reads its own registry: discovery and group versions never fail.
  out.push_back(condition("NamespaceDeletionDiscoveryFailure", false, "ResourcesDiscovered",
                          "All resources successfully discovered", now));
  out.push_back(condition("NamespaceDeletionGroupVersionParsingFailure", false,
                          "ParsedGroupVersions", "All legacy kube types successfully parsed", now));
  if (left.delete_errors.empty()) {
    out.push_back(condition("NamespaceDeletionContentFailure", false, "ContentDeleted",
                            "All content successfully deleted, may be waiting on finalization",
                            now));
  } else {
    out.push_back(condition("NamespaceDeletionContentFailure", true, "ContentDeletionFailed",
                            "Failed to delete all resource types, " +
                                std::to_string(left.delete_errors.size()) +
                                " remaining: " + common::go_aggregate(left.delete_errors),
                            now));
  }
  if (left.resources.empty()) {
    out.push_back(condition("NamespaceContentRemaining", false, "ContentRemoved",
                            "All content successfully removed", now));
  } else {
    std::vector<std::string> parts;
    for (const auto& [resource, count] : left.resources) {
      parts.push_back(resource + " has " + std::to_string(count) + " resource instances");
    }
    out.push_back(condition("NamespaceContentRemaining", true, "SomeResourcesRemain",
                            "Some resources are remaining: " + joined(parts), now));
  }
  if (left.finalizers.empty()) {
    out.push_back(condition("NamespaceFinalizersRemaining", false, "ContentHasNoFinalizers",
                            "All content-preserving finalizers finished", now));
  } else {
    std::vector<std::string> parts;
    for (const auto& [finalizer, count] : left.finalizers) {
      parts.push_back(finalizer + " in " + std::to_string(count) + " resource instances");
    }
    out.push_back(
        condition("NamespaceFinalizersRemaining", true, "SomeFinalizersRemain",
                  "Some content in the namespace has finalizers remaining: " + joined(parts), now));
  }
  return out;
}

bool merge_namespace_conditions(json& ns, const std::vector<json>& fresh) {
  json& status = ns["status"];
  if (!status.is_object()) {
    status = json::object();
  }
  json& conditions = status["conditions"];
  if (!conditions.is_array()) {
    conditions = json::array();
  }
  bool changed = false;
  for (const auto& next : fresh) {
    auto old = std::find_if(conditions.begin(), conditions.end(), [&](const json& c) {
      return c.is_object() && c.contains("type") && c["type"] == next["type"];
    });
    if (old == conditions.end()) {
      conditions.push_back(next);
      changed = true;
      continue;
    }
    auto same = [&](const char* field) {
      return old->contains(field) && (*old)[field] == next[field];
    };
    if (same("status") && same("reason") && same("message")) {
      continue;
    }
    *old = next;
    changed = true;
  }
  return changed;
}

}  // namespace apiserver::controllers
