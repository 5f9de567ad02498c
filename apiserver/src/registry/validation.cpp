// Texts and paths below follow kube-apiserver v1.32's validation (pkg/apis/*/validation and
// apimachinery's metadata and label validation). Where a text could not be confirmed against an
// upstream source it carries a "text unverified" comment.
#include "registry/validation.h"

#include <string>

#include "registry/kind_strategy.h"
#include "registry/name_scanners.h"
#include "registry/validation_rules.h"

namespace apiserver::registry {
namespace {

using namespace rules;

void validate_object_meta(const Resource& r, const json& meta, Errors& out) {
  const NameRule rule = name_rule_for(r.group, r.resource);
  const std::string generate = str(meta, "generateName");
  const std::string name = str(meta, "name");
  if (!generate.empty()) {
    for (const auto& msg : name_problems(generate, rule, true)) {
      out.push_back(invalid_value("metadata.generateName", generate, msg));
    }
  }
  if (name.empty()) {
    out.push_back(required_value("metadata.name", "name or generateName is required"));
  } else {
    for (const auto& msg : name_problems(name, rule, false)) {
      out.push_back(invalid_value("metadata.name", name, msg));
    }
  }
  const std::string ns = str(meta, "namespace");
  if (r.namespaced) {
    if (ns.empty()) {
      out.push_back(required_value("metadata.namespace", ""));
    } else {
      for (const auto& msg : name_problems(ns, NameRule::Dns1123Label, false)) {
        out.push_back(invalid_value("metadata.namespace", ns, msg));
      }
    }
  } else if (!ns.empty()) {
    // kube-apiserver clears the namespace of cluster-scoped objects before validating.
    out.push_back(forbidden("metadata.namespace", "not allowed on this type"));
  }
  const json& generation = get(meta, "generation");
  if (generation.is_number_integer() && generation.get<int64_t>() < 0) {
    out.push_back(invalid_rendered("metadata.generation", generation.dump(), kNegative));
  }
  validate_labels(get(meta, "labels"), "metadata.labels", out);
  validate_annotations(get(meta, "annotations"), "metadata.annotations", out);
  validate_finalizers(get(meta, "finalizers"), "metadata.finalizers",
                      !r.custom && !(r.group == "apiextensions.k8s.io"), out);
}

void validate_object_meta_update(const json& meta, const json& old_meta, Errors& out) {
  if (old_meta.contains("deletionTimestamp")) {
    validate_no_new_finalizers(get(meta, "finalizers"), get(old_meta, "finalizers"),
                               "metadata.finalizers", out);
  }
  auto immutable = [&](const char* key) {
    const json& now = get(meta, key);
    const json& before = get(old_meta, key);
    if (now != before) {
      out.push_back(invalid_rendered(std::string("metadata.") + key,
                                     now.is_null() ? "\"\"" : render_scalar(now), kImmutable));
    }
  };
  immutable("name");
  immutable("namespace");
  // uid and creationTimestamp are owned by the server, which carries them over on update.
}

}  // namespace

std::vector<FieldError> validate_create(const Resource& resource, const json& object) {
  Errors out;
  const KindStrategy* strategy = kind_strategy(resource.group, resource.kind);
  if (strategy == nullptr || !strategy->own_metadata_rules) {
    validate_object_meta(resource, get(object, "metadata"), out);
  }
  if (strategy != nullptr && strategy->validate != nullptr) {
    strategy->validate(object, out);
  }
  if (strategy != nullptr && strategy->validate_create != nullptr) {
    strategy->validate_create(object, out);
  }
  return out;
}

std::vector<FieldError> validate_update(const Resource& resource, const json& object,
                                        const json& old) {
  Errors out;
  const KindStrategy* strategy = kind_strategy(resource.group, resource.kind);
  if (strategy == nullptr || !strategy->own_metadata_rules) {
    validate_object_meta_update(get(object, "metadata"), get(old, "metadata"), out);
    validate_object_meta(resource, get(object, "metadata"), out);
  }
  if (strategy != nullptr && strategy->validate != nullptr) {
    strategy->validate(object, out);
  }
  if (strategy != nullptr && strategy->validate_update != nullptr) {
    strategy->validate_update(object, old, out);
  }
  return out;
}

}  // namespace apiserver::registry
