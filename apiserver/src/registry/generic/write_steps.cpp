#include "registry/generic/write_steps.h"

#include "registry/changed_paths.h"
#include "registry/crd_schema.h"
#include "registry/custom_resources.h"
#include "registry/generic/resource_errors.h"
#include "registry/go_text.h"
#include "registry/json_access.h"
#include "registry/validation.h"
#include "trace/request_trace.h"

namespace apiserver::registry {
namespace {

using nlohmann::json;

// Whether defaulting may change an object of `r` (else the trace needs no copy to compare).
bool defaults_may_change(const Resource& r) {
  return has_defaults(r) || (r.custom && r.custom->structural);
}

// Names in the request's trace the fields defaulting set, between `before` and `after`.
void note_defaults(std::string_view layer, const json& before, const json& after) {
  size_t more = 0;
  auto paths = changed_paths(before, after, 20, &more);
  std::string text = paths.empty() ? "none" : "set " + join(paths, ", ");
  if (more != 0) {
    text += " and " + std::to_string(more) + " more";
  }
  trace::note(layer, std::move(text));
}

}  // namespace

void custom_defaults(const Resource& r, json& object) {
  if (r.custom && r.custom->structural) {
    r.custom->structural->apply_defaults(object);
  }
}

void default_object(const Resource& r, json& object, DefaultingPhase phase,
                    std::string_view layer) {
  DefaultingContext context;
  context.phase = phase;
  const bool compare = trace::active() && defaults_may_change(r);
  const json undefaulted = compare ? object : json();
  apply_defaults(r, object, context);
  custom_defaults(r, object);
  if (compare) {
    note_defaults(layer, undefaulted, object);
  } else {
    trace::note(layer, "none");
  }
}

void drop_empty_metadata(json& object) {
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) {
    return;
  }
  for (const char* field :
       {"labels", "annotations", "finalizers", "ownerReferences", "managedFields"}) {
    auto it = meta->find(field);
    if (it != meta->end() &&
        (it->is_null() || ((it->is_object() || it->is_array()) && it->empty()))) {
      meta->erase(it);
    }
  }
}

std::vector<FieldError> validation_errors(const Resource& r, const json& object, const json* old) {
  auto errors = old == nullptr ? validate_create(r, object) : validate_update(r, object, *old);
  if (r.custom && r.custom->structural) {
    // On update, errors of values unchanged from the old object are ratcheted (not reported).
    auto more = old == nullptr ? r.custom->structural->validate(object)
                               : r.custom->structural->validate_update(object, *old);
    errors.insert(errors.end(), more.begin(), more.end());
  }
  return errors;
}

std::optional<errors::Status> custom_type_meta_refusal(const Resource& r, const json& object) {
  if (!r.custom) {
    return std::nullopt;
  }
  auto field_errors = custom_type_meta_errors(r, object);
  if (field_errors.empty()) {
    return std::nullopt;
  }
  const json* kind = find_path(object, {"kind"});
  const json* api_version = find_path(object, {"apiVersion"});
  auto gv = parse_group_version(
      api_version && api_version->is_string() ? api_version->get<std::string>() : std::string());
  if (!kind || !kind->is_string() || kind->get_ref<const std::string&>().empty() || !gv) {
    return errors::internal_error("Object 'Kind' is missing in 'object has no kind field '");
  }
  if (gv->version.empty()) {
    return errors::internal_error(
        "Object 'apiVersion' is missing in 'object has no apiVersion field'");
  }
  return invalid(gv->group, kind->get<std::string>(), string_at(object, {"metadata", "name"}),
                 field_errors);
}

// The object as stored: without resourceVersion (the store revision is the truth).
json stored_object(const storage::Object& stored) {
  json object = json::parse(stored.value, nullptr, false);
  if (!object.is_object()) {
    object = json::object();
  }
  if (!object.contains("metadata") || !object["metadata"].is_object()) {
    object["metadata"] = json::object();
  }
  return object;
}

std::string stored_text(json& object) {
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object() || !meta->contains("resourceVersion")) {
    return object.dump();
  }
  // Taken out and put back rather than dumping a copy: objects may be deeply nested.
  json saved = std::move((*meta)["resourceVersion"]);
  meta->erase("resourceVersion");
  std::string text = object.dump();
  (*meta)["resourceVersion"] = std::move(saved);
  return text;
}

// Whether `a` and `b` are the same object but for the times of their managedFields entries.
bool only_managed_field_times_differ(const json& a, const json& b) {
  const json* fields_a = a.contains("metadata") ? &a["metadata"] : nullptr;
  const json* fields_b = b.contains("metadata") ? &b["metadata"] : nullptr;
  if (fields_a == nullptr || fields_b == nullptr || !fields_a->is_object() ||
      !fields_b->is_object()) {
    return false;
  }
  auto entries = [](const json& metadata) {
    json out = metadata.value("managedFields", json::array());
    for (auto& entry : out) {
      if (entry.is_object()) {
        entry.erase("time");
      }
    }
    return out;
  };
  if (entries(*fields_a) != entries(*fields_b)) {
    return false;
  }
  // The rest compared member by member: no copy of the (possibly deep) objects.
  auto same_except = [](const json& x, const json& y, const char* skipped) {
    auto counted = [&](const json& o) { return o.size() - (o.contains(skipped) ? 1 : 0); };
    if (counted(x) != counted(y)) {
      return false;
    }
    for (const auto& [key, value] : x.items()) {
      if (key == skipped) {
        continue;
      }
      auto other = y.find(key);
      if (other == y.end() || *other != value) {
        return false;
      }
    }
    return true;
  };
  return same_except(*fields_a, *fields_b, "managedFields") && same_except(a, b, "metadata");
}

}  // namespace apiserver::registry
