// pi 1.6's extensions as a pi user has them (a temp pi agent folder): found as pi finds them, run only
// once enabled, the choice remembered; pi 1.6's session_start / session_info_changed events.

import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { discoverPiExtensions } from "../extensions/discovery";
import { branchySession, tempDir, writeSession } from "./helpers/entries";
import { makeServices, readLines, type TestServices } from "./helpers/services";

let t: TestServices | undefined;
afterEach(() => t?.services.dispose());

function write(file: string, text: string): void {
	fs.mkdirSync(path.dirname(file), { recursive: true });
	fs.writeFileSync(file, text);
}

const cmd = (name: string) => `export default function (pi) { pi.registerCommand("${name}", { handler: async () => {} }); }`;

/** A pi agent folder with an extension in every place pi 1.6 looks. */
function piAgentDir(): string {
	const dir = tempDir("arbor-pi-agent-");
	const ext = path.join(dir, "extensions");
	write(path.join(ext, "a-file.ts"), cmd("a-file"));
	write(path.join(ext, "b-file.js"), cmd("b-file"));
	write(path.join(ext, "notes.md"), "not an extension");
	write(path.join(ext, "types.d.ts"), "export {};");
	write(path.join(ext, ".hidden.ts"), cmd("hidden"));
	write(path.join(ext, "c-dir", "index.ts"), cmd("c-dir"));
	write(path.join(ext, "d-pkg", "package.json"), JSON.stringify({ name: "d", pi: { extensions: ["./src/main.ts", "./missing.ts"] } }));
	write(path.join(ext, "d-pkg", "src", "main.ts"), cmd("d-pkg"));
	write(path.join(ext, "d-pkg", "index.ts"), cmd("d-index-not-used"));
	write(path.join(ext, "e-empty", "readme.md"), "no entry");
	// settings.json: an `extensions` path list and `packages` (npm installed, npm missing, git installed, local)
	write(path.join(dir, "extra", "listed.ts"), cmd("listed"));
	write(
		path.join(dir, "npm", "node_modules", "@acme", "pi-tools", "package.json"),
		JSON.stringify({ name: "@acme/pi-tools", pi: { extensions: ["./ext.ts"] } }),
	);
	write(path.join(dir, "npm", "node_modules", "@acme", "pi-tools", "ext.ts"), cmd("npm-tool"));
	write(path.join(dir, "git", "github.com", "acme", "pi-git", "extensions", "g.ts"), cmd("git-tool"));
	write(path.join(dir, "local-pkg", "extensions", "l.js"), cmd("local-tool"));
	write(
		path.join(dir, "settings.json"),
		JSON.stringify({
			extensions: ["extra/listed.ts", "!extensions/b-file.js", "./nope.ts"],
			packages: ["npm:@acme/pi-tools@1.2.3", "npm:not-installed", "git:github.com/acme/pi-git@v1", { source: "./local-pkg" }],
		}),
	);
	return dir;
}

describe("pi 1.6 extension discovery", () => {
	it("finds what pi finds: packages, then the settings list, then <agentDir>/extensions", () => {
		const dir = piAgentDir();
		const found = discoverPiExtensions(dir);
		const rel = (p: string) => path.relative(dir, p);
		expect(found.entries.map((e) => [rel(e.path), e.origin, e.package ?? ""])).toEqual([
			["npm/node_modules/@acme/pi-tools/ext.ts", "pi-package", "npm:@acme/pi-tools@1.2.3"],
			["git/github.com/acme/pi-git/extensions/g.ts", "pi-package", "git:github.com/acme/pi-git@v1"],
			["local-pkg/extensions/l.js", "pi-package", "./local-pkg"],
			["extra/listed.ts", "pi-settings", ""],
			["extensions/a-file.ts", "pi", ""],
			["extensions/b-file.js", "pi", ""],
			["extensions/c-dir/index.ts", "pi", ""],
			["extensions/d-pkg/src/main.ts", "pi", ""],
		]);
		expect(found.missing).toEqual([
			{ source: "npm:not-installed", reason: "not installed (run `pi install` or start pi once)" },
			{ source: "./nope.ts", reason: "no such file or folder" },
		]);
	});

	it("loads none of them until the user enables one; the choice is remembered; only found paths can be enabled", async () => {
		const dir = piAgentDir();
		t = makeServices({ piAgentDir: dir });
		const before = await t.services.listExtensions({});
		expect(before.extensions.length).toBe(8);
		expect(before.extensions.every((e) => !e.enabled && !e.loaded)).toBe(true);
		expect(await t.services.listCommands({})).toEqual([]);

		const target = path.join(dir, "extensions", "c-dir", "index.ts");
		const after = await t.services.setExtensionEnabled({ path: target, enabled: true });
		expect(after.extensions.filter((e) => e.loaded).map((e) => [e.name, e.origin, e.commands])).toEqual([["c-dir", "pi", ["c-dir"]]]);
		expect((await t.services.listCommands({})).map((c) => c.name)).toEqual(["c-dir"]);
		expect(t.of("commands_changed").length).toBeGreaterThan(0);

		// Not something discovery found (a file the renderer made up): refused, nothing stored.
		const stray = path.join(tempDir(), "evil.ts");
		write(stray, cmd("evil"));
		await expect(t.services.setExtensionEnabled({ path: stray, enabled: true })).rejects.toMatchObject({ code: "not_found" });
		// setSettings cannot smuggle one in either.
		await t.services.setSettings({ settings: { enabledExtensions: [stray] } as never });

		const settingsDir = t.settingsDir;
		t.services.dispose();
		t = makeServices({ piAgentDir: dir, settingsDir });
		expect((await t.services.listCommands({})).map((c) => c.name)).toEqual(["c-dir"]);
		const off = await t.services.setExtensionEnabled({ path: target, enabled: false });
		expect(off.extensions.some((e) => e.loaded)).toBe(false);
		expect(await t.services.listCommands({})).toEqual([]);
	});

	it("lists a pi extension that fails to load with its error", async () => {
		const dir = tempDir("arbor-pi-agent-");
		write(path.join(dir, "extensions", "broken.ts"), `export default function () { throw new Error("kaput in factory"); }`);
		t = makeServices({ piAgentDir: dir });
		const r = await t.services.setExtensionEnabled({ path: path.join(dir, "extensions", "broken.ts"), enabled: true });
		expect(r.extensions).toMatchObject([{ name: "broken.ts", origin: "pi", enabled: true, loaded: false, error: "kaput in factory" }]);
	});
});

