#include "endpoints/collection.h"

#include "endpoints/status.h"

namespace apiserver::endpoints {

using registry::Resource;

errors::Result<Selection> parse_selection(const Resource& r, const http::Request& request) {
  Selection selection;
  auto labels = registry::LabelSelector::parse(request.query_value("labelSelector"));
  if (!labels) {
    return errors::bad_request(labels.error());
  }
  auto fields = registry::FieldSelector::parse(request.query_value("fieldSelector"), r);
  if (!fields) {
    return errors::bad_request(fields.error());
  }
  selection.labels = std::move(*labels);
  selection.fields = std::move(*fields);
  return selection;
}

std::string list_prefix(const Resource& r, const std::string& ns) {
  return r.namespaced && !ns.empty() ? r.etcd_prefix + "/" + ns + "/" : r.etcd_prefix + "/";
}

}  // namespace apiserver::endpoints
