// Arbor's Node floor is package.json's engines.node (pi 1.6's own, >= 22.19). On an older Node the `arbor`
// command says so in one line instead of failing inside the bundle.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { buildCli, repo } from "./helpers";

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
});