describe("pi 1.6 session events", () => {
	it("session_start when a session opens (startup, then resume), session_info_changed when its name changes", async () => {
		const base = tempDir("arbor-ext-home-");
		write(
			path.join(base, "arbor", "extensions", "watch.js"),
			`export default function (pi) {
				pi.on("session_start", (e, ctx) => { pi.appendEntry("started", { reason: e.reason, name: ctx.sessionManager.getSessionName() ?? null }); });
				pi.on("session_info_changed", (e) => { pi.appendEntry("renamed", { name: e.name ?? null }); });
				pi.registerCommand("rename", { handler: async (args) => pi.setSessionName(args) });
			}`,
		);
		t = makeServices({ settingsDir: path.join(base, "arbor") });
		const one = writeSession(tempDir(), branchySession(), "one.jsonl");
		const two = writeSession(tempDir(), branchySession(), "two.jsonl");
		const s1 = await t.services.openSession({ path: one });
		const s2 = await t.services.openSession({ path: two });
		await expect
			.poll(() =>
				readLines(one)
					.filter((l) => l.customType === "started")
					.map((l) => l.data),
			)
			.toEqual([{ reason: "startup", name: null }]);
		await expect
			.poll(() =>
				readLines(two)
					.filter((l) => l.customType === "started")
					.map((l) => l.data),
			)
			.toEqual([{ reason: "resume", name: null }]);

		await t.services.runExtensionCommand({ sessionId: s1.sessionId, name: "rename", args: "Tokenizer" });
		await expect
			.poll(() =>
				readLines(one)
					.filter((l) => l.customType === "renamed")
					.map((l) => l.data),
			)
			.toEqual([{ name: "Tokenizer" }]);

		// Another process (pi in a terminal) renames the second session: extensions hear it too.
		const last = readLines(two).at(-1) as { id: string };
		fs.appendFileSync(
			two,
			`${JSON.stringify({ type: "session_info", id: "zz99", parentId: last.id, timestamp: new Date().toISOString(), name: "From pi" })}\n`,
		);
		await t.services.getSkeleton({ sessionId: s2.sessionId });
		await t.services.appendUserMessage({ sessionId: s2.sessionId, text: "hello" });
		await expect
			.poll(() =>
				readLines(two)
					.filter((l) => l.customType === "renamed")
					.map((l) => l.data),
			)
			.toEqual([{ name: "From pi" }]);
	});

	it('an extension enabled while a session is open hears session_start with reason "reload"', async () => {
		const dir = tempDir("arbor-pi-agent-");
		const ext = path.join(dir, "extensions", "setup.ts");
		write(ext, `export default function (pi) { pi.on("session_start", (e) => pi.appendEntry("setup", { reason: e.reason })); }`);
		t = makeServices({ piAgentDir: dir });
		const file = writeSession(tempDir(), branchySession());
		await t.services.openSession({ path: file });
		await t.services.setExtensionEnabled({ path: ext, enabled: true });
		await expect
			.poll(() =>
				readLines(file)
					.filter((l) => l.customType === "setup")
					.map((l) => l.data),
			)
			.toEqual([{ reason: "reload" }]);
	});
});
