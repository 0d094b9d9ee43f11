// `arbor try` and `arbor try keep` with a live pi (docs/tries.md, issue 30): a real pi 1.6 (Node 24, RPC mode,
// Arbor's extension) holds the session file. The tries run with that pi's own runtime and CLI, which its
// registration names (the only `pi` on PATH fails loudly and must not run), and `arbor try keep` switches that pi
// to the kept session through the same steering as the app's Keep: pi's own get_state names the kept file.

import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { node24Path, PI_CLI, type RealPi, startRealPi } from "../../services/test/helpers/real-pi";
import { startTriesRig, type TriesRig } from "../../services/test/helpers/tries-rig";
import { arborInEnv, buildCli, type RunResult } from "./helpers";

const EXTENSION = path.resolve(import.meta.dirname, "../../../pi-extension/index.ts");

let rig: TriesRig;
let pi: RealPi;
let env: NodeJS.ProcessEnv;
let wrongPiRan: string;

beforeAll(async () => {
	buildCli();
	rig = await startTriesRig();
	// The live pi runs in the HOME the CLI runs in, so its registration is where the CLI looks (~/.arbor/live).
	const home = path.join(rig.root, "arbor-home");
	pi = await startRealPi({ server: rig.server, session: rig.session, cwd: rig.repo, home, args: ["-e", EXTENSION] });
	const wrongBin = path.join(rig.root, "wrong-bin");
	wrongPiRan = path.join(rig.root, "wrong-pi-ran");
	fs.mkdirSync(wrongBin);
	fs.writeFileSync(path.join(wrongBin, "pi"), `#!/bin/sh\necho "$*" >> '${wrongPiRan}'\necho "the pi on PATH must not run" >&2\nexit 97\n`, { mode: 0o755 });
	// The tries' pi gets the CLI's environment: set like the live pi's (its HOME and agent folder).
	env = {
		...process.env,
		PATH: `${wrongBin}${path.delimiter}/usr/bin:/bin`,
		HOME: home,
		PI_CODING_AGENT_DIR: pi.agentDir,
		PI_OFFLINE: "1",
		PI_SKIP_VERSION_CHECK: "1",
		PI_TELEMETRY: "0",
	};
}, 240_000);

afterAll(async () => {
	await pi?.stop();
	await rig?.close();
});

/** The CLI as a child process (async: the loopback model answers in this process). */
const arbor = (args: string[]): Promise<RunResult> => arborInEnv(args, env);

function livePid(): number {
	const names = fs.readdirSync(path.join(env.HOME!, ".arbor", "live")).filter((n) => /^\d+\.json$/.test(n));
	expect(names).toHaveLength(1);
	return Number(names[0]!.slice(0, -".json".length));
}

type TryJson = { sessionFile: string; worktree: string; status: string; files: { path: string }[] };

describe("arbor try with a live pi holding FILE (real pi 1.6)", () => {
	it("runs the tries with the live pi's runtime and CLI; keep switches that pi to the kept session (--json, then text)", async () => {
		const pid = livePid();
		const runtime = `the live pi's runtime (pid ${pid}): ${fs.realpathSync(node24Path())} ${fs.realpathSync(PI_CLI)}`;
		const r = await arbor(["try", rig.session, "a2", "--n", "2", "--prompt", "Write your own file", "--json"]);
		expect(r.stderr).toBe("");
		expect(r.status).toBe(0);
		const out = JSON.parse(r.stdout) as { pi: string; tries: TryJson[] };
		expect(out.pi).toBe(runtime);
		expect(out.tries.map((t) => t.status)).toEqual(["done", "done"]);
		expect(fs.existsSync(wrongPiRan)).toBe(false);
		expect(rig.status()).toBe(" M notes.txt\n?? draft.txt\n");
		expect(await pi.sessionFile()).toBe(rig.session);

		const [kept] = out.tries as [TryJson];
		const k = await arbor(["try", "keep", kept.sessionFile, "--json"]);
		expect(k.stderr).toBe("");
		expect(k.status).toBe(0);
		expect(JSON.parse(k.stdout)).toMatchObject({ kept: kept.sessionFile, applied: [kept.files[0]!.path], conflicts: [], switched: true, livePid: pid });
		expect(await pi.sessionFile()).toBe(kept.sessionFile);
		expect(rig.status()).toBe(` M notes.txt\n?? draft.txt\n?? ${kept.files[0]!.path}\n`);

		// Again from the kept session, which the live pi now holds, with the text output.
		const again = await arbor(["try", kept.sessionFile, "a2", "--n", "2", "--prompt", "Write one more file"]);
		expect(again.status).toBe(0);
		expect(again.stderr).toContain(`pi: ${runtime}\n`);
		expect(again.stderr).toContain("what a try can touch: confined (bubblewrap): a try's pi can write only its own worktree");
		const second = /session: {2}(\S+)/.exec(again.stdout)![1]!;
		const k2 = await arbor(["try", "keep", second]);
		expect(k2.stderr).toBe("");
		expect(k2.status).toBe(0);
		expect(k2.stdout).toContain(`switched pi ${pid} to ${second}: it continues there\n`);
		expect(await pi.sessionFile()).toBe(second);
		expect(fs.existsSync(wrongPiRan)).toBe(false);
	}, 240_000);
});
