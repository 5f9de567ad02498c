#include "admission/plugins/resource_list.h"

#include "registry/json_access.h"

namespace apiserver::admission {
namespace {

using nlohmann::json;

void add_into(std::map<std::string, Amount>& sum, const std::map<std::string, Amount>& more) {
  for (const auto& [name, amount] : more) {
    auto [it, inserted] = sum.emplace(name, amount);
    if (!inserted) {
      it->second.add(amount);
    }
  }
}

void max_into(std::map<std::string, Amount>& sum, const std::map<std::string, Amount>& one) {
  for (const auto& [name, amount] : one) {
    auto [it, inserted] = sum.emplace(name, amount);
    if (!inserted && amount.value > it->second.value) {
      it->second = amount;
    }
  }
}

const json* containers(const json& pod, std::string_view which) {
  const json* list = registry::find_path(pod, {"spec", which});
  return list != nullptr && list->is_array() ? list : nullptr;
}

}  // namespace

Amount count_amount(double n) {
  return Amount{n, common::QuantityFormat::DecimalSI};
}

std::optional<Amount> amount_at(const json* list, const std::string& name) {
  if (list == nullptr || !list->is_object()) {
    return std::nullopt;
  }
  auto it = list->find(name);
  if (it == list->end()) {
    return std::nullopt;
  }
  std::string text;
  if (it->is_string()) {
    text = it->get<std::string>();
  } else if (it->is_number()) {
    text = it->dump();
  } else {
    return std::nullopt;
  }
  auto value = common::parse_quantity(text);
  if (!value) {
    return std::nullopt;
  }
  return Amount{*value, common::quantity_format(text)};
}

std::map<std::string, Amount> amounts(const json* list) {
  std::map<std::string, Amount> out;
  if (list == nullptr || !list->is_object()) {
    return out;
  }
  for (const auto& [name, value] : list->items()) {
    (void)value;
    if (auto amount = amount_at(list, name)) {
      out.emplace(name, *amount);
    }
  }
  return out;
}

std::map<std::string, Amount> pod_resources(const json& pod, const std::string& kind,
                                            bool overhead) {
  std::map<std::string, Amount> sum;
  if (const json* list = containers(pod, "containers")) {
    for (const json& c : *list) {
      add_into(sum, amounts(registry::find_path(c, {"resources", kind})));
    }
  }
  // Init containers run one at a time before the others, sidecars (restartPolicy Always) keep
  // running beside them: each plain one needs its own value plus the sidecars started before it.
  std::map<std::string, Amount> init_peak;
  std::map<std::string, Amount> sidecars;
  if (const json* list = containers(pod, "initContainers")) {
    for (const json& c : *list) {
      auto own = amounts(registry::find_path(c, {"resources", kind}));
      if (registry::string_at(c, {"restartPolicy"}) == "Always") {
        add_into(sum, own);
        add_into(sidecars, own);
        max_into(init_peak, sidecars);
      } else {
        add_into(own, sidecars);
        max_into(init_peak, own);
      }
    }
  }
  max_into(sum, init_peak);
  if (overhead) {
    add_into(sum, amounts(registry::find_path(pod, {"spec", "overhead"})));
  }
  return sum;
}

}  // namespace apiserver::admission
