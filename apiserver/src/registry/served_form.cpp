#include "registry/served_form.h"

#include "registry/builtin_conversion.h"
#include "registry/custom_conversion.h"
#include "registry/custom_resources.h"
#include "registry/json_access.h"
#include "registry/kind_strategy.h"
#include "trace/request_trace.h"

namespace apiserver::registry {
namespace {

using nlohmann::json;

// A kind served by another group's storage (events.k8s.io Events).
const KindStrategy* other_group_strategy(const Resource& r) {
  if (r.custom) {
    return nullptr;
  }
  const KindStrategy* strategy = kind_strategy(r.group, r.kind);
  return strategy != nullptr && strategy->to_storage != nullptr && strategy->from_storage != nullptr
             ? strategy
             : nullptr;
}

// A kind served at several versions of its group.
bool several_versions(const Resource& r) {
  if (r.custom) {
    return r.custom->versions.size() > 1;
  }
  return r.stored_as != nullptr || !builtin_storage_version(r.group, r.resource).empty();
}

std::string group_version(const std::string& group, const std::string& version) {
  return group.empty() ? version : group + "/" + version;
}

// `object` (at whatever version of r's group it names) at `version`.
std::optional<errors::Status> to_version(const Resource& r, json& object,
                                         const std::string& version) {
  const std::string wanted = group_version(r.group, version);
  const std::string from = string_at(object, {"apiVersion"});
  if (from == wanted) {
    return std::nullopt;
  }
  if (trace::active()) {
    const std::string how =
        r.custom ? (r.custom->converter ? r.custom->converter->strategy() : "None") : "built-in";
    trace::note("conversion", from + " -> " + wanted + " (" + how + ")");
  }
  if (r.custom) {
    return convert_custom(r.custom->converter.get(), r.custom->versions, {&object}, wanted);
  }
  if (auto error = convert_builtin(r.group, r.kind, object, version)) {
    return errors::failure(500, "", *error);
  }
  return std::nullopt;
}

}  // namespace

bool stored_in_other_form(const Resource& r) {
  return other_group_strategy(r) != nullptr || several_versions(r);
}

const Resource& storage_row(const Resource& r) {
  return r.stored_as ? *r.stored_as : r;
}

std::optional<errors::Status> to_stored_form(const Resource& r, json& object) {
  if (!object.is_object()) {
    return std::nullopt;
  }
  if (const KindStrategy* strategy = other_group_strategy(r)) {
    strategy->to_storage(object);
    return std::nullopt;
  }
  return several_versions(r) ? to_version(r, object, storage_row(r).version) : std::nullopt;
}

std::optional<errors::Status> to_served_form(const Resource& r, json& object) {
  if (!object.is_object()) {
    return std::nullopt;
  }
  if (const KindStrategy* strategy = other_group_strategy(r)) {
    strategy->from_storage(object);
    return std::nullopt;
  }
  return several_versions(r) ? to_version(r, object, r.version) : std::nullopt;
}

std::optional<errors::Status> to_served_forms(const Resource& r, std::vector<json*> objects) {
  if (r.custom && several_versions(r)) {
    std::erase_if(objects, [](const json* o) { return !o->is_object(); });
    if (trace::active() && !objects.empty()) {
      trace::note("conversion",
                  std::to_string(objects.size()) + " list items -> " + r.group_version() + " (" +
                      (r.custom->converter ? r.custom->converter->strategy() : "None") + ")");
    }
    return convert_custom(r.custom->converter.get(), r.custom->versions, std::move(objects),
                          r.group_version(), r.kind + "List");
  }
  for (json* object : objects) {
    if (auto error = to_served_form(r, *object)) {
      return error;
    }
  }
  return std::nullopt;
}

errors::Result<std::optional<std::string>> served_text(const Resource& r,
                                                       const std::string& stored) {
  if (!stored_in_other_form(r)) {
    return std::optional<std::string>();
  }
  json object = json::parse(stored, nullptr, false);
  if (!object.is_object()) {
    return std::optional<std::string>();
  }
  if (other_group_strategy(r) == nullptr &&
      string_at(object, {"apiVersion"}) == r.group_version()) {
    return std::optional<std::string>();  // stored at the version served
  }
  if (auto error = to_served_form(r, object)) {
    return *error;
  }
  return std::optional<std::string>(object.dump());
}

}  // namespace apiserver::registry
