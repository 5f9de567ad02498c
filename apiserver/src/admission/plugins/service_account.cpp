// ServiceAccount (plugin/pkg/admission/serviceaccount): a pod created without a service account
// runs as `default`; the account must exist (the default one is waited for a little, as the
// controller that makes it may be behind); unless the pod or the account turns automounting off,
// every container mounts the kube-api-access-<suffix> projected volume (a bound token, the
// cluster CA, the namespace); the account's imagePullSecrets are copied to a pod without any.
// Mirror pods are left alone.
#include <chrono>
#include <random>
#include <thread>

#include "admission/plugins.h"
#include "registry/defaulting_fields.h"
#include "registry/json_access.h"
#include "registry/objects.h"

namespace apiserver::admission {
namespace {

using nlohmann::json;
using namespace registry::fields;

constexpr const char* kTokenMountPath = "/var/run/secrets/kubernetes.io/serviceaccount";

// The projected volume of the pod's token, CA and namespace.
json token_volume(const std::string& name) {
  json sources = json::array(
      {{{"serviceAccountToken", {{"expirationSeconds", 3607}, {"path", "token"}}}},
       {{"configMap",
         {{"name", "kube-root-ca.crt"},
          {"items", json::array({{{"key", "ca.crt"}, {"path", "ca.crt"}}})}}}},
       {{"downwardAPI",
         {{"items",
           json::array(
               {{{"path", "namespace"},
                 {"fieldRef", {{"apiVersion", "v1"}, {"fieldPath", "metadata.namespace"}}}}})}}}}});
  return {{"name", name}, {"projected", {{"defaultMode", 420}, {"sources", std::move(sources)}}}};
}

// Whether the pod gets a token: its own automountServiceAccountToken, else the account's, else
// yes.
bool automounts(const json& spec, const json& account) {
  auto own = spec.find("automountServiceAccountToken");
  if (own != spec.end() && own->is_boolean()) {
    return own->get<bool>();
  }
  auto theirs = account.find("automountServiceAccountToken");
  if (theirs != account.end() && theirs->is_boolean()) {
    return theirs->get<bool>();
  }
  return true;
}

void mount_token(json& spec) {
  std::string volume_name;
  for_each_object(spec, "volumes", [&](json& v) {
    std::string name = string_at(v, "name");
    if (volume_name.empty() && name.rfind("kube-api-access-", 0) == 0) {
      volume_name = name;
    }
  });
  const bool has_volume = !volume_name.empty();
  if (!has_volume) {
    volume_name = "kube-api-access-" + registry::random_name_suffix();
  }
  bool needs_volume = false;
  for (const char* list : {"initContainers", "containers"}) {
    for_each_object(spec, list, [&](json& c) {
      bool mounted = false;
      for_each_object(c, "volumeMounts", [&](json& m) {
        mounted = mounted || string_at(m, "mountPath") == kTokenMountPath;
      });
      if (!mounted) {
        if (unset(c, "volumeMounts") || !c["volumeMounts"].is_array()) {
          c["volumeMounts"] = json::array();
        }
        c["volumeMounts"].push_back(
            {{"name", volume_name}, {"readOnly", true}, {"mountPath", kTokenMountPath}});
        needs_volume = true;
      }
    });
  }
  if (!has_volume && needs_volume) {
    if (unset(spec, "volumes") || !spec["volumes"].is_array()) {
      spec["volumes"] = json::array();
    }
    spec["volumes"].push_back(token_volume(volume_name));
  }
}

void copy_pull_secrets(json& spec, const json& account) {
  auto pull = account.find("imagePullSecrets");
  const bool pod_has = spec.contains("imagePullSecrets") && spec["imagePullSecrets"].is_array() &&
                       !spec["imagePullSecrets"].empty();
  if (pod_has || pull == account.end() || !pull->is_array() || pull->empty()) {
    return;
  }
  json refs = json::array();
  for (const auto& ref : *pull) {
    if (ref.is_object() && ref.contains("name")) {
      refs.push_back({{"name", ref["name"]}});
    }
  }
  spec["imagePullSecrets"] = std::move(refs);
}

class ServiceAccount final : public Plugin {
 public:
  explicit ServiceAccount(const Services& services) : services_(services) {}
  std::string_view name() const override { return "ServiceAccount"; }
  bool mutates() const override { return true; }

  Decision admit(Attributes& a, std::string& note) override {
    const registry::Resource& r = *a.resource;
    if (a.operation != Operation::Create || !r.group.empty() || r.resource != "pods" ||
        !a.subresource.empty() || a.object == nullptr) {
      return std::nullopt;
    }
    json& pod = *a.object;
    json* spec = object_at(pod, "spec");
    if (spec == nullptr) {
      return std::nullopt;  // validation answers
    }
    const json* annotations = registry::find_path(pod, {"metadata", "annotations"});
    if (annotations != nullptr && annotations->is_object() &&
        annotations->contains("kubernetes.io/config.mirror")) {
      note = "a mirror pod: left alone";
      return std::nullopt;
    }
    default_string(*spec, "serviceAccountName", "default");
    (*spec)["serviceAccount"] = (*spec)["serviceAccountName"];
    const std::string account_name = string_at(*spec, "serviceAccountName");
    auto account = find_account(a.namespace_, account_name);
    if (!account) {
      note = "service account " + account_name + " not found";
      return forbidden(a, "error looking up service account " + a.namespace_ + "/" + account_name +
                              ": serviceaccount \"" + account_name + "\" not found");
    }
    if (automounts(*spec, *account)) {
      mount_token(*spec);
    }
    copy_pull_secrets(*spec, *account);
    note = "runs as serviceaccount " + a.namespace_ + "/" + account_name;
    return std::nullopt;
  }

 private:
  // The account, looked up again for a while when it is `default` (the controller that makes it
  // may not have yet), as upstream's plugin does.
  std::optional<json> find_account(const std::string& ns, const std::string& name) const {
    const int attempts = name == "default" ? 10 : 1;
    thread_local std::minstd_rand random{std::random_device{}()};
    for (int i = 0; i < attempts; ++i) {
      if (i != 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100 + random() % 100));
      }
      if (auto account = services_.get("", "serviceaccounts", ns, name)) {
        return account;
      }
    }
    return std::nullopt;
  }

  const Services& services_;
};

}  // namespace

std::unique_ptr<Plugin> make_service_account(const Services& services) {
  return std::make_unique<ServiceAccount>(services);
}

}  // namespace apiserver::admission
