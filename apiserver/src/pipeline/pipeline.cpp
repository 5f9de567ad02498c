#include "pipeline/pipeline.h"

#include <chrono>
#include <exception>

#include "errors/status.h"
#include "guard.h"

namespace apiserver::pipeline {

std::optional<http::Response> run_stages(const std::vector<Stage>& stages, size_t count,
                                         Context& context) {
  for (size_t i = 0; i < count && i < stages.size(); ++i) {
    const Stage& stage = stages[i];
    const auto started = context.trace != nullptr ? std::chrono::steady_clock::now()
                                                  : std::chrono::steady_clock::time_point();
    auto took = [&] { return std::chrono::steady_clock::now() - started; };
    Outcome outcome;
    try {
      outcome = stage.run(context);
    } catch (...) {
      if (context.trace != nullptr) {
        context.trace->steps.push_back(
            {stage.name, "failed: " + describe_exception(std::current_exception()), took()});
      }
      throw;
    }
    if (context.trace != nullptr && (!outcome.decision.empty() || outcome.answer)) {
      context.trace->steps.push_back({stage.name, std::move(outcome.decision), took()});
    }
    if (outcome.answer) {
      context.answered_by = stage.name;
      return std::move(outcome.answer);
    }
  }
  return std::nullopt;
}

http::Response run(const std::vector<Stage>& stages, Context& context) {
  if (auto answer = run_stages(stages, stages.size(), context)) {
    return std::move(*answer);
  }
  return errors::internal_error("no stage of the request pipeline answered").response();
}

}  // namespace apiserver::pipeline
