#pragma once
// What workgate's self-contained HTML pages share (the history page,
// report/history_html.h, and the flame graph, report/flame_graph_html.h):
// a head that needs no network, no script, no font and no stylesheet from
// elsewhere (inline CSS; a Content-Security-Policy that allows nothing else,
// so even a mistake in escaping could not run a script or fetch a resource),
// and the base style of their text.

#include <string>
#include <string_view>

namespace workgate {

/// The page up to and including <body>: the policy, UTF-8, the viewport,
/// `title` (workgate's own words) and the base style followed by `style`.
std::string HtmlPageStart(std::string_view title, std::string_view style);

/// The page's end: a <footer> with `footer` (workgate's own words) and the
/// closing tags.
std::string HtmlPageEnd(std::string_view footer);

}  // namespace workgate
