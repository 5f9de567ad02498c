#include "pipeline/stages.h"

#include "apiserver/apiserver.h"

namespace apiserver::pipeline {

Stage authentication_stage(const filters::TokenTable& tokens) {
  return {"authentication", [&tokens](Context& context) -> Outcome {
            auto who = filters::authenticate(context.request, tokens);
            if (!who) {
              return {"refused", status_response(401, "Unauthorized", "Unauthorized")};
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
