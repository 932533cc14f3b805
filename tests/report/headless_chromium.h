#pragma once
// Headless Chromium on one of workgate's pages, for the browser tests
// (history_browser_test.cc, flame_graph_browser_test.cc). It runs through
// workgate's launcher, which bounds its time and leaves none of its
// processes behind.

#include <string>
#include <vector>

#include "launch/launch.h"
#include "util/paths.h"

namespace workgate::testing {

/// Chromium (`chromium`, the executable) on the page at `page`, with `args`
/// (--dump-dom, --screenshot=...), run in `dir`; its profile in a fresh
/// directory that is removed afterwards; at most 120 s.
inline LaunchResult HeadlessChromium(const std::string& chromium, const std::string& page,
                                     const std::string& dir,
                                     const std::vector<std::string>& args) {
  TempDir profile("workgate-chromium");
  LaunchSpec spec;
  spec.argv = {chromium,
               "--headless",
               "--no-sandbox",
               "--disable-gpu",
               "--no-first-run",
               "--disable-background-networking",
               "--disable-component-update",
               "--disable-sync",
               "--user-data-dir=" + profile.path()};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.argv.push_back("file://" + page);
  spec.env = MinimalEnvironment(dir);
  spec.cwd = dir;
  spec.timeout_seconds = 120;
  spec.no_aslr = false;  // nothing here is counted
  return Launch(spec);
}

}  // namespace workgate::testing
