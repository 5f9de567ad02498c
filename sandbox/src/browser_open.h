// Opening a URL in the user's default browser: through xdg-open, when there is a display to
// show it on (DISPLAY or WAYLAND_DISPLAY set).
#pragma once

#include <string>

namespace sandbox {

// True when xdg-open ran and said it handed the URL to a browser; false with no display, no
// xdg-open, or its failure (the caller then prints the URL instead).
bool open_in_browser(const std::string& url);

}  // namespace sandbox
