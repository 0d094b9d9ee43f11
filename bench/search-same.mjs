#!/usr/bin/env node
// Same results check for the search index (electron/services/search-index.ts): builds the index of
// another commit (default ac31304, before the full-size speed work) and the working tree's, indexes the
// same files with both, and compares every answer of a set of queries as JSON (hits, grouping, order,
// snippets, scores), fresh and from a new instance, with and without a file filter; then grows, rewrites
// and deletes files and compares again. Timing is not its business (bench/search.mjs is).
// Usage: node bench/search-same.mjs [--rev REV] [--files 300]   (uses bench/search.mjs's cached library)
import { execFileSync } from "node:child_process";
import { appendFileSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";

const root = join(import.meta.dirname, "..");
const opt = (name, def) => {
	const i = process.argv.indexOf(`--${name}`);
	return i >= 0 ? process.argv[i + 1] : def;
};
const rev = opt("rev", "ac31304");
const FILES = Number(opt("files", "300"));
const cache = join(root, "bench", ".cache");
const lib = join(cache, "search-lib-3000x150");
if (!existsSync(join(lib, ".complete"))) {
	console.error("run `node bench/search.mjs --files 3000` once first (it generates the cached library)");
	process.exit(2);
}
// The other commit's sources go to the temp dir, never into the repo (test runners would find its tests).
const src = join(tmpdir(), `arbor-search-same-rev-${rev}`);
if (!existsSync(join(src, "electron", "services", "search-index.ts"))) {
	mkdirSync(src, { recursive: true });
	const tar = execFileSync("git", ["-C", root, "archive", rev, "electron", "shared"], { maxBuffer: 1 << 30 });
	execFileSync("tar", ["-x", "-C", src], { input: tar });
}
const bundles = [join(src, "electron", "services", "search-index.ts"), join(root, "electron", "services", "search-index.ts")];
const mods = [];
for (const [k, entry] of bundles.entries()) {
	const out = join(cache, `search-same-${k}.mjs`);
	await build({ entryPoints: [entry], bundle: true, platform: "node", format: "esm", outfile: out, logLevel: "error" });
	// eslint-disable-next-line arbor/layers -- each side is bundled to a temp file first (the old one from git)
	mods.push(await import(`${out}?${Date.now()}`));
}
const [A, B] = mods;
const work = mkdtempSync(join(tmpdir(), "arbor-search-same-"));
try {
	const listed = A.indexedFileList([lib]).slice(0, FILES);
	const fixtures = join(root, "..", "shared", "fixtures", "sessions");
	const files = [...listed, ...A.indexedFileList([fixtures])].map((f, i) => {
		const d = join(work, "lib", `p${i % 8}`);
		mkdirSync(d, { recursive: true });
		const t = join(d, `s${i}.jsonl`);
		copyFileSync(f, t);
		return t;
	});
	const ia = join(work, "a");
	const ib = join(work, "b");
	const a = new A.SearchIndex({ indexDir: ia });
	const b = new B.SearchIndex({ indexDir: ib });
	const queries =
		"session tree,uniq7x,parse merge,graph viewport,error,read file,the,a,e,zz,τ,ü,über,naïve,x,bash,todo,src,json,function return,marker word,cat,fix,test,ls -la,npm,git commit,ok,fresh,quokka1".split(
			",",
		);
	let compared = 0;
	let differ = 0;
	const check = (label, live) => {
		const some = live.filter((_, i) => i % 3 !== 1);
		for (const q of queries)
			for (const fresh of [false, true])
				for (const o of [{ limit: 1000, perSession: 50 }, { limit: 20, files: some }, {}]) {
					const ra = JSON.stringify((fresh ? new A.SearchIndex({ indexDir: ia }) : a).search(q, o));
					const rb = JSON.stringify((fresh ? new B.SearchIndex({ indexDir: ib }) : b).search(q, o));
					compared++;
					if (ra !== rb) {
						differ++;
						if (differ <= 5) console.log(`DIFF ${label} "${q}" fresh=${fresh}\n  ${rev}: ${ra.slice(0, 300)}\n  now: ${rb.slice(0, 300)}`);
					}
				}
	};
	a.update(files);
	b.update(files);
	check("initial", files);
	let live = files;
	for (let k = 0; k < 3; k++) {
		for (let i = 0; i < 5; i++) {
			const text = `fresh quokka${k} words session tree ${"filler ".repeat(4000 * i)}`;
			appendFileSync(
				files[(i * 7 + k) % files.length],
				`${JSON.stringify({ type: "message", id: `ap${k}${i}`, parentId: null, timestamp: "2026-12-01T00:00:00.000Z", message: { role: "user", content: [{ type: "text", text }], timestamp: 1 } })}\n`,
			);
		}
		writeFileSync(files[10 + k], readFileSync(files[20 + k]));
		live = files.filter((_, i) => i !== 30 + k);
		a.update(live);
		b.update(live);
		check(`after appends, a rewrite and a removal (round ${k + 1})`, live);
	}
	console.log(`${files.length} files; ${compared} answers compared against ${rev}: ${differ ? `${differ} DIFFER` : "all identical"}`);
	process.exitCode = differ ? 1 : 0;
} finally {
	rmSync(work, { recursive: true, force: true });
}
