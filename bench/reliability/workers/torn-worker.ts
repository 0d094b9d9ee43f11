// Torn-append worker (bench/reliability/torn.mjs): one Arbor process on a session file, chosen by env.
//   TORN_MODE=append  TORN_COUNT, TORN_SIZE: appends user messages, printing each id once acknowledged.
//   TORN_MODE=read    TORN_STOP (a file): opens and walks the session until the stop file exists; prints the count.
//   TORN_MODE=label   one label on the leaf (Arbor's "next write").
//   TORN_KILL_AT=N    (append) the first write to the session file stops after N bytes and the process kills
//                     itself (SIGKILL), as the kernel can stop a large write at a fatal signal.
import { createRequire } from "node:module";
import { SessionManager } from "../../../electron/session/index";

// The CommonJS module object (the bundle calls its properties at call time), so writeSync can be wrapped.
const fs = createRequire(__filename)("node:fs") as typeof import("node:fs");

const file = process.env.TORN_FILE as string;
if (process.env.TORN_KILL_AT !== undefined) {
	const at = Number(process.env.TORN_KILL_AT);
	const ino = fs.statSync(file).ino;
	const write = fs.writeSync;
	(fs as { writeSync: unknown }).writeSync = (fd: number, buf: Buffer, off = 0, len = buf.length - off, pos: number | null = null): number => {
		if (fs.fstatSync(fd).ino !== ino || len <= at) return write(fd, buf, off, len, pos);
		if (at > 0) write(fd, buf, off, at, pos);
		process.kill(process.pid, "SIGKILL");
		return 0;
	};
}
const { existsSync } = fs;
const mode = process.env.TORN_MODE;
if (mode === "append") {
	const sm = SessionManager.open(file);
	const count = Number(process.env.TORN_COUNT ?? 1);
	const size = Number(process.env.TORN_SIZE ?? 1000);
	for (let i = 0; i < count; i++) {
		const id = sm.appendMessage({ role: "user", content: `${process.pid}-${i} ${String(i % 10).repeat(size)}`, timestamp: Date.now() });
		process.stdout.write(`${id}\n`);
	}
} else if (mode === "read") {
	let n = 0;
	while (!existsSync(process.env.TORN_STOP as string)) {
		const sm = SessionManager.open(file);
		sm.getTree();
		sm.catchUp();
		sm.close();
		n++;
	}
	process.stdout.write(String(n));
} else if (mode === "label") {
	const sm = SessionManager.open(file);
	const leaf = sm.getLeafId();
	if (leaf) sm.appendLabelChange(leaf, "next write");
}
