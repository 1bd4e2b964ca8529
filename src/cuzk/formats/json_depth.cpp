#include "cuzk/formats/json_depth.hpp"

#include <string>

#include "cuzk/formats/bellman_params.hpp"

namespace cuzk::formats {

void check_json_depth(std::string_view text, std::string_view source, size_t max_depth) {
    size_t depth = 0;
    bool in_string = false, escaped = false;
    for (size_t i = 0; i < text.size(); i++) {
        const char c = text[i];
        if (in_string) {
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') in_string = false;
            continue;
        }
        if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > max_depth)
                throw FormatError(FormatErrorKind::BadJson, std::string(source) + ": JSON nested deeper than " +
                                                                std::to_string(max_depth) + " levels (at byte " +
                                                                std::to_string(i) + ")");
        } else if ((c == ']' || c == '}') && depth > 0) {
            depth--;
        }
    }
}

}  // namespace cuzk::formats
