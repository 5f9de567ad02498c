// pods/log for simulated containers: what kube-apiserver answers (after asking the pod's
// kubelet) for `kubectl logs`, with lines the sandbox makes up from the container's recorded
// state, since no process runs. A container writes one line when it starts, one every 10 seconds
// while it runs and one when it exits, each at the time it would have been written, so --tail,
// --since, --timestamps, --limit-bytes, --previous and -f behave as on a real node.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apiserver/http.h"
#include "endpoints/watch_stream.h"
#include "errors/result.h"

namespace apiserver::endpoints {

struct LogOptions {
  std::string container;
  bool follow = false;
  bool previous = false;
  bool timestamps = false;
  std::optional<int64_t> tail_lines;
  std::optional<int64_t> since_seconds;
  std::optional<int64_t> limit_bytes;
};

// The query (container, follow, previous, timestamps, tailLines, sinceSeconds, limitBytes), or
// kube-apiserver's 400/422 Status for a bad one. `pod` names the pod in messages.
errors::Result<LogOptions> parse_log_options(const http::Request& request, const std::string& pod);

// One run of one container, as its status records it.
struct ContainerRun {
  std::string container;
  std::string image;
  std::chrono::system_clock::time_point started;
  std::optional<std::chrono::system_clock::time_point> finished;
  int64_t exit_code = 0;
};

// The run the options ask for (the container's current one, or with `previous` the one before),
// or the Status kube-apiserver or the kubelet answers: no container named, an unknown one, a
// container still waiting, no previous run. nullopt for a pod not yet on a node: there is no
// kubelet to ask, and kube-apiserver answers 204 No Content.
errors::Result<std::optional<ContainerRun>> log_run(const nlohmann::json& pod,
                                                    const LogOptions& options);

struct LogLine {
  std::chrono::system_clock::time_point at;
  std::string text;  // without the newline
};

// The run's lines written by `now`, numbered from 0; `first` skips the ones before it.
std::vector<LogLine> log_lines(const ContainerRun& run, std::chrono::system_clock::time_point now,
                               size_t first = 0);

// The response body for `lines`: tail, since and limit applied, each line ended with '\n' and
// prefixed with its RFC 3339 time when asked.
std::string render_log(const std::vector<LogLine>& lines, const LogOptions& options,
                       std::chrono::system_clock::time_point now);

// A followed log: what is due at once, then each line when its time comes (ticked by the watch
// ticker), until the container stops running or `read_pod` finds the pod gone or replaced.
std::shared_ptr<TickedStream> follow_log(
    ContainerRun run, LogOptions options, std::string user,
    std::function<std::optional<nlohmann::json>()> read_pod,
    std::function<std::chrono::system_clock::time_point()> now);

}  // namespace apiserver::endpoints
