// The layering rules of DESIGN.md, checked on every test run so they cannot rot: a file's folder says
// what it may import (VS Code style). Reads every source file's import specifiers with a regex; type-only
// imports count too, since they still couple the layers.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import { join, relative, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "..", "..");
const nodeBuiltins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

function sourceFiles(dir: string): string[] {
	const out: string[] = [];
	const walk = (d: string) => {
		for (const name of readdirSync(d)) {
			if (name === "node_modules" || name.startsWith(".")) continue;
			const p = join(d, name);
			if (statSync(p).isDirectory()) walk(p);
			else if (/\.(ts|tsx|mts|cts)$/.test(name) && !name.endsWith(".d.ts")) out.push(p);
		}
	};
	walk(join(root, dir));
	return out;
}

function importsOf(file: string): string[] {
	const text = readFileSync(file, "utf8");
	const specs: string[] = [];
	const re = /(?:import|export)\s[^'"]*?from\s*["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)|require\(\s*["']([^"']+)["']\s*\)|^\s*import\s*["']([^"']+)["']/gm;
	for (const m of text.matchAll(re)) specs.push(m[1] ?? m[2] ?? m[3] ?? m[4]);
	return specs;
}

/** Repo-relative top folder path a relative import lands in, e.g. "electron/session". */
function target(file: string, spec: string): string | null {
	if (!spec.startsWith(".")) return null;
	return relative(root, resolve(file, "..", spec)).split(sep).join("/");
}

const isTest = (f: string) => /[/\\]test[/\\]|\.test\.tsx?$/.test(f);

interface Rule {
	folder: string;
	/** Repo-relative folders this layer may import from (besides itself). */
	mayImport: string[];
	forbidNode?: boolean;
	forbidElectron?: boolean;
	forbidDom?: boolean;
}

const rules: Rule[] = [
	{ folder: "shared", mayImport: [], forbidNode: true, forbidElectron: true, forbidDom: true },
	{ folder: "electron/session", mayImport: ["shared"], forbidElectron: true },
	{ folder: "electron/services", mayImport: ["shared", "electron/session"], forbidElectron: true },
	{ folder: "electron/api", mayImport: ["shared", "electron/services"], forbidElectron: true },
	{ folder: "electron/cli", mayImport: ["shared", "electron/session", "electron/services", "electron/api", "electron/hosts/browser", "electron/hosts/crash-guard", "package.json"], forbidElectron: true },
	{ folder: "renderer", mayImport: ["shared"], forbidElectron: true },
];

describe("layering (DESIGN.md import rules)", () => {
	for (const rule of rules) {
		it(`${rule.folder}/ imports only what its layer allows`, () => {
			const violations: string[] = [];
			for (const file of sourceFiles(rule.folder)) {
				// Tests may reach into lower layers' helpers, never into higher layers or the electron module.
				const testFile = isTest(file);
				for (const spec of importsOf(file)) {
					const where = `${relative(root, file)} imports "${spec}"`;
					if (rule.forbidElectron && (spec === "electron" || spec.startsWith("electron/"))) violations.push(where);
					if (rule.forbidNode && !testFile && (nodeBuiltins.has(spec) || spec.startsWith("node:"))) violations.push(where);
					if (rule.forbidDom && !testFile && /^(react|react-dom|@xyflow\/|zustand)/.test(spec)) violations.push(where);
					const t = target(file, spec);
					if (t === null) continue;
					if (t === rule.folder || t.startsWith(`${rule.folder}/`)) continue;
					if (rule.mayImport.some((ok) => t === ok || t.startsWith(`${ok}/`))) continue;
					// Test helpers may use the test utilities of their own layer's siblings and the shared fixtures dir.
					if (testFile && rule.folder !== "shared" && (t.startsWith("electron/") || t.startsWith("../shared"))) continue;
					// Tests may load a package's module by path when its exports map hides it (pi 1.6.0's dist/core).
					if (testFile && t.startsWith("node_modules/")) continue;
					violations.push(`${where} (resolves to ${t})`);
				}
			}
			expect(violations).toEqual([]);
		});
	}

	it("shared/ uses no DOM or Node globals in non-test code", () => {
		const violations: string[] = [];
		for (const file of sourceFiles("shared")) {
			if (isTest(file)) continue;
			const text = readFileSync(file, "utf8").replace(/\/\/.*$/gm, "").replace(/\/\*[\s\S]*?\*\//g, "");
			for (const g of [/\bdocument\./, /\bwindow\./, /\bprocess\./, /\brequire\(/, /\bBuffer\./, /\b__dirname\b/]) {
				if (g.test(text)) violations.push(`${relative(root, file)} uses ${g.source}`);
			}
		}
		expect(violations).toEqual([]);
	});

	it("the checker itself catches a forbidden import", () => {
		const fake = join(root, "shared", "fake.ts");
		expect(target(fake, "../electron/session/manager")).toBe("electron/session/manager");
		expect(importsOf(join(root, "electron", "test", "layering.test.ts"))).toContain("node:fs");
	});
});
