// The one exception barrier under the last lines of defence of the store's, the console's and the
// API server's threads: each says in its own words (and to its own log) what failed, this catches
// it and names the exception. Callable from any thread.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace common {

// The text of the exception being handled (call it only inside a catch block): what() of a
// std::exception, else `unknown`. Empty when the text cannot be copied (out of memory). Never
// throws.
std::string describe_current_exception(std::string_view unknown = {}) noexcept;

// Runs `work`. Returns true when it returned. When it threw, calls `report` with the exception's
// text (describe_current_exception(unknown)) once the exception is handled, and returns false;
// an exception escaping `report` is swallowed (the result still says the work failed). Never
// throws.
bool run_guarded(const std::function<void()>& work,
                 const std::function<void(std::string&& text)>& report,
                 std::string_view unknown = {}) noexcept;

}  // namespace common
