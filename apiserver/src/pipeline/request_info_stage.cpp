#include "pipeline/stages.h"

namespace apiserver::pipeline {

Stage request_info_stage() {
  return {"request info", [](Context& context) -> Outcome {
            auto& t = context.trace;
            context.info = endpoints::parse_resource_path(context.request);
            if (!context.info) {
              return {"not a resource request: " + context.request.path, std::nullopt};
            }
            const auto& info = *context.info;
            t.verb = info.verb;
            t.group = info.group;
            t.version = info.version;
            t.resource = info.resource;
            t.subresource = info.subresource;
            t.namespace_ = info.namespace_;
            t.name = info.name;
            std::string what = info.verb + " " + info.resource;
            if (!info.subresource.empty()) {
              what += "/" + info.subresource;
            }
            if (!info.group.empty()) {
              what += "." + info.group;
            }
            if (!info.namespace_.empty()) {
              what += " in namespace " + info.namespace_;
            }
            if (!info.name.empty()) {
              what += " named " + info.name;
            }
            return {std::move(what), std::nullopt};
          }};
}

}  // namespace apiserver::pipeline
