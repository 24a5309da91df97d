#pragma once
/// \file json.hpp
/// The apps' one JSON writer (--json reports), on nlohmann-json: strings are escaped by the library
/// (quotes, backslashes, control characters), objects keep their keys in the order the report lists
/// them, and numbers that JSON cannot hold (NaN, Inf) are written as null.
#include <string>

#include <nlohmann/json.hpp>

namespace tcemu::app {

/// A JSON value whose objects keep their keys in insertion order (reports document a key order).
using Json = nlohmann::ordered_json;

/// `value` as compact JSON text on one line (no spaces, no trailing newline). Bytes that are not
/// valid UTF-8 (a file name in another encoding) become U+FFFD rather than invalid JSON.
std::string json_text(const Json& value);

}  // namespace tcemu::app
