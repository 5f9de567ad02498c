#include "webconsole/assets.h"

#include <array>

// Defined in assets_blob.S: [begin, end) is the bundled file, byte for byte.
extern "C" {
extern const char ks_web_index_html_begin[], ks_web_index_html_end[];
extern const char ks_web_app_js_begin[], ks_web_app_js_end[];
extern const char ks_web_app_css_begin[], ks_web_app_css_end[];
extern const char ks_web_favicon_svg_begin[], ks_web_favicon_svg_end[];
}

namespace apiserver::webconsole {
namespace {

std::string_view blob(const char* begin, const char* end) {
  return {begin, static_cast<size_t>(end - begin)};
}

}  // namespace

const Asset* find_asset(std::string_view path) {
  static const std::array<Asset, 4> assets = {{
      {"/", "text/html; charset=utf-8", blob(ks_web_index_html_begin, ks_web_index_html_end)},
      {"/app.js", "text/javascript; charset=utf-8", blob(ks_web_app_js_begin, ks_web_app_js_end)},
      {"/app.css", "text/css; charset=utf-8", blob(ks_web_app_css_begin, ks_web_app_css_end)},
      {"/favicon.svg", "image/svg+xml", blob(ks_web_favicon_svg_begin, ks_web_favicon_svg_end)},
  }};
  for (const auto& asset : assets) {
    if (asset.path == path) {
      return &asset;
    }
  }
  return nullptr;
}

}  // namespace apiserver::webconsole
