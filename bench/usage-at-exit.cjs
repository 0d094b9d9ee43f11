// Preloaded into every whole-process measurement of `npm run bench` (node --require): at exit the process
// writes its own CPU time (user + system since it started, bootstrap included) and peak RSS as one JSON
// line to stderr, prefixed so bench/run.mjs can find it. Wall time is taken by the parent around the spawn.
"use strict";
process.on("exit", () => {
	const u = process.cpuUsage();
	process.stderr.write(`\n@@arbor-bench-usage ${JSON.stringify({ cpuMs: (u.user + u.system) / 1000, rssMiB: process.resourceUsage().maxRSS / 1024 })}\n`);
});
