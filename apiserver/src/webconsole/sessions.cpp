#include "webconsole/sessions.h"

#include <openssl/rand.h>

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string_view>

#include "common/hex.h"

namespace apiserver::webconsole {

std::string random_secret() {
  std::array<unsigned char, 32> bytes{};
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
    throw std::runtime_error("the web console could not draw a random session secret");
  }
  return common::lower_hex(
      std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

SessionTable::SessionTable(std::size_t capacity, Clock::duration idle_limit)
    : capacity_(std::max<std::size_t>(capacity, 1)), idle_limit_(idle_limit) {}

std::string SessionTable::open(Session session, Clock::time_point now) {
  std::string id = random_secret();
  std::lock_guard lock(mutex_);
  std::erase_if(entries_,
                [&](const auto& entry) { return now - entry.second.last_used >= idle_limit_; });
  if (entries_.size() >= capacity_) {
    auto oldest = std::min_element(
        entries_.begin(), entries_.end(),
        [](const auto& a, const auto& b) { return a.second.last_used < b.second.last_used; });
    entries_.erase(oldest);
  }
  entries_.emplace(id, Entry{std::move(session), now});
  return id;
}

std::optional<Session> SessionTable::find(const std::string& id, Clock::time_point now) {
  std::lock_guard lock(mutex_);
  auto found = entries_.find(id);
  if (found == entries_.end()) {
    return std::nullopt;
  }
  if (now - found->second.last_used >= idle_limit_) {
    entries_.erase(found);
    return std::nullopt;
  }
  found->second.last_used = std::max(found->second.last_used, now);
  return found->second.session;
}

void SessionTable::close(const std::string& id) {
  std::lock_guard lock(mutex_);
  entries_.erase(id);
}

std::size_t SessionTable::size() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

}  // namespace apiserver::webconsole
