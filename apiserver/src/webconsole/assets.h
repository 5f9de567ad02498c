// The web console's page, script, style sheet and icon, bundled from console/web at build time and
// embedded in the executable (assets_blob.S): nothing is fetched from elsewhere at run time.
#pragma once

#include <string_view>

namespace apiserver::webconsole {

struct Asset {
  std::string_view path;          // "/", "/app.js", "/app.css", "/favicon.svg"
  std::string_view content_type;  // with its charset
  std::string_view body;
};

// The asset served at `path`, or nullptr.
const Asset* find_asset(std::string_view path);

}  // namespace apiserver::webconsole
