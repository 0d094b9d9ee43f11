// The built `arbor` command steers a real running pi 1.6.0 that loaded Arbor's extension (docs/live.md):
// navigate / label / branch / send go through that pi (pi's own get_entries and the loopback model are the
// oracle); when pi is gone (even killed, leaving its registration behind) they act on the file again.

import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ArborServices } from "../../services";
import { type RealPi, startRealPi } from "../../services/test/helpers/real-pi";
import { arbor, arborAsync, buildCli } from "./helpers";

let pi: RealPi;
let file: string;
let env: Record<string, string>;
let ids: { u1: string; a1: string; u2: string; a2: string };

function textOf(content: unknown): string {
	if (typeof content === "string") return content;
	return (content as { type: string; text?: string }[]).map((b) => b.text ?? "").join("");
}

beforeAll(async () => {
	buildCli();
	const entry = arbor(["pi-extension"]);
	expect(entry.status).toBe(0);
	const extension = entry.stdout.trim();
	expect(path.isAbsolute(extension) && fs.existsSync(extension) && extension.endsWith(path.join("pi-extension", "index.ts"))).toBe(true);
	pi = await startRealPi({ args: ["-e", extension], answer: "First answer." });
	expect(pi.stderr()).not.toMatch(/error/i);
	await pi.prompt("first question");
	pi.server.setScenario({ kind: "stream", chunks: ["Second answer."] });
	await pi.prompt("second question");
	const msgs = (await pi.entries()).entries.filter((e) => e.type === "message" && ["user", "assistant"].includes((e.message as { role: string }).role));
	ids = { u1: msgs[0]!.id, a1: msgs[1]!.id, u2: msgs[2]!.id, a2: msgs[3]!.id };
	file = await pi.sessionFile();
	env = { HOME: pi.home, PI_CODING_AGENT_DIR: pi.agentDir };
}, 240_000);

afterAll(async () => {
	await pi?.stop();
});

