// docs/app.md's "Test hooks" table names the data-testid of every control a test (or a user's script) can
// reach. A name there that the renderer no longer renders sends people looking for nothing (a usability pass
// looked for one), so every id in the table must appear in the renderer's source, written out or composed
// from a template (`compare-pick-${side}`).
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "..", "..");

function sources(dir: string, out: string[] = []): string[] {
	for (const name of readdirSync(dir)) {
		const p = join(dir, name);
		if (statSync(p).isDirectory()) {
			if (name !== "test") sources(p, out);
		} else if (/\.tsx?$/.test(name)) out.push(readFileSync(p, "utf8"));
	}
	return out;
}

function documentedIds(): string[] {
	const doc = readFileSync(join(root, "docs", "app.md"), "utf8");
	const table = doc.slice(doc.indexOf("## Test hooks"), doc.indexOf("## Code map"));
	const ids = new Set<string>();
	for (const line of table.split("\n").filter((l) => l.startsWith("|"))) {
		// Second column; attribute names (data-*, aria-*) and their values are not ids.
		for (const m of (line.split("|")[2] ?? "").matchAll(/`([a-z][a-z0-9.-]*-[a-z0-9.-]+)`/g)) if (!/^(data|aria)-/.test(m[1])) ids.add(m[1]);
	}
	return [...ids];
}

describe("docs/app.md test hooks", () => {
	it("names only data-testids the renderer renders", () => {
		const src = sources(join(root, "renderer")).join("\n");
		const ids = documentedIds();
		expect(ids.length).toBeGreaterThan(150);
		const rendered = (id: string): boolean => {
			if (src.includes(`"${id}"`) || src.includes("`" + id + "`")) return true;
			for (let k = id.lastIndexOf("-"); k > 0; k = id.lastIndexOf("-", k - 1)) if (src.includes("`" + id.slice(0, k + 1) + "${")) return true;
			return false;
		};
		expect(ids.filter((id) => !rendered(id))).toEqual([]);
	});
});
