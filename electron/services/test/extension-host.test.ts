import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { discoverExtensionFiles, ExtensionHost, type HostBindings } from "../extensions/host";
import type { ExtensionFailure } from "../extensions/types";
import { tempDir } from "./helpers/entries";

const noBindings: HostBindings = {
	appendEntry: () => {},
	setLabel: () => {},
	setSessionName: () => {},
	getSessionName: () => undefined,
	notify: () => {},
};

function host(dir: string, extra: Partial<ConstructorParameters<typeof ExtensionHost>[0]> = {}): { host: ExtensionHost; failures: ExtensionFailure[] } {
	const failures: ExtensionFailure[] = [];
	const h = new ExtensionHost({ dirs: [dir], paths: [], onFailure: (f) => failures.push(f), bindings: noBindings, ...extra });
	return { host: h, failures };
}

const prep = { targetId: "x", oldLeafId: "y", commonAncestorId: null, entriesToSummarize: [], userWantsSummary: true };

describe("extension loading", () => {
	it("loads .js and .ts modules, and a folder with an index module, in name order", async () => {
		const dir = tempDir("arbor-ext-");
		fs.writeFileSync(path.join(dir, "a.js"), `export default function (pi) { pi.registerCommand("from-js", { description: "js", handler: async () => {} }); }`);
		fs.writeFileSync(
			path.join(dir, "b.ts"),
			`import type { Foo } from "./nothing";\ninterface Opts { description: string }\nexport default function (pi: { registerCommand(n: string, o: Opts & { handler: () => Promise<void> }): void }) {\n\tconst o: Opts = { description: "ts" };\n\tpi.registerCommand("/from-ts", { ...o, handler: async () => {} });\n}\n`,
		);
		fs.mkdirSync(path.join(dir, "c"));
		fs.writeFileSync(path.join(dir, "c", "index.ts"), `export default (pi: any) => pi.registerCommand("from-dir", { handler: () => {} });`);
		fs.writeFileSync(path.join(dir, "notes.md"), "not an extension");
		const { host: h, failures } = host(dir);
		await h.ready();
		expect(failures).toEqual([]);
		expect(h.listCommands()).toEqual([
			{ name: "from-js", description: "js", extension: "a.js" },
			{ name: "from-ts", description: "ts", extension: "b.ts" },
			{ name: "from-dir", description: "", extension: "c" },
		]);
	});

	it("reports a module that fails to load and still loads the others", async () => {
		const dir = tempDir("arbor-ext-");
		fs.writeFileSync(path.join(dir, "bad.js"), `throw new Error("kaput at import");`);
		fs.writeFileSync(path.join(dir, "nodefault.js"), `export const x = 1;`);
		fs.writeFileSync(path.join(dir, "good.js"), `export default function (pi) { pi.on("session_tree", () => {}); }`);
		const { host: h, failures } = host(dir);
		await h.ready();
		expect(h.extensions.map((e) => e.name)).toEqual(["good.js"]);
		expect(failures.map((f) => [path.basename(f.extension), f.event])).toEqual([
			["bad.js", "load"],
			["nodefault.js", "load"],
		]);
		expect(failures[0]?.message).toContain("kaput at import");
	});

	it("accepts explicit extension paths besides the folders", () => {
		const dir = tempDir("arbor-ext-");
		const file = path.join(dir, "one.ts");
		fs.writeFileSync(file, "export default () => {}");
		expect(discoverExtensionFiles([path.join(dir, "missing")], [file])).toEqual([file]);
	});
});

describe("extension events", () => {
	it("stops at the first cancel of a before-event", async () => {
		const dir = tempDir("arbor-ext-");
		fs.writeFileSync(path.join(dir, "1.js"), `export default (pi) => pi.on("session_before_tree", () => ({ cancel: true }));`);
		fs.writeFileSync(path.join(dir, "2.js"), `export default (pi) => pi.on("session_before_tree", () => { globalThis.__arborSecondRan = true; });`);
		const { host: h } = host(dir);
		await h.ready();
		const res = await h.emit({ type: "session_before_tree", preparation: prep, signal: new AbortController().signal }, {});
		expect(res).toEqual({ cancel: true });
		expect((globalThis as { __arborSecondRan?: boolean }).__arborSecondRan).toBeUndefined();
	});

	it("isolates a throwing handler and a hanging one (timeout), and keeps the result of a good one", async () => {
		const dir = tempDir("arbor-ext-");
		fs.writeFileSync(path.join(dir, "1-throws.js"), `export default (pi) => pi.on("session_before_tree", () => { throw new Error("handler exploded"); });`);
		fs.writeFileSync(path.join(dir, "2-hangs.js"), `export default (pi) => pi.on("session_before_tree", () => new Promise(() => {}));`);
		fs.writeFileSync(
			path.join(dir, "3-good.ts"),
			`export default (pi: any) => pi.on("session_before_tree", async (event: any) => ({ summary: { summary: "from " + event.preparation.targetId } }));`,
		);
		const { host: h, failures } = host(dir, { handlerTimeoutMs: 200 });
		await h.ready();
		const res = await h.emit({ type: "session_before_tree", preparation: prep, signal: new AbortController().signal }, {});
		expect(res).toEqual({ summary: { summary: "from x" } });
		expect(failures.map((f) => path.basename(f.extension))).toEqual(["1-throws.js", "2-hangs.js"]);
		expect(failures[0]?.message).toContain("handler exploded");
		expect(failures[1]?.message).toContain("did not finish within 200 ms");
	});

	it("passes the event and the context to handlers, like pi", async () => {
		const dir = tempDir("arbor-ext-");
		fs.writeFileSync(
			path.join(dir, "spy.js"),
			`export default (pi) => pi.on("session_tree", (event, ctx) => { globalThis.__arborSpy = { event, cwd: ctx.cwd }; });`,
		);
		const { host: h } = host(dir);
		await h.ready();
		await h.emit({ type: "session_tree", newLeafId: "n", oldLeafId: "o" }, { cwd: "/p" });
		expect((globalThis as { __arborSpy?: unknown }).__arborSpy).toEqual({ event: { type: "session_tree", newLeafId: "n", oldLeafId: "o" }, cwd: "/p" });
	});
});