describe("arbor with a live pi", () => {
	it("navigate moves the running pi's leaf; pi's next prompt sends exactly what `arbor context --leaf` shows, plus the prompt", async () => {
		const r = await arborAsync(["navigate", file, ids.a1, "--json"], env);
		expect(r.stderr).toBe("");
		expect(JSON.parse(r.stdout)).toMatchObject({ via: "pi", pid: expect.any(Number), newLeafId: ids.a1, oldLeafId: ids.a2, cancelled: false });
		expect((await pi.entries()).leafId).toBe(ids.a1);

		const ctx = arbor(["context", file, "--leaf", ids.a1, "--json"], env);
		expect(ctx.status).toBe(0);
		const shown = (JSON.parse(ctx.stdout) as { messages: { role: string; content: unknown }[] }).messages.filter((m) => m.role !== "system");
		pi.server.setScenario({ kind: "stream", chunks: ["Third answer."] });
		await pi.prompt("third question");
		const sent = pi.lastModelMessages().filter((m) => m.role !== "system");
		expect(sent.map((m) => ({ role: m.role, text: textOf(m.content) }))).toEqual([
			...shown.map((m) => ({ role: m.role, text: textOf(m.content) })),
			{ role: "user", text: "third question" },
		]);
	}, 120_000);

	it("send runs a turn in pi: the text is the model's last user message and the answer lands in the file", async () => {
		pi.server.setScenario({ kind: "stream", chunks: ["Answer ", "to send."] });
		const r = await arborAsync(["send", file, "hello from the command line", "--json"], env);
		expect(r.status).toBe(0);
		const out = JSON.parse(r.stdout) as { via: string; outcome: string; leafId: string; text: string };
		expect(out).toMatchObject({ via: "pi", outcome: "ended", text: "Answer to send.", stopReason: "stop" });
		const last = pi.lastModelMessages().at(-1)!;
		expect(last.role).toBe("user");
		expect(textOf(last.content)).toBe("hello from the command line");
		const written = fs
			.readFileSync(file, "utf8")
			.trim()
			.split("\n")
			.map((l) => JSON.parse(l) as { id?: string; message?: { content: unknown } });
		expect(textOf(written.find((l) => l.id === out.leafId)?.message?.content)).toBe("Answer to send.");
	}, 60_000);

	it("while pi runs a turn, the CLI's navigate, branch and send get the app's refusal word for word (the same steering), exit 5", async () => {
		pi.server.setScenario({ kind: "hang" });
		let settledFrom = pi.records.length;
		const asked = pi.modelRequests().length;
		await pi.send({ type: "prompt", message: "a long one" });
		const end = Date.now() + 30_000;
		while (pi.modelRequests().length === asked && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
		expect(pi.modelRequests().length).toBeGreaterThan(asked);
		const services = new ArborServices({ settingsDir: path.join(pi.home, ".arbor"), piAgentDir: pi.agentDir, watch: false });
		try {
			const { sessionId } = await services.openSession({ path: file });
			const app = {
				navigate: await services.navigate({ sessionId, targetId: ids.a1 }).catch((e: Error) => e),
				branch: await services
					.steering(sessionId)
					.fork({ entryId: ids.a1, position: "at" })
					.catch((e: Error) => e),
				send: await services.send({ sessionId, text: "more" }).catch((e: Error) => e),
			};
			for (const [command, args] of [
				["navigate", ["navigate", file, ids.a1]],
				["branch", ["branch", file, ids.a1]],
				["send", ["send", file, "more"]],
			] as const) {
				const err = app[command] as Error & { code?: string };
				expect(err.code, command).toBe("busy");
				const r = await arborAsync([...args], env);
				expect(r.status, command).toBe(5);
				expect(r.stderr.trim(), command).toBe(`arbor ${command}: ${err.message}`);
			}
			settledFrom = pi.records.length;
			expect((await services.abort({ sessionId })).wasStreaming).toBe(true);
		} finally {
			services.dispose();
		}
		// pi is idle again before the next test forks.
		await pi.waitFor("agent_settled", undefined, { from: settledFrom });
	}, 90_000);

	it("label and branch go through pi (branch: pi forks and moves to the new file)", async () => {
		const l = await arborAsync(["label", file, ids.u1, "checkpoint", "--json"], env);
		expect(l.status).toBe(0);
		expect(JSON.parse(l.stdout)).toMatchObject({ entryId: ids.u1, label: "checkpoint", via: "pi" });
		expect((await pi.entries()).entries.find((e) => e.type === "label" && e.targetId === ids.u1)).toMatchObject({ label: "checkpoint" });

		const b = await arborAsync(["branch", file, ids.a1, "--json"], env);
		expect(b.status).toBe(0);
		const out = JSON.parse(b.stdout) as { path: string; via: string };
		expect(out.via).toBe("pi");
		expect(await pi.sessionFile()).toBe(out.path);
		// pi's fork "at" copies the path root -> a1 into the new file, where pi now stands.
		const { entries, leafId } = await pi.entries();
		const msgs = entries.filter((e) => e.type === "message" && (e.message as { role: string }).role !== "system");
		expect(msgs.map((e) => textOf((e.message as { content: unknown }).content))).toEqual(["first question", "First answer."]);
		expect(leafId).toBe(entries.at(-1)!.id);
	}, 60_000);

	it("a killed pi leaves a stale registration: the next command removes it and acts on the file; send says no live agent holds it", async () => {
		const dir = path.join(pi.home, ".arbor", "live");
		const [reg] = fs.readdirSync(dir).filter((n) => n.endsWith(".json"));
		const { pid, socket } = JSON.parse(fs.readFileSync(path.join(dir, reg!), "utf8")) as { pid: number; socket: string };
		const newFile = await pi.sessionFile();
		process.kill(pid, "SIGKILL");
		await new Promise((r) => setTimeout(r, 200));
		expect(fs.existsSync(path.join(dir, reg!))).toBe(true);

		const s = arbor(["send", newFile, "anyone there?"], env);
		expect(s.status).toBe(4);
		expect(s.stderr).toMatch(/no live agent holds/);
		expect(fs.existsSync(path.join(dir, reg!))).toBe(false);
		expect(fs.existsSync(socket)).toBe(false);

		const n = arbor(["navigate", newFile, ids.u1, "--json"], env);
		expect(n.status).toBe(0);
		expect(JSON.parse(n.stdout)).toMatchObject({ via: "file" });
	}, 60_000);
});
