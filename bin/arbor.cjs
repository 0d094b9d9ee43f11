#!/usr/bin/env node
// The `arbor` command. The CLI is bundled to dist/cli.cjs by `npm install` (the prepare script); if that
// bundle is missing (e.g. a checkout without install scripts), build it once on the spot.
"use strict";
const { existsSync } = require("node:fs");
const { join } = require("node:path");
const { execFileSync } = require("node:child_process");

const cli = join(__dirname, "..", "dist", "cli.cjs");
if (!existsSync(cli)) {
	execFileSync(process.execPath, [join(__dirname, "..", "build", "build-main.mjs")], { stdio: "inherit" });
}
// eslint-disable-next-line arbor/layers -- the built CLI bundle, whose path is computed next to this launcher
require(cli);
