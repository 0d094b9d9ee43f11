// Arbor's Node floor is package.json's engines.node (pi 1.6's own, >= 22.19). On an older Node the `arbor`
// command says so in one line instead of failing inside the bundle, and the README's `npm start` still opens
// Arbor: its browser fallback runs on the Node 24 scripts/runtimes.mjs brings.
import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { buildCli, endProcessGroup, repo, testRunEnv } from "./helpers";

const manifest = JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as { name: string; engines: { node: string } };
const [floorMajor, floorMinor] = /^>=\s*(\d+)\.(\d+)/.exec(manifest.engines.node)!.slice(1).map(Number) as [number, number];

function version(node: string): [number, number] | null {
	const r = spawnSync(node, ["--version"], { encoding: "utf8" });
	const m = r.status === 0 ? /^v(\d+)\.(\d+)/.exec(r.stdout.trim()) : null;
	return m ? [Number(m[1]), Number(m[2])] : null;
}

/** A Node older than the floor on this machine: the one `npm test` was started with (it only bootstraps the
 * suite's Node 24), else the system's. */
const oldNode = [process.env.ARBOR_BOOTSTRAP_NODE, process.execPath, "/usr/bin/node", "/usr/local/bin/node"]
	.filter((p): p is string => !!p && existsSync(p))
	.find((p) => {
		const v = version(p);
		return v !== null && (v[0] < floorMajor || (v[0] === floorMajor && v[1] < floorMinor));
	});

/** Process groups this file started (start.mjs and the `arbor serve` it runs): ended after each test, however it ended. */
const groups: number[] = [];
afterEach(async () => {
	for (const pgid of groups.splice(0)) expect(await endProcessGroup(pgid), `process group ${pgid} still has processes`).toBe(true);
});

describe("Node floor", () => {
	test("engines.node is pi 1.6's floor, 22.19 or newer", () => {
		expect(floorMajor > 22 || (floorMajor === 22 && floorMinor >= 19)).toBe(true);
	});

	test.skipIf(!oldNode)(
		`arbor on a Node older than ${manifest.engines.node} prints one line naming both versions and exits 1 (runs where such a Node exists)`,
		() => {
			buildCli();
			const r = spawnSync(oldNode!, [join(repo, "bin", "arbor.cjs"), "--help"], { encoding: "utf8" });
			const running = spawnSync(oldNode!, ["--version"], { encoding: "utf8" }).stdout.trim().slice(1);
			expect(r.status).toBe(1);
			expect(r.stdout).toBe("");
			expect(r.stderr).toBe(`arbor: Node.js ${running} is too old; Arbor needs Node.js ${floorMajor}.${floorMinor} or newer.\n`);
		},
	);
	test.skipIf(!oldNode)(
		"npm start's browser fallback on a Node older than the floor serves Arbor on the runtimes' Node 24, saying so (runs where such a Node exists)",
		async () => {
			buildCli();
			const node24 = (
				JSON.parse(spawnSync(process.execPath, [join(repo, "scripts", "runtimes.mjs"), "node24"], { encoding: "utf8" }).stdout) as { node24: string }
			).node24;
			const home = mkdtempSync(join(tmpdir(), "arbor-start-"));
			const file = join(home, "sample-session.jsonl");
			copyFileSync(join(repo, "build", "sample-session.jsonl"), file);
			const start = spawn(oldNode!, [join(repo, "scripts", "start.mjs"), file], {
				cwd: home,
				detached: true,
				env: {
					PATH: process.env.PATH ?? "/usr/bin:/bin",
					HOME: home,
					ARBOR_RUNTIMES_DIR: dirname(dirname(dirname(dirname(node24)))),
					ELECTRON_OVERRIDE_DIST_PATH: home, // no Electron binary there: the browser fallback
					ARBOR_NO_BROWSER: "1",
					...testRunEnv(),
				},
			});
			// Ended by afterEach even when this test times out waiting for the URL (a `finally` here never ran then,
			// and the server outlived the test: issue 39).
			groups.push(start.pid!);
			let out = "";
			const url = await new Promise<string>((resolve, reject) => {
				const onData = (c: Buffer): void => {
					out += c.toString();
					const m = /http:\/\/127\.0\.0\.1:\d+\/#token=[\w-]+/.exec(out);
					if (m) resolve(m[0]);
				};
				start.stdout!.on("data", onData);
				start.stderr!.on("data", onData);
				start.once("exit", (code) => reject(new Error(`npm start's script exited (${code}):\n${out}`)));
			});
			expect(out).toContain(`Arbor: Node.js ${version(oldNode!)!.join(".")}`);
			expect(out).toContain(`is older than Arbor's floor; running it on ${node24}`);
			const page = await fetch(url.replace(/#.*/, ""), { headers: { "Sec-Fetch-Site": "none", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document" } });
			expect(page.status).toBe(200);
		},
	);
});
