// Extensions read session entries through ctx.sessionManager. On files of 16 MB and more the core hands out
// lazy stand-ins for entries; the context must still give extensions plain copies (structuredClone rejects
// the stand-ins, which once made every such read throw DataCloneError).
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { SessionManager } from "../../session";
import { createEventContext } from "../extensions/context";
import { ExtensionHost, type HostBindings } from "../extensions/host";
import type { ExtensionFailure } from "../extensions/types";
import { tempDir } from "./helpers/entries";

const GEN = path.resolve(import.meta.dirname, "../../../../shared/tools/gen-session.mjs");

const noBindings: HostBindings = {
	appendEntry: () => {},
	setLabel: () => {},
	setSessionName: () => {},
	getSessionName: () => undefined,
	notify: () => {},
};

describe("extension context on a large session", () => {
	it("an extension reads entries, children, the branch and the tree of a >= 16 MB session as plain objects", async () => {
		const dir = tempDir("arbor-ext-big-");
		const file = path.join(dir, "big.jsonl");
		execFileSync(process.execPath, [GEN, "--n", "6000", "--seed", "ext-big", "--out", file]);
		expect(fs.statSync(file).size).toBeGreaterThanOrEqual(16 * 1024 * 1024);
		const sm = SessionManager.open(file);
		// The premise: this file gets lazy stand-ins, which structuredClone cannot copy.
		expect(() => structuredClone(sm.getBranch())).toThrow();

		const extDir = tempDir("arbor-ext-");
		fs.writeFileSync(
			path.join(extDir, "reader.js"),
			`export default (pi) => pi.on("session_tree", (_event, ctx) => {
				const s = ctx.sessionManager;
				const entries = s.getEntries();
				const branch = s.getBranch();
				const tree = s.getTree();
				const children = s.getChildren(entries[0].id);
				globalThis.__arborBigRead = {
					entries: entries.length, branch: branch.length, roots: tree.length,
					children: children.map((c) => c.id), leafText: JSON.stringify(branch[branch.length - 1]),
					cloneable: structuredClone({ entries, branch, tree, children }) !== undefined,
				};
			});`,
		);
		const failures: ExtensionFailure[] = [];
		const host = new ExtensionHost({ dirs: [extDir], paths: [], onFailure: (f) => failures.push(f), bindings: noBindings });
		await host.ready();
		const ctx = createEventContext({ manager: sm, sessionId: "s1", abort: () => {}, notify: () => {} });
		await host.emit({ type: "session_tree", newLeafId: sm.getLeafId(), oldLeafId: null } as never, ctx);
		expect(failures).toEqual([]);
		const got = (globalThis as { __arborBigRead?: Record<string, unknown> }).__arborBigRead;
		const entries = sm.getEntries();
		expect(got).toEqual({
			entries: entries.length,
			branch: sm.getBranch().length,
			roots: sm.getTree().length,
			children: sm.getChildren(entries[0].id as string).map((c) => c.id),
			leafText: JSON.stringify(sm.getLeafEntry()),
			cloneable: true,
		});
		sm.close();
	});
});
