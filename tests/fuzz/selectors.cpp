// Label and field selectors (registry/selectors.h). Input: up to three lines, each optional:
// a labelSelector query value, a fieldSelector query value (parsed for pods, jobs and
// configmaps: the three error styles), and a metav1.LabelSelector as JSON (a workload's
// spec.selector). What parses is matched against fixed objects and printed back.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "apiserver/registry.h"
#include "registry/selectors.h"
#include "support/json_input.h"

namespace registry = apiserver::registry;
using nlohmann::json;

namespace {

const json& pod() {
  static const json object = json::parse(R"({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "web-1", "namespace": "default", "labels": {"app": "web", "rank": "3"}},
    "spec": {"nodeName": "node-1", "restartPolicy": "Always", "serviceAccountName": "default"},
    "status": {"phase": "Running", "podIP": "10.0.0.5", "podIPs": [{"ip": "10.0.0.5"}]}})");
  return object;
}

const std::array<registry::Resource, 3>& resources() {
  static const std::array<registry::Resource, 3> rows = [] {
    const auto snapshot = registry::Registry::builtin()->snapshot();
    return std::array<registry::Resource, 3>{*snapshot->find("", "v1", "pods"),
                                             *snapshot->find("batch", "v1", "jobs"),
                                             *snapshot->find("", "v1", "configmaps")};
  }();
  return rows;
}

void check_labels(const registry::LabelSelector& selector) {
  (void)selector.matches(pod()["metadata"]["labels"]);
  (void)selector.matches(json());
  (void)registry::LabelSelector::parse(selector.to_string());
}

// The next line of `input` from `pos`; advances `pos` past it.
std::string_view next_line(std::string_view input, size_t& pos) {
  const size_t end = input.find('\n', pos);
  std::string_view line = input.substr(pos, end == std::string_view::npos ? input.npos : end - pos);
  pos = end == std::string_view::npos ? input.size() : end + 1;
  return line;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  size_t pos = 0;
  const std::string_view label_text = next_line(input, pos);
  const std::string_view field_text = next_line(input, pos);
  const std::string_view object_text = input.substr(pos);

  if (auto selector = registry::LabelSelector::parse(label_text)) {
    check_labels(*selector);
  }
  for (const auto& resource : resources()) {
    if (auto selector = registry::FieldSelector::parse(field_text, resource)) {
      (void)selector->matches(pod());
      (void)selector->exact_name();
      (void)selector->requirements();
    }
  }
  if (auto object = fuzz::parse_json_input(object_text)) {
    if (auto selector = registry::LabelSelector::from_json(*object)) {
      check_labels(*selector);
    }
  }
  return 0;
}
