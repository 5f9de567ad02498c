// Objects as served, made from their stored JSON text without decoding it.
//
// The store keeps an object's JSON without metadata.resourceVersion (the store revision is the
// truth); what a client gets is that JSON with resourceVersion added. Decoding and re-encoding the
// whole object for that costs more than everything else a GET or a LIST does, so the fast path
// here edits the text: it walks the top-level object and its metadata with a small scanner that
// skips values without building them, and writes the same bytes nlohmann::json::dump() would
// write for the decoded object (keys stay in their byte order, resourceVersion goes in its place
// among them). Anything the scanner is not sure of (escaped keys, no metadata object, malformed
// text) gives nullopt, and the caller takes the decoding path.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace apiserver::endpoints {

// The stored object `stored` (compact JSON, keys sorted, as written by the registry) with
// metadata.resourceVersion set to `revision`; without the top-level apiVersion and kind when
// `drop_type_meta` (list items carry none). Appended to `out`; false (and `out` unchanged) when
// the text is not of the expected shape.
bool append_served_json(std::string_view stored, int64_t revision, bool drop_type_meta,
                        std::string& out);

// The same, as a new string; nullopt when the text is not of the expected shape.
std::optional<std::string> served_json(std::string_view stored, int64_t revision,
                                       bool drop_type_meta = false);

}  // namespace apiserver::endpoints
