// DefaultIngressClass (plugin/pkg/admission/network/defaultingressclass): an Ingress created
// without a class (spec.ingressClassName unset and no kubernetes.io/ingress.class annotation)
// gets the IngressClass annotated ingressclass.kubernetes.io/is-default-class=true, the newest
// when several are. No default class: the Ingress stays without one.
#include "admission/plugins.h"
#include "admission/plugins/default_class.h"
#include "registry/defaulting_fields.h"
#include "registry/json_access.h"

namespace apiserver::admission {
namespace {

using nlohmann::json;

class DefaultIngressClass final : public Plugin {
 public:
  explicit DefaultIngressClass(const Services& services) : services_(services) {}
  std::string_view name() const override { return "DefaultIngressClass"; }
  bool mutates() const override { return true; }

  Decision admit(Attributes& a, std::string& note) override {
    const registry::Resource& r = *a.resource;
    if (a.operation != Operation::Create || r.group != "networking.k8s.io" ||
        r.resource != "ingresses" || !a.subresource.empty() || a.object == nullptr) {
      return std::nullopt;
    }
    json* spec = registry::fields::object_at(*a.object, "spec");
    if (spec == nullptr || !registry::fields::unset(*spec, "ingressClassName") ||
        registry::find_path(
            *a.object, {"metadata", "annotations", "kubernetes.io/ingress.class"}) != nullptr) {
      return std::nullopt;  // the Ingress names its class
    }
    auto chosen = newest_default_class(services_.list("networking.k8s.io", "ingressclasses", ""),
                                       {"ingressclass.kubernetes.io/is-default-class"});
    if (!chosen) {
      note = "no IngressClass is marked default: the Ingress stays without a class";
      return std::nullopt;
    }
    (*spec)["ingressClassName"] = chosen->name;
    note = describe_default(*chosen, "IngressClass");
    return std::nullopt;
  }

 private:
  const Services& services_;
};

}  // namespace

std::unique_ptr<Plugin> make_default_ingress_class(const Services& services) {
  return std::make_unique<DefaultIngressClass>(services);
}

}  // namespace apiserver::admission
