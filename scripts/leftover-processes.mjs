#!/usr/bin/env node
// No test leaves a process behind (issue 39 item 5). `npm test` (scripts/test-all.mjs) gives every runner a
// marker, ARBOR_TEST_RUN=<random>, which every process a test starts inherits; once the runners are done, any
// process still carrying it is a process a test left running: each one is a failed check naming its command
// line, and is killed. The environment a process started with is read from /proc/PID/environ (Linux).
//
// A test that builds a child's environment from scratch passes ARBOR_TEST_RUN on (build/test/start.test.ts,
// electron/cli/test/helpers.ts arborInEnv, the real-pi helper); what such a child leaves would go unseen otherwise.
//
//   node scripts/leftover-processes.mjs MARKER [--grace MS]   prints and kills what carries MARKER; exit 1 if any
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const TEST_RUN_VAR = "ARBOR_TEST_RUN";

export function newTestRunMarker() {
	return randomBytes(12).toString("hex");
}

function environOf(pid) {
	try {
		return readFileSync(`/proc/${pid}/environ`).toString("utf8").split("\0");
	} catch {
		return []; // gone, or another user's
	}
}

function commandOf(pid) {
	try {
		const words = readFileSync(`/proc/${pid}/cmdline`).toString("utf8").split("\0").filter(Boolean);
		return words.join(" ");
	} catch {
		return "";
	}
}

const carries = (pid, entry) => environOf(pid).includes(entry);

/** Processes (not `exclude`) whose starting environment holds exactly ARBOR_TEST_RUN=marker. */
export function processesCarrying(marker, exclude = [process.pid]) {
	if (!marker) throw new Error("no marker");
	const entry = `${TEST_RUN_VAR}=${marker}`;
	const out = [];
	for (const name of readdirSync("/proc")) {
		if (!/^\d+$/.test(name)) continue;
		const pid = Number(name);
		if (exclude.includes(pid) || !carries(pid, entry)) continue;
		out.push({ pid, command: commandOf(pid) || "(no command line)" });
	}
	return out;
}

/** SIGKILL each listed process that still carries the marker (a pid reused meanwhile is left alone). */
export function killCarrying(list, marker) {
	const entry = `${TEST_RUN_VAR}=${marker}`;
	for (const { pid } of list) {
		if (!carries(pid, entry)) continue;
		try {
			process.kill(pid, "SIGKILL");
		} catch {
			// gone meanwhile
		}
	}
}

/**
 * What carries `marker` once a process that is just ending had `graceMs` to go (a server a test stopped in its
 * last moment); those left are killed and returned.
 */
export async function leftoverCheck(marker, { graceMs = 5000, exclude = [process.pid] } = {}) {
	const end = Date.now() + graceMs;
	let left = processesCarrying(marker, exclude);
	while (left.length > 0 && Date.now() < end) {
		await new Promise((r) => setTimeout(r, 100));
		left = processesCarrying(marker, exclude);
	}
	killCarrying(left, marker);
	return left;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
	const [marker] = process.argv.slice(2);
	const graceAt = process.argv.indexOf("--grace");
	const graceMs = graceAt > 0 ? Number(process.argv[graceAt + 1]) : 5000;
	if (!marker || marker.startsWith("-")) {
		process.stderr.write("usage: node scripts/leftover-processes.mjs MARKER [--grace MS]\n");
		process.exit(2);
	}
	const left = await leftoverCheck(marker, { graceMs });
	for (const p of left) process.stdout.write(`left running by a test (killed): pid ${p.pid}: ${p.command}\n`);
	process.stdout.write(`leftover processes: ${left.length}\n`);
	process.exit(left.length > 0 ? 1 : 0);
}
