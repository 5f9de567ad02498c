// MutatingAdmissionWebhook and ValidatingAdmissionWebhook: the chain's plugins over the two
// dispatchers.
#include "admission/plugins.h"
#include "admission/webhook/dispatcher.h"

namespace apiserver::admission {
namespace {

class MutatingAdmissionWebhook final : public Plugin {
 public:
  explicit MutatingAdmissionWebhook(const Services& services) : dispatcher_(services, true) {}
  std::string_view name() const override { return "MutatingAdmissionWebhook"; }
  bool mutates() const override { return true; }
  Decision admit(Attributes& a, std::string& note) override { return dispatcher_.run(a, note); }

 private:
  webhook::Dispatcher dispatcher_;
};

class ValidatingAdmissionWebhook final : public Plugin {
 public:
  explicit ValidatingAdmissionWebhook(const Services& services) : dispatcher_(services, false) {}
  std::string_view name() const override { return "ValidatingAdmissionWebhook"; }
  bool validates() const override { return true; }
  Decision validate(Attributes& a, std::string& note) override { return dispatcher_.run(a, note); }

 private:
  webhook::Dispatcher dispatcher_;
};

}  // namespace

std::unique_ptr<Plugin> make_mutating_admission_webhook(const Services& services) {
  return std::make_unique<MutatingAdmissionWebhook>(services);
}

std::unique_ptr<Plugin> make_validating_admission_webhook(const Services& services) {
  return std::make_unique<ValidatingAdmissionWebhook>(services);
}

}  // namespace apiserver::admission
