#include "registry/served_form.h"

#include "registry/kind_strategy.h"

namespace apiserver::registry {
namespace {

const KindStrategy* converting_strategy(const Resource& r) {
  if (r.custom) {
    return nullptr;
  }
  const KindStrategy* strategy = kind_strategy(r.group, r.kind);
  return strategy != nullptr && strategy->to_storage != nullptr && strategy->from_storage != nullptr
             ? strategy
             : nullptr;
}

}  // namespace

bool stored_in_other_form(const Resource& r) {
  return converting_strategy(r) != nullptr;
}

void to_stored_form(const Resource& r, nlohmann::json& object) {
  if (const KindStrategy* strategy = converting_strategy(r); strategy && object.is_object()) {
    strategy->to_storage(object);
  }
}

void to_served_form(const Resource& r, nlohmann::json& object) {
  if (const KindStrategy* strategy = converting_strategy(r); strategy && object.is_object()) {
    strategy->from_storage(object);
  }
}

std::optional<std::string> served_text(const Resource& r, const std::string& stored) {
  const KindStrategy* strategy = converting_strategy(r);
  if (strategy == nullptr) {
    return std::nullopt;
  }
  nlohmann::json object = nlohmann::json::parse(stored, nullptr, false);
  if (!object.is_object()) {
    return std::nullopt;
  }
  strategy->from_storage(object);
  return object.dump();
}

}  // namespace apiserver::registry
