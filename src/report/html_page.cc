#include "report/html_page.h"

#include <fmt/format.h>

namespace workgate {
namespace {

// Only inline styles may apply; no script, image, font, frame or request of
// any kind (default-src 'none').
constexpr const char* kPolicy = "default-src 'none'; style-src 'unsafe-inline'";

constexpr const char* kBaseStyle = R"css(
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
       color: #1d232a; background: #fff; margin: 24px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 0; font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
p { margin: 2px 0; }
footer { color: #8c959f; font-size: 12px; margin-top: 16px; }
)css";

}  // namespace

std::string HtmlPageStart(std::string_view title, std::string_view style) {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>{}</title>\n<style>{}{}</style>\n</head>\n<body>\n",
      kPolicy, title, kBaseStyle, style);
}

std::string HtmlPageEnd(std::string_view footer) {
  return fmt::format("<footer>{}</footer>\n</body>\n</html>\n", footer);
}

}  // namespace workgate
