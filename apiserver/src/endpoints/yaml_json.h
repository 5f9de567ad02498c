// YAML <-> JSON for request bodies (application/yaml) and responses (Accept: application/yaml),
// with YAML 1.2's core schema for plain scalars (true/false, null, integers, floats) and quoted
// scalars always strings, as Kubernetes' sigs.k8s.io/yaml conversion does.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "common/result.h"

namespace apiserver::endpoints {

// One YAML document to JSON; fails (the error names line and column) on a syntax error or when
// the text holds more than one document.
common::Result<nlohmann::json> yaml_to_json(const std::string& text);
std::string json_to_yaml(const nlohmann::json& doc);

}  // namespace apiserver::endpoints
