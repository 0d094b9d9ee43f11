// Load worker (figure 8). Modes:
//  - "open": open a big session through the services the UI uses (ArborServices: core load + skeleton),
//    report open time, skeleton time and peak RSS;
//  - "live": then keep asking the requests the UI makes while another process appends to the file, and
//    report their latency and when each appended entry reached the client (session_appended events);
//  - "library": list a folder tree of session files with the session library.
// Peak RSS is the process's high-water mark (getrusage maxrss), so it covers everything this process did.
//
// IPC: { mode: "open", file, home } -> { opened, ... }; then { live: true, ms } -> { liveDone, ... };
//      { mode: "library", agentDir, home } -> { listed, ... }.

import type { ArborEvent } from "../../../shared/api";
import { ArborServices } from "../../../electron/services/index";
import { listSessions } from "../../../electron/session/library";
import { describeError, rng } from "./common";

let services: ArborServices | undefined;
let sessionId = "";
let count = 0;
let ids: string[] = [];
const seenAt = new Map<string, number>();
const eventCounts: Record<string, number> = {};

const rssPeak = (): number => process.resourceUsage().maxRSS * 1024;

async function open(file: string, home: string): Promise<unknown> {
	services = new ArborServices({ settingsDir: `${home}/.arbor`, piAgentDir: `${home}/.pi/agent`, watch: true, pollMs: 250 });
	services.onEvent((e: ArborEvent) => {
		eventCounts[e.type] = (eventCounts[e.type] ?? 0) + 1;
		if (e.type === "session_appended") {
			const now = Date.now();
			for (const id of e.delta.ids) seenAt.set(id, now);
		}
	});
	const t0 = performance.now();
	const s = await services.openSession({ path: file });
	const tOpen = performance.now() - t0;
	sessionId = s.sessionId;
	const t1 = performance.now();
	const sk = await services.getSkeleton({ sessionId });
	const tSkeleton = performance.now() - t1;
	count = sk.count;
	ids = sk.ids;
	const t2 = performance.now();
	await services.getPreviews({ sessionId, indices: Array.from({ length: 2000 }, (_, i) => Math.max(0, sk.count - 1 - i)) });
	const tPreviews = performance.now() - t2;
	return { opened: true, entries: sk.count, openMs: tOpen, skeletonMs: tSkeleton, previewsMs: tPreviews, rss: rssPeak(), heap: process.memoryUsage().heapUsed };
}

async function live(ms: number): Promise<unknown> {
	const sv = services!;
	const r = rng("live");
	const names = ["getPreviews", "getEntry", "getContext", "previewNavigation"] as const;
	const byName: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
	const end = Date.now() + ms;
	while (Date.now() < end) {
		const which = r.int(0, 3);
		const t0 = performance.now();
		if (which === 0) await sv.getPreviews({ sessionId, indices: Array.from({ length: 200 }, () => r.int(0, count - 1)) });
		else if (which === 1) await sv.getEntry({ sessionId, id: r.pick(ids) });
		else if (which === 2) await sv.getContext({ sessionId, leafId: r.pick(ids) });
		else await sv.previewNavigation({ sessionId, targetId: r.pick(ids) });
		byName[names[which]!]!.push(performance.now() - t0);
		// Yield like a UI would between interactions, so the watcher's timer gets its turn.
		await new Promise((ok) => setTimeout(ok, 5));
	}
	const stats = (lat: number[]) => {
		lat.sort((a, b) => a - b);
		const q = (p: number) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))] ?? Number.NaN;
		return { n: lat.length, p50: q(0.5), p99: q(0.99), max: lat[lat.length - 1] ?? Number.NaN };
	};
	// Interactions: what selecting, scrolling and hovering do. getContext builds the whole conversation up
	// to an entry (tens of thousands of messages deep in a big session): reported on its own.
	const interactive = stats([...byName.getPreviews!, ...byName.getEntry!, ...byName.previewNavigation!]);
	return {
		liveDone: true,
		...interactive,
		requests: interactive.n,
		context: stats(byName.getContext!),
		perRequest: Object.fromEntries(names.map((n) => [n, stats(byName[n]!)])),
		events: eventCounts,
		seenAt: Object.fromEntries(seenAt),
		rss: rssPeak(),
	};
}

/**
 * Waits until every id another process appended has arrived as a session_appended event (the watcher's
 * catch-up), however long a busy machine makes that take (cap: 120 s): whether they all arrive is the
 * figure, how fast is a latency reported beside it.
 */
async function settle(expected: string[]): Promise<unknown> {
	const end = Date.now() + 120_000;
	while (expected.some((id) => !seenAt.has(id)) && Date.now() < end) await new Promise((ok) => setTimeout(ok, 50));
	return { settled: true, seenAt: Object.fromEntries(seenAt) };
}

function library(agentDir: string, home: string): unknown {
	const runs: number[] = [];
	let n = 0;
	for (let k = 0; k < 3; k++) {
		const t0 = performance.now();
		const items = listSessions(undefined, { env: { PI_CODING_AGENT_DIR: agentDir }, home });
		runs.push(performance.now() - t0);
		n = items.length;
	}
	return { listed: true, files: n, ms: runs, rss: rssPeak() };
}

process.on("message", (m: { mode?: string; live?: boolean; ms?: number; file?: string; home?: string; agentDir?: string; settle?: string[] }) => {
	const p = m.settle
		? settle(m.settle)
		: m.live
			? live(m.ms ?? 10_000)
			: m.mode === "open"
				? open(m.file!, m.home!)
				: Promise.resolve(library(m.agentDir!, m.home!));
	p.then(
		(r) => process.send?.(r),
		(err: unknown) => process.send?.({ opened: true, liveDone: true, listed: true, settled: true, fatal: describeError(err) }),
	);
});
process.send?.({ ready: true });
