#include "nodes/zone_tainter.h"

#include <algorithm>

namespace cluster {
namespace {

constexpr double kWhole = 1 - 1e-9;  // a token, give or take the rounding of durations

}  // namespace

ZoneTainter::ZoneTainter(double rate, time_point now)
    : rate_(rate), tokens_(rate > 0 ? 1 : 0), refilled_(now) {}

bool ZoneTainter::add(const std::string& node) {
  if (!set_.insert(node).second) {
    return false;
  }
  queue_.push_back({node, time_point::min()});
  return true;
}

bool ZoneTainter::remove(const std::string& node) {
  std::erase_if(queue_, [&](const Entry& e) { return e.node == node; });
  return set_.erase(node) != 0;
}

void ZoneTainter::done(const std::string& node) {
  std::erase_if(queue_, [&](const Entry& e) { return e.node == node; });
}

void ZoneTainter::retry(const std::string& node, time_point at) {
  for (Entry& e : queue_) {
    if (e.node == node) {
      e.due = at;
      return;
    }
  }
  queue_.push_front({node, at});
  set_.insert(node);
}

double ZoneTainter::tokens_at(time_point now) const {
  if (rate_ <= 0) {
    return 0;
  }
  const double elapsed = std::chrono::duration<double>(now - refilled_).count();
  return std::min(1.0, tokens_ + std::max(0.0, elapsed) * rate_);
}

void ZoneTainter::set_rate(double rate, time_point now) {
  if (rate == rate_) {
    return;
  }
  const bool was_empty = tokens_at(now) < kWhole;
  rate_ = rate;
  tokens_ = rate > 0 && !was_empty ? 1 : 0;
  refilled_ = now;
}

std::optional<std::string> ZoneTainter::next(time_point now) {
  if (queue_.empty() || queue_.front().due > now) {
    return std::nullopt;
  }
  const double tokens = tokens_at(now);
  if (tokens < kWhole) {
    return std::nullopt;
  }
  tokens_ = std::max(0.0, tokens - 1);
  refilled_ = now;
  return queue_.front().node;
}

std::optional<ZoneTainter::time_point> ZoneTainter::wake_at(time_point now) const {
  if (queue_.empty() || rate_ <= 0) {
    return std::nullopt;
  }
  const double missing = 1 - tokens_at(now);
  time_point when = now;
  if (missing > 0) {
    when += std::chrono::duration_cast<common::Clock::duration>(
        std::chrono::duration<double>(missing / rate_));
  }
  return std::max(when, queue_.front().due);
}

}  // namespace cluster
