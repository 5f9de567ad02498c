// The web console's sign-ins by bearer token: who each session cookie stands for. A session is
// a random id (the HttpOnly cookie's value) mapped to the bearer token the API is called with,
// the user name the API server gave for it, and a CSRF secret of its own. The table is bounded
// (the least recently used session goes first) and a session unused for `idle_limit` ends.
// Sessions live in memory: a restart of the server signs these users out (the console's own
// login by its URL token is derived from that token instead, and survives). Thread-safe.
#pragma once

#include <chrono>
#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace apiserver::webconsole {

// 64 hex digits of OpenSSL's randomness (256 bits).
std::string random_secret();

struct Session {
  std::string bearer_token;  // what the API sees
  std::string username;      // as the API server named the token's user ("" when unknown)
  std::string csrf;          // the X-CSRF-Token writes must carry
};

class SessionTable {
 public:
  using Clock = std::chrono::steady_clock;

  SessionTable(std::size_t capacity, Clock::duration idle_limit);

  // A new session for `session`: its id. When the table is full the least recently used session
  // ends first.
  std::string open(Session session, Clock::time_point now);
  // The session of `id`, marked used at `now`; nullopt when there is none or it expired.
  std::optional<Session> find(const std::string& id, Clock::time_point now);
  // Ends the session of `id` (signing out); nothing when there is none.
  void close(const std::string& id);
  std::size_t size() const;

 private:
  struct Entry {
    Session session;
    Clock::time_point last_used;
  };

  std::size_t capacity_;
  Clock::duration idle_limit_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Entry> entries_;
};

}  // namespace apiserver::webconsole
