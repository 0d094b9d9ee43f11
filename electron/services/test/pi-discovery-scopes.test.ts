// pi 1.6's extension discovery beyond the user folder (package-manager.js): a trusted project's `.pi`,
// the `!pattern` / `+path` / `-path` and glob entries of the `extensions` lists, globs and overrides in a
// package's `pi.extensions`, a package filter, and `.gitignore` rules in an extensions folder.

import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { applyPatterns, discoverPiExtensions } from "../extensions/discovery";
import { tempDir } from "./helpers/entries";

function write(file: string, text = "export default function () {}\n"): void {
	fs.mkdirSync(path.dirname(file), { recursive: true });
	fs.writeFileSync(file, text);
}

function agent(settings: Record<string, unknown> = {}): string {
	const dir = fs.realpathSync(tempDir("arbor-pi-scopes-"));
	write(path.join(dir, "settings.json"), JSON.stringify(settings));
	return dir;
}

/** [path relative to base, origin, on in pi] for each entry. */
function listed(dir: string, cwd?: string, base = dir): [string, string, boolean][] {
	return discoverPiExtensions(dir, cwd).entries.map((e) => [path.relative(base, e.path), e.origin, e.piEnabled !== false]);
}

describe("globs as pi's minimatch reads them", () => {
	it("*, ?, **, [..], braces and extglobs match as in pi (minimatch, the library pi uses)", () => {
		const base = "/b";
		const files = ["/b/x/a.ts", "/b/x/b.ts", "/b/x/c.ts", "/b/x/d.js", "/b/x/deep/e.ts"];
		const run = (p: string[]) => [...applyPatterns(files, p, base)].sort();
		expect(run(["x/*.ts"])).toEqual(["/b/x/a.ts", "/b/x/b.ts", "/b/x/c.ts"]);
		expect(run(["x/**/*.ts"])).toEqual(["/b/x/a.ts", "/b/x/b.ts", "/b/x/c.ts", "/b/x/deep/e.ts"]);
		expect(run(["x/?.js"])).toEqual(["/b/x/d.js"]);
		expect(run(["x/[ab].ts"])).toEqual(["/b/x/a.ts", "/b/x/b.ts"]);
		// What a hand-made reader got wrong: braces and extglobs.
		expect(run(["x/{a,c}.ts"])).toEqual(["/b/x/a.ts", "/b/x/c.ts"]);
		expect(run(["x/!(a|b).ts"])).toEqual(["/b/x/c.ts"]);
		expect(run(["x/@(c|d).*"])).toEqual(["/b/x/c.ts", "/b/x/d.js"]);
	});

	it("applyPatterns: includes, then ! excludes, + adds an exact path back, - removes it whatever came before", () => {
		const base = "/b";
		const files = ["/b/x/one.ts", "/b/x/two.ts", "/b/x/three.js"];
		const run = (p: string[]) => [...applyPatterns(files, p, base)].sort();
		expect(run([])).toEqual([...files].sort());
		expect(run(["*.ts"])).toEqual(["/b/x/one.ts", "/b/x/two.ts"]);
		expect(run(["!x/t*"])).toEqual(["/b/x/one.ts"]);
		expect(run(["!*.ts", "+x/two.ts"])).toEqual(["/b/x/three.js", "/b/x/two.ts"]);
		expect(run(["+x/two.ts", "-x/two.ts"])).toEqual(["/b/x/one.ts", "/b/x/three.js"]);
		// + and - are exact paths, not globs.
		expect(run(["-x/*.ts"])).toEqual([...files].sort());
	});
});

describe("the extensions lists' override and glob entries", () => {
	it("auto-discovered modules are listed with pi's on/off from !, + and - entries", () => {
		const dir = agent({ extensions: ["!extensions/b-*", "+extensions/b-keep.ts", "-extensions/a.ts"] });
		for (const f of ["a.ts", "b-drop.ts", "b-keep.ts", "c.ts"]) write(path.join(dir, "extensions", f));
		expect(listed(dir)).toEqual([
			["extensions/a.ts", "pi", false],
			["extensions/b-drop.ts", "pi", false],
			["extensions/b-keep.ts", "pi", true],
			["extensions/c.ts", "pi", true],
		]);
	});

	it("a glob entry picks among the files of the plain entries; the others are listed off", () => {
		const dir = agent({ extensions: ["extra", "*.ts"] });
		write(path.join(dir, "extra", "x.ts"));
		write(path.join(dir, "extra", "y.js"));
		expect(listed(dir)).toEqual([
			["extra/x.ts", "pi-settings", true],
			["extra/y.js", "pi-settings", false],
		]);
	});
});

