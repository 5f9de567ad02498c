// What a list, watch or deletecollection reads: the keys of the collection (one namespace's or
// all), and the objects its labelSelector and fieldSelector pick.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "apiserver/http.h"
#include "apiserver/registry.h"
#include "errors/result.h"
#include "registry/selectors.h"

namespace apiserver::endpoints {

// The labelSelector and fieldSelector of a list, watch or deletecollection.
struct Selection {
  registry::LabelSelector labels;
  registry::FieldSelector fields;
  bool empty() const { return labels.empty() && fields.empty(); }
  bool matches(const nlohmann::json& object) const {
    return labels.matches(
               object.value(nlohmann::json::json_pointer("/metadata/labels"), nlohmann::json())) &&
           fields.matches(object);
  }
};

// Parses the selectors; the error is the 400 kube-apiserver answers (the label selector is
// decoded first, so its error wins).
errors::Result<Selection> parse_selection(const registry::Resource& r,
                                          const http::Request& request);

// The key prefix of the collection: one namespace's objects, or all of the resource's.
std::string list_prefix(const registry::Resource& r, const std::string& ns);

}  // namespace apiserver::endpoints
