// ValidatingAdmissionPolicy: upstream evaluates the CEL expressions of ValidatingAdmissionPolicies
// bound by ValidatingAdmissionPolicyBindings on every write. kube-sandbox has no CEL yet, so this
// plugin evaluates nothing and says so where a user would expect it to act: a write of a policy or
// a binding gets a Warning, and a write that a binding would cover notes in the request's trace
// that no policy was evaluated.
#include "admission/plugins.h"

namespace apiserver::admission {
namespace {

constexpr const char* kNotEvaluated =
    "kube-sandbox does not evaluate ValidatingAdmissionPolicies yet (it has no CEL): this "
    "object is stored but enforces nothing";

class ValidatingAdmissionPolicy final : public Plugin {
 public:
  explicit ValidatingAdmissionPolicy(const Services& services) : services_(services) {}
  std::string_view name() const override { return "ValidatingAdmissionPolicy"; }
  bool validates() const override { return true; }

  Decision validate(Attributes& a, std::string& note) override {
    const registry::Resource& r = *a.resource;
    if (r.group == "admissionregistration.k8s.io" &&
        (r.resource == "validatingadmissionpolicies" ||
         r.resource == "validatingadmissionpolicybindings") &&
        a.subresource.empty() &&
        (a.operation == Operation::Create || a.operation == Operation::Update)) {
      a.warnings.emplace_back(kNotEvaluated);
      note = "not evaluated: no CEL";
      return std::nullopt;
    }
    if (a.operation != Operation::Delete && a.operation != Operation::Connect &&
        !services_.list("admissionregistration.k8s.io", "validatingadmissionpolicybindings", "")
             .empty()) {
      note = "bindings exist but no policy was evaluated (no CEL)";
    }
    return std::nullopt;
  }

 private:
  const Services& services_;
};

}  // namespace

std::unique_ptr<Plugin> make_validating_admission_policy(const Services& services) {
  return std::make_unique<ValidatingAdmissionPolicy>(services);
}

}  // namespace apiserver::admission
