#include "endpoints/pod_log.h"

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <tuple>

#include "common/rfc3339.h"
#include "endpoints/query_params.h"
#include "registry/generic/resource_errors.h"
#include "registry/json_access.h"
#include "registry/objects.h"

namespace apiserver::endpoints {
namespace {

using nlohmann::json;
using Clock = std::chrono::system_clock;
using registry::string_at;

constexpr auto kLineEvery = std::chrono::seconds(10);

std::optional<Clock::time_point> time_at(const json& object,
                                         std::initializer_list<std::string_view> path) {
  auto parsed = common::parse_rfc3339(string_at(object, path));
  if (!parsed)
    return std::nullopt;
  return Clock::time_point(std::chrono::seconds(parsed->seconds)) +
         std::chrono::duration_cast<Clock::duration>(std::chrono::nanoseconds(parsed->nanos));
}

std::string names(const json* containers) {
  std::string out = "[";
  if (containers != nullptr && containers->is_array()) {
    for (const json& c : *containers) {
      if (out.size() > 1)
        out += ' ';
      out += string_at(c, {"name"});
    }
  }
  return out + "]";
}

std::string line_time(Clock::time_point t) {
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch());
  std::string text = registry::rfc3339(t);  // seconds
  // RFC 3339 with nanoseconds, as the kubelet's --timestamps prefix writes it.
  char fraction[16];
  std::snprintf(fraction, sizeof fraction, ".%06lld000Z",
                static_cast<long long>(micros.count() % 1000000));
  return text.substr(0, text.size() - 1) + fraction;
}

}  // namespace

errors::Result<LogOptions> parse_log_options(const http::Request& request, const std::string& pod) {
  LogOptions options;
  options.container = request.query_value("container");
  options.follow = query_flag(request, "follow");
  options.previous = query_flag(request, "previous");
  options.timestamps = query_flag(request, "timestamps");
  std::vector<registry::FieldError> invalid;
  for (auto [name, field, minimum] :
       {std::tuple{"tailLines", &options.tail_lines, int64_t{0}},
        std::tuple{"sinceSeconds", &options.since_seconds, int64_t{1}},
        std::tuple{"limitBytes", &options.limit_bytes, int64_t{1}}}) {
    if (!request.has_query(name))
      continue;
    auto value = go_parse_int64(request.query_value(name));
    if (!value) {
      return errors::bad_request(value.error());
    }
    if (*value < minimum) {
      invalid.push_back(registry::invalid_value(
          name, std::to_string(*value),
          minimum == 0 ? "must be greater than or equal to 0" : "must be greater than 0"));
    }
    *field = *value;
  }
  if (!invalid.empty()) {
    return registry::invalid("", "PodLogOptions", pod, invalid);
  }
  return options;
}

