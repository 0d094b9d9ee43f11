// Error-path worker, services side: opens a session through ArborServices (what the UI talks to), lets
// the parent break the file (delete it, replace it, fill the disk, make it read-only), then runs writing
// requests and reports what the user would see: the typed error's code and message, or success.
//
// IPC: { open: { file, home } } -> { opened, sessionId, ids, userIds }
//      { act: "setLabel" | "appendUserMessage" | "branchToFile" | "savePosition", entryId?, text? } -> { acted, ok, error? }

import { ArborServices } from "../../../electron/services/index";
import { describeError } from "./common";
import { errorText } from "../../../shared/guards";

let services: ArborServices | undefined;
let sessionId = "";

interface Open {
	open: { file: string; home: string };
}
interface Act {
	act: "setLabel" | "appendUserMessage" | "branchToFile" | "savePosition";
	entryId?: string;
	text?: string;
}

async function handle(m: Open | Act): Promise<unknown> {
	if ("open" in m) {
		services = new ArborServices({ settingsDir: `${m.open.home}/.arbor`, piAgentDir: `${m.open.home}/.pi/agent`, watch: false });
		const s = await services.openSession({ path: m.open.file });
		sessionId = s.sessionId;
		const sk = await services.getSkeleton({ sessionId });
		const userIds = sk.ids.filter((_, i) => sk.kind[i] === 0);
		return { opened: true, sessionId, ids: sk.ids.slice(0, 50), userIds: userIds.slice(0, 20) };
	}
	const sv = services!;
	try {
		let result: unknown;
		if (m.act === "setLabel") result = await sv.setLabel({ sessionId, entryId: m.entryId!, label: m.text ?? "label" });
		else if (m.act === "appendUserMessage") result = await sv.appendUserMessage({ sessionId, text: m.text ?? "hello" });
		else if (m.act === "branchToFile") result = await sv.branchToFile({ sessionId, entryId: m.entryId! });
		else result = await sv.savePosition({ sessionId });
		return { acted: true, ok: true, result: JSON.parse(JSON.stringify(result ?? null)) };
	} catch (err) {
		const e = err as Error & { code?: unknown; file?: unknown };
		return { acted: true, ok: false, typed: e?.name === "ArborServiceError", code: String(e?.code ?? ""), message: errorText(err), detail: describeError(err) };
	}
}

process.on("message", (m: Open | Act) => {
	handle(m).then(
		(r) => process.send?.(r),
		(err: unknown) => process.send?.({ opened: true, acted: true, fatal: describeError(err) }),
	);
});
process.send?.({ ready: true });
