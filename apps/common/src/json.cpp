// The apps' JSON writer (app_common/json.hpp).
#include "app_common/json.hpp"

namespace tcemu::app {

std::string json_text(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace tcemu::app
