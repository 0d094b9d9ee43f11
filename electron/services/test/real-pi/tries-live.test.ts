// Keep with a live pi (docs/tries.md): a real pi 1.6 (Node 24, RPC mode, Arbor's extension) holds the session
// file, the tries run through ArborServices with the real pi behind a `pi` command on PATH, and Keep applies the
// chosen try's changes to the user's repository and switches that running pi to the kept session. pi's own
// get_state names the file it now writes.

import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ArborEvent } from "../../../../shared/api";
import { ArborServices } from "../../arbor-services";
import { type RealPi, startRealPi } from "../helpers/real-pi";
import { startTriesRig, type TriesRig } from "../helpers/tries-rig";

const EXTENSION = path.resolve(import.meta.dirname, "../../../../pi-extension/index.ts");

let rig: TriesRig;
let pi: RealPi;
let services: ArborServices;
const events: ArborEvent[] = [];
const PATH = process.env.PATH;

beforeAll(async () => {
	rig = await startTriesRig();
	// The live pi resumes the rig's session in the repository; it runs no turn, so it stays idle.
	pi = await startRealPi({ server: rig.server, session: rig.session, cwd: rig.repo, args: ["-e", EXTENSION] });
	// The tries' pi is the `pi` on PATH (no live registration names a runtime yet): the rig's.
	process.env.PATH = `${rig.binDir}${path.delimiter}${PATH ?? "/usr/bin:/bin"}`;
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
	process.env.PATH = PATH;
	services?.dispose();
	await pi?.stop();
	await rig?.close();
});

describe("Keep with a live pi (real pi 1.6)", () => {
	it("Keep applies the kept try's changes and switches the live pi holding the source to the kept session (pi's own get_state names it)", async () => {
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
		const [state] = (await services.listTries({})).runs.find((r) => r.runId === run.runId)!.tries;
		expect(state).toMatchObject({ status: "done", files: [{ path: "try-1.txt", status: "added" }] });
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
