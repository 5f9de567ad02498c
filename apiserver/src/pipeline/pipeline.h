// The request pipeline: one ordered list of stages, as kube-apiserver's handler chain. Each stage
// looks at the request and either lets it go on or answers it; the last one (the handler) always
// answers. Every stage's decision and time go into the request's trace. The list itself is built
// in one place, ApiServer::stages() (src/apiserver.cpp); each stage lives in its own file
// here (stages.h).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apiserver/http.h"
#include "endpoints/resources.h"
#include "filters/authentication.h"
#include "trace/request_trace.h"

namespace apiserver::pipeline {

// What the stages know about the request as it passes. Only the handler changes the request
// (through `writable`, which is null when the stages before it run on a request's header alone).
// `trace` is null when the pass is not traced (the server's look at a request's header, which is
// traced only when it refuses the request): stages then skip what only the trace needs.
struct Context {
  Context(const http::Request& r, trace::RequestTrace* t, http::Request* w = nullptr)
      : request(r), trace(t), writable(w) {}
  const http::Request& request;
  trace::RequestTrace* trace;
  http::Request* writable;
  std::optional<endpoints::RequestInfo> info;  // a resource request, from the request info stage
  filters::UserInfo user;  // from the authentication stage; the impersonation stage may change it
  // Who authenticated, when the request acts as someone else (the impersonation stage).
  std::optional<filters::UserInfo> requestor;
  std::string_view answered_by;  // the stage that answered
};

// A stage's verdict: `decision` says what it decided, in a word or two, for the trace (the
// request info and the user are in the trace's own fields); an `answer` ends the request there.
// A stage that had nothing to do (impersonation without Impersonate-* headers) leaves `decision`
// empty and is not in the trace.
struct Outcome {
  std::string decision;
  std::optional<http::Response> answer;
};

struct Stage {
  std::string name;
  std::function<Outcome(Context&)> run;
};

// Runs the first `count` of `stages` in order until one answers, recording each in
// context.trace; nullopt when none answered. An exception leaving a stage is recorded as that
// stage's decision and passed on to the barrier around the pipeline.
std::optional<http::Response> run_stages(const std::vector<Stage>& stages, size_t count,
                                         Context& context);
// All of them: the list must end with a stage that always answers, else the answer is a 500.
http::Response run(const std::vector<Stage>& stages, Context& context);

}  // namespace apiserver::pipeline
