// `arbor send FILE TEXT [--steer | --follow-up] [--json]`: a real turn in the live pi that holds FILE
// (docs/live.md): TEXT reaches pi's model as the user's message, the answer lands in FILE through pi, and
// the command returns when the turn ends. Without a live pi it says so (exit 4) and writes nothing. Steered
// like the app's Send (electron/services/steering).

import { printError, printJsonLine, printLine, printText, printUsage } from "../io";
import { flag, parseCommandArgs, positionals, UsageError } from "../args";
import { EXIT_NO_LIVE, openForSteering, SteeringExit, steeringFailure } from "../live";
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
		printUsage(sendUsage);
		return 0;
	}
	const [file, text] = positionals(args, ["FILE", "TEXT"], 0, sendUsage);
	if (!text?.trim()) throw new UsageError("TEXT is empty", sendUsage);
	if (flag(args, "steer") && flag(args, "follow-up")) throw new UsageError("--steer and --follow-up exclude each other", sendUsage);
	const json = flag(args, "json");
	let steered;
	try {
		steered = await openForSteering(file, sendUsage);
	} catch (err) {
		return steeringFailure("send", err, sendUsage, json);
	}
	const { services, sessionId, steering } = steered;
	try {
		if (steering.via === "file")
			throw new SteeringExit(
				EXIT_NO_LIVE,
				`no live agent holds ${file}: start pi on it with Arbor's extension (pi -e "$(arbor pi-extension)" --session FILE); nothing was written`,
			);
		let answer: AssistantMessage | null = null;
		services.onEvent((e) => {
			if (e.type === "live_stream" && e.sessionId === sessionId && e.phase === "end") answer = e.message;
		});
		const deliverAs = flag(args, "steer") ? "steer" : flag(args, "follow-up") ? "followUp" : undefined;
		const r = await steering.send({ text: text as string, wait: "end", ...(deliverAs ? { deliverAs } : {}) });
		const last = answer as AssistantMessage | null;
		const said = last ? last.content.map((b) => (b.type === "text" ? (b as { text: string }).text : "")).join("") : "";
		if (json) {
			printJsonLine(JSON.stringify({ ...r, text: said }));
		} else {
			if (r.outcome === "queued") printLine(`queued in pi ${r.pid} (${deliverAs})`);
			else printText(said);
			if (r.errorMessage) printError(`arbor send: ${r.errorMessage}`);
		}
		return r.stopReason === "error" || r.stopReason === "aborted" ? 3 : 0;
	} catch (err) {
		return steeringFailure("send", err, sendUsage, json);
	} finally {
		steered.close();
	}
}
