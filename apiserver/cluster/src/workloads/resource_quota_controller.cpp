#include "workloads/resource_quota_controller.h"

#include <tuple>
#include <vector>

#include "client/objects.h"
#include "common/quantity.h"
#include "nodes/pod_lifecycle.h"

namespace cluster {
namespace {

using common::format_quantity;
using common::parse_quantity;
using common::quantity_format;
using common::QuantityFormat;

const ResourceRef kQuotas{"", "v1", "resourcequotas", true};
constexpr auto kResync = std::chrono::seconds(30);

const json& items_of(const json& list) {
  static const json kNone = json::array();
  const json* items = at(list, {"items"});
  return items != nullptr && items->is_array() ? *items : kNone;
}

// Whether a pod is BestEffort: no container requests or limits cpu or memory above zero.
bool best_effort(const json& pod) {
  for (const char* which : {"containers", "initContainers"}) {
    const json* list = at(pod, {"spec", which});
    if (list == nullptr || !list->is_array())
      continue;
    for (const json& c : *list) {
      for (const char* kind : {"requests", "limits"}) {
        for (const char* name : {"cpu", "memory"}) {
          if (parse_quantity(string_at(c, {"resources", kind, name})).value_or(0) > 0)
            return false;
        }
      }
    }
  }
  return true;
}

// Whether a pod is in every scope of the quota (spec.scopes, and spec.scopeSelector's
// expressions), as quota admission decides it: the controller counts the same pods.
bool in_scopes(const json& quota, const json& pod) {
  std::vector<std::tuple<std::string, std::string, const json*>> selectors;
  if (const json* scopes = at(quota, {"spec", "scopes"}); scopes != nullptr && scopes->is_array()) {
    for (const json& s : *scopes)
      selectors.emplace_back(s.is_string() ? s.get<std::string>() : "", "Exists", nullptr);
  }
  const json* expressions = at(quota, {"spec", "scopeSelector", "matchExpressions"});
  if (expressions != nullptr && expressions->is_array()) {
    for (const json& e : *expressions)
      selectors.emplace_back(string_at(e, {"scopeName"}), string_at(e, {"operator"}),
                             at(e, {"values"}));
  }
  for (const auto& [scope, op, values] : selectors) {
    bool in = false;
    if (scope == "Terminating" || scope == "NotTerminating") {
      const json* deadline = at(pod, {"spec", "activeDeadlineSeconds"});
      const bool terminating =
          deadline != nullptr && deadline->is_number_integer() && deadline->get<int64_t>() >= 0;
      in = (scope == "Terminating") == terminating;
    } else if (scope == "BestEffort" || scope == "NotBestEffort") {
      in = (scope == "BestEffort") == best_effort(pod);
    } else if (scope == "PriorityClass") {
      // A selector on a label only pods naming a class have.
      const std::string name = string_at(pod, {"spec", "priorityClassName"});
      bool listed = false;
      if (values != nullptr && values->is_array()) {
        for (const json& v : *values)
          listed = listed || (v.is_string() && v.get<std::string>() == name);
      }
      in = op == "In"             ? !name.empty() && listed
           : op == "NotIn"        ? name.empty() || !listed
           : op == "DoesNotExist" ? name.empty()
                                  : op == "Exists" && !name.empty();
    }
    if (!in)
      return false;
  }
  return true;
}

constexpr std::string_view kClassInfix = ".storageclass.storage.k8s.io/";

// A claim's storage class: the beta annotation first, then spec.storageClassName.
std::string claim_class(const json& claim) {
  const std::string annotated =
      string_at(claim, {"metadata", "annotations", "volume.beta.kubernetes.io/storage-class"});
  return annotated.empty() ? string_at(claim, {"spec", "storageClassName"}) : annotated;
}

// A sum of quantities, written in the format of the first one added, as resource.Quantity's
// Add keeps the receiver's.
struct Amount {
  double value = 0;
  std::optional<QuantityFormat> format;

