#include "workloads/controller_ref_manager.h"

#include <memory>
#include <utility>

#include "client/objects.h"

namespace cluster {
namespace {

constexpr std::string_view kStrategicMerge = "application/strategic-merge-patch+json";

// "Pod default/web-1 (uid)", as the adoption errors name an object.
std::string described(const json& object) {
  return string_at(object, {"kind"}) + " " + namespace_of(object) + "/" + name_of(object) + " (" +
         uid_of(object) + ")";
}

bool same_labels(const json& a, const json& b) {
  const json* la = at(a, {"metadata", "labels"});
  const json* lb = at(b, {"metadata", "labels"});
  if (la == nullptr || lb == nullptr) {
    return la == lb;
  }
  return *la == *lb;
}

std::string controller_uid(const json& object) {
  const json* ref = controller_ref(object);
  return ref != nullptr ? string_at(*ref, {"uid"}) : std::string();
}

}  // namespace

ControllerRefManager::ControllerRefManager(const Client& client, const json& owner,
                                           ResourceRef owner_resource,
                                           std::function<bool(const json&)> match)
    : client_(client),
      owner_(owner),
      owner_resource_(std::move(owner_resource)),
      match_(std::move(match)) {}

std::optional<std::string> ControllerRefManager::can_adopt() {
  if (can_adopt_) {
    return *can_adopt_;
  }
  const std::string key = namespace_of(owner_) + "/" + name_of(owner_);
  std::optional<std::string> refused;
  auto fresh = client_.get(owner_resource_.object(namespace_of(owner_), name_of(owner_)));
  if (!fresh) {
    refused = "can't recheck DeletionTimestamp: " + fresh.error().message;
  } else if (uid_of(*fresh) != uid_of(owner_)) {
    refused = "can't recheck DeletionTimestamp: original " + string_at(owner_, {"kind"}) + " " +
              key + " is gone: got uid " + uid_of(*fresh) + ", wanted " + uid_of(owner_);
  } else if (being_deleted(*fresh)) {
    refused =
        key + " has just been deleted at " + string_at(*fresh, {"metadata", "deletionTimestamp"});
  }
  can_adopt_ = refused;
  return refused;
}

Result<json> ControllerRefManager::adopt(const ResourceRef& resource, const json& object) {
  if (auto refused = can_adopt()) {
    return ApiError{0, "", "can't adopt " + described(object) + ": " + *refused};
  }
  const json patch = {{"metadata",
                       {{"ownerReferences", json::array({controller_owner_ref(owner_)})},
                        {"uid", uid_of(object)}}}};
  return client_.patch(resource.object(namespace_of(object), name_of(object)), kStrategicMerge,
                       patch);
}

std::optional<ApiError> ControllerRefManager::release(const ResourceRef& resource,
                                                      const json& object) {
  const json patch = {
      {"metadata",
       {{"ownerReferences", json::array({{{"$patch", "delete"}, {"uid", uid_of(owner_)}}})},
        {"uid", uid_of(object)}}}};
  auto patched =
      client_.patch(resource.object(namespace_of(object), name_of(object)), kStrategicMerge, patch);
  if (patched || patched.error().not_found() || patched.error().code == 422) {
    return std::nullopt;
  }
  return patched.error();
}

Claimed ControllerRefManager::claim(const ResourceRef& resource,
                                    const std::vector<ObjectPtr>& objects) {
  Claimed out;
  const std::string uid = uid_of(owner_);
  const bool deleting = being_deleted(owner_);
  auto failed = [&out](const std::string& message) {
    out.error = out.error ? *out.error + "; " + message : message;
  };
  for (const ObjectPtr& object : objects) {
    if (const json* ref = controller_ref(*object)) {
      if (string_at(*ref, {"uid"}) != uid) {
        continue;  // someone else's
      }
      if (match_(*object)) {
        out.objects.push_back(object);
      } else if (!deleting) {
        if (auto error = release(resource, *object)) {
          failed("releasing " + described(*object) + ": " + error->message);
        }
      }
      continue;
    }
    if (deleting || being_deleted(*object) || !match_(*object)) {
      continue;
    }
    auto adopted = adopt(resource, *object);
    if (adopted) {
      out.objects.push_back(std::make_shared<const json>(std::move(*adopted)));
    } else if (!adopted.error().not_found()) {
      failed(adopted.error().message);
    }
  }
  return out;
}

std::function<bool(const json&)> selector_matcher(json selector) {
  return [selector = std::move(selector)](const json& object) {
    static const json kNone = json::object();
    const json* labels = at(object, {"metadata", "labels"});
    return selector_matches(selector, labels != nullptr ? *labels : kNone);
  };
}

std::vector<std::string> owners_to_sync(const json* old, const json& object, bool deleted,
                                        const OwnerKind& owners) {
  std::vector<std::string> keys;
  const std::string ns = namespace_of(object);
  auto controller_key = [&](const json& o) {
    const json* ref = controller_ref(o);
    if (ref != nullptr && string_at(*ref, {"kind"}) == owners.kind) {
      keys.push_back(ns + "/" + string_at(*ref, {"name"}));
    }
  };
  const bool controller_changed = old != nullptr && controller_uid(*old) != controller_uid(object);
  if (controller_changed) {
    controller_key(*old);
  }
  if (controller_ref(object) != nullptr) {
    controller_key(object);
    return keys;
  }
  const bool worth_a_look = old == nullptr || controller_changed || !same_labels(*old, object);
  if (deleted || being_deleted(object) || !worth_a_look) {
    return keys;
  }
  static const json kNone = json::object();
  const json* labels = at(object, {"metadata", "labels"});
  for (const ObjectPtr& owner : owners.list(ns)) {
    if (selector_matches(owners.selector_of(*owner), labels != nullptr ? *labels : kNone)) {
      keys.push_back(Informer::key_of(*owner));
    }
  }
  return keys;
}

InformerHandlers owner_handlers(OwnerKind owners, common::WorkQueue& queue) {
  auto kind = std::make_shared<const OwnerKind>(std::move(owners));
  auto add = [&queue](const std::vector<std::string>& keys) {
    for (const std::string& key : keys) {
      queue.add(key);
    }
  };
  return {.added = [kind, add](const json& o) { add(owners_to_sync(nullptr, o, false, *kind)); },
          .updated = [kind, add](const json& old,
                                 const json& o) { add(owners_to_sync(&old, o, false, *kind)); },
          .deleted = [kind, add](const json& o) { add(owners_to_sync(nullptr, o, true, *kind)); }};
}

json spec_selector(const json& owner) {
  const json* selector = at(owner, {"spec", "selector"});
  return selector != nullptr ? *selector : json(nullptr);
}

OwnerKind owner_kind(std::string kind, const Informer& informer,
                     std::function<json(const json&)> selector_of) {
  return {std::move(kind), [&informer](const std::string& ns) { return informer.list(ns); },
          std::move(selector_of)};
}

}  // namespace cluster
