import { describe, expect, it } from "vitest";
import { EntryFlag, EntryKind } from "../../../shared/skeleton";
import { cardText, flagMarkers, formatLabelTime, formatTokens, kindStyle, segmentHasError, segmentSummary } from "../cards";
import { skeletonOf } from "./helpers";

describe("card text", () => {
	const s = skeletonOf([
		{ kind: EntryKind.user, parent: -1 },
		{ kind: EntryKind.toolResult, parent: 0, flags: EntryFlag.error },
		{ kind: EntryKind.compaction, parent: 1 },
	]);
	s.tokens[2] = 12_400;

	it("shows pi's row text, without the role prefix the card header already names", () => {
		expect(cardText(s, 0, "user: fix the parser")).toBe("fix the parser");
		expect(cardText(s, 1, "[read: src/a.ts:1-40]")).toBe("[read: src/a.ts:1-40]");
	});

	it("describes a compaction from the skeleton before its preview arrives", () => {
		expect(cardText(s, 2, undefined)).toBe("[compaction: 12k tokens]");
		expect(cardText(s, 0, undefined)).toBe("…");
	});

	it("names every entry kind, unknown codes included", () => {
		for (const code of Object.values(EntryKind)) expect(kindStyle(code).title).not.toBe("");
		expect(kindStyle(200).title).toBe("unknown entry");
	});

	it("marks errors, aborted turns and file damage from the flags", () => {
		const cls = flagMarkers(EntryFlag.error | EntryFlag.aborted | EntryFlag.orphan | EntryFlag.hasThinking | EntryFlag.hasToolCalls).map((m) => m.cls);
		expect(cls).toEqual(["error", "aborted", "thinking", "tools", "warn"]);
		expect(flagMarkers(0)).toEqual([]);
	});

	it("summarizes what a segment hides, errors included", () => {
		expect(segmentSummary(s, [0, 1])).toBe("1 user, 1 tool result; 1 error");
		expect(segmentHasError(s, [0, 1])).toBe(true);
		expect(segmentHasError(s, [0, 2])).toBe(false);
	});
});

describe("formats", () => {
	it("prints label times like pi: HH:MM today, M/D HH:MM this year, YY/M/D HH:MM before", () => {
		const now = new Date(2026, 10, 30, 15, 0).getTime();
		expect(formatLabelTime(new Date(2026, 10, 30, 9, 5).getTime(), now)).toBe("09:05");
		expect(formatLabelTime(new Date(2026, 2, 4, 18, 30).getTime(), now)).toBe("3/4 18:30");
		expect(formatLabelTime(new Date(2024, 0, 2, 7, 1).getTime(), now)).toBe("24/1/2 07:01");
		expect(formatLabelTime(Number.NaN, now)).toBe("");
	});

	it("rounds token counts", () => {
		expect(formatTokens(0)).toBe("");
		expect(formatTokens(850)).toBe("850 tok");
		expect(formatTokens(12_400)).toBe("12k tok");
	});
});
