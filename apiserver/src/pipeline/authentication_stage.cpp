#include "pipeline/stages.h"

#include "errors/status.h"

namespace apiserver::pipeline {

Stage authentication_stage(const filters::TokenTable& tokens) {
  return {"authentication", [&tokens](Context& context) -> Outcome {
            auto who = filters::authenticate(context.request, tokens);
            if (!who) {
              return {"refused", errors::failure(401, "Unauthorized", "Unauthorized").response()};
            }
            context.user = std::move(*who);
            if (auto* t = context.trace) {
              t->user = context.user.name;
              t->groups = context.user.groups;
            }
            return {"authenticated", std::nullopt};
          }};
}

}  // namespace apiserver::pipeline
