// `arbor try` end to end: the built CLI, the real pi 1.6 (Node 24) found as `pi` on PATH, a loopback model that
// calls pi's write tool, and a git repository with uncommitted work (issue 30's "Done when").

import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Pi16SessionManager } from "../../session/test/helpers/pi16";
import { messageText, startTriesRig, type TriesRig } from "../../services/test/helpers/tries-rig";
import { arborInEnv, buildCli, type RunResult } from "./helpers";

let rig: TriesRig;
beforeAll(() => buildCli());
beforeEach(async () => {
	rig = await startTriesRig();
});
afterEach(async () => {
	await rig.close();
});

/** The CLI as a child process (async: the loopback model answers in this process). */
const arbor = (args: string[], env: NodeJS.ProcessEnv = rig.env()): Promise<RunResult> => arborInEnv(args, env);

type TryJson = {
	index: number;
	sessionFile: string;
	worktree: string;
	status: string;
	tokens: { total: number };
	cost: number;
	files: { path: string; status: string }[];
};

describe("arbor try (real pi 1.6 on PATH, loopback model, git worktrees)", () => {
	it("runs two forks of FILE at ID, each answered, leaves the user's tree alone; keep applies exactly the kept try", async () => {
		const r = await arbor(["try", rig.session, "a2", "--n", "2", "--prompt", "Write your own file", "--json"]);
		expect(r.stderr).toBe("");
		expect(r.status).toBe(0);
		const out = JSON.parse(r.stdout) as { source: string; readOnly: boolean; confined: boolean; confinement: string; tries: TryJson[] };
		expect(out.readOnly).toBe(false);
		// bubblewrap runs here (CI installs it): each try's pi is confined, and the run says what it can touch.
		expect(out.confined).toBe(true);
		expect(out.confinement).toMatch(/^confined \(bubblewrap\): a try's pi can write only its own worktree/);
		expect(out.tries).toHaveLength(2);
		for (const t of out.tries) {
			expect(t.status).toBe("done");
			const sm = Pi16SessionManager.open(t.sessionFile);
			expect(sm.getHeader()?.parentSession).toBe(rig.session);
			const last = sm.getLeafEntry() as { message?: { role: string; content: { type: string; text?: string }[] } };
			expect(last.message?.role).toBe("assistant");
			expect(last.message?.content.map((c) => c.text).join("")).toBe("I wrote the file.");
			expect(t.files).toHaveLength(1);
			expect(t.files[0]!.status).toBe("added");
			expect(fs.existsSync(path.join(t.worktree, t.files[0]!.path))).toBe(true);
		}
		// The model got, for each try, the context of a2 plus the prompt.
		const firsts = rig.firstRequests();
		expect(firsts).toHaveLength(2);
		for (const req of firsts) {
			const msgs = (req.body as { messages: { role: string; content?: unknown }[] }).messages.filter((m) => m.role !== "system");
			expect(msgs.map(messageText)).toEqual([
				"Set up the notes project",
				"The notes project is set up.",
				"Plan branch A: keep notes short",
				"Branch A answer: short notes.",
				"Write your own file",
			]);
		}
		// The user's working tree: their uncommitted change still there, nothing else.
		expect(rig.status()).toBe(" M notes.txt\n?? draft.txt\n");
		expect(fs.readFileSync(path.join(rig.repo, "notes.txt"), "utf8")).toBe("line one\nmy uncommitted line\n");

		const [kept, other] = out.tries as [TryJson, TryJson];
		const keptContent = fs.readFileSync(path.join(kept.worktree, kept.files[0]!.path), "utf8");
		expect(keptContent).toMatch(/^written by try \d\n$/);
		const k = await arbor(["try", "keep", kept.sessionFile]);
		expect(k.stderr).toBe("");
		expect(k.status).toBe(0);
		expect(k.stdout).toContain(`kept ${kept.sessionFile}`);
		expect(k.stdout).toContain(`no live pi: continue with \`pi --session ${kept.sessionFile}\`\n`);
		expect(rig.status()).toBe(` M notes.txt\n?? draft.txt\n?? ${kept.files[0]!.path}\n`);
		expect(fs.readFileSync(path.join(rig.repo, kept.files[0]!.path), "utf8")).toBe(keptContent);
		expect(fs.existsSync(kept.worktree)).toBe(false);
		expect(fs.existsSync(other.worktree)).toBe(false);
		expect(fs.existsSync(other.sessionFile)).toBe(true);
		const again = await arbor(["try", "keep", other.sessionFile]);
		expect(again.status).toBe(1);
		expect(again.stderr).toMatch(/not a try Arbor still tracks/);
	});

	it("says clearly when there is no pi to run the tries, and leaves nothing behind", async () => {
		const env = { ...rig.env(), PATH: "/usr/bin:/bin" };
		const r = await arbor(["try", rig.session, "a2", "--prompt", "x"], env);
		expect(r.status).toBe(3);
		expect(r.stderr).toMatch(/no pi to run the tries: install pi/);
		expect(rig.status()).toBe(" M notes.txt\n?? draft.txt\n");
		expect(fs.readdirSync(path.dirname(rig.session))).toEqual([path.basename(rig.session)]);
	});

	it("rejects bad counts and mismatched per-try options with a usage error", async () => {
		for (const args of [
			["--n", "7", "--prompt", "x"],
			["--n", "3", "--prompt", "a", "--prompt", "b"],
			["--prompt", "x", "--model", "nomodel"],
			["--n", "2"],
		]) {
			const r = await arbor(["try", rig.session, "a2", ...args]);
			expect(r.status, args.join(" ")).toBe(1);
			expect(r.stderr).toMatch(/^arbor try: /);
		}
	});
});
