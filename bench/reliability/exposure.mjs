// Figures for issue #23 items 3 and 4: what another local user, or the terminal, gets from Arbor.
// (3) Every file and folder Arbor creates under a temp HOME (settings, window state, search index, logs,
// appearance, and the branch / pruned copy / export files made from 0600 sessions), run under umask 022:
// group/other permission bits must be 0, and a file made from a session never wider than its source.
// (4) Every human-readable `arbor` command on sessions whose messages, labels, titles, cwd, tool names and
// file names hold hostile strings (ESC sequences, OSC 52, BEL, CR, every C1 control, DEL): raw control
// characters reaching stdout or stderr must be 0; every --json output must parse and give back the file's
// values exactly.
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "./fuzz-gen.mjs";
import { workerPath } from "./build.mjs";

const C1 = Array.from({ length: 32 }, (_, i) => String.fromCharCode(0x80 + i)).join("");
const C0 = Array.from({ length: 32 }, (_, i) => String.fromCharCode(i))
	.filter((c) => c !== "\n" && c !== "\t" && c !== "\0")
	.join("");
/** Hostile strings: [name, text usable in JSON, text usable in a file name]. */
const HOSTILE = [
	["OSC 52 clipboard", "\x1b]52;c;cHduZWQ=\x07", "\x1b]52;c;eA==\x07"],
	["OSC 0 title + clear screen", "\x1b]0;PWNED\x07\x1b[2J\x1b[H", "\x1b]0;t\x07"],
	["CR overwrite + forged line", "ok\rFAKE\nforged: line", "a\rb"],
	["C1 CSI / OSC / ST", "\u009b31m\u009d0;t\u009c\u0085", "\u009b1m"],
	["BEL + DEL", "\x07\x07\x7f", "\x07\x7f"],
	["every C0", C0, "\x01\x1b\x1f"],
	["every C1", C1, C1.slice(0, 8)],
	["bidi + ESC in emoji text", "😀\u202e\x1b[8m hidden \x1b[0m", "😀\x1b[8m"],
];

const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

function session(dir, h, k) {
	const [, text, fname] = h;
	const d = join(dir, `proj-${k}${fname}`);
	mkdirSync(d, { recursive: true });
	const file = join(d, `s-${k}${fname}.jsonl`);
	const t = (s) => `2026-01-01T00:00:${String(s).padStart(2, "0")}.000Z`;
	const lines = [
		{ type: "session", version: 3, id: `sess-${k}`, timestamp: t(0), cwd: `/work/${text}` },
		{ type: "session_info", id: "i1", parentId: null, timestamp: t(1), name: `title ${text}` },
		{ type: "message", id: "u1", parentId: "i1", timestamp: t(2), message: { role: "user", content: `needle ${text}` } },
		{
			type: "message",
			id: "a1",
			parentId: "u1",
			timestamp: t(3),
			message: {
				role: "assistant",
				content: [
					{ type: "text", text: `answer ${text}` },
					{ type: "toolCall", id: "c1", name: `tool${text}`, arguments: { command: `ls ${text}` } },
				],
				provider: "p",
				model: `m${text}`,
				stopReason: "toolUse",
			},
		},
		{
			type: "message",
			id: "r1",
			parentId: "a1",
			timestamp: t(4),
			message: { role: "toolResult", toolCallId: "c1", toolName: `tool${text}`, content: `out ${text}` },
		},
		{ type: "branch_summary", id: "s1", parentId: "r1", timestamp: t(5), fromId: "r1", summary: `summary ${text}` },
		{ type: "custom_message", id: "c2", parentId: "s1", timestamp: t(6), customType: `kind${text}`, content: `custom ${text}`, display: true },
		{ type: "label", id: "l1", parentId: "c2", timestamp: t(7), targetId: "u1", label: `label ${text}` },
		{ type: "message", id: "u2", parentId: "u1", timestamp: t(8), message: { role: "user", content: `other ${text}` } },
	];
	writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
	chmodSync(file, 0o600);
	return { file, dir: d, text };
}

