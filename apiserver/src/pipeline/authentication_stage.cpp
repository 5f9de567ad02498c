#include "apiserver/log.h"
#include "common/go_quote.h"
#include "errors/status.h"
#include "pipeline/stages.h"

namespace apiserver::pipeline {

Stage authentication_stage(const filters::Authenticator& authenticator) {
  return {
      "authentication", [&authenticator](Context& context) -> Outcome {
        auto who = authenticator.authenticate(context.request);
        if (!who.user) {
          if (auto* t = context.trace; t != nullptr && !who.error.empty()) {
            // Once per refused request: the untraced pass before it logs nothing.
            t->notes.push_back({"authentication", who.error});
            log::error("\"Unable to authenticate the request\" err=" + common::go_quote(who.error));
          }
          return {"refused", errors::failure(401, "Unauthorized", "Unauthorized").response()};
        }
        context.user = std::move(*who.user);
        if (auto* t = context.trace) {
          t->user = context.user.name;
          t->groups = context.user.groups;
        }
        return {"authenticated", std::nullopt};
      }};
}

}  // namespace apiserver::pipeline
