#!/usr/bin/env node
// The `arbor` command. The CLI is bundled to dist/cli.cjs by `npm install` (the prepare script); if that
// bundle is missing (e.g. a checkout without install scripts), build it once on the spot. `arbor context`
// first tries dist/cli-context.cjs, a small bundle of the path-only reader alone (loading the whole CLI
// would cost it a sixth of its CPU); it hands every case it does not answer to the whole CLI.
"use strict";
const { existsSync, readFileSync } = require("node:fs");
const { join } = require("node:path");
const { execFileSync } = require("node:child_process");

// Arbor's floor is package.json's engines.node (pi 1.6's own): an older Node gets one line, not a stack
// trace from inside the bundle. Kept to syntax any Node parses.
const engines = JSON.parse(readFileSync(join(__dirname, "..", "package.json"), "utf8")).engines.node;
const floor = /(\d+)\.(\d+)/.exec(engines).slice(1).map(Number);
const running = process.versions.node.split(".").map(Number);
if (running[0] < floor[0] || (running[0] === floor[0] && running[1] < floor[1])) {
	process.stderr.write("arbor: Node.js " + process.versions.node + " is too old; Arbor needs Node.js " + floor.join(".") + " or newer.\n");
	process.exit(1);
}

const dist = join(__dirname, "..", "dist");
const cli = join(dist, "cli.cjs");
const lean = join(dist, "cli-context.cjs");
if (!existsSync(cli) || !existsSync(lean)) {
	execFileSync(process.execPath, [join(__dirname, "..", "build", "build-main.mjs")], { stdio: "inherit" });
}
// eslint-disable-next-line arbor/layers -- the built CLI bundle, whose path is computed next to this launcher
const runCli = () => require(cli);
if (process.argv[2] === "context") {
	// eslint-disable-next-line arbor/layers -- the built bundle of `arbor context`, next to the CLI's
	require(lean)
		.contextFast(process.argv.slice(3))
		.then((done) => {
			if (!done) runCli();
		});
} else runCli();
