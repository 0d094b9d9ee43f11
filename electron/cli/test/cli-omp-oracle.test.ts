// `arbor context --as omp --json` and `arbor tree --json` next to omp 18.3.4's own SessionManager (run by Bun,
// electron/session/test/oracles/omp-oracle.ts) on files omp itself writes, an omp-shaped fixture-sized
// generated session and a real fixture: the messages and settings the CLI prints are the ones omp builds for
// the model, and the CLI's leaf is omp's. docs/compatibility.md "omp 18.3 as an oracle".
import { copyFileSync, mkdirSync } from "node:fs";
import { basename, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { comparableArborMessages, comparableOmpMessages, ompRead, ompRuntime, ompWrite, type OmpView } from "../../session/test/oracles/omp-oracle";
import { arbor, buildCli, fixtures, tempDir } from "./helpers";

let files: string[] = [];
let views: OmpView[] = [];

beforeAll(() => {
	buildCli();
	const rt = ompRuntime();
	const dir = tempDir();
	files = [...ompWrite(rt, dir, join(dir, "omp-wrote")).files, join(fixtures, "kimchi-dev__statsuline.v3.jsonl")];
	const copies = files.map((f, i) => {
		mkdirSync(join(dir, `omp-${i}`));
		const copy = join(dir, `omp-${i}`, basename(f));
		copyFileSync(f, copy);
		return copy;
	});
	views = ompRead(rt, dir, copies);
}, 600_000);

describe("arbor's CLI prints omp's view of omp's files", () => {
	it("context --as omp --json: omp's messages and settings", () => {
		expect(files.length).toBe(6);
		for (const [i, f] of files.entries()) {
			const r = arbor(["context", f, "--as", "omp", "--json"]);
			expect(r.status, r.stderr).toBe(0);
			const got = JSON.parse(r.stdout);
			const { messages, cacheMissExplainedAt: _c, ...settings } = views[i].context;
			expect(comparableArborMessages(got.messages), basename(f)).toEqual(comparableOmpMessages(messages));
			const { rules, messages: _m, entryIds: _e, ...mine } = got;
			expect(rules).toBe("omp");
			expect(mine, basename(f)).toEqual(settings);
		}
	});

	it("context without --as picks omp's rules for the files omp wrote", () => {
		for (const f of files.slice(0, 5)) expect(JSON.parse(arbor(["context", f, "--json"]).stdout).rules, basename(f)).toBe("omp");
	});

	it("tree --json: omp's leaf", () => {
		for (const [i, f] of files.entries()) {
			const r = arbor(["tree", f, "--json"]);
			expect(r.status, r.stderr).toBe(0);
			expect(JSON.parse(r.stdout).leafId, basename(f)).toBe(views[i].leafId);
		}
	});
});
