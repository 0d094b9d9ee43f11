// `arbor send FILE TEXT [--steer | --follow-up] [--json]`: a real turn in the live pi that holds FILE
// (docs/live.md): TEXT reaches pi's model as the user's message, the answer lands in FILE through pi, and
// the command returns when the turn ends. Without a live pi it says so (exit 4) and writes nothing.

import { flag, parseCommandArgs, positionals, UsageError } from "../args";
import { EXIT_NO_LIVE, liveExitCode, liveHolder, noteOthers } from "../live";
import { errorText } from "../../../shared/guards";
import type { AssistantMessage } from "../../../shared/entries";

export const sendUsage = `Usage: arbor send FILE TEXT [--steer | --follow-up] [--json]

Send TEXT to the running pi that holds FILE (pi with Arbor's extension: pi -e "$(arbor pi-extension)"),
as if typed in pi, and wait for the turn to end. Prints the assistant's last answer.

Options:
  --steer       pi is mid-turn: deliver TEXT after its current tool calls (pi's steer)
  --follow-up   pi is mid-turn: deliver TEXT when the turn ends (pi's follow-up)
  --json        print {"via":"pi","pid","outcome","leafId","stopReason","text"}
  -h, --help    show this help
Exit codes: 0 the turn ended, 1 usage, 3 the model failed or the turn was stopped, 4 no live agent holds
FILE (nothing was written), 5 pi is mid-turn (use --steer / --follow-up) or refused.`;

export async function sendCommand(argv: string[]): Promise<number> {
	const args = parseCommandArgs(argv, { steer: { type: "boolean" }, "follow-up": { type: "boolean" }, json: { type: "boolean" } }, sendUsage);
	if (flag(args, "help")) {
		process.stdout.write(`${sendUsage}\n`);
		return 0;
	}
	const [file, text] = positionals(args, ["FILE", "TEXT"], 0, sendUsage);
	if (!text?.trim()) throw new UsageError("TEXT is empty", sendUsage);
	if (flag(args, "steer") && flag(args, "follow-up")) throw new UsageError("--steer and --follow-up exclude each other", sendUsage);
	const json = flag(args, "json");
	const fail = (code: number, message: string): number => {
		if (json) process.stdout.write(`${JSON.stringify({ error: message })}\n`);
		process.stderr.write(`arbor send: ${message}\n`);
		return code;
	};
	let live;
	try {
		live = await liveHolder(file as string);
	} catch (err) {
		return fail(liveExitCode(err), errorText(err));
	}
	if (!live)
		return fail(
			EXIT_NO_LIVE,
			`no live agent holds ${file}: start pi on it with Arbor's extension (pi -e "$(arbor pi-extension)" --session FILE); nothing was written`,
		);
	const { conn, otherPids } = live;
	noteOthers(conn, otherPids);
	let answer: AssistantMessage | null = null;
	conn.onEvent((e) => {
		if (e.type === "message_update" && e.phase === "end") answer = e.stream.message;
	});
	try {
		const deliverAs = flag(args, "steer") ? "steer" : flag(args, "follow-up") ? "followUp" : undefined;
		const r = await conn.request({ name: "send", text: text as string, wait: "end", ...(deliverAs ? { deliverAs } : {}) });
		const last = answer as AssistantMessage | null;
		const said = last ? last.content.map((b) => (b.type === "text" ? (b as { text: string }).text : "")).join("") : "";
		if (json) {
			process.stdout.write(`${JSON.stringify({ via: "pi", pid: conn.registration.pid, ...r, text: said })}\n`);
		} else {
			if (r.outcome === "queued") process.stdout.write(`queued in pi ${conn.registration.pid} (${deliverAs})\n`);
			else process.stdout.write(`${said}\n`);
			if (r.errorMessage) process.stderr.write(`arbor send: ${r.errorMessage}\n`);
		}
		return r.stopReason === "error" || r.stopReason === "aborted" ? 3 : 0;
	} catch (err) {
		return fail(liveExitCode(err), errorText(err));
	} finally {
		conn.close();
	}
}
