// Figure 4: disk full, permission denied, read-only file system, file deleted / replaced / truncated while
// open. Through the CLI (`node bin/arbor.cjs label|branch ...`) and through the services the UI uses
// (ArborServices): a clear error (names the file, says what happened, no stack trace) or a correct
// write, and never a half-written file.
import { execFileSync, spawnSync } from "node:child_process";
import {
	chmodSync,
	copyFileSync,
	existsSync,
	linkSync,
	mkdirSync,
	readdirSync,
	readFileSync,
	renameSync,
	rmSync,
	statfsSync,
	truncateSync,
	unlinkSync,
	writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { genSessionTool, repoRoot } from "./fuzz-gen.mjs";
import { workerPath } from "./build.mjs";
import { appendOnlyViolation, forkWorker, nodeForOtherUsers } from "./util.mjs";

const NOBODY = 65534;
const REASONS = {
	full: /space|full|ENOSPC|quota/i,
	denied: /permission|denied|EACCES|EPERM|read-only|not writable/i,
	rofs: /read-only|EROFS|permission|not writable/i,
	missing: /deleted|no longer|not found|no such|ENOENT|missing|moved|does not exist/i,
	changed: /changed|replaced|conflict|reload|not found|no entry|unknown/i,
};

const appendOnly = (before, after) => appendOnlyViolation(before, after) === null;

function tryMount(dir, opts) {
	mkdirSync(dir, { recursive: true });
	const r = spawnSync("mount", ["-t", "tmpfs", "-o", opts, "tmpfs", dir], { encoding: "utf8" });
	return r.status === 0;
}
const umount = (dir) => spawnSync("umount", ["-l", dir]);

function fillDisk(dir, leave) {
	const st = statfsSync(dir);
	const free = st.bavail * st.bsize;
	if (free > leave) writeFileSync(join(dir, "filler.bin"), Buffer.alloc(free - leave));
}

function firstIds(file) {
	const lines = readFileSync(file, "utf8")
		.split("\n")
		.filter(Boolean)
		.map((l) => JSON.parse(l));
	const entries = lines.filter((o) => o.type !== "session");
	return { any: entries[Math.floor(entries.length / 2)].id, user: entries.filter((o) => o.type === "message" && o.message.role === "user").pop().id };
}

function cli(args, { asNobody = false } = {}) {
	const cmd = asNobody ? "setpriv" : process.execPath;
	const argv = asNobody
		? ["--reuid", String(NOBODY), "--regid", String(NOBODY), "--clear-groups", nodeForOtherUsers(), join(repoRoot, "bin", "arbor.cjs"), ...args]
		: [join(repoRoot, "bin", "arbor.cjs"), ...args];
	const r = spawnSync(cmd, argv, { encoding: "utf8", env: { ...process.env, HOME: "/tmp" }, timeout: 60_000 });
	return { code: r.status, stderr: (r.stderr ?? "").trim(), stdout: (r.stdout ?? "").trim() };
}

export async function run(ctx) {
	const { bounded, seed, tmp, log } = ctx;
	void bounded;
	mkdirSync(tmp, { recursive: true });
	chmodSync(tmp, 0o755);
	const base = join(tmp, "base.jsonl");
	execFileSync(process.execPath, [genSessionTool, "--n", "120", "--seed", `err-${seed}`, "--out", base], { stdio: "ignore" });
	const ids = firstIds(base);
	const home = join(tmp, "home");
	mkdirSync(home, { recursive: true });
	const isRoot = process.getuid?.() === 0;
	const cases = [];
	const skipped = [];
	const add = (c) => {
		cases.push(c);
		log(`${c.ok ? "ok  " : "FAIL"} ${c.via} / ${c.name}: ${c.shown.slice(0, 160).replace(/\n/g, " ⏎ ")}`);
	};
	/**
	 * Judge a CLI run: non-zero exit, a message naming the file (for a branch: the folder it goes to) and
	 * the reason, no stack trace.
	 */
	const judgeCli = (name, r, file, reason, intact, extra = []) => {
		const clear = r.code !== 0 && r.stderr.length > 0 && r.stderr.includes(file) && reason.test(r.stderr) && !/\n\s+at /.test(r.stderr);
		add({ via: "CLI", name, ok: clear && intact && extra.every(Boolean), clear, intact, shown: r.stderr || `(exit ${r.code}, nothing on stderr)` });
	};
	const services = async (opts = {}) => {
		const w = await forkWorker(workerPath(ctx.workers, "errors-worker"), opts);
		return w;
	};
	const judgeSvc = (name, a, file, reason, intact, { successOk = false } = {}) => {
		const clear = a.ok ? successOk : a.typed === true && !!a.code && a.message.includes(file) && reason.test(a.message);
		add({
			via: "services",
			name,
			ok: !a.fatal && clear && intact,
			clear,
			intact,
			shown: a.fatal ? `worker failed: ${a.fatal}` : a.ok ? "(succeeded)" : `${a.code}: ${a.message}`,
		});
	};
	const fresh = (dir, name = "session.jsonl") => {
		mkdirSync(dir, { recursive: true });
		const f = join(dir, name);
		copyFileSync(base, f);
		return f;
	};
	const jsonlFiles = (dir) => readdirSync(dir).filter((f) => f.endsWith(".jsonl"));

	// ---- disk full (a 1 MiB tmpfs, refilled before each case to its last 8 KiB)
	const full = join(tmp, "full");
	if (isRoot && tryMount(full, "size=1m")) {
		try {
			const f = join(full, "session.jsonl");
			const reset = () => {
				for (const x of readdirSync(full)) rmSync(join(full, x), { force: true });
				copyFileSync(base, f);
				fillDisk(full, 8192);
				return readFileSync(f);
			};
			let before = reset();
			judgeCli("disk full: label with a 64 KiB text", cli(["label", f, ids.any, "x".repeat(65536)]), f, REASONS.full, appendOnly(before, readFileSync(f)));
			before = reset();
			judgeCli("disk full: branch to a new file", cli(["branch", f, ids.user]), full, REASONS.full, Buffer.compare(before, readFileSync(f)) === 0, [
				jsonlFiles(full).length === 1,
			]);
			for (const [name, act] of [
				["appendUserMessage (64 KiB)", { act: "appendUserMessage", text: "y".repeat(65536) }],
				["branchToFile", { act: "branchToFile", entryId: ids.user }],
			]) {
				before = reset();
				const w = await services();
				try {
					await w.ask({ open: { file: f, home } }, "opened");
					const a = await w.ask(act, "acted");
					judgeSvc(
						`disk full: ${name}`,
						a,
						act.act === "branchToFile" ? full : f,
						REASONS.full,
						appendOnly(before, readFileSync(f)) && jsonlFiles(full).length === 1,
					);
				} finally {
					w.kill();
				}
			}
		} finally {
			umount(full);
		}
	} else skipped.push({ label: "disk full (a 1 MiB tmpfs)", why: "cannot mount a tmpfs here (needs root)" });

	// ---- read-only file system
	const ro = join(tmp, "rofs");
	if (isRoot && tryMount(ro, "size=4m")) {
		try {
			const f = fresh(ro);
			spawnSync("mount", ["-o", "remount,ro", ro]);
			const before = readFileSync(f);
			judgeCli("read-only file system: label", cli(["label", f, ids.any, "text"]), f, REASONS.rofs, Buffer.compare(before, readFileSync(f)) === 0);
			const w = await services();
			try {
				await w.ask({ open: { file: f, home } }, "opened");
				judgeSvc(
					"read-only file system: setLabel",
					await w.ask({ act: "setLabel", entryId: ids.any, text: "t" }, "acted"),
					f,
					REASONS.rofs,
					Buffer.compare(before, readFileSync(f)) === 0,
				);
			} finally {
				w.kill();
			}
		} finally {
			umount(ro);
		}
	} else skipped.push({ label: "read-only file system (a tmpfs remounted read-only)", why: "cannot mount a tmpfs here (needs root)" });

	// ---- permission denied (as an unprivileged user when running as root; chmod otherwise)
	{
		const dir = join(tmp, "denied");
		const f = fresh(dir);
		chmodSync(f, isRoot ? 0o644 : 0o444);
		chmodSync(dir, 0o555);
		const before = readFileSync(f);
		judgeCli(
			"permission denied: label a read-only file",
			cli(["label", f, ids.any, "text"], { asNobody: isRoot }),
			f,
			REASONS.denied,
			Buffer.compare(before, readFileSync(f)) === 0,
		);
		judgeCli(
			"permission denied: branch into a read-only folder",
			cli(["branch", f, ids.user], { asNobody: isRoot }),
			dir,
			REASONS.denied,
			Buffer.compare(before, readFileSync(f)) === 0,
			[jsonlFiles(dir).length === 1],
		);
		const w = await services(isRoot ? { uid: NOBODY, gid: NOBODY, env: { HOME: home } } : {});
		try {
			await w.ask({ open: { file: f, home: join(tmp, "home-nobody") } }, "opened");
			judgeSvc(
				"permission denied: setLabel",
				await w.ask({ act: "setLabel", entryId: ids.any, text: "t" }, "acted"),
				f,
				REASONS.denied,
				Buffer.compare(before, readFileSync(f)) === 0,
			);
			judgeSvc(
				"permission denied: branchToFile",
				await w.ask({ act: "branchToFile", entryId: ids.user }, "acted"),
				dir,
				REASONS.denied,
				jsonlFiles(dir).length === 1,
			);
		} finally {
			w.kill();
			chmodSync(dir, 0o755);
		}
	}

	// ---- missing file (CLI) and deleted while open (services)
	{
		const dir = join(tmp, "deleted");
		const f = fresh(dir);
		const gone = join(dir, "no-such-session.jsonl");
		judgeCli("missing file: label", cli(["label", gone, ids.any, "t"]), gone, REASONS.missing, !existsSync(gone));
		const w = await services();
		try {
			await w.ask({ open: { file: f, home } }, "opened");
			unlinkSync(f);
			judgeSvc("deleted while open: setLabel", await w.ask({ act: "setLabel", entryId: ids.any, text: "t" }, "acted"), f, REASONS.missing, !existsSync(f));
			judgeSvc("deleted while open: appendUserMessage", await w.ask({ act: "appendUserMessage", text: "hi" }, "acted"), f, REASONS.missing, !existsSync(f));
		} finally {
			w.kill();
		}
	}

	// ---- replaced while open: another tool rewrote the file atomically (temp + rename), e.g. omp's rewrite
	{
		const dir = join(tmp, "replaced");
		const f = fresh(dir);
		const oldInode = join(dir, "old-inode.keep");
		const w = await services();
		try {
			await w.ask({ open: { file: f, home } }, "opened");
			linkSync(f, oldInode);
			const original = readFileSync(f);
			const extra = `{"type":"custom","customType":"other-tool","id":"zz000001","parentId":${JSON.stringify(ids.any)},"timestamp":"2026-01-01T00:00:00.000Z"}\n`;
			writeFileSync(join(dir, "tmp.rewrite"), Buffer.concat([original, Buffer.from(extra)]));
			renameSync(join(dir, "tmp.rewrite"), f);
			const replaced = readFileSync(f);
			const a = await w.ask({ act: "setLabel", entryId: ids.any, text: "after replace" }, "acted");
			const intact = appendOnly(replaced, readFileSync(f)) && Buffer.compare(original, readFileSync(oldInode)) === 0;
			judgeSvc("replaced while open (same entries + more): setLabel", a, f, REASONS.changed, intact, { successOk: true });
			// Replaced by a different session: the entry no longer exists there.
			copyFileSync(f, oldInode + "2");
			execFileSync(process.execPath, [genSessionTool, "--n", "30", "--seed", `other-${seed}`, "--out", join(dir, "tmp2.rewrite")], { stdio: "ignore" });
			renameSync(join(dir, "tmp2.rewrite"), f);
			const other = readFileSync(f);
			const b = await w.ask({ act: "setLabel", entryId: ids.any, text: "after replace 2" }, "acted");
			judgeSvc(
				"replaced by another session: setLabel on a vanished entry",
				b,
				f,
				REASONS.changed,
				Buffer.compare(other, readFileSync(f)) === 0 || (b.ok && appendOnly(other, readFileSync(f))),
			);
		} finally {
			w.kill();
		}
	}

	// ---- truncated while open (mid-line): the next write must not land at a stale offset
	{
		const dir = join(tmp, "truncated");
		const f = fresh(dir);
		const w = await services();
		try {
			await w.ask({ open: { file: f, home } }, "opened");
			truncateSync(f, Math.floor(readFileSync(f).length / 2));
			const cut = readFileSync(f);
			const a = await w.ask({ act: "appendUserMessage", text: "after truncate" }, "acted");
			judgeSvc("truncated while open: appendUserMessage", a, f, REASONS.changed, appendOnly(cut, readFileSync(f)), { successOk: true });
		} finally {
			w.kill();
		}
	}
	rmSync(join(tmp, "home-nobody"), { recursive: true, force: true });

	const bad = cases.filter((c) => !c.ok);
	return {
		title: "Disk full, permission denied, read-only, deleted / replaced / truncated while open",
		figures: [
			{ label: "cases (CLI + services)", value: cases.length, info: true },
			{
				label: "cases with a clear error (or a correct write)",
				value: `${cases.filter((c) => c.clear).length}/${cases.length}`,
				ok: cases.every((c) => c.clear),
			},
			{ label: "cases that left a half-written or damaged file", value: cases.filter((c) => !c.intact).length, target: 0 },
			...skipped.map((s) => ({ label: s.label, notRun: s.why })),
		],
		details: [...bad.map((c) => `${c.via} / ${c.name}: ${c.clear ? "" : "unclear error; "}${c.intact ? "" : "FILE DAMAGED; "}shown: ${c.shown.slice(0, 300)}`)],
	};
}
