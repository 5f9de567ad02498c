#include "audit/auditor.h"
#include "pipeline/stages.h"

namespace apiserver::pipeline {

Stage audit_stage() {
  return {"audit", [](Context& context) -> Outcome {
            audit::RequestAudit* audit = audit::current();
            if (context.trace == nullptr || audit == nullptr || !audit->enabled()) {
              return {"off", std::nullopt};
            }
            const filters::UserInfo& u = context.user;
            const audit::Level level =
                audit->begin(request_attributes(context), {u.name, u.uid, u.groups, u.extra});
            return {"level " + std::string(audit::level_name(level)), std::nullopt};
          }};
}

}  // namespace apiserver::pipeline
