// pi 1.6.0's own example extensions, from the installed package, in Arbor's host: every one loads.

import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ExtensionHost, type HostBindings } from "../extensions/host";
import type { ExtensionFailure } from "../extensions/types";
import { branchySession, tempDir, writeSession } from "./helpers/entries";
import { makeServices, type TestServices } from "./helpers/services";

const ROOT = path.resolve(__dirname, "../../..");
const EXAMPLES = path.join(ROOT, "node_modules/@earendil-works/pi-coding-agent/examples/extensions");

const noBindings: HostBindings = { appendEntry: () => {}, setLabel: () => {}, setSessionName: () => {}, getSessionName: () => undefined, notify: () => {} };

/** Each example as pi's README counts them: a top-level module file, or a folder. */
function examples(): string[] {
	return fs
		.readdirSync(EXAMPLES)
		.filter((n) => n.endsWith(".ts") || fs.statSync(path.join(EXAMPLES, n)).isDirectory())
		.sort();
}

/** The npm dependencies three examples declare in their package.json, as `npm install` in their folder gives them. */
function installDependencies(examplesDir: string): void {
	const link = (example: string, name: string): void => {
		const dest = path.join(examplesDir, example, "node_modules", name);
		fs.mkdirSync(path.dirname(dest), { recursive: true });
		fs.symlinkSync(path.join(ROOT, "node_modules", name), dest, "dir");
	};
	link("with-deps", "ms");
	link("custom-provider-anthropic", "@anthropic-ai/sdk");
	// @earendil-works/gondolin (a micro-VM) is not in Arbor's tree: a stand-in package with its two classes.
	const gondolin = path.join(examplesDir, "gondolin", "node_modules", "@earendil-works", "gondolin");
	fs.mkdirSync(gondolin, { recursive: true });
	fs.writeFileSync(path.join(gondolin, "package.json"), JSON.stringify({ name: "@earendil-works/gondolin", version: "0.14.0", main: "index.js" }));
	fs.writeFileSync(path.join(gondolin, "index.js"), "class VM {}\nclass RealFSProvider {}\nmodule.exports = { VM, RealFSProvider };\n");
}

let t: TestServices | undefined;
afterEach(() => t?.services.dispose());

describe("pi 1.6.0's 78 example extensions", () => {
	it("are all there", () => {
		expect(examples().length).toBe(78);
	});

	it("load from the installed package; the one whose npm dependency is not installed says so", async () => {
		const failures: ExtensionFailure[] = [];
		const host = new ExtensionHost({
			dirs: [],
			paths: examples().map((n) => path.join(EXAMPLES, n)),
			onFailure: (f) => failures.push(f),
			bindings: noBindings,
		});
		await host.ready();
		expect(failures.map((f) => `${path.relative(EXAMPLES, f.extension)}: ${f.message}`)).toEqual([
			`gondolin/index.ts: its dependency @earendil-works/gondolin is not installed: run \`npm install\` in ${path.join(EXAMPLES, "gondolin")} (pi needs it too)`,
		]);
		expect(host.extensions.length).toBe(77);
	}, 120_000);

	it("all 78 load without an error from a pi user's extensions folder, with their dependencies installed, once enabled", async () => {
		const home = tempDir("arbor-home-");
		const piAgentDir = path.join(home, ".pi", "agent");
		const dir = path.join(piAgentDir, "extensions");
		fs.cpSync(EXAMPLES, dir, { recursive: true });
		installDependencies(dir);
		t = makeServices({ piAgentDir, settingsDir: path.join(home, ".arbor") });
		const found = await t.services.listExtensions({});
		expect(found.extensions.length).toBe(78);
		expect(found.extensions.some((e) => e.loaded || e.enabled)).toBe(false);
		// The user enables one in the app, then (remembered in ~/.arbor/settings.json) all of them.
		const one = await t.services.setExtensionEnabled({ path: path.join(dir, "hello.ts"), enabled: true });
		expect(one.extensions.filter((e) => e.loaded).map((e) => e.name)).toEqual(["hello.ts"]);
		t.services.dispose();
		fs.writeFileSync(path.join(home, ".arbor", "settings.json"), JSON.stringify({ enabledExtensions: found.extensions.map((e) => e.path) }));
		t = makeServices({ piAgentDir, settingsDir: path.join(home, ".arbor") });
		const listing = await t.services.listExtensions({});
		expect(listing.extensions.filter((e) => !e.loaded).map((e) => `${e.name}: ${e.error}`)).toEqual([]);
		expect(listing.extensions.filter((e) => e.loaded).length).toBe(78);
		expect(t.of("error")).toEqual([]);
		// Their commands are Arbor's commands now.
		expect((await t.services.listCommands({})).map((c) => c.name)).toEqual(expect.arrayContaining(["handoff", "todos", "preset"]));

		// A session opens (session_start: their set-up, widgets, status lines), the user navigates with the
		// examples' tree hooks in place, then the extensions reload as when the user ticks one in Settings ▸
		// Extensions (session_shutdown, session_start again).
		const file = writeSession(tempDir(), branchySession());
		const s = await t.services.openSession({ path: file });
		const nav = await t.services.navigate({ sessionId: s.sessionId, targetId: "a4" });
		expect(nav.cancelled).toBe(false);
		const ticked = listing.extensions.find((e) => e.loaded);
		if (!ticked) throw new Error("no loaded extension");
		await t.services.setExtensionEnabled({ path: ticked.path, enabled: true });
		await t.services.navigate({ sessionId: s.sessionId, targetId: "a3" });
		// What fails is the examples' own work, each time with a clear message: a shell command (pi.exec is
		// not available in Arbor), a file to watch that is not there (as in pi), the stand-in micro-VM.
		// (file-trigger watches /tmp/agent-trigger.txt, which another program may have created: not asserted.)
		const failures = [...new Set(t.of("error").map((e) => e.error.message))].filter((m) => !m.startsWith("Extension file-trigger.ts ")).sort();
		expect(failures).toEqual([
			"Extension auto-commit-on-exit.ts failed in session_shutdown: pi.exec is not available in Arbor: Arbor does not run shell commands for extensions",
			"Extension github-issue-autocomplete.ts failed in session_start: pi.exec is not available in Arbor: Arbor does not run shell commands for extensions",
			"Extension index.ts failed in session_start: _gondolin.VM.create is not a function",
		]);
	}, 120_000);
});
