// SPDX-License-Identifier: Apache-2.0
// Runs the web build's gpuplan.js under node as the page does: main once per command line, with
// standard output and error collected. Used by tests/web/compare.sh.
//   node tests/web/run.js build-web/web/gpuplan.js FILE
// FILE holds one command line a line (words separated by tabs); the answer is a JSON array of
// {args, rc, out, err}.
"use strict";
const fs = require("fs");
const path = require("path");
const [js, file] = process.argv.slice(2);
let out = [], err = [];
global.Module = {
  print: s => out.push(s),
  printErr: s => err.push(s),
  onRuntimeInitialized: () => {
    const answers = [];
    for (const line of fs.readFileSync(file, "utf8").split("\n").filter(l => l.length > 0)) {
      const args = line.split("\t");
      // A file named on the command line (a plan) is copied into the page's in-memory file
      // system at the same path, as the page writes a pasted plan there.
      for (const a of args)
        if (a.startsWith("/") && fs.existsSync(a) && fs.statSync(a).isFile()) {
          Module.FS.mkdirTree(path.dirname(a));
          Module.FS.writeFile(a, fs.readFileSync(a));
        }
      out = [], err = [];
      const rc = Module.callMain(args);
      answers.push({args, rc, out: out.join("\n"), err: err.join("\n")});
    }
    process.stdout.write(JSON.stringify(answers));
    process.exitCode = 0;  // emscripten leaves the last command's exit code here under node
  },
};
// Evaluated as the page's <script> is, in the global scope, so that it finds Module above
// (require would give it a module scope whose own Module hides it).
global.require = require;
global.__dirname = path.dirname(path.resolve(js));
global.__filename = path.resolve(js);
require("vm").runInThisContext(fs.readFileSync(js, "utf8"), {filename: path.resolve(js)});