describe("packages", () => {
	it("pi.extensions globs are expanded (not into dot folders) and its ! entries applied; a filter object narrows them", () => {
		const dir = agent({ packages: [{ source: "./pkg", extensions: ["!ext/two.ts"] }] });
		const pkg = path.join(dir, "pkg");
		write(path.join(pkg, "package.json"), JSON.stringify({ name: "p", pi: { extensions: ["./ext/*.ts", "!ext/skip.ts"] } }));
		for (const f of ["one.ts", "two.ts", "skip.ts", "three.js"]) write(path.join(pkg, "ext", f));
		write(path.join(pkg, "ext", ".hidden", "h.ts"));
		expect(listed(dir)).toEqual([["pkg/ext/one.ts", "pi-package", true]]);
		fs.writeFileSync(path.join(dir, "settings.json"), JSON.stringify({ packages: ["./pkg"] }));
		expect(listed(dir)).toEqual([
			["pkg/ext/one.ts", "pi-package", true],
			["pkg/ext/two.ts", "pi-package", true],
		]);
	});
});

describe(".gitignore rules in an extensions folder", () => {
	it(".gitignore, .ignore and .fdignore entries are not discovered; ! re-includes", () => {
		const dir = agent();
		const ext = path.join(dir, "extensions");
		for (const f of ["keep.ts", "wip-a.ts", "wip-b.ts", "old.js"]) write(path.join(ext, f));
		write(path.join(ext, "scratch", "index.ts"));
		write(path.join(ext, "tool", "index.ts"));
		write(path.join(ext, ".gitignore"), "# drafts\nwip-*.ts\n!wip-b.ts\nscratch/\n");
		write(path.join(ext, ".ignore"), "old.js\n");
		expect(listed(dir).map((e) => e[0])).toEqual(["extensions/keep.ts", "extensions/tool/index.ts", "extensions/wip-b.ts"]);
	});
});

describe("project-local extensions (<cwd>/.pi)", () => {
	function project(trust: Record<string, boolean> | undefined, userSettings: Record<string, unknown> = {}): { dir: string; cwd: string } {
		const dir = agent(userSettings);
		write(path.join(dir, "extensions", "user.ts"));
		const cwd = fs.realpathSync(tempDir("arbor-pi-project-"));
		write(path.join(cwd, ".pi", "extensions", "proj.ts"));
		write(path.join(cwd, ".pi", "extensions", "off.ts"));
		write(path.join(cwd, ".pi", "listed", "l.ts"));
		write(path.join(cwd, ".pi", "settings.json"), JSON.stringify({ extensions: ["listed", "-extensions/off.ts"] }));
		if (trust) write(path.join(dir, "trust.json"), JSON.stringify(trust));
		return { dir, cwd };
	}

	it("an untrusted project's extensions are not listed, and the listing says the project is not trusted", () => {
		const { dir, cwd } = project(undefined);
		const found = discoverPiExtensions(dir, cwd);
		expect(found.entries.map((e) => path.basename(e.path))).toEqual(["user.ts"]);
		expect(found.untrustedProject).toBe(cwd);
		// An explicit refusal in trust.json, too.
		const refused = project({});
		fs.writeFileSync(path.join(refused.dir, "trust.json"), JSON.stringify({ [refused.cwd]: false }));
		expect(discoverPiExtensions(refused.dir, refused.cwd).entries.map((e) => path.basename(e.path))).toEqual(["user.ts"]);
	});

	it("a trusted project (trust.json, or defaultProjectTrust always): its lists, then its folder, before the user's, origin pi-project", () => {
		const { dir, cwd } = project({});
		fs.writeFileSync(path.join(dir, "trust.json"), JSON.stringify({ [cwd]: true }));
		const rel = (p: string) => (p.startsWith(cwd) ? `<cwd>/${path.relative(cwd, p)}` : path.relative(dir, p));
		const got = discoverPiExtensions(dir, cwd);
		expect(got.untrustedProject).toBeUndefined();
		expect(got.entries.map((e) => [rel(e.path), e.origin, e.piEnabled !== false])).toEqual([
			["<cwd>/.pi/listed/l.ts", "pi-project", true],
			["<cwd>/.pi/extensions/off.ts", "pi-project", false],
			["<cwd>/.pi/extensions/proj.ts", "pi-project", true],
			["extensions/user.ts", "pi", true],
		]);
		const always = project(undefined, { defaultProjectTrust: "always" });
		expect(discoverPiExtensions(always.dir, always.cwd).entries.map((e) => e.origin)).toEqual(["pi-project", "pi-project", "pi-project", "pi"]);
	});

	it("a folder without .pi is not a project", () => {
		const dir = agent();
		write(path.join(dir, "extensions", "user.ts"));
		const found = discoverPiExtensions(dir, fs.realpathSync(tempDir("arbor-no-project-")));
		expect(found.untrustedProject).toBeUndefined();
		expect(found.entries).toHaveLength(1);
	});
});
