// Library counts above 8 MB are listed as estimates ("≈") and refined in the background (issue #11):
// counted in cooperative slices after listSessions answers, sent as library_counts events, and exact on
// the next listing while the file keeps its size and mtime.
import { appendFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { exactEntryCountSteps } from "../../session/library";
import { runSteps } from "../../session/steps";
import { assistant, tempDir, user, writeSession } from "./helpers/entries";
import { makeServices, type TestServices } from "./helpers/services";

let t: TestServices;
afterEach(() => t?.services.dispose());

function big(dir: string, n: number): string {
	const entries = [user("u0", null, "start")];
	for (let i = 1; i < n; i++) entries.push(assistant(`a${i}`, entries[i - 1]!.id as string, `answer ${i} ${"x".repeat(1000 + (i % 700))}`));
	return writeSession(dir, entries, "big.jsonl");
}

describe("library counts", () => {
	it("refines a ≈ count to the exact one in the background, answering other requests meanwhile", async () => {
		t = makeServices({ sliceMs: 0 });
		const dir = tempDir();
		const file = big(dir, 9000);
		const small = await t.services.openSession({ path: writeSession(tempDir(), [user("u0", null, "hi"), user("u1", "u0", "there")]) });
		const [first] = await t.services.listSessions({ dirs: [dir] });
		expect(first).toMatchObject({ path: file, entryCountExact: false });
		expect(first!.size).toBeGreaterThan(8 * 1024 * 1024);
		const order: string[] = [];
		const counted = new Promise<void>((ok) => {
			const off = t.services.onEvent((e) => {
				if (e.type !== "library_counts") return;
				order.push("counts");
				off();
				ok();
			});
		});
		await t.services.getEntry({ sessionId: small.sessionId, id: "u1" }).then(() => order.push("getEntry"));
		await counted;
		expect(order).toEqual(["getEntry", "counts"]);
		expect(t.of("library_counts")).toEqual([
			{ type: "library_counts", counts: [{ path: file, entryCount: 9000, size: first!.size, mtimeMs: first!.mtimeMs }] },
		]);
		// The next listing says it exactly, without counting again.
		const [again] = await t.services.listSessions({ dirs: [dir] });
		expect(again).toMatchObject({ entryCount: 9000, entryCountExact: true });
		// A file that changed is an estimate again until it is recounted.
		appendFileSync(file, `${JSON.stringify(assistant("a9000", "a8999", "more"))}\n`);
		const [changed] = await t.services.listSessions({ dirs: [dir] });
		expect(changed!.entryCountExact).toBe(false);
		await expect.poll(() => t.of("library_counts").length).toBe(2);
		expect(t.of("library_counts")[1]!.counts[0]!.entryCount).toBe(9001);
	});

	it("exactEntryCountSteps counts entry lines (not the header) and yields once per 1 MB read", () => {
		const file = big(tempDir(), 3000);
		let yields = 0;
		const steps = exactEntryCountSteps(file);
		let r = steps.next();
		while (!r.done) {
			yields++;
			r = steps.next();
		}
		expect(r.value?.entryCount).toBe(3000);
		expect(yields).toBeGreaterThanOrEqual(3);
		expect(runSteps(exactEntryCountSteps(`${file}.missing`))).toBeNull();
	});
});
