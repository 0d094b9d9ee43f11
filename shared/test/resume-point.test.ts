// Resume point status (shared/resume-point.ts): a saved position stays deliberate through the bookkeeping lines
// under it, and only through them (issue 39 item 3: a label under the marker made it "stale").
import { describe, expect, it } from "vitest";
import { resumePointStatus } from "../resume-point";
import { EntryKind } from "../skeleton";

const { user, assistant, custom, label, usage, modelChange, sessionInfo } = EntryKind;

/** Columns from [kind, parent index] rows; the last row is the resume leaf. `marker`: indices of saved positions. */
function status(rows: Array<[number, number]>, marker: number[]) {
	const parent = Int32Array.from(rows.map(([, p]) => p));
	const kind = Uint8Array.from(rows.map(([k]) => k));
	return resumePointStatus({ count: rows.length, parent, kind, resumeLeaf: rows.length - 1 }, (i) => marker.includes(i));
}

// 0 u1, 1 a1 | old branch: 2 u2, 3 a2 | newest conversation: 4 u3, 5 a3 (index 5).
const base: Array<[number, number]> = [
	[user, -1],
	[assistant, 0],
	[user, 1],
	[assistant, 2],
	[user, 1],
	[assistant, 4],
];

describe("a saved position away from the newest conversation", () => {
	it("is deliberate on itself and through every bookkeeping line under it", () => {
		expect(status([...base, [custom, 3]], [6])).toMatchObject({ stale: false, suggested: -1 });
		expect(status([...base, [custom, 3], [label, 6]], [6])).toMatchObject({ stale: false, suggested: -1 });
		expect(status([...base, [custom, 3], [label, 6], [label, 7], [usage, 8]], [6])).toMatchObject({ stale: false });
		expect(status([...base, [custom, 3], [modelChange, 6], [sessionInfo, 7]], [6])).toMatchObject({ stale: false });
	});

	it("is stale when the bookkeeping line hangs beside the marker, not under it", () => {
		// The label hangs on a2 (a sibling of the marker), the marker is not on its path.
		expect(status([...base, [custom, 3], [label, 3]], [6])).toMatchObject({ stale: true, suggested: 5 });
	});

	it("is stale when a conversation entry lies between the marker and the resume leaf (the walk stops there)", () => {
		// marker 6 on a2, then an old user message 7 (not the newest conversation: 8 is newer) and a label under it.
		const rows: Array<[number, number]> = [...base, [custom, 3], [user, 6], [user, 1], [label, 7]];
		expect(status(rows, [6])).toMatchObject({ stale: true, suggested: 8 });
	});

	it("an ordinary custom line (not a saved position) is not deliberate", () => {
		expect(status([...base, [custom, 3], [label, 6]], [])).toMatchObject({ stale: true, suggested: 5 });
	});

	it("on the newest conversation's branch nothing is stale, with or without a marker", () => {
		expect(status([...base, [label, 5]], [])).toMatchObject({ stale: false });
		expect(status([...base, [custom, 5], [label, 6]], [6])).toMatchObject({ stale: false });
	});
});