  void add(double v, std::optional<QuantityFormat> f) {
    value += v;
    if (!format)
      format = f;
  }
  void add(const std::string& text) {
    if (auto v = parse_quantity(text))
      add(*v, quantity_format(text));
  }
  std::string text() const {
    return format_quantity(value, format.value_or(QuantityFormat::DecimalSI));
  }
};

// A pod's sum of requests or limits of `name` (cpu, memory, ...): its containers', or its
// largest init container's when larger.
Amount pod_amount(const json& pod, const std::string& kind, const std::string& name) {
  auto text_of = [&](const json& c) {
    std::string text = string_at(c, {"resources", kind.c_str(), name.c_str()});
    if (text.empty() && kind == "requests")
      text = string_at(c, {"resources", "limits", name.c_str()});
    return text;
  };
  Amount sum;
  if (const json* list = at(pod, {"spec", "containers"}); list != nullptr && list->is_array()) {
    for (const json& c : *list)
      sum.add(text_of(c));
  }
  Amount largest;
  if (const json* list = at(pod, {"spec", "initContainers"}); list != nullptr && list->is_array()) {
    for (const json& c : *list) {
      Amount one;
      one.add(text_of(c));
      if (one.value > largest.value)
        largest = one;
    }
  }
  return largest.value > sum.value ? largest : sum;
}

}  // namespace

ResourceQuotaController::ResourceQuotaController(const Client& client, Informer& pods,
                                                 const common::Clock& clock)
    : Controller("resourcequota-controller", clock),
      client_(client),
      quotas_(client, kQuotas, {}, clock),
      pods_(pods) {
  auto changed = [this](const json& q) { queue().add(Informer::key_of(q)); };
  // Only a change of spec.hard (or a new quota) calls for a sync: the status writes of quota
  // admission, which charges each create at once, do not, as upstream's controller.
  quotas_.add_handlers({.added = changed,
                        .updated =
                            [changed](const json& old, const json& q) {
                              const json* before = at(old, {"spec", "hard"});
                              const json* after = at(q, {"spec", "hard"});
                              if (before == nullptr || after == nullptr || *before != *after)
                                changed(q);
                            },
                        .deleted = {}});
  auto pod_changed = [this](const json& p) {
    for (const ObjectPtr& q : quotas_.list(namespace_of(p)))
      queue().add(Informer::key_of(*q));
  };
  pods_.add_handlers({.added = pod_changed,
                      .updated = [pod_changed](const json&, const json& p) { pod_changed(p); },
                      .deleted = pod_changed});
}

ResourceQuotaController::~ResourceQuotaController() {
  stop();
  quotas_.stop();
}

void ResourceQuotaController::start() {
  quotas_.start();
}

std::optional<int64_t> ResourceQuotaController::count(const std::string& ns,
                                                      const std::string& group,
                                                      const std::string& resource) {
  // The preferred version of the group, from discovery.
  std::string version = "v1";
  if (!group.empty()) {
    auto discovered = client_.get("/apis/" + group);
    if (!discovered)
      return std::nullopt;
    version = string_at(*discovered, {"preferredVersion", "version"});
    if (version.empty())
      return std::nullopt;
  }
  auto listed = client_.get(ResourceRef{group, version, resource, true}.collection(ns));
  if (!listed)
    return std::nullopt;
  const json* items = at(*listed, {"items"});
  return items != nullptr && items->is_array() ? static_cast<int64_t>(items->size()) : 0;
}

std::optional<std::string> ResourceQuotaController::sync(const std::string& key) {
  const size_t slash = key.find('/');
  const std::string ns = key.substr(0, slash);
  ObjectPtr quota = quotas_.get(ns, key.substr(slash + 1));
  if (quota == nullptr)
    return std::nullopt;
  const json* hard = at(*quota, {"spec", "hard"});
  json used = json::object();
  if (hard != nullptr && hard->is_object()) {
    std::vector<ObjectPtr> pods;
    for (const ObjectPtr& p : pods_.list(ns)) {
      if (!pod_terminal(*p) && in_scopes(*quota, *p))
        pods.push_back(p);
    }
    for (const auto& [name, limit] : hard->items()) {
      std::optional<double> value;  // a count
      std::optional<Amount> amount;
      if (name == "pods" || name == "count/pods") {
        value = static_cast<double>(pods.size());
      } else if (name == "cpu" || name == "memory" || name == "ephemeral-storage" ||
                 name.starts_with("hugepages-") || name.starts_with("limits.") ||
                 (name.starts_with("requests.") && name != "requests.storage")) {
        // Pods' compute resources: requests.<r> and limits.<r>; a bare name is the request.
        const bool limits = name.starts_with("limits.");
        const size_t dot =
            name.starts_with("limits.") || name.starts_with("requests.") ? name.find('.') + 1 : 0;
        const std::string resource = name.substr(dot);
        Amount sum;
        for (const ObjectPtr& p : pods) {
          const Amount one = pod_amount(*p, limits ? "limits" : "requests", resource);
          sum.add(one.value, one.format);
        }
        amount = sum;
      } else if (name == "services.nodeports" || name == "services.loadbalancers") {
        auto listed = client_.get(ResourceRef{"", "v1", "services", true}.collection(ns));
        if (!listed)
          continue;
        double n = 0;
        for (const json& s : items_of(*listed)) {
          const std::string type = string_at(s, {"spec", "type"});
          if (name == "services.loadbalancers") {
            n += type == "LoadBalancer" ? 1 : 0;
          } else if (type == "NodePort" || type == "LoadBalancer") {
            const json* ports = at(s, {"spec", "ports"});
            if (ports == nullptr || !ports->is_array())
              continue;
            for (const json& port : *ports) {
              n += at(port, {"nodePort"}) != nullptr ? 1 : 0;
            }
          }
        }
        value = n;
      } else if (name == "requests.storage" || name.find(kClassInfix) != std::string::npos) {
        // Claims' storage (the larger of asked and allocated), or per storage class:
        // <class>.storageclass.storage.k8s.io/requests.storage or /persistentvolumeclaims.
        auto listed =
            client_.get(ResourceRef{"", "v1", "persistentvolumeclaims", true}.collection(ns));
        if (!listed)
          continue;
        const size_t infix = name.find(kClassInfix);
        const bool count_claims =
            infix != std::string::npos && name.ends_with("/persistentvolumeclaims");
        Amount sum;
        for (const json& c : items_of(*listed)) {
          if (infix != std::string::npos && claim_class(c) != name.substr(0, infix))
            continue;
          if (count_claims) {
            sum.add(1, QuantityFormat::DecimalSI);
            continue;
          }
          const std::string asked = string_at(c, {"spec", "resources", "requests", "storage"});
          const std::string allocated = string_at(c, {"status", "allocatedResources", "storage"});
          sum.add(parse_quantity(allocated).value_or(0) > parse_quantity(asked).value_or(0)
                      ? allocated
                      : asked);
        }
        amount = sum;
      } else {
        // services, configmaps, secrets, ...; count/<resource>[.<group>].
        std::string resource = name.starts_with("count/") ? name.substr(6) : name;
        std::string group;
        if (auto dot = resource.find('.'); dot != std::string::npos) {
          group = resource.substr(dot + 1);
          resource.resize(dot);
        }
        if (auto n = count(ns, group, resource))
          value = static_cast<double>(*n);
      }
      if (value)
        amount = Amount{*value, QuantityFormat::DecimalSI};  // a count
      if (amount)
        used[name] = amount->text();
      (void)limit;
    }
  }
  json status = at(*quota, {"status"}) != nullptr ? *at(*quota, {"status"}) : json::object();
  json updated = status;
  updated["hard"] = hard != nullptr ? *hard : json::object();
  updated["used"] = used;
  requeue_after(key, kResync);
  if (updated == status)
    return std::nullopt;
  json body = *quota;
  body["status"] = updated;
  auto written = client_.update(kQuotas.object(ns, name_of(*quota), "status"), body);
  if (!written && !written.error().not_found()) {
    return "updating the status of resourcequota " + key + ": " + written.error().message;
  }
  return std::nullopt;
}

}  // namespace cluster
