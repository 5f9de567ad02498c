#include "pipeline/stages.h"

namespace apiserver::pipeline {

Stage request_info_stage() {
  return {"request info", [](Context& context) -> Outcome {
            if (context.trace == nullptr) {
              // An untraced look at a request's header: the authorization stage parses the
              // path itself if it needs to (an anonymous caller).
              return {"deferred", std::nullopt};
            }
            context.info = endpoints::parse_resource_path(context.request);
            if (!context.info) {
              return {"not a resource", std::nullopt};
            }
            if (auto* t = context.trace) {
              const auto& info = *context.info;
              t->verb = info.verb;
              t->group = info.group;
              t->version = info.version;
              t->resource = info.resource;
              t->subresource = info.subresource;
              t->namespace_ = info.namespace_;
              t->name = info.name;
            }
            return {"resource", std::nullopt};
          }};
}

}  // namespace apiserver::pipeline
