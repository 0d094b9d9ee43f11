// The install finds its own folder by its package name wherever it is installed: the browser host serves the
// renderer from there. After the rename to pi-arbor, a lookup by the old name served "renderer not built".
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { expect, test } from "vitest";
import { defaultRendererDir, findAppRoot, PACKAGE_NAME } from "../../app-root";

const repo = resolve(import.meta.dirname, "..", "..", "..", "..");

test("the install's root is the folder whose package.json has Arbor's package name, from its bundles and its sources", () => {
	expect(PACKAGE_NAME).toBe((JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as { name: string }).name);
	expect(findAppRoot(join(repo, "dist"))).toBe(repo);
	expect(findAppRoot(join(repo, "electron", "hosts"))).toBe(repo);
	expect(defaultRendererDir()).toBe(join(repo, "dist", "renderer"));
});
