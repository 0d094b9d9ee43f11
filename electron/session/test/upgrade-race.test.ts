// The legacy upgrade replaces the whole file; another writer may append while it runs. Appends made between
// reading the file and replacing it must not be lost: the upgrade notices the change and starts again, or
// (an append in the instant between its last check and the rename) reads the late lines back from the old
// file. Deterministic: the real renameSync / linkSync are wrapped to append a line at exactly those moments.
// A real writer appending every 2 ms runs below as well.
import { spawn } from "node:child_process";
import { afterEach, describe, expect, it, vi } from "vitest";

const hook = { onBakLink: 0, onRename: 0, replace: 0, file: "" };
let counter = 0;
const line = () => `{"type":"message","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"late-${++counter}-end","timestamp":1}}\n`;

vi.mock("node:fs", async (importOriginal) => {
	const real = await importOriginal<typeof import("node:fs")>();
	const linkSync = ((src: string, dst: string) => {
		if (hook.onBakLink > 0 && hook.file && String(dst).startsWith(`${hook.file}.bak`)) {
			hook.onBakLink--;
			real.appendFileSync(hook.file, line());
		}
		if (hook.replace > 0 && hook.file && String(dst).startsWith(`${hook.file}.bak`)) {
			// Someone else atomically rewrites the file (a new inode with the same content).
			hook.replace--;
			const tmp = `${hook.file}.other`;
			real.writeFileSync(tmp, real.readFileSync(hook.file));
			real.renameSync(tmp, hook.file);
		}
		return real.linkSync(src, dst);
	}) as typeof real.linkSync;
	const renameSync = ((src: string, dst: string) => {
		if (hook.onRename > 0 && String(dst) === hook.file) {
			hook.onRename--;
			real.appendFileSync(hook.file, line());
		}
		return real.renameSync(src, dst);
	}) as typeof real.renameSync;
	return { ...real, linkSync, renameSync, default: { ...real, linkSync, renameSync } };
});

const fs = await import("node:fs");
const { join } = await import("node:path");
const { SessionManager } = await import("../index");
const { fixtureCopy } = await import("./helpers");
const { coreBundle } = await import("./helpers/probe");

function lateLinesIn(file: string): string[] {
	return [...fs.readFileSync(file, "utf8").matchAll(/late-(\d+)-end/g)].map((m) => m[1]);
}