/** `arbor ARGS` under umask 022 with HOME set, as a user's shell runs it. */
function arbor(home, args) {
	const r = spawnSync("sh", ["-c", 'umask 022; exec "$0" "$@"', process.execPath, join(repoRoot, "bin", "arbor.cjs"), ...args], {
		encoding: "utf8",
		maxBuffer: 1 << 28,
		env: { ...process.env, HOME: home, PI_CODING_AGENT_DIR: "", XDG_DATA_HOME: join(home, ".local", "share"), NO_COLOR: "1" },
	});
	return { status: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
}

function walk(root, out = []) {
	if (!existsSync(root)) return out;
	out.push(root);
	if (lstatSync(root).isDirectory()) for (const n of readdirSync(root)) walk(join(root, n), out);
	return out;
}

export async function run(ctx) {
	const { tmp, bounded, workers, log } = ctx;
	if (!existsSync(join(repoRoot, "dist", "cli.cjs"))) throw new Error("the CLI is not built (dist/cli.cjs missing: run `npm run build`)");
	const worker = workerPath(workers, "exposure-worker");
	const home = join(tmp, "home");
	const userData = join(tmp, "userData");
	const sessions = join(home, ".pi", "agent", "sessions");
	mkdirSync(sessions, { recursive: true });
	const out = join(tmp, "out");
	mkdirSync(out, { recursive: true });
	// Bounded (CI): OSC 52, CR with a forged line, C1; the full run every string.
	const hostile = bounded ? [HOSTILE[0], HOSTILE[2], HOSTILE[3]] : HOSTILE;
	const details = [];
	let runs = 0;
	let rawOutputs = 0;
	let jsonRuns = 0;
	let badJson = 0;
	let failedRuns = 0;
	const derived = [];

	hostile.forEach((h, k) => {
		const s = session(sessions, h, k);
		const text = s.text;
		const human = [
			["tree", s.file, "--filter", "all"],
			["tree", s.file, "--search", "needle"],
			["context", s.file, "--leaf", "c2"],
			["context", s.file, "--as", "omp", "--leaf", "c2"],
			["info", s.file],
			["compare", s.file, "c2", "u2"],
			["sessions"],
			["sessions", s.dir],
			["search", "needle"],
			["family", s.file, s.dir],
			["export", s.file, "--leaf", "c2"],
			["export", s.file, "--leaf", "c2", "--format", "html"],
			["export", s.file, "--leaf", "c2", "--format", "jsonl"],
			["navigate", s.file, "u2"],
			["label", s.file, "u2", `new ${text.replace(/\0/g, "")}`],
			["branch", s.file, "c2", "--dir", out],
			["prune", s.file, "u2", "--dir", out],
			["export", s.file, "--leaf", "c2", "--out", join(out, `e-${k}.md`)],
			["export", s.file, "--leaf", "c2", "--format", "html", "--out", join(out, `e-${k}.html`)],
			["export", s.file, "--leaf", "c2", "--format", "jsonl", "--out", join(out, `e-${k}.jsonl`)],
			["tree", join(s.dir, `missing${h[2]}.jsonl`)],
		];
		for (const args of human) {
			const r = arbor(home, args);
			runs++;
			const expectFail = args[0] === "tree" && args[1].includes("missing");
			if ((r.status !== 0) !== expectFail) {
				failedRuns++;
				details.push(`${h[0]}: arbor ${args[0]} exited ${r.status}: ${r.stderr.slice(0, 160)}`);
			}
			for (const [name, stream] of [
				["stdout", r.stdout],
				["stderr", r.stderr],
			]) {
				const m = RAW.exec(stream);
				if (m) {
					rawOutputs++;
					details.push(
						`${h[0]}: arbor ${args[0]} ${name} has raw U+${m[0].charCodeAt(0).toString(16).padStart(4, "0")} near ${JSON.stringify(stream.slice(Math.max(0, m.index - 20), m.index + 4))}`,
					);
				}
			}
			if (["branch", "prune"].includes(args[0]) && r.status === 0) derived.push({ file: r.stdout.trim(), source: s.file });
		}
		for (const e of ["md", "html", "jsonl"]) derived.push({ file: join(out, `e-${k}.${e}`), source: s.file });

		// --json: parses, nothing raw, and the file's values come back exactly.
		const checks = [
			[["tree", s.file, "--filter", "all", "--json"], (v) => JSON.stringify(v).includes(JSON.stringify(`label ${text}`))],
			[["info", s.file, "--json"], (v) => v.cwd === `/work/${text}` && v.title === `title ${text}` && v.file === s.file],
			[["context", s.file, "--leaf", "c2", "--json"], (v) => v.messages[0].content === `needle ${text}`],
			[["sessions", s.dir, "--json"], (v) => v.some((x) => x.path === s.file)],
			[["search", "needle", "--json"], (v) => v.sessions.some((x) => x.path === s.file)],
			[["family", s.file, s.dir, "--json"], (v) => v.members[0].path === s.file],
			[["compare", s.file, "c2", "u2", "--json"], (v) => typeof v === "object" && v !== null],
		];
		for (const [args, same] of checks) {
			jsonRuns++;
			const r = arbor(home, args);
			let ok = r.status === 0 && !RAW.test(r.stdout);
			try {
				ok = ok && same(JSON.parse(r.stdout));
			} catch {
				ok = false;
			}
			if (!ok) {
				badJson++;
				details.push(`${h[0]}: arbor ${args.join(" ").slice(0, 60)} --json not exact (exit ${r.status}) ${r.stderr.slice(0, 120)}`);
			}
		}
	});
	log(`${runs} human-readable runs, ${jsonRuns} --json runs over ${hostile.length} hostile strings`);

	// The app's own files the CLI does not write: window state, log, appearance, settings.
	const w = spawnSync("sh", ["-c", 'umask 022; exec "$0" "$@"', process.execPath, worker, home, userData], { encoding: "utf8" });
	if (w.status !== 0) details.push(`exposure worker failed: ${w.stderr.slice(0, 300)}`);

	// (3) the audit: Arbor's folders and files, then the files made from the 0600 sessions.
	const own = [...walk(join(home, ".arbor")), ...walk(userData)];
	const wide = own.filter((p) => (lstatSync(p).mode & 0o077) !== 0);
	for (const p of wide.slice(0, 10)) details.push(`group/other can access ${p.slice(tmp.length)} (0${(lstatSync(p).mode & 0o777).toString(8)})`);
	const expected = ["settings.json", "window-state.json", "search-index", "manifest.json", "main.log", "appearance.json"];
	const missing = expected.filter((n) => !own.some((p) => p.endsWith(`/${n}`)));
	for (const n of missing) details.push(`not created, so not audited: ${n}`);
	let wider = 0;
	let derivedAudited = 0;
	for (const d of derived) {
		if (!existsSync(d.file)) {
			details.push(`derived file missing: ${d.file.slice(tmp.length)}`);
			wider++;
			continue;
		}
		derivedAudited++;
		const m = lstatSync(d.file).mode & 0o777;
		const src = lstatSync(d.source).mode & 0o777;
		if ((m & ~src) !== 0) {
			wider++;
			details.push(`${d.file.slice(tmp.length)} is 0${m.toString(8)}, its source 0${src.toString(8)}`);
		}
	}

	return {
		title: "Local exposure: file modes (umask 022) and terminal control characters in CLI output (issue #23)",
		figures: [
			{
				label: `Arbor's files and folders with group/other access (${own.length} audited: ~/.arbor, search index, settings, window state, logs)`,
				value: wide.length + missing.length,
				target: 0,
			},
			{ label: `files made from a 0600 session wider than it (${derivedAudited} branch, prune, export md/html/jsonl)`, value: wider, target: 0 },
			{
				label: `raw control characters reaching stdout/stderr (${runs} human-readable runs: 21 commands × ${hostile.length} hostile strings)`,
				value: rawOutputs,
				target: 0,
			},
			{ label: `--json outputs not exact JSON or not giving back the file's values (${jsonRuns} runs)`, value: badJson, target: 0 },
			{ label: "human-readable runs that failed", value: failedRuns, target: 0 },
		],
		details,
	};
}
