#include "endpoints/collection.h"

#include "endpoints/status.h"

namespace apiserver::endpoints {

using registry::Resource;

std::optional<Selection> parse_selection(const Resource& r, const http::Request& request,
                                         http::Response& failure) {
  Selection selection;
  auto labels = registry::LabelSelector::parse(request.query_value("labelSelector"));
  if (!labels) {
    failure = bad_request(labels.error());
    return std::nullopt;
  }
  auto fields = registry::FieldSelector::parse(request.query_value("fieldSelector"), r);
  if (!fields) {
    failure = bad_request(fields.error());
    return std::nullopt;
  }
  selection.labels = std::move(*labels);
  selection.fields = std::move(*fields);
  return selection;
}

std::string list_prefix(const Resource& r, const std::string& ns) {
  return r.namespaced && !ns.empty() ? r.etcd_prefix + "/" + ns + "/" : r.etcd_prefix + "/";
}

}  // namespace apiserver::endpoints
