#!/usr/bin/env node
// Runs @doyensec/electronegativity on the Electron host (electron/hosts/electron) for Electron 45.5.0
// and fails on any HIGH or MEDIUM finding. A finding may only be silenced at its line with
// `// eng-disable CHECK_ID -- why it is safe`: this script also fails on an eng-disable without that
// justification. Prints every finding and a one-line summary. Needs no network (the release lookup
// failing prints a harmless "No connectivity?" line).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { runtimes } from "./runtimes.mjs";

const root = join(import.meta.dirname, "..");
const target = join(root, "electron", "hosts", "electron");
const require = createRequire(import.meta.url);
const pkgDir = dirname(require.resolve("@doyensec/electronegativity/package.json"));
const bin = join(pkgDir, "dist", "index.js");
const outDir = mkdtempSync(join(tmpdir(), "arbor-en-"));
const out = join(outDir, "electronegativity.csv");

// Offline, the tool's HTTP client (got 11) throws from a retry timer on Node 24 after the release lookup failed
// ("The `onCancel` handler was attached after the promise settled"); on Node 22.19, Arbor's floor, it goes on.
const node = Number(process.versions.node.split(".")[0]) >= 24 ? runtimes(["node22"]).node22 : process.execPath;
const run = spawnSync(node, [bin, "-i", target, "-o", out, "-e", "45.5.0"], { cwd: root, encoding: "utf8" });
if (run.status !== 0 || !existsSync(out)) {
	process.stdout.write(run.stdout ?? "");
	process.stderr.write(run.stderr ?? "");
	process.stderr.write(`electronegativity did not run (exit ${run.status})\n`);
	process.exit(1);
}

/** RFC 4180-ish CSV: quoted fields, "" escapes. */
function parseCsv(text) {
	const rows = [];
	let row = [];
	let field = "";
	let quoted = false;
	for (let i = 0; i < text.length; i++) {
		const c = text[i];
		if (quoted) {
			if (c === '"' && text[i + 1] === '"') {
				field += '"';
				i++;
			} else if (c === '"') quoted = false;
			else field += c;
		} else if (c === '"') quoted = true;
		else if (c === ",") {
			row.push(field.trim());
			field = "";
		} else if (c === "\n") {
			row.push(field.trim());
			rows.push(row);
			row = [];
			field = "";
		} else if (c !== "\r") field += c;
	}
	if (field || row.length) {
		row.push(field.trim());
		rows.push(row);
	}
	return rows;
}

const [header, ...rows] = parseCsv(readFileSync(out, "utf8")).filter((r) => r.length > 1);
rmSync(outDir, { recursive: true, force: true });
const col = (name) => header.findIndex((h) => h.trim().toLowerCase() === name);
const [iIssue, iSev, iFile, iLoc, iDesc] = ["issue", "severity", "filename", "location", "description"].map(col);
const findings = rows.map((r) => ({ issue: r[iIssue], severity: r[iSev].toUpperCase(), file: r[iFile], location: r[iLoc], description: r[iDesc] }));

for (const f of findings) {
	const where = f.file && f.file !== "N/A" ? `${relative(root, f.file)}:${f.location}` : "(global)";
	process.stdout.write(`${f.severity.padEnd(8)} ${f.issue}  ${where}  ${f.description}\n`);
}

// Every silenced finding must say why, at the finding.
const unjustifiedDisables = [];
const walk = (dir) => {
	for (const name of readdirSync(dir)) {
		const p = join(dir, name);
		if (statSync(p).isDirectory()) walk(p);
		else if (/\.(ts|js|cjs|mjs|html)$/.test(name)) {
			readFileSync(p, "utf8")
				.split("\n")
				.forEach((line, i) => {
					const m = /eng-disable\s+([\w \t]+)(.*)$/.exec(line);
					if (m && !/--\s*\S/.test(m[2])) unjustifiedDisables.push(`${relative(root, p)}:${i + 1}`);
				});
		}
	}
};
walk(target);

const serious = findings.filter((f) => f.severity === "HIGH" || f.severity === "MEDIUM");
const count = (s) => findings.filter((f) => f.severity === s).length;
for (const d of unjustifiedDisables) process.stdout.write(`eng-disable without a "-- reason" at ${d}\n`);
process.stdout.write(
	`electronegativity (Electron 45.5.0, ${relative(root, target)}): ${count("HIGH")} high, ${count("MEDIUM")} medium, ${count("LOW")} low, ${count("INFORMATIONAL")} informational; ${unjustifiedDisables.length} unjustified eng-disable\n`,
);
process.exit(serious.length === 0 && unjustifiedDisables.length === 0 ? 0 : 1);