errors::Result<std::optional<ContainerRun>> log_run(const json& pod, const LogOptions& options) {
  const std::string pod_name = string_at(pod, {"metadata", "name"});
  const json* containers = registry::find_path(pod, {"spec", "containers"});
  const json* inits = registry::find_path(pod, {"spec", "initContainers"});
  std::string name = options.container;
  if (name.empty()) {
    if (containers != nullptr && containers->is_array() && containers->size() == 1) {
      name = string_at((*containers)[0], {"name"});
    } else {
      std::string message = "a container name must be specified for pod " + pod_name +
                            ", choose one of: " + names(containers);
      if (inits != nullptr && inits->is_array() && !inits->empty()) {
        message += " or one of the init containers: " + names(inits);
      }
      return errors::bad_request(message);
    }
  }
  const json* spec = nullptr;
  for (const json* list : {containers, inits}) {
    if (list == nullptr || !list->is_array())
      continue;
    for (const json& c : *list) {
      if (string_at(c, {"name"}) == name)
        spec = &c;
    }
  }
  if (spec == nullptr) {
    return errors::bad_request("container " + name + " is not valid for pod " + pod_name);
  }
  if (string_at(pod, {"spec", "nodeName"}).empty()) {
    return std::optional<ContainerRun>();
  }
  const json* status = nullptr;
  for (const char* field : {"containerStatuses", "initContainerStatuses"}) {
    const json* list = registry::find_path(pod, {"status", field});
    if (list == nullptr || !list->is_array())
      continue;
    for (const json& s : *list) {
      if (string_at(s, {"name"}) == name)
        status = &s;
    }
  }
  const std::string quoted = "\"" + name + "\" in pod \"" + pod_name + "\"";
  ContainerRun run;
  run.container = name;
  run.image = string_at(*spec, {"image"});
  const json* state =
      status == nullptr ? nullptr
                        : registry::find_path(*status, {options.previous ? "lastState" : "state"});
  if (options.previous) {
    const json* terminated =
        state != nullptr ? registry::find_path(*state, {"terminated"}) : nullptr;
    if (terminated == nullptr) {
      return errors::bad_request("previous terminated container " + quoted + " not found");
    }
    run.started = time_at(*terminated, {"startedAt"}).value_or(Clock::time_point());
    run.finished = time_at(*terminated, {"finishedAt"});
    run.exit_code = registry::integer_at(*terminated, {"exitCode"}).value_or(0);
    return std::optional<ContainerRun>(run);
  }
  if (state == nullptr || registry::find_path(*state, {"waiting"}) != nullptr) {
    const std::string reason = state != nullptr ? string_at(*state, {"waiting", "reason"})
                                                : std::string("ContainerCreating");
    return errors::bad_request("container " + quoted + " is waiting to start: " +
                               (reason.empty() ? "ContainerCreating" : reason));
  }
  if (const json* running = registry::find_path(*state, {"running"})) {
    run.started = time_at(*running, {"startedAt"}).value_or(Clock::time_point());
  } else if (const json* terminated = registry::find_path(*state, {"terminated"})) {
    run.started = time_at(*terminated, {"startedAt"}).value_or(Clock::time_point());
    run.finished = time_at(*terminated, {"finishedAt"});
    run.exit_code = registry::integer_at(*terminated, {"exitCode"}).value_or(0);
  }
  return std::optional<ContainerRun>(run);
}

std::vector<LogLine> log_lines(const ContainerRun& run, Clock::time_point now, size_t first) {
  std::vector<LogLine> lines;
  const Clock::time_point end = run.finished ? std::min(*run.finished, now) : now;
  if (end < run.started)
    return lines;
  const size_t ticks = static_cast<size_t>((end - run.started) / kLineEvery);
  // Line 0: started; lines 1..ticks: running; then the exit, when it exited.
  const size_t count = 1 + ticks + (run.finished && *run.finished <= now ? 1 : 0);
  for (size_t i = first; i < count && lines.size() < 100000; ++i) {
    if (i == 0) {
      lines.push_back({run.started, "kube-sandbox: container " + run.container +
                                        " started (image " + run.image +
                                        "); its process is simulated"});
    } else if (i <= ticks && !(run.finished && run.started + i * kLineEvery >= *run.finished)) {
      lines.push_back(
          {run.started + i * kLineEvery,
           "kube-sandbox: " + run.container + " is running (" + std::to_string(i * 10) + "s)"});
    } else if (run.finished && i == count - 1) {
      lines.push_back({*run.finished, "kube-sandbox: " + run.container + " exited with code " +
                                          std::to_string(run.exit_code)});
    }
  }
  return lines;
}

std::string render_log(const std::vector<LogLine>& lines, const LogOptions& options,
                       Clock::time_point now) {
  size_t from = 0;
  if (options.tail_lines && static_cast<size_t>(*options.tail_lines) < lines.size()) {
    from = lines.size() - static_cast<size_t>(*options.tail_lines);
  }
  std::string out;
  for (size_t i = from; i < lines.size(); ++i) {
    if (options.since_seconds && lines[i].at < now - std::chrono::seconds(*options.since_seconds)) {
      continue;
    }
    std::string line = options.timestamps ? line_time(lines[i].at) + " " : std::string();
    line += lines[i].text + "\n";
    if (options.limit_bytes &&
        out.size() + line.size() > static_cast<size_t>(*options.limit_bytes)) {
      out += line.substr(0, static_cast<size_t>(*options.limit_bytes) - out.size());
      break;
    }
    out += line;
  }
  return out;
}

