// Tries with a live pi (docs/tries.md): a real pi 1.6 (Node 24, RPC mode, Arbor's extension) holds the session
// file. The tries run through ArborServices with that pi's own runtime and CLI, which its registration names (the
// `pi` on PATH fails loudly and must not run), and Keep applies the chosen try's changes to the user's repository
// and switches that running pi to the kept session. pi's own get_state names the file it now writes.

import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ArborEvent } from "../../../../shared/api";
import { ArborServices } from "../../arbor-services";
import { node24Path, PI_CLI, type RealPi, startRealPi } from "../helpers/real-pi";
import { startTriesRig, type TriesRig } from "../helpers/tries-rig";

const EXTENSION = path.resolve(import.meta.dirname, "../../../../pi-extension/index.ts");

let rig: TriesRig;
let pi: RealPi;
let services: ArborServices;
const events: ArborEvent[] = [];
const SAVED = ["PATH", "HOME", "PI_CODING_AGENT_DIR", "PI_OFFLINE", "PI_SKIP_VERSION_CHECK", "PI_TELEMETRY"].map((k) => [k, process.env[k]] as const);
let wrongPiRan: string;

beforeAll(async () => {
	rig = await startTriesRig();
	// The live pi resumes the rig's session in the repository; it runs no turn, so it stays idle.
	pi = await startRealPi({ server: rig.server, session: rig.session, cwd: rig.repo, args: ["-e", EXTENSION] });
	// The only `pi` on PATH fails loudly (and leaves a mark): the tries must run with the live pi's runtime. They
	// run in this process's environment, which is set like the live pi's (its HOME and agent folder).
	const wrongBin = path.join(rig.root, "wrong-bin");
	wrongPiRan = path.join(rig.root, "wrong-pi-ran");
	fs.mkdirSync(wrongBin);
	fs.writeFileSync(path.join(wrongBin, "pi"), `#!/bin/sh\necho "$*" >> '${wrongPiRan}'\necho "the pi on PATH must not run" >&2\nexit 97\n`, { mode: 0o755 });
	Object.assign(process.env, {
		PATH: `${wrongBin}${path.delimiter}/usr/bin:/bin`,
		HOME: pi.home,
		PI_CODING_AGENT_DIR: pi.agentDir,
		PI_OFFLINE: "1",
		PI_SKIP_VERSION_CHECK: "1",
		PI_TELEMETRY: "0",
	});
	services = new ArborServices({
		settingsDir: path.join(pi.home, ".arbor"),
		piAgentDir: pi.agentDir,
		watch: false,
		liveClient: { name: "arbor-test", version: "0" },
		triesDir: path.join(rig.root, "arbor-home", ".arbor", "tries"),
	});
	services.onEvent((e) => events.push(e));
}, 240_000);

afterAll(async () => {
	for (const [k, v] of SAVED) {
		if (v === undefined) delete process.env[k];
		else process.env[k] = v;
	}
	services?.dispose();
	await pi?.stop();
	await rig?.close();
});

describe("Tries with a live pi (real pi 1.6)", () => {
	it("the live pi registers its runtime and CLI: Node 24 and pi's own cli.js, real paths", async () => {
		const reg = JSON.parse(fs.readFileSync(path.join(pi.home, ".arbor", "live", `${livePid()}.json`), "utf8")) as { runtime?: unknown };
		expect(reg.runtime).toEqual({ execPath: fs.realpathSync(node24Path()), cliPath: fs.realpathSync(PI_CLI) });
	});

	it("the tries run with the live pi's runtime and CLI (no working pi on PATH); Keep applies the kept try's changes and switches the live pi holding the source to the kept session (pi's own get_state names it)", async () => {
		expect(await pi.sessionFile()).toBe(rig.session);
		const summary = await services.openSession({ path: rig.session });
		expect(summary.live).toMatchObject({ agent: "pi", agentVersion: "1.6.0", status: "idle" });

		const run = await services.startTries({ sessionId: summary.sessionId, entryId: rig.ids.a2, tries: [{ prompt: "Write your file" }] });
		await new Promise<void>((resolve) => {
			const done = (): boolean => events.some((e) => e.type === "tries" && e.event.type === "run_done" && e.event.runId === run.runId);
			if (done()) return resolve();
			const off = services.onEvent(() => {
				if (!done()) return;
				off();
				resolve();
			});
		});
		const info = (await services.listTries({})).runs.find((r) => r.runId === run.runId)!;
		const [state] = info.tries;
		expect(state).toMatchObject({ status: "done", files: [{ path: "try-1.txt", status: "added" }] });
		// Which pi ran it: the live pi's runtime, as the run and its record say; the pi on PATH never ran.
		const livePi = `the live pi's runtime (pid ${livePid()}): ${fs.realpathSync(node24Path())} ${fs.realpathSync(PI_CLI)}`;
		expect(info.pi).toBe(livePi);
		const record = JSON.parse(fs.readFileSync(path.join(rig.root, "arbor-home", ".arbor", "tries", `${run.runId}.json`), "utf8")) as { pi?: string };
		expect(record.pi).toBe(livePi);
		expect(fs.existsSync(wrongPiRan)).toBe(false);
		// Until Keep the user's tree is untouched and the live pi stays on the source.
		expect(fs.existsSync(path.join(rig.repo, "try-1.txt"))).toBe(false);
		expect(await pi.sessionFile()).toBe(rig.session);

		const kept = await services.keepTry({ runId: run.runId, index: 0 });
		expect(kept).toMatchObject({ applied: ["try-1.txt"], conflicts: [], kept: state!.sessionFile, switched: true });
		expect(await pi.sessionFile()).toBe(state!.sessionFile);
		expect(fs.readFileSync(path.join(rig.repo, "try-1.txt"), "utf8")).toBe("written by try 1\n");
		expect(rig.status()).toBe(" M notes.txt\n?? draft.txt\n?? try-1.txt\n");
		// Arbor opened the kept session, which the live pi now holds.
		expect(kept.session?.path).toBe(state!.sessionFile);
		expect(kept.session?.live).toMatchObject({ agent: "pi", sessionFile: state!.sessionFile });
	}, 180_000);
});

/** The live pi's pid, from its registration (the only one in its HOME's live folder). */
function livePid(): number {
	const names = fs.readdirSync(path.join(pi.home, ".arbor", "live")).filter((n) => /^\d+\.json$/.test(n));
	expect(names).toHaveLength(1);
	return Number(names[0]!.slice(0, -".json".length));
}
