// `arbor search --index-dir`: a folder that is not Arbor's index is refused with every file left as it was,
// and two `arbor search` processes sharing one index never give two files the same id (real processes).
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { SearchIndex, indexedFileList } from "../../services/search-index";
import { arbor, buildCli, repo, tempDir } from "./helpers";
import { searchSession } from "../../services/test/helpers/search-sessions";

beforeAll(buildCli);

const session = searchSession;

function snapshot(dir: string): Record<string, string> {
	const out: Record<string, string> = {};
	for (const e of readdirSync(dir, { withFileTypes: true })) out[e.name] = e.isDirectory() ? "(folder)" : readFileSync(join(dir, e.name), "base64");
	return out;
}

describe("arbor search --index-dir on a folder that is not Arbor's index", () => {
	for (const [what, manifest] of [
		["[]", "[]"],
		["not JSON", "hello"],
	]) {
		it(`refuses it in one line and deletes or overwrites nothing (manifest.json ${what})`, () => {
			const home = tempDir();
			const sessions = join(home, "s");
			mkdirSync(sessions);
			writeFileSync(join(sessions, "a.jsonl"), session("sa", ["kestrel"]));
			const idx = join(home, "work");
			mkdirSync(idx);
			writeFileSync(join(idx, "manifest.json"), manifest);
			writeFileSync(join(idx, "thesis.tex"), "years of work");
			mkdirSync(join(idx, "chapters"));
			const before = snapshot(idx);
			const r = arbor(["search", "kestrel", sessions, "--index-dir", idx], { HOME: home });
			expect(r.status).toBe(2);
			expect(r.stdout).toBe("");
			expect(r.stderr).toBe(
				`arbor search: "${idx}" is not empty and holds no Arbor search index (its manifest.json is not an Arbor index manifest). Arbor never deletes or overwrites files it did not write: choose an empty or new folder for the index, or move those files away.\n`,
			);
			expect(snapshot(idx)).toEqual(before);
			// An empty folder is taken.
			const fresh = join(home, "fresh");
			mkdirSync(fresh);
			const ok = arbor(["search", "kestrel", sessions, "--index-dir", fresh, "--json"], { HOME: home });
			expect(ok.status).toBe(0);
			expect((JSON.parse(ok.stdout) as { sessions: unknown[] }).sessions).toHaveLength(1);
		});
	}
});

/** Runs `arbor search` as a child process (not waiting for it). */
function arborAsync(args: string[], env: Record<string, string>): Promise<{ status: number | null; stderr: string }> {
	return new Promise((ok) => {
		const child = spawn(process.execPath, [join(repo, "bin", "arbor.cjs"), ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "pipe"] });
		let stderr = "";
		child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
		child.on("close", (status) => ok({ status, stderr }));
	});
}

describe("two arbor search processes on one index", () => {
	it("give every file its own id: each file's own word finds that file and no other (4 trials)", async () => {
		for (let trial = 0; trial < 4; trial++) {
			const home = tempDir();
			const idx = join(home, "index");
			const sides = ["a", "b"].map((side) => {
				const dir = join(home, side);
				mkdirSync(dir);
				// A few files on one side, many on the other: the quick process writes its dictionary files while the
				// slow one, which read the index before them, is still indexing (then merges into them).
				for (let i = 0; i < (side === "a" ? 5 : 120); i++) {
					const filler = Array.from({ length: 150 }, (_, k) => `common filler words line ${k} shared${k % 7}`);
					writeFileSync(join(dir, `${side}${i}.jsonl`), session(`${side}${i}`, [`own${side}${i}x marker`, ...filler]));
				}
				return dir;
			});
			const runs = await Promise.all(sides.map((dir) => arborAsync(["search", "marker", dir, "--index-dir", idx, "--json"], { HOME: home })));
			for (const r of runs) {
				expect(r.stderr.replace(/arbor: search: waiting for another Arbor process(?: \(pid \d+\))? updating the index in .*…\n/, "")).toBe("");
				expect(r.status).toBe(0);
			}
			// The index as both left it, brought up to date over both folders (as the app's library would).
			const files = indexedFileList(sides);
			const index = new SearchIndex({ indexDir: idx });
			index.update(files);
			const fids = Object.values(JSON.parse(readFileSync(join(idx, "manifest.json"), "utf8")).files as Record<string, { fid: number }>).map((s) => s.fid);
			expect(new Set(fids).size).toBe(fids.length);
			const wrong: string[] = [];
			for (const f of files) {
				const name = f.slice(f.lastIndexOf("/") + 1, -".jsonl".length);
				const got = index.search(`own${name}x`).sessions.map((s) => s.path);
				if (got.length !== 1 || got[0] !== f) wrong.push(`${name}: ${got.join(", ")}`);
			}
			expect(wrong).toEqual([]);
			// And through a third process.
			const third = arbor(["search", "owna0x", ...sides, "--index-dir", idx, "--json"], { HOME: home });
			expect((JSON.parse(third.stdout) as { sessions: { path: string }[] }).sessions.map((s) => s.path)).toEqual([join(sides[0], "a0.jsonl")]);
		}
	}, 120_000);
});
