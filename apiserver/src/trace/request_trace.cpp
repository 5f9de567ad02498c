#include "trace/request_trace.h"

#include <cstdio>
#include <utility>

namespace apiserver::trace {
namespace {

thread_local RequestTrace* current = nullptr;

std::string milliseconds(std::chrono::nanoseconds took) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f ms", static_cast<double>(took.count()) / 1e6);
  return text;
}

}  // namespace

Scope::Scope(RequestTrace& trace) : previous_(current) {
  current = &trace;
}

Scope::~Scope() {
  current = previous_;
}

bool active() {
  return current != nullptr;
}

void note(std::string_view layer, std::string text) {
  if (current == nullptr || current->notes.size() >= kMaxNotes) {
    return;
  }
  current->notes.push_back({std::string(layer), std::move(text)});
}

std::string RequestTrace::summary() const {
  std::string line = "request " + std::to_string(id) + ": ";
  line += user.empty() ? std::string("(not authenticated)") : user;
  line += " " + method + " " + target + " -> " + std::to_string(code) + " in " +
          milliseconds(took) + " [";
  for (size_t i = 0; i < steps.size(); ++i) {
    line += (i ? "; " : "") + steps[i].stage + ": " + steps[i].decision;
  }
  line += "]";
  for (const auto& n : notes) {
    line += " " + n.layer + ": " + n.text + ";";
  }
  if (!notes.empty()) {
    line.pop_back();
  }
  return line;
}

uint64_t TraceLog::next_id() {
  std::lock_guard lock(mu_);
  return ++last_id_;
}

void TraceLog::add(RequestTrace trace) {
  std::lock_guard lock(mu_);
  traces_.push_back(std::move(trace));
  while (traces_.size() > capacity_) {
    traces_.pop_front();
  }
}

std::vector<RequestTrace> TraceLog::list(const Filter& filter) const {
  auto matches = [&](const RequestTrace& t) {
    return (filter.user.empty() || t.user == filter.user) &&
           (filter.verb.empty() || t.verb == filter.verb) &&
           (filter.resource.empty() || t.resource == filter.resource) &&
           (filter.name.empty() || t.name == filter.name);
  };
  std::vector<RequestTrace> newest_first;
  std::lock_guard lock(mu_);
  for (auto it = traces_.rbegin(); it != traces_.rend(); ++it) {
    if (filter.limit != 0 && newest_first.size() >= filter.limit) {
      break;
    }
    if (matches(*it)) {
      newest_first.push_back(*it);
    }
  }
  return {std::make_move_iterator(newest_first.rbegin()),
          std::make_move_iterator(newest_first.rend())};
}

}  // namespace apiserver::trace
