// Torn appends and the append marker (write.ts): reading never changes a byte; a torn line of Arbor's own is
// cut only by Arbor's next write, only when its dead writer's marker proves those exact bytes are its own.
// Real child processes: a writer paused in the middle of a 1 MB write, writers killed at chosen bytes, two
// Arbor processes at once, and pi (1.6 and 0.73) appending in between.
import { spawn } from "node:child_process";
import { existsSync, lstatSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync, appendFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { SessionManager as Pi073 } from "@mariozechner/pi-coding-agent";
import { afterAll, describe, expect, it } from "vitest";
import { SessionManager } from "../index";
import { MARKER_HEADER_BYTES, appendMarkerPath } from "../write";
import { fixtureCopy } from "./helpers";
import { cleanupTempDirs, REPO_ROOT, tempDir } from "./helpers/files";
import { coreBundle, runPausedAfter } from "./helpers/probe";

const FIXTURE = "formic__pi-v3-branch-compaction.jsonl";
const BIG = 1_000_000;
const bigMessage = (n: number) => `sm.appendMessage({ role: "user", content: "m".repeat(${n}), timestamp: 1 });`;

// eslint-disable-next-line arbor/layers -- pi 1.6's dist/core by path (its exports map hides it)
const pi16 = (await import(join(REPO_ROOT, "node_modules/@earendil-works/pi-coding-agent/dist/core/session-manager.js"))) as {
	SessionManager: { open(path: string, dir?: string): { appendMessage(m: unknown): string; getEntries(): { id: string }[] } };
};

afterAll(() => cleanupTempDirs());

/** Everything a reader does: open, walk, catch up, close. Must never change the file or remove the marker. */
function readEverything(file: string): void {
	const sm = SessionManager.open(file);
	sm.getTree();
	sm.getEntries();
	sm.getSkeleton();
	sm.buildSessionContext();
	sm.catchUp();
	sm.close();
	SessionManager.open(file, { lazy: true }).close();
}

function ids(file: string): string[] {
	return SessionManager.open(file)
		.getEntries()
		.map((e) => String(e.id));
}

describe("reading never changes a byte", () => {
	it("a marker in the old format with a partial last line: open leaves file and marker as they are (the old open cut pi's bytes)", () => {
		const f = fixtureCopy(FIXTURE);
		const original = readFileSync(f);
		// What an ENOSPC before the first byte used to leave: a marker naming the size; then pi is mid-line.
		writeFileSync(appendMarkerPath(f), `${original.length} 121\n`);
		appendFileSync(f, '{"type":"message","id":"pi1","parentId":null,"timestamp":"2026-01-01T00:00:09.000Z","mes');
		const before = readFileSync(f);
		readEverything(f);
		expect(readFileSync(f).equals(before)).toBe(true);
		expect(existsSync(appendMarkerPath(f))).toBe(true);
	});

	it("a 1 MB append paused part-way (a writer still in its write()): opening in between keeps every byte, the writer finishes its line", async () => {
		const f = fixtureCopy(FIXTURE);
		const original = readFileSync(f);
		const run = runPausedAfter(f, 300_000, bigMessage(BIG));
		await run.paused;
		const mid = readFileSync(f);
		expect(mid.length).toBe(original.length + 300_000);
		for (let i = 0; i < 3; i++) readEverything(f);
		expect(readFileSync(f).equals(mid)).toBe(true);
		expect(await run.release()).toBe(0);
		const after = readFileSync(f);
		expect(after.subarray(0, original.length).equals(original)).toBe(true);
		expect(after.length).toBeGreaterThan(original.length + BIG);
		expect(after[after.length - 1]).toBe(0x0a);
		expect(ids(f).length).toBe(ids(fixtureCopy(FIXTURE)).length + 1);
		expect(existsSync(appendMarkerPath(f))).toBe(false);
	});
});

describe("two Arbor processes: one appends 1 MB lines, one opens the file in a loop", () => {
	it("loses none of the writer's acknowledged appends", async () => {
		const f = fixtureCopy(FIXTURE);
		const count = 24;
		const script = `
const core = await import(${JSON.stringify(coreBundle())});
const sm = core.SessionManager.open(process.env.F);
for (let i = 0; i < ${count}; i++) {
	const id = sm.appendMessage({ role: "user", content: String(i % 10).repeat(${BIG}), timestamp: i });
	process.stdout.write(id + "\\n");
}`;
		const child = spawn(process.execPath, ["--input-type=module", "-e", script], { env: { ...process.env, F: f }, stdio: ["ignore", "pipe", "inherit"] });
		let out = "";
		child.stdout.on("data", (d: Buffer) => (out += d.toString()));
		const done = new Promise<number | null>((ok) => child.on("exit", (c) => ok(c)));
		let exited = false;
		void done.then(() => (exited = true));
		let opens = 0;
		while (!exited) {
			readEverything(f);
			opens++;
			await new Promise((r) => setImmediate(r));
		}
		expect(await done).toBe(0);
		const acknowledged = out.trim().split("\n");
		expect(acknowledged.length).toBe(count);
		const inFile = new Set(ids(f));
		const lost = acknowledged.filter((id) => !inFile.has(id));
		expect({ lost, opens: opens > 0 }).toEqual({ lost: [], opens: true });
		expect(
			new Set(
				Pi073.open(f, dirname(f))
					.getEntries()
					.map((e) => e.id),
			).size,
		).toBe(inFile.size);
	});
});

describe("a writer killed in the middle of its append", () => {
	for (const cut of [0, 1, 4096, 500_000, BIG - 10]) {
		it(`cut at byte ${cut}: opening changes nothing; Arbor's next write removes exactly the torn bytes`, async () => {
			const f = fixtureCopy(FIXTURE);
			const original = readFileSync(f);
			const before = ids(f);
			const run = runPausedAfter(f, cut, bigMessage(BIG), "kill");
			await run.paused;
			await run.release();
			const torn = readFileSync(f);
			expect(torn.length).toBe(original.length + cut);
			expect(existsSync(appendMarkerPath(f))).toBe(true);
			readEverything(f);
			expect(readFileSync(f).equals(torn)).toBe(true);
			const sm = SessionManager.open(f);
			sm.appendLabelChange(sm.getLeafId()!, "after the kill");
			const now = readFileSync(f);
			expect(now.subarray(0, original.length).equals(original)).toBe(true);
			const added = now.subarray(original.length).toString("utf8");
			expect(added.endsWith("\n")).toBe(true);
			const lines = added.slice(0, -1).split("\n");
			expect(lines.map((l) => JSON.parse(l).type)).toEqual(["label"]);
			expect(ids(f)).toEqual([...before, expect.any(String)]);
			expect(existsSync(appendMarkerPath(f))).toBe(false);
			expect(readdirSync(dirname(f)).filter((n) => n.includes("arbor-append"))).toEqual([]);
		});
	}
});

describe("a dead writer's marker next to a complete line", () => {
	it("the line the marker records is in the file whole (written, then the writer died before removing its marker): Arbor's next write keeps it", async () => {
		const f = fixtureCopy(FIXTURE);
		const original = readFileSync(f);
		const run = runPausedAfter(f, 0, bigMessage(20_000), "kill");
		await run.paused;
		await run.release();
		const marker = appendMarkerPath(f);
		expect(readFileSync(f).equals(original)).toBe(true);
		// The bytes the dead writer was writing, as its marker records them, land whole: the line is finished.
		const line = readFileSync(marker).subarray(MARKER_HEADER_BYTES);
		expect(line[line.length - 1]).toBe(0x0a);
		appendFileSync(f, line);
		const whole = readFileSync(f);
		const finishedId = String(JSON.parse(line.toString("utf8")).id);
		const sm = SessionManager.open(f);
		// Written under the line before it, so the append itself does not depend on the finished line.
		sm.branch(ids(f).at(-2)!);
		sm.appendLabelChange(sm.getLeafId()!, "after a finished line");
		const now = readFileSync(f);
		expect(now.subarray(0, whole.length).equals(whole), "the finished line was cut").toBe(true);
		expect(ids(f)).toContain(finishedId);
		expect(existsSync(marker)).toBe(false);
	});
});

describe("pi writes after Arbor's marker was left behind", () => {
	it("pi 1.6 closes the torn line and appends: Arbor's next write cuts none of pi's bytes", async () => {
		const f = fixtureCopy(FIXTURE);
		const run = runPausedAfter(f, 5000, bigMessage(200_000), "kill");
		await run.paused;
		await run.release();
		const piId = pi16.SessionManager.open(f, dirname(f)).appendMessage({ role: "user", content: "from pi 1.6", timestamp: 2 });
		const afterPi = readFileSync(f);
		readEverything(f);
		expect(readFileSync(f).equals(afterPi)).toBe(true);
		const sm = SessionManager.open(f);
		sm.appendLabelChange(sm.getLeafId()!, "arbor");
		const now = readFileSync(f);
		expect(now.subarray(0, afterPi.length).equals(afterPi)).toBe(true);
		expect(ids(f)).toContain(piId);
		expect(
			pi16.SessionManager.open(f, dirname(f))
				.getEntries()
				.map((e) => e.id),
		).toContain(piId);
		expect(existsSync(appendMarkerPath(f))).toBe(false);
	});

	it("killed before its first byte, then pi is mid-line: neither reading nor Arbor's next write cuts pi's partial bytes", async () => {
		const f = fixtureCopy(FIXTURE);
		const original = readFileSync(f);
		const run = runPausedAfter(f, 0, bigMessage(2000), "kill");
		await run.paused;
		await run.release();
		expect(readFileSync(f).equals(original)).toBe(true);
		expect(existsSync(appendMarkerPath(f))).toBe(true);
		const partial = '{"type":"message","id":"pi-mid","parentId":null,"timestamp":"2026-01-01T00:00:09.000Z","message":{"ro';
		appendFileSync(f, partial);
		readEverything(f);
		expect(readFileSync(f).toString("utf8")).toBe(original.toString("utf8") + partial);
		const sm = SessionManager.open(f);
		sm.appendLabelChange(sm.getLeafId()!, "arbor");
		expect(
			readFileSync(f)
				.toString("utf8")
				.startsWith(original.toString("utf8") + partial),
		).toBe(true);
		expect(existsSync(appendMarkerPath(f))).toBe(false);
	});

	it("pi 0.73 glues its line onto the torn one: Arbor's next write keeps every byte", async () => {
		const f = fixtureCopy(FIXTURE);
		const run = runPausedAfter(f, 3000, bigMessage(50_000), "kill");
		await run.paused;
		await run.release();
		Pi073.open(f, dirname(f)).appendMessage({ role: "user", content: "from pi 0.73", timestamp: 2 });
		const afterPi = readFileSync(f);
		const sm = SessionManager.open(f);
		sm.appendLabelChange(sm.getLeafId()!, "arbor");
		expect(readFileSync(f).subarray(0, afterPi.length).equals(afterPi)).toBe(true);
	});
});

describe("markers that are not a dead Arbor writer's proof", () => {
	it("a symlink planted at the marker path: the append neither follows nor clobbers it", () => {
		const f = fixtureCopy(FIXTURE);
		const victim = join(tempDir("arbor-victim"), "important.txt");
		writeFileSync(victim, "keep me\n");
		const sm = SessionManager.open(f);
		// Planted while the session is open (a reader must not touch it either way).
		symlinkSync(victim, appendMarkerPath(f));
		sm.appendLabelChange(sm.getLeafId()!, "x");
		expect(readFileSync(victim, "utf8")).toBe("keep me\n");
		expect(JSON.parse(readFileSync(f, "utf8").trim().split("\n").pop()!).label).toBe("x");
		expect(existsSync(appendMarkerPath(f)) || isLink(appendMarkerPath(f))).toBe(false);
	});

	it("a marker whose recorded bytes do not match the tail (or whose hash is wrong) is removed, never acted on", async () => {
		for (const damage of ["tail", "hash"] as const) {
			const f = fixtureCopy(FIXTURE);
			const run = runPausedAfter(f, 4000, bigMessage(20_000), "kill");
			await run.paused;
			await run.release();
			const marker = appendMarkerPath(f);
			if (damage === "hash") {
				const m = readFileSync(marker);
				m[m.length - 5] ^= 1;
				writeFileSync(marker, m);
			} else {
				// Someone rewrote the torn bytes in place: same length, different content.
				const b = readFileSync(f);
				b[b.length - 1] = b[b.length - 1] === 0x41 ? 0x42 : 0x41;
				writeFileSync(f, b);
			}
			const torn = readFileSync(f);
			const sm = SessionManager.open(f);
			sm.appendLabelChange(sm.getLeafId()!, "arbor");
			expect(readFileSync(f).subarray(0, torn.length).equals(torn), damage).toBe(true);
			expect(existsSync(marker), damage).toBe(false);
		}
	});

	it("the marker is created 0600 and never left behind by a successful append", () => {
		const f = fixtureCopy(FIXTURE);
		const sm = SessionManager.open(f);
		for (let i = 0; i < 5; i++) sm.appendLabelChange(sm.getLeafId()!, `l${i}`);
		expect(readdirSync(dirname(f)).filter((n) => n !== basename(f))).toEqual([]);
		expect(statSync(f).size).toBeGreaterThan(0);
	});
});

function isLink(p: string): boolean {
	try {
		return lstatSync(p).isSymbolicLink();
	} catch {
		return false;
	}
}
