#include "trace/request_trace.h"

#include <algorithm>
#include <cstddef>
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
  current->notes.push_back({layer, std::move(text)});
}

void annotate_audit(std::string key, std::string value) {
  if (current == nullptr || current->audit_annotations.size() >= kMaxAuditAnnotations) {
    return;
  }
  current->audit_annotations.emplace_back(std::move(key), std::move(value));
}

std::string RequestTrace::summary() const {
  std::string line = "request " + std::to_string(id) + ": ";
  line += user.empty() ? std::string("(not authenticated)") : user;
  line += " " + method + " " + target + " -> " + std::to_string(code) + " in " +
          milliseconds(took) + " [";
  for (size_t i = 0; i < steps.size(); ++i) {
    line += i ? "; " : "";
    line += steps[i].stage;
    line += ": " + steps[i].decision;
  }
  line += "]";
  for (const auto& n : notes) {
    line += " ";
    line += n.layer;
    line += ": " + n.text + ";";
  }
  if (!notes.empty()) {
    line.pop_back();
  }
  return line;
}

TraceLog::TraceLog(size_t capacity)
    : capacity_(capacity == 0 ? 1 : capacity), slots_(std::make_unique<Slot[]>(capacity_)) {}

void TraceLog::add(RequestTrace trace) {
  Slot& slot = slots_[trace.id % capacity_];
  {
    std::lock_guard lock(slot.mu);
    if (trace.id < slot.trace.id) {
      return;  // a newer request finished first and took the slot
    }
    std::swap(slot.trace, trace);
  }
  // `trace` now holds the one replaced, freed outside the lock.
}

std::vector<RequestTrace> TraceLog::list(const Filter& filter) const {
  auto matches = [&](const RequestTrace& t) {
    return t.id != 0 && (filter.user.empty() || t.user == filter.user) &&
           (filter.verb.empty() || t.verb == filter.verb) &&
           (filter.resource.empty() || t.resource == filter.resource) &&
           (filter.name.empty() || t.name == filter.name);
  };
  std::vector<RequestTrace> found;
  for (size_t i = 0; i < capacity_; ++i) {
    std::lock_guard lock(slots_[i].mu);
    if (matches(slots_[i].trace)) {
      found.push_back(slots_[i].trace);
    }
  }
  std::sort(found.begin(), found.end(),
            [](const RequestTrace& a, const RequestTrace& b) { return a.id < b.id; });
  if (filter.limit != 0 && found.size() > filter.limit) {
    found.erase(found.begin(), found.end() - static_cast<std::ptrdiff_t>(filter.limit));
  }
  return found;
}

}  // namespace apiserver::trace
