// DefaultTolerationSeconds (plugin/pkg/admission/defaulttolerationseconds): a pod created or
// updated that does not tolerate the node.kubernetes.io/not-ready and /unreachable NoExecute taints
// gets a toleration of each for 300 seconds, so the taint eviction controller evicts it five
// minutes after its node goes.
#include "admission/plugins.h"
#include "registry/defaulting_fields.h"

namespace apiserver::admission {
namespace {

using nlohmann::json;
using namespace registry::fields;

constexpr int64_t kSeconds = 300;

class DefaultTolerationSeconds final : public Plugin {
 public:
  std::string_view name() const override { return "DefaultTolerationSeconds"; }
  bool mutates() const override { return true; }

  Decision admit(Attributes& a, std::string&) override {
    const registry::Resource& r = *a.resource;
    if ((a.operation != Operation::Create && a.operation != Operation::Update) ||
        !r.group.empty() || r.resource != "pods" || !a.subresource.empty() || a.object == nullptr) {
      return std::nullopt;
    }
    json* spec = object_at(*a.object, "spec");
    if (spec == nullptr) {
      return std::nullopt;
    }
    for (const char* taint : {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}) {
      bool covered = false;
      for_each_object(*spec, "tolerations", [&](json& t) {
        const std::string key = string_at(t, "key");
        const std::string effect = string_at(t, "effect");
        covered =
            covered || ((key.empty() || key == taint) && (effect.empty() || effect == "NoExecute"));
      });
      if (!covered) {
        if (unset(*spec, "tolerations") || !(*spec)["tolerations"].is_array()) {
          (*spec)["tolerations"] = json::array();
        }
        (*spec)["tolerations"].push_back({{"key", taint},
                                          {"operator", "Exists"},
                                          {"effect", "NoExecute"},
                                          {"tolerationSeconds", kSeconds}});
      }
    }
    return std::nullopt;
  }
};

}  // namespace

std::unique_ptr<Plugin> make_default_toleration_seconds(const Services&) {
  return std::make_unique<DefaultTolerationSeconds>();
}

}  // namespace apiserver::admission
