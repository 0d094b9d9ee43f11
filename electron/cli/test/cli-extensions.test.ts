// `arbor extensions [PATH...] [--json]` on a temp home: what was found, what runs, each load error.
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { arbor, buildCli, tempDir } from "./helpers";

beforeAll(() => buildCli(), 120_000);

function home(): { home: string; env: Record<string, string>; piExt: string } {
	const h = tempDir();
	const piExt = join(h, ".pi", "agent", "extensions");
	mkdirSync(piExt, { recursive: true });
	mkdirSync(join(h, ".arbor", "extensions"), { recursive: true });
	writeFileSync(join(piExt, "from-pi.ts"), `export default (pi) => pi.registerCommand("pi-cmd", { handler: async () => {} });\n`);
	writeFileSync(join(h, ".arbor", "extensions", "mine.js"), `export default (pi) => pi.registerCommand("mine", { handler: async () => {} });\n`);
	return { home: h, env: { HOME: h, PI_CODING_AGENT_DIR: join(h, ".pi", "agent") }, piExt };
}

describe("arbor extensions", () => {
	it("--json lists Arbor's, the given paths and pi's (not enabled) with their state", () => {
		const h = home();
		const extra = join(h.home, "extra.ts");
		writeFileSync(extra, `import { Text } from "@earendil-works/pi-tui";\nexport default (pi) => { pi.on("session_tree", () => new Text("x", 0, 0)); };\n`);
		const r = arbor(["extensions", extra, "--json"], h.env);
		expect(r.stderr).toBe("");
		expect(r.status).toBe(0);
		const out = JSON.parse(r.stdout) as { extensions: Record<string, unknown>[]; missing: unknown[] };
		expect(out.extensions).toEqual([
			{ path: join(h.home, ".arbor", "extensions", "mine.js"), name: "mine.js", origin: "arbor", enabled: true, loaded: true, commands: ["mine"] },
			{ path: extra, name: "extra.ts", origin: "cli", enabled: true, loaded: true, commands: [] },
			{ path: join(h.piExt, "from-pi.ts"), name: "from-pi.ts", origin: "pi", enabled: false, loaded: false, commands: [] },
		]);
		expect(out.missing).toEqual([]);
	});

	it("prints each load error and exits 3 when one failed", () => {
		const h = home();
		const bad = join(h.home, "bad.ts");
		writeFileSync(bad, `throw new Error("kaput at import");\n`);
		writeFileSync(join(h.home, ".arbor", "settings.json"), JSON.stringify({ enabledExtensions: [join(h.piExt, "from-pi.ts")] }));
		const r = arbor(["extensions", bad], h.env);
		expect(r.status).toBe(3);
		expect(r.stdout).toContain(`FAILED              bad.ts  [cli]  ${bad}\n    error: kaput at import`);
		expect(r.stdout).toContain(`loaded              from-pi.ts  [pi]  ${join(h.piExt, "from-pi.ts")}  commands: /pi-cmd`);
		expect(r.stdout).toContain("2 loaded, 1 failed, 0 found but not enabled.");
	});

	it("a project's .pi extensions: listed once pi trusts the folder (origin pi-project), with pi's own on/off; else a note", () => {
		const h = home();
		const project = realpathSync(tempDir());
		mkdirSync(join(project, ".pi", "extensions"), { recursive: true });
		writeFileSync(join(project, ".pi", "extensions", "proj.ts"), `export default (pi) => pi.registerCommand("proj", { handler: async () => {} });\n`);
		writeFileSync(join(project, ".pi", "settings.json"), JSON.stringify({ extensions: ["!extensions/from-pi.ts"] }));
		const before = arbor(["extensions"], h.env, project);
		expect(before.stdout).toContain(`not trusted         ${project}/.pi: pi does not trust this project`);
		expect(before.stdout).not.toContain("proj.ts");
		writeFileSync(join(h.home, ".pi", "agent", "trust.json"), JSON.stringify({ [project]: true }));
		const r = arbor(["extensions", "--json"], h.env, project);
		expect(r.status).toBe(0);
		const out = JSON.parse(r.stdout) as { extensions: Record<string, unknown>[]; untrustedProject?: string };
		expect(out.untrustedProject).toBeUndefined();
		expect(out.extensions.map((e) => [e.name, e.origin, e.piEnabled ?? true, e.enabled])).toEqual([
			["mine.js", "arbor", true, true],
			["proj.ts", "pi-project", true, false],
			["from-pi.ts", "pi", true, false],
		]);
		// A user-scope `!` entry turns the user's own extension off in pi.
		writeFileSync(join(h.home, ".pi", "agent", "settings.json"), JSON.stringify({ extensions: ["!extensions/from-pi.ts"] }));
		const off = JSON.parse(arbor(["extensions", "--json"], h.env, project).stdout) as { extensions: Record<string, unknown>[] };
		expect(off.extensions.find((e) => e.name === "from-pi.ts")?.piEnabled).toBe(false);
		expect(arbor(["extensions"], h.env, project).stdout).toContain("[pi, off in pi's settings]");
	});

	it("--help explains it", () => {
		const r = arbor(["extensions", "--help"]);
		expect(r.status).toBe(0);
		expect(r.stdout).toContain("Usage: arbor extensions [PATH...] [--json]");
	});
});
