#include "services/endpoint_slice_controller.h"

#include <charconv>

#include "client/objects.h"
#include "services/slice_plan.h"

namespace cluster {
namespace {

const ResourceRef kSlices{"discovery.k8s.io", "v1", "endpointslices", true};

// Whether resourceVersion `seen` is at least `wanted` (both are revisions; anything else only
// matches itself).
bool at_least(const std::string& seen, const std::string& wanted) {
  uint64_t a = 0, b = 0;
  auto ra = std::from_chars(seen.data(), seen.data() + seen.size(), a);
  auto rb = std::from_chars(wanted.data(), wanted.data() + wanted.size(), b);
  if (ra.ec != std::errc() || rb.ec != std::errc()) {
    return seen == wanted;
  }
  return a >= b;
}

bool ours(const json& slice) {
  return string_at(slice, {"metadata", "labels", kManagedByLabel}) == kSliceManager;
}

std::string service_key_of(const json& slice) {
  return namespace_of(slice) + "/" + string_at(slice, {"metadata", "labels", kServiceNameLabel});
}

}  // namespace

EndpointSliceController::EndpointSliceController(const Client& client, Informer& services,
                                                 Informer& pods, Informer& nodes,
                                                 const common::Clock& clock)
    : Controller("endpointslice-controller", clock),
      client_(client),
      events_(client, "endpoint-slice-controller", "", clock),
      slices_(client, kSlices,
              {{"labelSelector", std::string(kManagedByLabel) + "=" + kSliceManager}}, clock),
      services_(services),
      pods_(pods),
      nodes_(nodes) {
  watch_services(services_, pods_, queue());
  auto slice_changed = [this](const json& slice) {
    if (ours(slice)) {
      queue().add(service_key_of(slice));
    }
  };
  slices_.add_handlers(
      {.added = slice_changed,
       .updated = [slice_changed](const json&, const json& s) { slice_changed(s); },
       .deleted = slice_changed});
}

EndpointSliceController::~EndpointSliceController() {
  stop();
  slices_.stop();
}

void EndpointSliceController::start() {
  slices_.start();
}

bool EndpointSliceController::cache_current(const std::string& key) {
  std::lock_guard lock(mu_);
  auto it = written_.find(key);
  if (it == written_.end()) {
    return true;
  }
  const std::string ns = key.substr(0, key.find('/'));
  std::erase_if(it->second, [&](const auto& entry) {
    ObjectPtr slice = slices_.get(ns, entry.first);
    if (entry.second.empty()) {
      return slice == nullptr;
    }
    return slice != nullptr && at_least(resource_version_of(*slice), entry.second);
  });
  if (it->second.empty()) {
    written_.erase(it);
    return true;
  }
  return false;
}

std::optional<std::string> EndpointSliceController::sync(const std::string& key) {
  const size_t slash = key.find('/');
  const std::string ns = key.substr(0, slash);
  const std::string name = key.substr(slash + 1);
  ObjectPtr service = services_.get(ns, name);
  if (service == nullptr) {
    trigger_times_.forget(key);
    {
      std::lock_guard lock(mu_);
      written_.erase(key);
    }
    return std::nullopt;  // its slices are the garbage collector's (their ownerReference)
  }
  auto selector = service_selector(*service);
  if (!selector) {
    return std::nullopt;
  }
  if (!cache_current(key)) {
    return "EndpointSlice informer cache is out of date";
  }
  std::vector<ObjectPtr> held;  // keeps what the plan points at alive
  std::vector<const json*> pods;
  for (ObjectPtr& pod : selected_pods(pods_, ns, *selector)) {
    pods.push_back(pod.get());
    held.push_back(std::move(pod));
  }
  std::vector<const json*> slices;
  for (ObjectPtr& slice : slices_.list(ns)) {
    if (ours(*slice) && string_at(*slice, {"metadata", "labels", kServiceNameLabel}) == name &&
        !being_deleted(*slice)) {
      slices.push_back(slice.get());
      held.push_back(std::move(slice));
    }
  }
  SliceInputs in{.service = *service,
                 .pods = pods,
                 .slices = slices,
                 .node_zone = [this](const std::string& node) -> std::optional<std::string> {
                   ObjectPtr n = nodes_.get("", node);
                   if (n == nullptr) {
                     return std::nullopt;
                   }
                   return string_at(*n, {"metadata", "labels", kZoneLabel});
                 },
                 .trigger_time = trigger_times_.compute(*service, pods)};
  SlicePlan plan = plan_slices(in);

  std::map<std::string, std::string> written;
  std::string failure;
  for (const json& slice : plan.create) {
    auto created = client_.create(kSlices.collection(ns), slice);
    if (!created) {
      failure = "creating an EndpointSlice: " + created.error().message;
      break;
    }
    written[name_of(*created)] = resource_version_of(*created);
  }
  for (const json& slice : plan.update) {
    if (!failure.empty()) {
      break;
    }
    auto updated = client_.update(kSlices.object(ns, name_of(slice)), slice);
    if (!updated) {
      failure = "updating EndpointSlice " + name_of(slice) + ": " + updated.error().message;
      break;
    }
    written[name_of(*updated)] = resource_version_of(*updated);
  }
  for (const json& slice : plan.remove) {
    if (!failure.empty()) {
      break;
    }
    auto removed = client_.remove(kSlices.object(ns, name_of(slice)));
    if (!removed && !removed.error().not_found()) {
      failure = "deleting EndpointSlice " + name_of(slice) + ": " + removed.error().message;
      break;
    }
    written[name_of(slice)] = "";
  }
  if (!written.empty()) {
    std::lock_guard lock(mu_);
    written_[key] = std::move(written);
  }
  if (!failure.empty()) {
    events_.record(*service, "Warning", "FailedToUpdateEndpointSlices",
                   "Error updating Endpoint Slices for Service " + key + ": " + failure);
    return failure;
  }
  if (!plan.errors.empty()) {
    std::string all;
    for (const std::string& e : plan.errors) {
      all += (all.empty() ? "" : "; ") + e;
    }
    return all;
  }
  return std::nullopt;
}

}  // namespace cluster
