#pragma once
// The lists the documents make promises with, read by the tests that keep
// them: a list between "<!-- NAME: begin -->" and "<!-- NAME: end -->" in a
// page, each item starting with its name in bold ("- **build digest**: ...").

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "test_paths.h"

namespace workgate::testing {

/// The bold names of list `name` in the page at `page` (relative to the
/// source tree), each item's names in order; fails the test when the list
/// is not there.
inline std::set<std::string> DocumentedItems(const std::string& page, const std::string& name) {
  std::ifstream in(SourcePath(page));
  std::stringstream text;
  text << in.rdbuf();
  const std::string all = text.str();
  const std::string begin = "<!-- " + name + ": begin -->", end = "<!-- " + name + ": end -->";
  const size_t from = all.find(begin), to = all.find(end);
  EXPECT_NE(from, std::string::npos) << page << " has no list " << name;
  EXPECT_NE(to, std::string::npos) << page << " has no end of list " << name;
  std::set<std::string> items;
  if (from == std::string::npos || to == std::string::npos || to < from) return items;
  const std::string list = all.substr(from, to - from);
  static const std::regex bold(R"(\*\*([^*]+)\*\*)");
  std::istringstream lines(list);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("- ", 0) != 0) continue;
    // The item's names: the bold words before its first colon.
    const std::string head = line.substr(0, line.find("**:") + 2);
    for (std::sregex_iterator it(head.begin(), head.end(), bold), stop; it != stop; ++it) {
      items.insert((*it)[1]);
    }
  }
  return items;
}

}  // namespace workgate::testing
