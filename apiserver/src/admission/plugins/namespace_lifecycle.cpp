// NamespaceLifecycle (k8s.io/apiserver's namespace lifecycle plugin): nothing is created in a
// namespace that does not exist (404) or is being terminated (403, with the NamespaceTerminating
// cause), and the namespaces default, kube-system and kube-public may not be deleted.
// Turned off, a create in a missing namespace goes through, as upstream's.
#include "admission/plugins.h"
#include "registry/generic/resource_errors.h"

namespace apiserver::admission {
namespace {

bool immortal(const std::string& name) {
  return name == "default" || name == "kube-system" || name == "kube-public";
}

class NamespaceLifecycle final : public Plugin {
 public:
  explicit NamespaceLifecycle(const Services& services) : services_(services) {}
  std::string_view name() const override { return "NamespaceLifecycle"; }
  bool mutates() const override { return true; }

  Decision admit(Attributes& a, std::string& note) override {
    const registry::Resource& r = *a.resource;
    const bool is_namespace = r.group.empty() && r.resource == "namespaces";
    if (is_namespace) {
      if (a.operation == Operation::Delete && a.subresource.empty() && immortal(a.name)) {
        note = "namespace " + a.name + " may not be deleted";
        return forbidden(a, "this namespace may not be deleted", a.name);
      }
      return std::nullopt;
    }
    if (!r.namespaced || a.namespace_.empty() || a.operation != Operation::Create) {
      return std::nullopt;  // deletes, updates and cluster-scoped objects are not its concern
    }
    auto ns = services_.get("", "namespaces", "", a.namespace_);
    if (!ns) {
      note = "namespace " + a.namespace_ + " not found";
      return registry::namespace_not_found(a.namespace_);
    }
    auto refused = registry::refuse_create_in_namespace(r, shown_name(a), a.namespace_, *ns);
    if (refused) {
      note = "namespace " + a.namespace_ + " is terminating";
    }
    return refused;
  }

 private:
  const Services& services_;
};

}  // namespace

std::unique_ptr<Plugin> make_namespace_lifecycle(const Services& services) {
  return std::make_unique<NamespaceLifecycle>(services);
}

}  // namespace apiserver::admission
