// Adoption and release, as kube-controller-manager's ControllerRefManager does them for the
// ReplicaSet, ReplicationController, Deployment, StatefulSet and DaemonSet controllers: among the
// objects of the owner's namespace, the owner claims
//   - those whose controller ownerReference is its own (by uid) and that it still matches;
//   - orphans (no controller ownerReference) that it matches and that are not being deleted:
//     adopted with a strategic merge patch adding its controller reference (controller and
//     blockOwnerDeletion true), after one live GET of the owner shows the same uid and no
//     deletionTimestamp;
// and releases those it controls but no longer matches, with a strategic merge patch deleting
// its reference by uid. Both patches carry the object's metadata.uid, so that they apply only to
// the object that was looked at (another one under the same name fails them). An owner being
// deleted adopts and releases nothing. Objects controlled by someone else are left alone.
//
// Worked example: ReplicaSet rs (uid r, selector app=web) and pods
//   a (controller r, app=web)   claimed
//   b (no controller, app=web)  adopted, then claimed
//   c (controller r, app=db)    released (its reference to r deleted), not claimed
//   d (controller x, app=web)   left alone
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "client/api_client.h"
#include "client/informer.h"
#include "common/work_queue.h"

namespace cluster {

struct Claimed {
  std::vector<ObjectPtr> objects;    // what the owner now controls
  std::optional<std::string> error;  // an adoption or release that failed (the sync retries)
};

class ControllerRefManager {
 public:
  // `owner` as its informer holds it (apiVersion and kind set), served at `owner_resource`;
  // `match` tells whether an object belongs to it (its selector, and any other rule).
  ControllerRefManager(const Client& client, const json& owner, ResourceRef owner_resource,
                       std::function<bool(const json&)> match);

  // Claims among `objects`, which live at `resource` in the owner's namespace.
  Claimed claim(const ResourceRef& resource, const std::vector<ObjectPtr>& objects);

  // Adopts one orphan (no matching check); the patched object, or why not.
  Result<json> adopt(const ResourceRef& resource, const json& object);
  // Releases one object it controls; not found and invalid (the object was replaced, or has no
  // reference left) count as done.
  std::optional<ApiError> release(const ResourceRef& resource, const json& object);

 private:
  // The live GET of the owner, once per manager: why it may not adopt, if so.
  std::optional<std::string> can_adopt();

  const Client& client_;
  const json owner_;
  const ResourceRef owner_resource_;
  const std::function<bool(const json&)> match_;
  std::optional<std::optional<std::string>> can_adopt_;  // the recheck's answer, once made
};

// A label selector as a matcher of objects: metav1.LabelSelector semantics, labels missing read
// as none.
std::function<bool(const json&)> selector_matcher(json selector);

// The owners of one kind as a controller sees them: the kind, its objects in a namespace (its
// informer's), and an owner's label selector (null: it matches nothing).
struct OwnerKind {
  std::string kind;
  std::function<std::vector<ObjectPtr>(const std::string& namespace_)> list;
  std::function<json(const json& owner)> selector_of;
};

// The keys ("ns/name") of the owners that should look at `object` after it was added (`old`
// null), updated from `old`, or `deleted`: its controller's (the old one's too when it changed);
// for an orphan that is neither deleted nor being deleted, every owner whose selector matches
// it, when it is new or its labels or controller changed.
std::vector<std::string> owners_to_sync(const json* old, const json& object, bool deleted,
                                        const OwnerKind& owners);

// Informer handlers that add the owners_to_sync keys of each change to `queue` (which outlives
// them).
InformerHandlers owner_handlers(OwnerKind owners, common::WorkQueue& queue);

// An owner's spec.selector (null when it has none).
json spec_selector(const json& owner);
// The owners of `kind` that `informer` holds, with their selectors read by `selector_of`.
OwnerKind owner_kind(std::string kind, const Informer& informer,
                     std::function<json(const json&)> selector_of = spec_selector);

}  // namespace cluster
