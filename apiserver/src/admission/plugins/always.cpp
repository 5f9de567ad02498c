// AlwaysAdmit and AlwaysDeny: the two plugins that decide without looking (upstream keeps them
// for tests; AlwaysDeny shows a learner where the chain stops a write).
#include "admission/plugins.h"

namespace apiserver::admission {
namespace {

class AlwaysAdmit final : public Plugin {
 public:
  std::string_view name() const override { return "AlwaysAdmit"; }
  bool mutates() const override { return true; }
  bool validates() const override { return true; }
};

class AlwaysDeny final : public Plugin {
 public:
  std::string_view name() const override { return "AlwaysDeny"; }
  bool mutates() const override { return true; }
  bool validates() const override { return true; }
  Decision admit(Attributes& a, std::string&) override { return refuse(a); }
  Decision validate(Attributes& a, std::string&) override { return refuse(a); }

 private:
  // admission.NewForbidden(a, errors.New("admission control is denying all modifications")).
  static Decision refuse(const Attributes& a) {
    return forbidden(a, "admission control is denying all modifications");
  }
};

}  // namespace

std::unique_ptr<Plugin> make_always_admit(const Services&) {
  return std::make_unique<AlwaysAdmit>();
}

std::unique_ptr<Plugin> make_always_deny(const Services&) {
  return std::make_unique<AlwaysDeny>();
}

}  // namespace apiserver::admission
