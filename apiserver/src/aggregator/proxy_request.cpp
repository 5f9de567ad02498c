#include "aggregator/proxy_request.h"

#include <cctype>

namespace apiserver::aggregator {
namespace {

std::string lower(std::string s) {
  for (char& c : s) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return s;
}

bool starts_with(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

// Headers the client's request keeps on its way.
bool forwarded(const std::string& name) {
  const std::string n = lower(name);
  static const char* const kDropped[] = {"authorization",   "host",
                                         "content-length",  "connection",
                                         "keep-alive",      "transfer-encoding",
                                         "upgrade",         "te",
                                         "trailer",         "proxy-authorization",
                                         "proxy-connection"};
  for (const char* d : kDropped) {
    if (n == d) {
      return false;
    }
  }
  return !starts_with(n, "impersonate-") && !starts_with(n, "x-remote-");
}

}  // namespace

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> out;
  size_t start = 1;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) {
      end = path.size();
    }
    out.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  while (!out.empty() && out.back().empty()) {
    out.pop_back();
  }
  return out;
}

bool is_watch(const http::Request& request) {
  const std::string value = request.query_value("watch");
  if (value == "true" || value == "1") {
    return true;
  }
  const auto segments = split_path(request.path);
  return segments.size() > 3 && segments[3] == "watch";
}

std::string path_escape(const std::string& text) {
  static const std::string kKept = "-._~$&+:=@";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) != 0 || kKept.find(static_cast<char>(c)) != std::string::npos) {
      out.push_back(static_cast<char>(c));
    } else {
      static constexpr char kHex[] = "0123456789ABCDEF";
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xf]);
    }
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> identity_headers(const Identity& identity) {
  std::vector<std::pair<std::string, std::string>> out;
  out.emplace_back("X-Remote-User", identity.user);
  for (const auto& group : identity.groups) {
    out.emplace_back("X-Remote-Group", group);
  }
  for (const auto& [key, values] : identity.extra) {
    for (const auto& value : values) {
      out.emplace_back("X-Remote-Extra-" + path_escape(key), value);
    }
  }
  return out;
}

webhook::Request proxied_request(const http::Request& request, const Identity& identity) {
  webhook::Request out;
  out.method = request.method;
  out.body = request.body;
  for (const auto& [name, value] : request.headers) {
    if (!forwarded(name)) {
      continue;
    }
    auto repeated = request.repeated_headers.find(name);
    if (repeated != request.repeated_headers.end()) {
      for (const auto& v : repeated->second) {
        out.headers.emplace_back(name, v);
      }
    } else {
      out.headers.emplace_back(name, value);
    }
  }
  if (!request.remote_address.empty()) {
    std::string address = request.remote_address;
    // "ip:port" or "[ip6]:port": the address alone, as Go's reverse proxy writes it.
    if (!address.empty() && address.front() == '[') {
      address = address.substr(1, address.find(']') - 1);
    } else if (address.find(':') == address.rfind(':') && address.find(':') != std::string::npos) {
      address = address.substr(0, address.find(':'));
    }
    out.headers.emplace_back("X-Forwarded-For", address);
  }
  for (auto& header : identity_headers(identity)) {
    out.headers.push_back(std::move(header));
  }
  return out;
}

http::Response proxy_error(int status, const std::string& message) {
  http::Response r;
  r.status = status;
  r.set_header("Content-Type", "text/plain; charset=utf-8");
  r.set_header("X-Content-Type-Options", "nosniff");
  r.body = message + "\n";
  return r;
}

}  // namespace apiserver::aggregator
