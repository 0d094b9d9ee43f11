// Long work in the main process runs in slices (electron/session/steps.ts): opening a big file and a first
// search give the thread back between slices, so the other open sessions keep answering. Results are the
// same as the one-piece calls; the order of answers shows the slicing.
import { afterEach, describe, expect, it } from "vitest";
import { SessionManager } from "../../session";
import { countTurns } from "../../session/test/helpers/turns";
import { assistant, tempDir, user, writeSession } from "./helpers/entries";
import { makeServices, type TestServices } from "./helpers/services";

let t: TestServices;
afterEach(() => t?.services.dispose());

/** A session of `n` entries of ~1 KB each: several scan chunks at the sizes used below. */
function bigSession(n: number): string {
	const entries = [user("u0", null, "start")];
	for (let i = 1; i < n; i++) {
		const parent = entries[i - 1]!.id as string;
		entries.push(i % 2 ? assistant(`a${i}`, parent, `answer ${i} ${"x".repeat(1000)}`) : user(`u${i}`, parent, `question ${i}`));
	}
	return writeSession(tempDir(), entries);
}

describe("opening in slices", () => {
	it("SessionManager.openCooperative builds the same session as open() and hands the thread back while reading", async () => {
		const file = bigSession(20_000);
		const turns = countTurns();
		const coop = await SessionManager.openCooperative(file, { sliceMs: 0 });
		turns.stop();
		expect(turns.count).toBeGreaterThan(1);
		const plain = SessionManager.open(file);
		expect(coop.getSkeleton()).toEqual(plain.getSkeleton());
		expect(coop.getWarnings()).toEqual(plain.getWarnings());
		expect(coop.getLeafId()).toBe(plain.getLeafId());
		expect(coop.buildSessionContext()).toEqual(plain.buildSessionContext());
		coop.close();
		plain.close();
	});

	it("the services answer another session while a big file opens, and two opens of one file share one session", async () => {
		t = makeServices({ sliceMs: 0 });
		const small = await t.services.openSession({ path: bigSession(10) });
		const big = bigSession(20_000);
		const order: string[] = [];
		const first = t.services.openSession({ path: big }).then((s) => {
			order.push("open");
			return s;
		});
		const again = t.services.openSession({ path: big });
		const entry = t.services.getEntry({ sessionId: small.sessionId, id: "u2" }).then(() => order.push("getEntry"));
		const [a, b] = await Promise.all([first, again, entry]);
		expect(order).toEqual(["getEntry", "open"]);
		expect(b.sessionId).toBe(a.sessionId);
		expect((await t.services.getSkeleton({ sessionId: a.sessionId })).count).toBe(20_000);
	});
});