namespace {

class LogStream final : public TickedStream {
 public:
  LogStream(ContainerRun run, LogOptions options, std::string user,
            std::function<std::optional<json>()> read_pod, std::function<Clock::time_point()> now)
      : run_(std::move(run)),
        options_(std::move(options)),
        user_(std::move(user)),
        read_pod_(std::move(read_pod)),
        now_(std::move(now)) {
    const auto lines = log_lines(run_, now_());
    pending_ = render_log(lines, options_, now_());
    sent_ = lines.size();
    written_ = pending_.size();
  }

  bool next(std::string& chunk) override {
    std::lock_guard lock(mu_);
    if (pending_.empty())
      return false;
    chunk = std::move(pending_);
    pending_.clear();
    return true;
  }
  bool finished() const override {
    std::lock_guard lock(mu_);
    return closed_ && pending_.empty();
  }
  void set_wakeup(std::function<void()> wakeup) override {
    std::lock_guard lock(mu_);
    wakeup_ = std::move(wakeup);
  }
  void close() override {
    std::lock_guard lock(mu_);
    closed_ = true;
  }
  bool done() const override {
    std::lock_guard lock(mu_);
    return closed_;
  }
  const std::string& user() const override { return user_; }
  bool is_watch() const override { return false; }

  void tick(std::chrono::steady_clock::time_point) override {
    if (done())
      return;
    // The container's state now: it may have exited, or the pod may be gone.
    std::optional<json> pod = read_pod_();
    bool ends = !pod.has_value();
    if (pod) {
      LogOptions current = options_;
      current.container = run_.container;
      current.previous = false;
      auto run = log_run(*pod, current);
      if (!run || !*run || (*run)->started != run_.started) {
        ends = true;
      } else {
        run_.finished = (*run)->finished;
        run_.exit_code = (*run)->exit_code;
        ends = run_.finished.has_value();
      }
    }
    std::string more;
    const auto lines = log_lines(run_, now_(), sent_);
    LogOptions rest = options_;
    rest.tail_lines.reset();
    rest.since_seconds.reset();
    if (rest.limit_bytes) {
      rest.limit_bytes = std::max<int64_t>(*rest.limit_bytes - static_cast<int64_t>(written_), 0);
    }
    if (!rest.limit_bytes || *rest.limit_bytes > 0) {
      more = render_log(lines, rest, now_());
    }
    sent_ += lines.size();
    written_ += more.size();
    std::function<void()> wake;
    {
      std::lock_guard lock(mu_);
      pending_ += more;
      if (ends ||
          (options_.limit_bytes && written_ >= static_cast<size_t>(*options_.limit_bytes))) {
        closed_ = true;
      }
      if (!more.empty() || closed_)
        wake = wakeup_;
    }
    if (wake)
      wake();
  }

 private:
  ContainerRun run_;  // the ticker thread's after construction
  const LogOptions options_;
  const std::string user_;
  const std::function<std::optional<json>()> read_pod_;
  const std::function<Clock::time_point()> now_;
  size_t sent_ = 0;
  size_t written_ = 0;
  mutable std::mutex mu_;  // protects pending_, closed_, wakeup_
  std::string pending_;
  bool closed_ = false;
  std::function<void()> wakeup_;
};

}  // namespace

std::shared_ptr<TickedStream> follow_log(ContainerRun run, LogOptions options, std::string user,
                                         std::function<std::optional<json>()> read_pod,
                                         std::function<Clock::time_point()> now) {
  return std::make_shared<LogStream>(std::move(run), std::move(options), std::move(user),
                                     std::move(read_pod), std::move(now));
}

}  // namespace apiserver::endpoints
