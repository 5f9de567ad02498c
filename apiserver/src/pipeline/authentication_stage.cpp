#include "pipeline/stages.h"

#include "apiserver/apiserver.h"

namespace apiserver::pipeline {

Stage authentication_stage(const filters::TokenTable& tokens) {
  return {"authentication", [&tokens](Context& context) -> Outcome {
            auto who = filters::authenticate(context.request, tokens);
            if (!who) {
              return {"refused: the credentials match no user",
                      status_response(401, "Unauthorized", "Unauthorized")};
            }
            context.user = std::move(*who);
            context.trace.user = context.user.name;
            context.trace.groups = context.user.groups;
            std::string decision = context.user.name;
            for (size_t i = 0; i < context.user.groups.size(); ++i) {
              decision += (i == 0 ? " in " : ", ") + context.user.groups[i];
            }
            return {std::move(decision), std::nullopt};
          }};
}

}  // namespace apiserver::pipeline
