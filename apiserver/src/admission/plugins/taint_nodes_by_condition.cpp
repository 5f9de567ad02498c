// TaintNodesByCondition (plugin/pkg/admission/nodetaint): a Node created gets the
// node.kubernetes.io/not-ready:NoSchedule taint, so nothing is scheduled to it before its kubelet
// reports Ready and the node lifecycle controller lifts the taint.
#include "admission/plugins.h"
#include "registry/defaulting_fields.h"

namespace apiserver::admission {
namespace {

using nlohmann::json;
using namespace registry::fields;

constexpr const char* kNotReady = "node.kubernetes.io/not-ready";

class TaintNodesByCondition final : public Plugin {
 public:
  std::string_view name() const override { return "TaintNodesByCondition"; }
  bool mutates() const override { return true; }

  Decision admit(Attributes& a, std::string&) override {
    const registry::Resource& r = *a.resource;
    if (a.operation != Operation::Create || !r.group.empty() || r.resource != "nodes" ||
        !a.subresource.empty() || a.object == nullptr) {
      return std::nullopt;
    }
    json* spec = object_at(*a.object, "spec");
    if (spec == nullptr) {
      return std::nullopt;
    }
    bool has = false;
    for_each_object(*spec, "taints", [&](json& t) {
      has = has || (string_at(t, "key") == kNotReady && string_at(t, "effect") == "NoSchedule");
    });
    if (!has) {
      if (unset(*spec, "taints") || !(*spec)["taints"].is_array()) {
        (*spec)["taints"] = json::array();
      }
      (*spec)["taints"].push_back({{"key", kNotReady}, {"effect", "NoSchedule"}});
    }
    return std::nullopt;
  }
};

}  // namespace

std::unique_ptr<Plugin> make_taint_nodes_by_condition(const Services&) {
  return std::make_unique<TaintNodesByCondition>();
}

}  // namespace apiserver::admission