describe("legacy upgrade while another writer appends", () => {
	afterEach(() => {
		hook.onBakLink = 0;
		hook.onRename = 0;
		hook.replace = 0;
		hook.file = "";
	});

	it("an append after the file was read (before the replace): it is read back from the old file and kept", () => {
		const f = fixtureCopy("pi-mono__large-session.v1.jsonl");
		const sm = SessionManager.open(f);
		const before = sm.getEntryCount();
		hook.file = f;
		hook.onBakLink = 1;
		const start = counter;
		const bak = sm.upgradeLegacy();
		expect(lateLinesIn(f)).toEqual([String(start + 1)]);
		const re = SessionManager.open(f);
		expect(re.getFileVersion()).toBe(3);
		expect(re.getEntryCount()).toBe(before + 1);
		// One backup: the original as it was read.
		expect(fs.readdirSync(join(f, "..")).filter((n) => n.includes(".bak"))).toEqual([bak.split("/").pop()]);
		expect(lateLinesIn(bak)).toEqual([]);
	});

	it("an append in the instant before the rename: the late line is read back from the old file and kept", () => {
		const f = fixtureCopy("pi-mono__large-session.v1.jsonl");
		const sm = SessionManager.open(f);
		const before = sm.getEntryCount();
		hook.file = f;
		hook.onRename = 1;
		const start = counter;
		sm.upgradeLegacy();
		expect(lateLinesIn(f)).toEqual([String(start + 1)]);
		const re = SessionManager.open(f);
		expect(re.getEntryCount()).toBe(before + 1);
		expect(re.getWarnings().filter((w) => w.kind === "malformed_line" || w.kind === "truncated_last_line")).toEqual([]);
	});

	it("a file replaced (not appended to) during every attempt: after 5 attempts the upgrade is refused and nothing else changed", () => {
		const f = fixtureCopy("pi-mono__large-session.v1.jsonl");
		const sm = SessionManager.open(f);
		hook.file = f;
		hook.replace = 100;
		expect(() => sm.upgradeLegacy()).toThrow(/during the upgrade/);
		hook.replace = 0;
		expect(fs.readdirSync(join(f, "..")).filter((n) => n.includes(".bak"))).toEqual([]);
		expect(SessionManager.open(f).getFileVersion()).toBe(1);
	});

	it("a real writer appending every 2 ms during the upgrade: no line is lost", async () => {
		const f = fixtureCopy("pi-mono__large-session.v1.jsonl");
		const stop = join(f, "..", "stop");
		const script = `
const fs = await import("node:fs");
let n = 0;
while (!fs.existsSync(${JSON.stringify(stop)})) {
	fs.appendFileSync(process.env.F, '{"type":"message","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"w-' + (++n) + '-end","timestamp":1}}\\n');
	process.stdout.write(n + "\\n");
	// The writer's pace (one line every 2 ms), not a wait for anything.
	await new Promise((r) => setTimeout(r, 2));
}`;
		const child = spawn(process.execPath, ["--input-type=module", "-e", script], { env: { ...process.env, F: f }, stdio: ["ignore", "pipe", "inherit"] });
		// The writer reports each line once it is in the file: the test waits on those reports, never on a clock.
		let written = 0;
		let waiting: { until: number; go: () => void } | null = null;
		let partial = "";
		child.stdout.on("data", (d: Buffer) => {
			const lines = (partial + d.toString()).split("\n");
			partial = lines.pop() ?? "";
			for (const l of lines) if (l) written = Number(l);
			if (waiting && written >= waiting.until) waiting.go();
		});
		const linesWritten = (until: number) =>
			new Promise<void>((go) => {
				if (written >= until) go();
				else waiting = { until, go };
			});
		// "close": the writer's last report has been read too.
		const done = new Promise((r) => child.once("close", r));
		// Appends are under way before the upgrade starts.
		await linesWritten(5);
		// The upgrade runs in its own process too (the core bundle), as the app would.
		const up = spawn(
			process.execPath,
			[
				"--input-type=module",
				"-e",
				`
const core = await import(${JSON.stringify(coreBundle())});
let ok = 0, refused = 0;
for (;;) { try { core.SessionManager.open(process.env.F).upgradeLegacy(); ok++; break; } catch (e) { if (/kept replacing/.test(e.message)) { refused++; if (refused > 20) break; } else throw e; } }
process.stdout.write(JSON.stringify({ ok, refused }));`,
			],
			{ env: { ...process.env, F: f }, stdio: ["ignore", "pipe", "inherit"] },
		);
		let upOut = "";
		up.stdout.on("data", (d: Buffer) => (upOut += d.toString()));
		expect(await new Promise((r) => up.once("exit", r))).toBe(0);
		// And go on after it: lines appended to the upgraded file must be kept too.
		const atUpgradeEnd = written;
		await linesWritten(atUpgradeEnd + 5);
		fs.writeFileSync(stop, "");
		await done;
		expect(written).toBeGreaterThan(10);
		const text = fs.readFileSync(f, "utf8");
		const missing: number[] = [];
		for (let k = 1; k <= written; k++) if (!text.includes(`"w-${k}-end"`)) missing.push(k);
		expect({ missing, upgrade: JSON.parse(upOut) }).toEqual({ missing: [], upgrade: { ok: 1, refused: 0 } });
		expect(SessionManager.open(f).getFileVersion()).toBe(3);
	}, 60_000);
});
